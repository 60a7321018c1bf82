// pagerank_accuracy: how close needle's PageRank ends to the fixed point, per tolerance. For each
// graph it computes the ranks with a double-precision Jacobi power iteration run to 1e-12
// (apps/oracles, never through the engine), shards the graph, runs the engine's PageRank at
// each --tolerance, and prints the largest and the mean relative error of the engine's ranks,
// their ratio to the tolerance, and the iterations the run took.
//
//   pagerank_accuracy --graph ../shared/datasets/cnr-2000/cnr-2000.txt.gz --tolerance 1e-4,1e-5
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "apps/oracles/oracles.h"
#include "apps/programs/pagerank.h"
#include "bench/bench_main.h"
#include "engine/engine.h"
#include "loaders/load_graph.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"

namespace needle::bench {
namespace {

namespace po = boost::program_options;

struct Options {
  std::vector<std::string> graphs;
  std::string tolerances = "1e-3,1e-4,1e-5";
  uint64_t memory_mb = 256;
  std::string work = "/tmp";
};

bool Parse(int argc, char** argv, Options& o) {
  po::options_description d("pagerank_accuracy --graph FILE [--graph FILE...] [options]");
  auto add = d.add_options();
  add("help", "this text");
  add("graph", po::value(&o.graphs)->required(), "graph file (repeat for several)");
  add("tolerance", po::value(&o.tolerances)->default_value(o.tolerances),
      "comma-separated tolerances");
  add("memory-mb", po::value(&o.memory_mb)->default_value(256), "--memory of sharding and runs");
  add("work", po::value(&o.work)->default_value(o.work), "where the shard sets go (removed after)");
  return ParseOrHelp(argc, argv, d);
}

int Run(const Options& o) {
  std::vector<double> tolerances;
  std::istringstream list(o.tolerances);
  for (std::string item; std::getline(list, item, ',');) tolerances.push_back(std::stod(item));
  std::printf("%-28s %10s %12s %12s %10s %6s\n", "graph", "tolerance", "max rel err",
              "mean rel err", "max/tol", "iters");
  for (const std::string& graph : o.graphs) {
    const Csr g = LoadGraph(graph, LoadOptions{});
    const std::vector<double> exact = oracle::PageRank(g, 1e-12, 100000);
    const std::string dir =
        o.work + "/pagerank_accuracy_" + std::filesystem::path(graph).filename().string();
    ShardOptions shard;
    shard.memory_bytes = o.memory_mb << 20;
    shard.out_dir = dir;
    ShardGraph(graph, shard);
    {
      const ShardSet set = ShardSet::Open(dir);
      for (double tolerance : tolerances) {
        apps::PageRank program;
        program.tolerance = static_cast<float>(tolerance);
        EngineOptions options;
        options.memory_bytes = o.memory_mb << 20;
        Engine<apps::PageRank> engine(set, program, options);
        const RunSummary summary = engine.Run();
        const auto values = engine.Values();
        double worst = 0, sum = 0;
        for (size_t v = 0; v < values.size(); ++v) {
          const double error = std::fabs(values[v].rank - exact[v]) / exact[v];
          worst = std::max(worst, error);
          sum += error;
        }
        std::printf("%-28s %10.0e %12.3e %12.3e %10.2f %6u\n",
                    std::filesystem::path(graph).filename().string().c_str(), tolerance, worst,
                    sum / static_cast<double>(values.size()), worst / tolerance,
                    summary.iterations);
      }
    }
    std::filesystem::remove_all(dir);
  }
  return 0;
}

}  // namespace
}  // namespace needle::bench

int main(int argc, char** argv) {
  return needle::bench::BenchMain<needle::bench::Options>("pagerank_accuracy", argc, argv,
                                                          needle::bench::Parse, needle::bench::Run);
}
