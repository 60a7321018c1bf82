// engine_bench: PageRank and connected components on existing shard sets, warm (page cache) and
// cold (evicted, O_DIRECT), with the figures that say how good an iteration is:
//   - wall time per iteration (median over iterations and repeats),
//   - bytes read + written per edge per iteration (GraphChi moves ~24),
//   - compute-only rate: edges gathered per second of compute,
//   - edges per CPU-second per iteration (user + sys; GraphChi's PageRank: ~7 M),
//   - cold: time against the bytes moved ÷ this disk's O_DIRECT read bandwidth, measured on
//     the same files right before each repeat (it drifts): for the whole run (every
//     iteration's time over all their bytes) and the median iteration (a late iteration that
//     moves a few MB weighs as much there as one that moves gigabytes), with every
//     iteration's ratio listed,
//   - peak RSS against --memory.
// bench/engine_bench.sh prepares the graph and the shard sets and calls this.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/programs/connected_components.h"
#include "apps/programs/pagerank.h"
#include "bench/bench_main.h"
#include "bench/timing.h"
#include "engine/engine.h"
#include "shards/shard_set.h"

namespace needle::bench {
namespace {

namespace po = boost::program_options;

struct Options {
  std::string shards;      // directed shard set (pagerank)
  std::string sym_shards;  // symmetrized shard set (cc)
  uint64_t memory_mb = 256;
  uint32_t pagerank_iterations = 10;
  int repeats = 3;
  bool warm = true;
  bool cold = true;
  unsigned queue_depth = 256;
};

bool Parse(int argc, char** argv, Options& o) {
  po::options_description d("engine_bench --shards DIR [--sym-shards DIR] [options]");
  auto add = d.add_options();
  add("help", "this text");
  add("shards", po::value(&o.shards)->required(), "shard set for pagerank");
  add("sym-shards", po::value(&o.sym_shards), "symmetrized shard set for cc (optional)");
  add("memory-mb", po::value(&o.memory_mb)->default_value(256), "--memory of the runs, MiB");
  add("pagerank-iterations", po::value(&o.pagerank_iterations)->default_value(10),
      "pagerank iterations per run (cc runs to convergence)");
  add("repeats", po::value(&o.repeats)->default_value(3), "runs per configuration");
  add("warm", po::value(&o.warm)->default_value(true), "run warm (page cache)");
  add("cold", po::value(&o.cold)->default_value(true), "also run cold (evicted, O_DIRECT)");
  add("queue-depth", po::value(&o.queue_depth)->default_value(256), "io_uring queue depth");
  return ParseOrHelp(argc, argv, d);
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// O_DIRECT sequential read bandwidth of the shard set's adjacency files (evicted first).
double DiskBandwidth(const ShardSet& set) {
  EvictShardSet(set.dir());
  IoOptions io;
  io.direct = true;
  auto backend = IoBackend::Create(io);
  std::vector<AlignedBuffer> buffers;
  for (int i = 0; i < 4; ++i) buffers.emplace_back(size_t{8} << 20);
  uint64_t bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    IoFile file = backend->Open(set.AdjacencyPath(p), FileKind::kAdjacency, false);
    const uint64_t size = file.size();
    for (uint64_t at = 0; at < size;) {
      std::vector<IoRequest> batch;
      for (auto& b : buffers) {
        if (at >= size) break;
        const uint64_t n = std::min<uint64_t>(b.size(), size - at);
        batch.push_back({&file, at, b.data(), static_cast<size_t>(n)});
        at += n;
      }
      backend->Run(batch);
    }
    bytes += size;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return static_cast<double>(bytes) / s;
}

template <class Program>
void Measure(const char* app, const ShardSet& set, Program program, const Options& o,
             uint32_t iterations, bool cold) {
  std::vector<double> iteration_seconds, bytes_per_edge, compute_rate, cpu_rate, bound_ratio;
  std::vector<double> bandwidths, run_ratio;
  uint32_t runs_iterations = 0;
  const double edges = static_cast<double>(set.manifest().num_edges);
  for (int r = 0; r < o.repeats; ++r) {
    // The disk's bandwidth drifts by tens of percent over minutes here: measure it on this
    // set's files right before each cold repeat and hold that repeat to it.
    const double disk_bandwidth = cold ? DiskBandwidth(set) : 0;
    if (cold) bandwidths.push_back(disk_bandwidth);
    if (cold) EvictShardSet(set.dir());
    EngineOptions options;
    options.memory_bytes = o.memory_mb << 20;
    options.max_iterations = iterations;
    options.io.direct = cold;
    options.io.queue_depth = o.queue_depth;
    std::vector<IterationStats> stats;
    options.on_iteration = [&](const IterationStats& s) { stats.push_back(s); };
    Engine<Program> engine(set, program, options);
    const double cpu0 = CpuSeconds();
    const RunSummary summary = engine.Run();
    const double cpu = CpuSeconds() - cpu0;
    runs_iterations = summary.iterations;
    double run_seconds = 0, run_moved = 0;
    for (const auto& s : stats) {
      const double moved = static_cast<double>(s.io.TotalRead() + s.io.TotalWritten());
      run_seconds += s.seconds;
      run_moved += moved;
      iteration_seconds.push_back(s.seconds);
      bytes_per_edge.push_back(moved / edges);
      if (s.compute_seconds > 0) {
        compute_rate.push_back(static_cast<double>(s.edges_loaded) / s.compute_seconds);
      }
      if (cold && disk_bandwidth > 0) bound_ratio.push_back(s.seconds / (moved / disk_bandwidth));
    }
    cpu_rate.push_back(edges * summary.iterations / cpu);
    if (cold && disk_bandwidth > 0) run_ratio.push_back(run_seconds / (run_moved / disk_bandwidth));
  }
  std::printf(
      "%-8s %-5s iters %3u | iteration %7.3f s | %5.1f B/edge/iter | compute %7.1f M edges/s | "
      "%6.1f M edges/CPU-s (%4.1fx GraphChi's 7 M)",
      app, cold ? "cold" : "warm", runs_iterations, Median(iteration_seconds),
      Median(bytes_per_edge), Median(compute_rate) / 1e6, Median(cpu_rate) / 1e6,
      Median(cpu_rate) / 7e6);
  if (cold) {
    std::printf(
        " | %.2fx the disk bound (run: all iterations' time / all their bytes), %.2fx (median "
        "iteration)",
        Median(run_ratio), Median(bound_ratio));
  }
  std::printf("\n");
  if (cold) {  // the spread behind that median, iteration by iteration of every repeat
    std::sort(bandwidths.begin(), bandwidths.end());
    std::printf(
        "         %s cold, disk measured before each repeat %.2f-%.2f GB/s; iteration time / disk "
        "bound, each iteration:",
        app, bandwidths.front() / 1e9, bandwidths.back() / 1e9);
    for (double r : bound_ratio) std::printf(" %.2f", r);
    std::printf("\n");
  }
  std::fflush(stdout);
}

int Run(const Options& o) {
  const ShardSet set = ShardSet::Open(o.shards, false);
  std::printf(
      "pagerank shards: %s: %llu vertices, %llu edges, %u intervals, %.0f MB; --memory %llu MiB\n",
      o.shards.c_str(), static_cast<unsigned long long>(set.manifest().num_vertices),
      static_cast<unsigned long long>(set.manifest().num_edges), set.num_intervals(),
      static_cast<double>(set.BytesOf(".adj") + set.BytesOf(".val")) / 1e6,
      static_cast<unsigned long long>(o.memory_mb));
  apps::PageRank pagerank;
  if (o.warm) Measure("pagerank", set, pagerank, o, o.pagerank_iterations, false);
  if (o.cold) Measure("pagerank", set, pagerank, o, o.pagerank_iterations, true);
  if (!o.sym_shards.empty()) {
    const ShardSet sym = ShardSet::Open(o.sym_shards, false);
    std::printf("cc shards: %s: %llu edges (symmetrized), %u intervals\n", o.sym_shards.c_str(),
                static_cast<unsigned long long>(sym.manifest().num_edges), sym.num_intervals());
    if (o.warm) Measure("cc", sym, apps::ConnectedComponents{}, o, 1000, false);
    if (o.cold) Measure("cc", sym, apps::ConnectedComponents{}, o, 1000, true);
  }
  std::printf("peak RSS %.1f MiB of --memory %llu MiB\n",
              static_cast<double>(PeakRssBytes()) / (1 << 20),
              static_cast<unsigned long long>(o.memory_mb));
  return 0;
}

}  // namespace
}  // namespace needle::bench

int main(int argc, char** argv) {
  return needle::bench::BenchMain<needle::bench::Options>("engine_bench", argc, argv,
                                                          needle::bench::Parse, needle::bench::Run);
}
