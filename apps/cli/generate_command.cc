// needle generate rmat: a synthetic graph, as text or .csr (chosen by the output's suffix).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/cli/cli_common.h"
#include "apps/cli/commands.h"
#include "loaders/csr_file.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"

namespace needle::cli {

int RunGenerate(const std::vector<std::string>& args) {
  std::string kind;
  std::string out;
  RmatOptions rmat;
  bool sorted = false;
  int threads = 0;
  po::options_description options("generate options");
  auto add = options.add_options();
  add("kind", po::value(&kind)->required(), "generator: rmat");
  add("scale", po::value(&rmat.scale)->required(), "log2 of the vertex count (1..31)");
  add("edge-factor", po::value(&rmat.edge_factor)->default_value(16), "edges per vertex");
  add("seed", po::value(&rmat.seed)->default_value(1), "random seed (same seed, same graph)");
  add("weighted", po::bool_switch(&rmat.weighted), "integer weights uniform in [1, 255]");
  add("sorted", po::bool_switch(&sorted),
      "write edges sorted by source (default: generation order)");
  add("threads", po::value(&threads)->default_value(0), "worker threads (0: OpenMP default)");
  add("output,o", po::value(&out)->required(),
      "output file: .csr for needle's binary CSR, anything else for a text edge list");
  po::positional_options_description positional;
  positional.add("kind", 1);
  if (!ParseCommandLine(args,
                        "needle generate rmat --scale S [--edge-factor F] [--seed N] "
                        "[--weighted] [--sorted] -o OUT",
                        options, positional)) {
    return 0;
  }
  if (kind != "rmat") throw UsageError("unknown generator '" + kind + "' (expected rmat)");

  const auto start = std::chrono::steady_clock::now();
  EdgeList edges = GenerateRmat(rmat, threads);
  const std::string comment = "needle generate rmat --scale " + std::to_string(rmat.scale) +
                              " --edge-factor " + std::to_string(rmat.edge_factor) + " --seed " +
                              std::to_string(rmat.seed) + (rmat.weighted ? " --weighted" : "");
  const bool binary = out.size() >= 4 && out.compare(out.size() - 4, 4, ".csr") == 0;
  if (binary || sorted) {
    CsrOptions csr_options;
    csr_options.count_duplicates = false;
    csr_options.threads = threads;
    Csr csr = BuildCsr(edges, csr_options);
    edges = EdgeList();  // free the edge buffers before writing
    if (binary) {
      WriteCsrFile(csr, out, threads);
    } else {
      WriteCsrAsEdgeListText(csr, out, comment, threads);
    }
  } else {
    WriteEdgeListText(edges, out, comment, threads);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "wrote %s: %llu vertices, %llu edges in %.2f s\n", out.c_str(),
      static_cast<unsigned long long>(uint64_t{1} << rmat.scale),
      static_cast<unsigned long long>(static_cast<uint64_t>(rmat.edge_factor) << rmat.scale),
      seconds);
  return 0;
}

}  // namespace needle::cli
