// webgraph_bench: how fast the native BVGraph decoder turns a WebGraph .graph into a CSR, in
// M arcs per second, against two references measured in the same run: a raw read of the
// .graph bytes (the ceiling of anything that reads the file) and loading the same graph from
// its .txt.gz edge list (what the BVGraph saves you from).
//
// Rows: sequential decode (one pass, 1 thread); range-parallel decode (needs .offsets) at 1
// thread and at --threads; the block API's cursor (one list at a time, no CSR); LoadGraph of
// the .txt.gz at --threads. Every figure is the median of --repeats runs on a warm page cache.
// Published native decoders reach 93–133 M arcs/s per thread, Java WebGraph 57–63 M; the
// target here is ≥ 100 M arcs/s per thread.
#include <omp.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "bench/bench_main.h"
#include "bench/byte_sum.h"
#include "bench/timing.h"
#include "io/mapped_file.h"
#include "loaders/bvgraph.h"
#include "loaders/load_graph.h"

namespace {

constexpr double kTargetMArcsPerThread = 100;

struct BenchOptions {
  std::vector<std::string> graphs;  // X, X.graph or X.properties; X.txt.gz beside is optional
  int threads = 0;
  int repeats = 7;
};

namespace po = boost::program_options;
using needle::bench::MedianTime;
using needle::bench::TimeIt;
using needle::bench::ByteSum;

bool ParseArgs(int argc, char** argv, BenchOptions& o) {
  po::options_description options("webgraph_bench options");
  auto add = options.add_options();
  add("help,h", "show this help");
  add("graph", po::value(&o.graphs)->multitoken()->required(), "BVGraph basenames (X for X.graph)");
  add("threads", po::value(&o.threads)->default_value(o.threads), "threads (0: OpenMP default)");
  add("repeats", po::value(&o.repeats)->default_value(o.repeats), "runs per figure (median)");
  if (!needle::bench::ParseOrHelp(argc, argv, options)) return false;
  if (o.repeats < 1) throw po::error("--repeats must be at least 1");
  if (o.threads < 0) throw po::error("--threads must be 0 (OpenMP's default) or more");
  return true;
}

void Row(const char* what, int threads, double seconds, uint64_t arcs, double reference_s) {
  const double rate = static_cast<double>(arcs) / seconds / 1e6;
  std::printf("  %-34s %3d  %9.2f  %9.1f  %9.1f  %7.2fx\n", what, threads, seconds * 1e3, rate,
              rate / threads, reference_s / seconds);
}

int Run(const BenchOptions& o) {
  const int threads = needle::ThreadCount(o.threads);
  std::printf("webgraph_bench: %d threads, median of %d runs; rate = M arcs/s; the last column "
              "is the sequential decode's time over the row's (> 1: faster)\n",
              threads, o.repeats);
  for (const std::string& name : o.graphs) {
    const needle::BvGraph g = needle::BvGraph::Open(name);
    const uint64_t arcs = g.num_arcs();
    const std::string base = g.paths().base;
    std::printf("\n%s: %llu nodes, %llu arcs, %.2f MB .graph (%.2f bits/arc), .offsets %s\n",
                base.c_str(), static_cast<unsigned long long>(g.num_nodes()),
                static_cast<unsigned long long>(arcs), static_cast<double>(g.graph_bytes()) / 1e6,
                8.0 * static_cast<double>(g.graph_bytes()) / static_cast<double>(arcs),
                g.has_offsets() ? "yes" : "no");
    std::printf("  %-34s %3s  %9s  %9s  %9s  %8s\n", "what", "thr", "ms", "rate", "rate/thr",
                "vs seq");
    needle::MappedFile file(g.paths().graph);
    volatile uint64_t sink = ByteSum(file, threads);  // warm the page cache
    (void)needle::BvGraph::Open(name).Decode({1, false});

    const double seq = MedianTime(o.repeats, [&] { g.Decode({1, false}); });
    const double sum1 = MedianTime(o.repeats, [&] { sink = ByteSum(file, 1); });
    const double sumt = MedianTime(o.repeats, [&] { sink = ByteSum(file, threads); });
    Row("raw read of .graph (byte sum)", 1, sum1, arcs, seq);
    Row("raw read of .graph (byte sum)", threads, sumt, arcs, seq);
    Row("decode, sequential", 1, seq, arcs, seq);
    const double cursor = MedianTime(o.repeats, [&] {
      needle::BvCursor c(g);
      uint64_t total = 0;
      while (!c.done()) total += c.Next().size();
      sink = total;
    });
    Row("decode, cursor (block API path)", 1, cursor, arcs, seq);
    if (g.random_access()) {
      Row("decode, ranges in parallel", 1,
          MedianTime(o.repeats, [&] { g.Decode({1, true}); }), arcs, seq);
      Row("decode, ranges in parallel", threads,
          MedianTime(o.repeats, [&] { g.Decode({threads, true}); }), arcs, seq);
    }
    const std::string text = base + ".txt.gz";
    if (std::filesystem::exists(text)) {
      needle::LoadOptions load;
      load.read.threads = threads;
      load.csr.threads = threads;
      load.csr.count_duplicates = false;
      Row("LoadGraph of the .txt.gz", threads,
          MedianTime(o.repeats, [&] { needle::LoadGraph(text, load); }), arcs, seq);
    }
    needle::LoadOptions load;
    load.read.threads = threads;
    load.csr.count_duplicates = false;
    Row("LoadGraph of the BVGraph", threads,
        MedianTime(o.repeats, [&] { needle::LoadGraph(base, load); }), arcs, seq);
    const double per_thread = static_cast<double>(arcs) / seq / 1e6;
    std::printf("  target >= %.0f M arcs/s per thread (sequential): %s (%.1f)\n",
                kTargetMArcsPerThread, per_thread >= kTargetMArcsPerThread ? "met" : "MISSED",
                per_thread);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return needle::bench::BenchMain<BenchOptions>("webgraph_bench", argc, argv, ParseArgs, Run);
}
