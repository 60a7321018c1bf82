// needle generate rmat: a synthetic graph, as text or .csr (chosen by the output's suffix).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/cli/cli_common.h"
#include "apps/cli/output_paths.h"
#include "apps/cli/commands.h"
#include "apps/cli/progress_bar.h"
#include "apps/cli/verbosity.h"
#include "io/output_file.h"
#include "loaders/csr_file.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"

namespace needle::cli {

int RunGenerate(const std::vector<std::string>& args) {
  std::string kind;
  std::string out;
  RmatOptions rmat;
  bool sorted = false;
  Whole<uint32_t> scale, edge_factor{16}, threads;
  Whole<uint64_t> seed{1};
  po::options_description options("generate options");
  auto add = options.add_options();
  add("kind", po::value(&kind)->required(), "generator: rmat");
  add("scale", po::value(&scale)->required(), "log2 of the vertex count (1..31)");
  add("edge-factor", po::value(&edge_factor)->default_value(Whole<uint32_t>{16}, "16"),
      "edges per vertex");
  add("seed", po::value(&seed)->default_value(Whole<uint64_t>{1}, "1"),
      "random seed (same seed, same graph)");
  add("weighted", po::bool_switch(&rmat.weighted), "integer weights uniform in [1, 255]");
  add("sorted", po::bool_switch(&sorted),
      "write edges sorted by source (default: generation order)");
  add("threads", po::value(&threads)->default_value(Whole<uint32_t>{0}, "0"),
      "worker threads (0: OpenMP default)");
  add("out,o", po::value(&out),
      "output file: .csr for needle's binary CSR, anything else for a text edge list; a device, "
      "FIFO or - (stdout) is written directly");
  add("output", po::value(&out), "the same as --out");
  Verbosity verbosity;
  AddVerbosityOptions(options, verbosity);
  po::positional_options_description positional;
  positional.add("kind", 1);
  if (!ParseCommandLine(args,
                        "needle generate rmat --scale S [--edge-factor F] [--seed N] "
                        "[--weighted] [--sorted] -o OUT\n\n"
                        "examples:\n"
                        "  needle generate rmat --scale 20 -o rmat20.csr     (1M vertices, "
                        "16M edges, binary)\n"
                        "  needle generate rmat --scale 16 --weighted -o w.wel\n\n"
                        "An R-MAT graph with Graph500's parameters (a=0.57, b=c=0.19): 2^S "
                        "vertices,\nF * 2^S directed edges, self-loops and duplicates kept, "
                        "ids scrambled. The same\noptions give the same graph at any thread "
                        "count. OUT ending in .csr gets needle's\nbinary CSR (the fastest "
                        "input); any other name a text edge list (u<TAB>v[<TAB>w]).",
                        options, positional)) {
    return 0;
  }
  CheckVerbosity(verbosity);
  if (kind != "rmat") throw UsageError("unknown generator '" + kind + "' (expected rmat)");
  if (out.empty()) throw UsageError("no output: give -o OUT (OUT.csr, a text file, or -)");
  if (scale.value < 1 || scale.value > 31) throw UsageError("--scale must be from 1 to 31");
  if (edge_factor.value < 1 || edge_factor.value > 1u << 20) {
    throw UsageError("--edge-factor must be from 1 to 1048576");
  }
  if (threads.value > 4096) throw UsageError("--threads must be at most 4096");
  rmat.scale = static_cast<int>(scale.value);
  rmat.edge_factor = static_cast<int>(edge_factor.value);
  rmat.seed = seed.value;
  const int threads_used = static_cast<int>(threads.value);
  CheckOutputs({{"--out", out}}, {});  // (not among a shard set's files)
  OutputFile output(out);  // before the work: a bad output path fails now

  const auto start = std::chrono::steady_clock::now();
  const bool binary = out.size() >= 4 && out.compare(out.size() - 4, 4, ".csr") == 0;
  // Phases numbered as they happen: a text file in input order is not built into a CSR.
  const bool build_csr = binary || sorted;
  const int writing = build_csr ? 3 : 2;
  ProgressBar bar(build_csr ? std::vector<std::string>{"generating", "building the CSR", "writing"}
                            : std::vector<std::string>{"generating", "writing"},
                  "edges", !verbosity.quiet);
  rmat.progress = [&bar](uint64_t done, uint64_t total) { bar.Update(1, done, total); };
  EdgeList edges = GenerateRmat(rmat, threads_used);
  auto written = [&bar, writing](uint64_t done, uint64_t total) {
    bar.Update(writing, done, total);
  };
  const std::string comment = "needle generate rmat --scale " + std::to_string(rmat.scale) +
                              " --edge-factor " + std::to_string(rmat.edge_factor) + " --seed " +
                              std::to_string(rmat.seed) + (rmat.weighted ? " --weighted" : "");
  if (build_csr) {
    bar.Update(2, 0, 0);
    CsrOptions csr_options;
    csr_options.count_duplicates = false;
    csr_options.threads = threads_used;
    Csr csr = BuildCsr(edges, csr_options);
    edges = EdgeList();  // free the edge buffers before writing
    bar.Update(3, 0, 0);
    if (binary) {
      WriteCsrFile(csr, output, threads_used);
    } else {
      WriteCsrAsEdgeListText(csr, output, comment, threads_used, written);
    }
  } else {
    bar.Update(writing, 0, 0);
    WriteEdgeListText(edges, output, comment, threads_used, written);
  }
  output.Commit();
  bar.Finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(
      MessagesTo(output.is_stdout() ? stderr : stdout, verbosity),
      "wrote %s: %llu vertices, %llu edges in %.2f s\n",
      out.c_str(), static_cast<unsigned long long>(uint64_t{1} << rmat.scale),
      static_cast<unsigned long long>(static_cast<uint64_t>(rmat.edge_factor) << rmat.scale),
      seconds);
  return 0;
}

}  // namespace needle::cli
