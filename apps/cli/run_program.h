// The part of `needle run` every app shares, once the shard set is open: run the program,
// write --out, print the --top summary, check the values against the app's serial oracle for
// --verify, and pick the exit status. An app (apps/cli/*_app.cc) supplies an AppOutput.
#pragma once

#include <bit>
#include <cstdio>
#include <functional>
#include <span>
#include <string>

#include "apps/cli/run_config.h"
#include "apps/cli/verify.h"
#include "engine/engine.h"

namespace needle::cli {

inline constexpr int kExitNotConverged = 3;
inline constexpr int kExitVerifyFailed = 4;

static_assert(std::endian::native == std::endian::little, ".npy output is written as '<' types");

template <class Program>
struct AppOutput {
  using Value = typename Program::VertexValue;
  // Appends "\tvalue..." of one vertex to its --out line.
  std::function<void(const Value&, std::string&)> format;
  // The names of those values, tab-separated, for the --out header ("vertex\t" + header).
  std::string header;
  // The program's parameters for the --stats summary: "tolerance=0.0001 damping=0.85".
  std::string parameters;
  // --out FILE.npy (numpy's '<' types: this build's byte order, checked below): the type of the values, their count per vertex (0: one, a 1-D array),
  // and what appends one vertex's values, little-endian.
  std::string npy_descr;
  uint64_t npy_columns = 0;
  std::function<void(const Value&, std::string&)> binary;
  // Prints the --top K summary.
  std::function<void(Engine<Program>&)> top;
  // What an iteration's changed_vertices count, for the progress line (every pass of an
  // interval counts its changes): "rank updates sent", "label changes".
  std::string changed = "vertices changed";
  // What --verify compares with, for messages: "a double-precision power iteration".
  std::string oracle;
  // Doubles the oracle holds per vertex (for the memory check before the run).
  uint64_t oracle_values_per_vertex = 1;
  // Empty when the run's values agree with the oracle's on `g`, else the first difference.
  std::function<std::string(const Csr& g, Engine<Program>&)> verify;
};

// All values of a finished run, in vertex order (for the oracle comparisons).
template <class Program, class F>
auto GatherValues(Engine<Program>& engine, F&& pick) {
  std::vector<decltype(pick(std::declval<const typename Program::VertexValue&>()))> all;
  engine.ForEachInterval([&](VertexId, std::span<const typename Program::VertexValue> v) {
    for (const auto& x : v) all.push_back(pick(x));
  });
  return all;
}

// "\t0.123456789" or "\tinf".
void AppendNumber(std::string& line, double value);

template <class Program>
int RunProgram(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
               RunOutputs& outputs, Program program, const AppOutput<Program>& app) {
  if (c.verify) {
    CheckCanVerify(set, app.oracle_values_per_vertex, c.memory.bytes, options.threads);
  }
  EngineOptions o = options;
  outputs.reporter.DescribeMeasure(app.changed, ReportsChange<Program>);
  o.on_iteration = [&](const IterationStats& s) { outputs.reporter.Iteration(s); };
  if (outputs.reporter.draws()) {
    o.on_interval = [&](const IntervalProgress& p) { outputs.reporter.Interval(p); };
  }
  Engine<Program> engine(set, std::move(program), o);
  RunSummary summary = engine.Run();
  summary.program = c.app;
  summary.command = c.command;
  summary.parameters = app.parameters;
  outputs.reporter.Finish(summary);
  std::fprintf(c.say, "%s: %s\n", c.app.c_str(), DescribeRun(summary).c_str());
  // --verify runs before --out is written, so that values that failed the check say so.
  std::string difference;
  if (c.verify && summary.converged) {
    std::fprintf(c.say, "verifying against %s on %s...\n", app.oracle.c_str(),
                 set.manifest().input.path.c_str());
    std::fflush(c.say);
    difference = app.verify(LoadVerifyGraph(set, options.threads), engine);
    if (difference.empty()) {
      std::fprintf(c.say, "verified: %s agrees with %s\n", c.app.c_str(), app.oracle.c_str());
    }
  }
  const std::string failed =
      difference.empty() ? ""
                         : "--verify: " + c.app + " differs from " + app.oracle + ": " + difference;
  OutputFile* npy =
      outputs.values && outputs.values->path().ends_with(".npy") ? &*outputs.values : nullptr;
  if (npy != nullptr && (!summary.converged || !failed.empty())) {
    // An array cannot say that it is not the answer: none is written (the temporary goes).
    std::fprintf(stderr, "needle: %s not written: the values are not the answer (give a .tsv "
                 "to keep them, marked)\n", npy->path().c_str());
  } else if (npy != nullptr) {
    npy->Write(NpyHeader(app.npy_descr, set.manifest().num_vertices, app.npy_columns));
    std::string bytes;
    engine.ForEachInterval([&](VertexId, std::span<const typename Program::VertexValue> v) {
      bytes.clear();
      for (const auto& x : v) app.binary(x, bytes);
      npy->Write(bytes);
    });
    npy->Commit();
    std::fprintf(c.say, "wrote %s\n", npy->path().c_str());
  } else if (OutputFile* out = outputs.values ? &*outputs.values : nullptr) {
    // Values that are not the answer say so in the file's first line, not only here.
    if (!summary.converged) out->Write("# " + NotConvergedMarker(c.app, summary) + "\n");
    if (!failed.empty()) out->Write("# needle: " + failed + "\n");
    // A header line, so that table readers name the columns (and '#' lines are comments).
    out->Write("vertex\t" + app.header + "\n");
    std::string line;
    engine.ForEachInterval([&](VertexId first, std::span<const typename Program::VertexValue> v) {
      for (size_t i = 0; i < v.size(); ++i) {
        line = std::to_string(first + i);
        app.format(v[i], line);
        line += '\n';
        out->Write(line);
      }
    });
    out->Commit();
    if (!out->is_stdout()) std::fprintf(c.say, "wrote %s\n", out->path().c_str());
  }
  if (c.top.value > 0) app.top(engine);
  if (!summary.converged) {
    std::fprintf(stderr, "needle: %s\n", NotConvergedMarker(c.app, summary).c_str());
    if (c.verify) std::fprintf(stderr, "needle: --verify: not checked, the run did not converge\n");
    return kExitNotConverged;
  }
  if (!failed.empty()) {
    std::fprintf(stderr, "needle: %s\n", failed.c_str());
    return kExitVerifyFailed;
  }
  return 0;
}

}  // namespace needle::cli
