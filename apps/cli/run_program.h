// The part of `needle run` every app shares, once the shard set is open: run the program,
// write --out, print the --top summary, check the values against the app's serial oracle for
// --verify, and pick the exit status. An app (apps/cli/*_app.cc) supplies an AppOutput.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "apps/cli/run_config.h"
#include "apps/cli/verify.h"
#include "engine/engine.h"
#include "shards/shard_set.h"

namespace needle::cli {

inline constexpr int kExitNotConverged = 3;
inline constexpr int kExitVerifyFailed = 4;
inline constexpr int kExitOutOfRange = 5;  // AppOutput::representable said why

static_assert(std::endian::native == std::endian::little, ".npy output is written as '<' types");

// A finished run's values by input id, for --out, --top and --verify: the engine's own, an
// interval at a time, when the set keeps the input's order. For a set in another order
// (--order bfs) they are put in input order through order.bin in pieces of at most
// `piece_bytes`, each piece one scan of the engine's values (so a graph whose values exceed
// the budget takes several), with `to_input_ids` applied (values that are vertex ids, such as
// CC's labels, turned into input ids).
template <class Program>
class RunValues {
 public:
  using Value = typename Program::VertexValue;
  using Block = std::function<void(VertexId first, std::span<const Value>)>;
  // Calls a Block over every interval of the set, in the set's ids.
  using Scan = std::function<void(const Block&)>;
  // Given a scan and the input ids, what turns one value into input ids.
  using ToInputIds =
      std::function<std::function<void(Value&)>(const Scan&, std::span<const VertexId>)>;
  // The bytes a reordered set holds besides its pieces: the input ids, and as much again for
  // to_input_ids; and the smallest piece.
  static constexpr uint64_t kBytesPerVertex = 2 * sizeof(VertexId);
  static constexpr uint64_t kMinPieceBytes = (uint64_t{1} << 16) * sizeof(Value);

  RunValues(const ShardSet& set, Engine<Program>& engine, ToInputIds to_input_ids,
            uint64_t piece_bytes)
      : set_(set),
        engine_(engine),
        to_input_ids_(std::move(to_input_ids)),
        piece_(std::max<uint64_t>(piece_bytes, kMinPieceBytes) / sizeof(Value)) {}

  // f(first input id, values of the ids from there), over all vertices in input order.
  template <class F>
  void ForEach(F&& f) {
    if (!set_.reordered()) {
      engine_.ForEachInterval(f);
      return;
    }
    const uint64_t n = set_.manifest().num_vertices;
    if (input_ids_.empty() && n > 0) {
      input_ids_ = set_.InputIds();
      if (to_input_ids_) {
        relabel_ = to_input_ids_([this](const Block& block) { engine_.ForEachInterval(block); },
                                 input_ids_);
      }
    }
    std::vector<Value> piece;
    for (uint64_t begin = 0; begin < n; begin += piece_) {
      const uint64_t count = std::min<uint64_t>(piece_, n - begin);
      piece.resize(count);
      engine_.ForEachInterval([&](VertexId first, std::span<const Value> v) {
        for (size_t i = 0; i < v.size(); ++i) {
          const uint64_t at = uint64_t{input_ids_[first + i]} - begin;
          if (at < count) piece[at] = v[i];
        }
      });
      if (relabel_) {
        for (Value& x : piece) relabel_(x);
      }
      constexpr uint64_t kBlock = uint64_t{1} << 16;  // what f builds of a block stays small
      for (uint64_t at = 0; at < count; at += kBlock) {
        f(static_cast<VertexId>(begin + at),
          std::span<const Value>(piece).subspan(at, std::min(kBlock, count - at)));
      }
    }
  }

 private:
  const ShardSet& set_;
  Engine<Program>& engine_;
  ToInputIds to_input_ids_;
  uint64_t piece_;  // values per piece
  std::vector<VertexId> input_ids_;
  std::function<void(Value&)> relabel_;
};

// All values of a finished run, in input vertex order (for the oracle comparisons).
template <class Program, class F>
auto GatherValues(RunValues<Program>& values, F&& pick) {
  std::vector<decltype(pick(std::declval<const typename Program::VertexValue&>()))> all;
  values.ForEach([&](VertexId, std::span<const typename Program::VertexValue> v) {
    for (const auto& x : v) all.push_back(pick(x));
  });
  return all;
}

// Usage error before the run when a set in another order than the input's cannot put a run's
// values in input order (RunValues: `bytes_per_vertex` and a piece of `min_piece_bytes`)
// within `memory_bytes`.
void CheckCanReorder(const ShardSet& set, uint64_t bytes_per_vertex, uint64_t min_piece_bytes,
                     uint64_t memory_bytes);

// A set's ids of the input ids `ids` (the same ids for a set in input order).
std::vector<VertexId> SetIds(const ShardSet& set, const std::vector<VertexId>& ids);

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
  std::function<void(RunValues<Program>&)> top;
  // Turns values that are vertex ids of the set into input ids (RunValues); empty: none are.
  typename RunValues<Program>::ToInputIds to_input_ids;
  // What an iteration's changed_vertices count, for the progress line (every pass of an
  // interval counts its changes): "rank updates sent", "label changes".
  std::string changed = "vertices changed";
  // What --verify compares with, for messages: "a double-precision power iteration".
  std::string oracle;
  // Doubles the oracle holds per vertex (for the memory check before the run).
  uint64_t oracle_values_per_vertex = 1;
  // Empty when the run's values agree with the oracle's on `g`, else the first difference.
  std::function<std::string(const Csr& g, RunValues<Program>&)> verify;
  // Empty when every value can be what the program computes, else why not (a sum beyond the
  // range of the values' type). Unset: nothing to check.
  std::function<std::string(RunValues<Program>&)> representable;
};

// "\t0.123456789" or "\tinf".
void AppendNumber(std::string& line, double value);

template <class Program>
int RunProgram(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
               RunOutputs& outputs, Program program, const AppOutput<Program>& app) {
  if (c.verify) {
    CheckCanVerify(set, app.oracle_values_per_vertex, c.memory.bytes, options.threads);
  }
  if (c.verify || outputs.values || c.top.value > 0) {
    CheckCanReorder(set, RunValues<Program>::kBytesPerVertex, RunValues<Program>::kMinPieceBytes,
                    c.memory.bytes);
  }
  EngineOptions o = options;
  outputs.reporter.DescribeMeasure(app.changed, ReportsChange<Program>);
  o.on_iteration = [&](const IterationStats& s) { outputs.reporter.Iteration(s); };
  if (outputs.reporter.draws()) {
    o.on_interval = [&](const IntervalProgress& p) { outputs.reporter.Interval(p); };
  }
  Engine<Program> engine(set, std::move(program), o);
  RunSummary summary = engine.Run();
  // A reordered set's values go to input order in pieces of a quarter of the budget.
  RunValues<Program> values(set, engine, app.to_input_ids, c.memory.bytes / 4);
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
    difference = app.verify(LoadVerifyGraph(set, options.threads), values);
    if (difference.empty()) {
      std::fprintf(c.say, "verified: %s agrees with %s\n", c.app.c_str(), app.oracle.c_str());
    }
  }
  const std::string out_of_range =
      summary.converged && app.representable ? app.representable(values) : "";
  std::string failed;
  if (!out_of_range.empty()) {
    failed = c.app + ": values out of range: " + out_of_range;
  } else if (!difference.empty()) {
    failed = "--verify: " + c.app + " differs from " + app.oracle + ": " + difference;
  }
  OutputFile* npy =
      outputs.values && outputs.values->path().ends_with(".npy") ? &*outputs.values : nullptr;
  if (npy != nullptr && (!summary.converged || !failed.empty())) {
    // An array cannot say that it is not the answer: none is written (the temporary goes).
    std::fprintf(stderr, "needle: %s not written: the values are not the answer (give a .tsv "
                 "to keep them, marked)\n", npy->path().c_str());
  } else if (npy != nullptr) {
    npy->Write(NpyHeader(app.npy_descr, set.manifest().num_vertices, app.npy_columns));
    std::string bytes;
    values.ForEach([&](VertexId, std::span<const typename Program::VertexValue> v) {
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
    values.ForEach([&](VertexId first, std::span<const typename Program::VertexValue> v) {
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
  if (c.top.value > 0) app.top(values);
  if (!summary.converged) {
    std::fprintf(stderr, "needle: %s\n", NotConvergedMarker(c.app, summary).c_str());
    if (c.verify) std::fprintf(stderr, "needle: --verify: not checked, the run did not converge\n");
    return kExitNotConverged;
  }
  if (!failed.empty()) {
    std::fprintf(stderr, "needle: %s\n", failed.c_str());
    return out_of_range.empty() ? kExitVerifyFailed : kExitOutOfRange;
  }
  return 0;
}

}  // namespace needle::cli
