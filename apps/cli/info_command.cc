// needle info: what a graph file holds — counts, self-loops, duplicates, degrees, format.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/cli/cli_common.h"
#include "apps/cli/commands.h"
#include "base/error.h"
#include "loaders/graph_stats.h"
#include "loaders/load_graph.h"
#include "shards/shard_set.h"

namespace needle::cli {
namespace {

// A shard set directory: what it holds, what it was built from, whether it is valid.
int DescribeShardSet(const std::string& dir) {
  std::printf("%-16s %s\n", "shard set:", dir.c_str());
  Manifest m;
  try {
    m = ReadManifest(dir);
  } catch (const ShardFormatError& e) {  // written by another needle: say which format
    std::printf("%-16s needle shards v%u (this needle reads v%u)\n", "format:", e.version(),
                kShardFormatVersion);
    std::printf("%-16s no (%s)\n", "valid:", e.what());
    return 1;
  } catch (const Error& e) {
    std::printf("%-16s no (%s)\n", "valid:", e.what());
    return 1;
  }
  std::printf("%-16s needle shards v%u\n", "format:", m.version);
  std::printf("%-16s %s (%llu bytes)\n", "built from:", m.input.path.c_str(),
              static_cast<unsigned long long>(m.input.size));
  std::printf("%-16s --memory %llu MiB, --format %s, --weights %s%s\n",
              "options:", static_cast<unsigned long long>(m.choices.memory_bytes >> 20),
              m.choices.format.c_str(), m.choices.weights.c_str(),
              m.choices.symmetrize ? ", --symmetrize" : "");
  std::printf("%-16s %s\n", "symmetrized:",
              m.choices.symmetrize ? "yes (every edge u->v also as v->u, a self-loop once)" : "no");
  std::printf("%-16s %s\n", "vertex order:",
              m.choices.order == "input"
                  ? "input (the input's ids)"
                  : "bfs (breadth-first; order.bin maps the set's ids to the input's)");
  std::printf("%-16s %s%s\n", "interval costs:", m.choices.costs.ToString().c_str(),
              m.choices.costs.is_default() ? " (default)" : " (program-specific)");
  std::printf("%-16s %llu\n", "vertices:", static_cast<unsigned long long>(m.num_vertices));
  std::printf("%-16s %llu\n", "edges:", static_cast<unsigned long long>(m.num_edges));
  std::printf("%-16s %s\n", "weighted:", m.weighted ? "yes" : "no");
  std::printf("%-16s %u (one shard each)\n", "intervals:", m.num_intervals());
  uint64_t total = 0;
  for (const ManifestFile& f : m.files) total += f.size;
  try {
    ShardSet set = ShardSet::Open(dir, /*verify_digests=*/true);
    const double edges = static_cast<double>(std::max<uint64_t>(m.num_edges, 1));
    auto per_edge = [&](const char* suffix) {
      const uint64_t bytes = set.BytesOf(suffix);
      char text[96];
      std::snprintf(text, sizeof text, "%s (%.2f B/edge)",
                    HumanBytes(static_cast<double>(bytes)).c_str(),
                    static_cast<double>(bytes) / edges);
      return std::string(text);
    };
    // An unweighted set has no weights file: every weight is 1.
    const std::string weights = m.weighted ? per_edge(".val") : "none (unweighted)";
    std::printf(
        "%-16s adjacency %s, weights %s, window and scatter indexes %s, degrees %s; total %s\n",
        "bytes:", per_edge(".adj").c_str(), weights.c_str(),
        HumanBytes(static_cast<double>(set.BytesOf(".idx"))).c_str(),
        HumanBytes(static_cast<double>(set.BytesOf(".bin"))).c_str(),
        HumanBytes(static_cast<double>(total)).c_str());
    std::printf("%-16s yes (every file present, of its size, and matching its checksum)\n",
                "valid:");
  } catch (const Error& e) {
    std::printf("%-16s no: %s\n", "valid:", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int RunInfo(const std::vector<std::string>& args) {
  std::string input;
  GraphInputOptions input_options;
  po::options_description options("info options");
  options.add_options()("input", po::value(&input)->required(),
                        "graph file or shard set directory");
  AddGraphInputOptions(options, input_options);
  po::positional_options_description positional;
  positional.add("input", 1);
  if (!ParseCommandLine(args,
                        "needle info GRAPH|SHARDDIR [options]\n\n"
                        "examples:\n"
                        "  needle info web.txt.gz          (counts, degrees, format of a graph "
                        "file)\n"
                        "  needle info cnr-2000.graph      (a WebGraph BVGraph: X.graph, "
                        "X.properties or X)\n"
                        "  needle info web.txt.gz.shards   (a shard set: intervals, bytes per "
                        "file kind, valid?)\n\n"
                        "A graph file is read whole into memory to count self-loops and "
                        "duplicates; a shard\nset's files are checked against its manifest's "
                        "checksums (exit status 1 when not valid).",
                        options, positional)) {
    return 0;
  }
  if (std::filesystem::is_directory(input)) return DescribeShardSet(input);

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
