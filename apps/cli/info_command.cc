// needle info: what a graph file holds — counts, self-loops, duplicates, degrees, format.
#include <cstdio>
#include <string>
#include <vector>

#include "apps/cli/cli_common.h"
#include "apps/cli/commands.h"
#include "loaders/graph_stats.h"
#include "loaders/load_graph.h"

namespace needle::cli {

int RunInfo(const std::vector<std::string>& args) {
  std::string input;
  GraphInputOptions input_options;
  po::options_description options("info options");
  options.add_options()("input", po::value(&input)->required(), "graph file");
  AddGraphInputOptions(options, input_options);
  po::positional_options_description positional;
  positional.add("input", 1);
  if (!ParseCommandLine(args, "needle info GRAPH [options]", options, positional)) return 0;

  LoadOptions load;
  load.read = ToReadOptions(input_options);
  load.csr.count_duplicates = false;  // ComputeStats counts them
  load.csr.threads = load.read.threads;
  LoadReport report;
  Csr csr = LoadGraph(input, load, &report);
  GraphStats s = ComputeStats(csr, load.read.threads);

  auto line = [](const char* key, unsigned long long value) {
    std::printf("%-16s %llu\n", key, value);
  };
  std::printf("%-16s %s\n", "file:", input.c_str());
  std::string format = report.description;
  if (report.compression != Compression::kNone) {
    format += std::string(" (") + std::string(CompressionName(report.compression)) + ")";
  }
  std::printf("%-16s %s\n", "format:", format.c_str());
  std::printf("%-16s %s\n", "size:", HumanBytes(static_cast<double>(report.file_bytes)).c_str());
  line("vertices:", s.vertices);
  line("edges:", s.edges);
  line("self-loops:", s.self_loops);
  line("duplicates:", s.duplicates);
  line("max out-degree:", s.max_out_degree);
  line("max in-degree:", s.max_in_degree);
  std::printf("%-16s %.3f\n", "average degree:", s.average_degree);
  line("no out-edges:", s.zero_out_degree);
  line("isolated:", s.isolated);
  std::printf("%-16s %s\n", "weighted:", csr.weighted ? "yes" : "no");
  std::printf("%-16s read %.3f s, CSR %.3f s\n", "load time:", report.read_seconds,
              report.build_seconds);
  return 0;
}

}  // namespace needle::cli
