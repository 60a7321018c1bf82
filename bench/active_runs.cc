// active_runs: how much reading only the active sources' runs straight from the static shards
// (at page grain, as Blaze and HUS-Graph read) could save against the static windows,
// iteration by iteration of a real run — the bound `needle run --windows pages` is measured
// against. The engine's page grain also reads every target of window (p, p) when inner passes
// may follow any vertex's out-edges inside p; this count does not, so the gap between the two
// is what that costs.
//
// It runs the app on a static shard set (the engine as it is) and records which vertices sent
// in each iteration (a wrapper around the program's scatter). Interval p's turn in iteration i
// reads window (p, r)'s messages written by interval r's turn: in iteration i when r < p, in
// i − 1 when r >= p (messages to the interval itself are taken as the previous iteration's).
// For each window it then counts the edge-proportional traffic: the targets read (4 bytes per
// edge) and the messages read and written (`width` per edge, each message written once by its
// source interval's turn and read once by its target's):
//   static   the windows that carry a message, whole (what the engine moves today, less the
//            clearing of windows whose messages were consumed)
//   runs     the 4 KiB pages that hold an active source's run, adjacent pages in one request
//            (what the candidate would move: its writer writes the message pages of its
//            senders' runs, from a scatter buffer that holds identity for every other edge, and
//            its reader reads those pages and the target pages under them; nothing is cleared)
//   ideal    the active edges themselves, unpadded (the floor)
// The fixed traffic (degrees, scatter indexes, vertex values) is the same for all three and is
// left out. With --time it also reads, cold and O_DIRECT, the targets that static and runs
// would read in every --time-every'th iteration, and prints the time ratio: random 4 KiB
// reads are slower per byte than whole windows, and this is where that shows.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "apps/programs/connected_components.h"
#include "apps/programs/pagerank.h"
#include "bench/bench_main.h"
#include "bench/timing.h"
#include "engine/engine.h"
#include "io/io_backend.h"
#include "shards/run_codec.h"
#include "shards/shard_set.h"

namespace needle::bench {
namespace {

namespace po = boost::program_options;

struct Options {
  std::string shards;
  std::string app = "pagerank";
  double tolerance = 1e-4;
  uint64_t memory_mb = 256;
  uint32_t iterations = 200;
  uint32_t time_every = 0;  // 0: no timed reads
  unsigned queue_depth = 64;
};

bool Parse(int argc, char** argv, Options& o) {
  po::options_description d("active_runs --shards DIR [options]");
  auto add = d.add_options();
  add("help", "this text");
  add("shards", po::value(&o.shards)->required(), "a static shard set (symmetrized for cc)");
  add("app", po::value(&o.app)->default_value("pagerank"), "pagerank or cc");
  add("tolerance", po::value(&o.tolerance)->default_value(1e-4), "pagerank's tolerance");
  add("memory-mb", po::value(&o.memory_mb)->default_value(256), "--memory of the run, MiB");
  add("iterations", po::value(&o.iterations)->default_value(200), "at most this many");
  add("time-every", po::value(&o.time_every)->default_value(0),
      "read the targets of every Nth iteration cold, both ways, and time them (0: never)");
  add("queue-depth", po::value(&o.queue_depth)->default_value(64), "requests in flight");
  return ParseOrHelp(argc, argv, d);
}

constexpr uint64_t kPage = 4096;

double MB(uint64_t bytes) { return static_cast<double>(bytes) / 1e6; }
double Ratio(uint64_t a, uint64_t b) {
  return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

// Which vertices sent in each iteration, written by the program's scatter (each vertex by
// the one thread that computes it).
struct Senders {
  std::vector<std::vector<uint8_t>> by_iteration;
  void Mark(uint32_t iteration, VertexId v) { by_iteration[iteration][v] = 1; }
};

template <class P>
struct Recording : P {
  Senders* senders = nullptr;
  typename P::EdgeValue scatter(const VertexContext& v, const typename P::VertexValue& old,
                                const typename P::VertexValue& now) const {
    senders->Mark(v.iteration, v.id);
    return P::scatter(v, old, now);
  }
};

// One shard's runs, in order: source and first edge (within the shard); per window, its first
// run (window r's runs are [first_run[r], first_run[r + 1])).
struct ShardRuns {
  std::vector<VertexId> source;
  std::vector<uint64_t> first_edge;  // one more entry than runs: the shard's edge count
  std::vector<uint64_t> first_run;   // per window, plus the end
};

std::vector<ShardRuns> LoadRuns(const ShardSet& set) {
  const uint32_t n = set.num_intervals();
  std::vector<ShardRuns> shards(n);
  for (uint32_t r = 0; r < n; ++r) {
    std::ifstream in(set.ScatterIndexPath(r), std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
    for (uint32_t p = 0; p < n; ++p) {
      ShardRuns& s = shards[p];
      if (r == 0) s.first_run.push_back(0);
      const WindowEntry& w = set.Window(p, r);
      const WindowEntry& next = set.Window(p, r + 1);
      uint64_t edge = w.first_edge;
      const RunDecodeStatus status =
          DecodeRuns(bytes.data() + set.ScatterOffset(p, r), bytes.data() + set.ScatterOffset(p + 1, r),
                     next.first_run - w.first_run, set.interval_begin(r), set.interval_end(r),
                     next.first_edge - w.first_edge, [&](uint32_t source, uint64_t count) {
                       s.source.push_back(source);
                       s.first_edge.push_back(edge);
                       edge += count;
                     });
      if (!status.ok()) throw Error(set.ScatterIndexPath(r), status.error);
    }
  }
  // Windows were appended interval by interval: put each shard's runs in window order.
  for (uint32_t p = 0; p < n; ++p) {
    ShardRuns& s = shards[p];
    s.first_run.assign(n + 1, 0);
    for (uint32_t r = 0; r < n; ++r) {
      s.first_run[r + 1] = s.first_run[r] + (set.Window(p, r + 1).first_run - set.Window(p, r).first_run);
    }
    s.first_edge.push_back(set.Window(p, n).first_edge);
  }
  return shards;
}

// A byte range of one shard's adjacency file.
struct Range {
  uint32_t shard;
  uint64_t offset, length;
};

struct Traffic {
  uint64_t active_edges = 0;
  // Targets read, and messages (each counted twice: written, then read).
  uint64_t static_bytes = 0, runs_bytes = 0, ideal_bytes = 0;
  uint64_t static_messages = 0, runs_messages = 0;
  uint64_t static_requests = 0, runs_requests = 0;
  std::vector<Range> static_targets, runs_targets;  // for the timed reads
};

// Pages [first, end) holding bytes [begin, begin + length) at `base`.
void AddPages(uint64_t base, uint64_t begin, uint64_t length, uint64_t* last_page,
              uint64_t* bytes, uint64_t* requests, std::vector<Range>* ranges, uint32_t shard) {
  const uint64_t first = (base + begin) / kPage, end = (base + begin + length + kPage - 1) / kPage;
  uint64_t from = std::max(first, *last_page);
  if (from >= end) return;
  *bytes += (end - from) * kPage;
  if (from != *last_page) {
    ++*requests;
    if (ranges) ranges->push_back({shard, from * kPage, (end - from) * kPage});
  } else if (ranges && !ranges->empty()) {
    ranges->back().length += (end - from) * kPage;
  }
  *last_page = end;
}

Traffic Count(const ShardSet& set, const std::vector<ShardRuns>& runs, const uint8_t* now,
              const uint8_t* before, uint64_t width, bool keep_ranges) {
  Traffic t;
  const uint32_t n = set.num_intervals();
  for (uint32_t p = 0; p < n; ++p) {
    const ShardRuns& s = runs[p];
    uint64_t message_window = 0;  // where window r's messages start in p's message array
    uint64_t static_last_target = 0, runs_last_target = 0;
    for (uint32_t r = 0; r < n; ++r) {
      const uint8_t* active = r < p ? now : before;
      const uint64_t e0 = set.Window(p, r).first_edge, e1 = set.Window(p, r + 1).first_edge;
      uint64_t runs_last_message = 0, window_active = 0;
      for (uint64_t k = s.first_run[r]; k < s.first_run[r + 1]; ++k) {
        if (active == nullptr || active[s.source[k]] == 0) continue;
        const uint64_t a = s.first_edge[k], b = s.first_edge[k + 1];
        window_active += b - a;
        AddPages(kPage, a * 4, (b - a) * 4, &runs_last_target, &t.runs_bytes, &t.runs_requests,
                 keep_ranges ? &t.runs_targets : nullptr, p);
        AddPages(message_window, (a - e0) * width, (b - a) * width, &runs_last_message,
                 &t.runs_messages, &t.runs_requests, nullptr, p);
      }
      if (window_active > 0) {
        t.active_edges += window_active;
        t.ideal_bytes += window_active * (4 + 2 * width);
        AddPages(kPage, e0 * 4, (e1 - e0) * 4, &static_last_target, &t.static_bytes,
                 &t.static_requests, keep_ranges ? &t.static_targets : nullptr, p);
        uint64_t last = 0;
        AddPages(message_window, 0, (e1 - e0) * width, &last, &t.static_messages,
                 &t.static_requests, nullptr, p);
      }
      message_window += ShardAlignUp((e1 - e0) * width);
    }
  }
  t.static_bytes += 2 * t.static_messages;
  t.runs_bytes += 2 * t.runs_messages;
  return t;
}

// Reads `ranges` cold with O_DIRECT, in pieces of at most 1 MiB, queue_depth at a time.
double TimeReads(const ShardSet& set, const std::vector<Range>& ranges, unsigned queue_depth) {
  EvictShardSet(set.dir());
  IoOptions io;
  io.direct = true;
  auto backend = IoBackend::Create(io);
  std::vector<IoFile> files;
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    files.push_back(backend->Open(set.AdjacencyPath(p), FileKind::kAdjacency, false));
  }
  constexpr uint64_t kPiece = uint64_t{1} << 20;
  std::vector<AlignedBuffer> buffers;
  for (unsigned i = 0; i < queue_depth; ++i) buffers.emplace_back(kPiece);
  std::vector<IoRequest> batch;
  const auto start = std::chrono::steady_clock::now();
  for (const Range& range : ranges) {
    const uint64_t end = std::min(range.offset + range.length, files[range.shard].size());
    for (uint64_t at = range.offset; at < end; at += kPiece) {
      const uint64_t n = std::min(kPiece, end - at);
      batch.push_back({&files[range.shard], at, buffers[batch.size()].data(), static_cast<size_t>(n)});
      if (batch.size() == queue_depth) {
        backend->Wait(backend->Submit(batch));
        batch.clear();
      }
    }
  }
  if (!batch.empty()) backend->Wait(backend->Submit(batch));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <class Program>
int Measure(const ShardSet& set, Program program, const Options& o) {
  const uint64_t vertices = set.manifest().num_vertices;
  const std::vector<ShardRuns> runs = LoadRuns(set);
  Senders senders;
  senders.by_iteration.assign(o.iterations, std::vector<uint8_t>());
  senders.by_iteration[0].assign(vertices, 0);
  Recording<Program> recording{program};
  recording.senders = &senders;
  const uint64_t width = sizeof(typename Program::EdgeValue);

  std::printf("%s on %s: %llu vertices, %llu edges, %u intervals; message width %llu\n",
              o.app.c_str(), set.dir().c_str(), static_cast<unsigned long long>(vertices),
              static_cast<unsigned long long>(set.manifest().num_edges), set.num_intervals(),
              static_cast<unsigned long long>(width));
  std::printf("%4s %12s %10s %10s %10s %8s %10s %10s %9s %9s\n", "it", "active edges", "static MB",
              "runs MB", "ideal MB", "runs/st", "st reqs", "runs reqs", "st s", "runs s");
  Traffic total;
  double static_seconds = 0, runs_seconds = 0;
  EngineOptions options;
  options.memory_bytes = o.memory_mb << 20;
  options.max_iterations = o.iterations;
  options.on_iteration = [&](const IterationStats& s) {
    const uint32_t i = s.iteration;
    const uint8_t* before = i == 0 ? nullptr : senders.by_iteration[i - 1].data();
    const bool timed = o.time_every > 0 && i % o.time_every == 0;
    const Traffic t = Count(set, runs, senders.by_iteration[i].data(), before, width, timed);
    total.active_edges += t.active_edges;
    total.static_bytes += t.static_bytes;
    total.runs_bytes += t.runs_bytes;
    total.ideal_bytes += t.ideal_bytes;
    total.static_requests += t.static_requests;
    total.runs_requests += t.runs_requests;
    std::printf("%4u %12llu %10.1f %10.1f %10.1f %8.2f %10llu %10llu", i,
                static_cast<unsigned long long>(t.active_edges), MB(t.static_bytes),
                MB(t.runs_bytes), MB(t.ideal_bytes), Ratio(t.runs_bytes, t.static_bytes),
                static_cast<unsigned long long>(t.static_requests),
                static_cast<unsigned long long>(t.runs_requests));
    if (timed) {
      const double a = TimeReads(set, t.static_targets, o.queue_depth);
      const double b = TimeReads(set, t.runs_targets, o.queue_depth);
      static_seconds += a;
      runs_seconds += b;
      std::printf(" %9.3f %9.3f", a, b);
    }
    std::printf("\n");
    std::fflush(stdout);
    if (i > 0) senders.by_iteration[i - 1] = std::vector<uint8_t>();  // no longer needed
    if (i + 1 < o.iterations) senders.by_iteration[i + 1].assign(vertices, 0);
  };
  Engine<Recording<Program>> engine(set, recording, options);
  const RunSummary summary = engine.Run();
  std::printf("total over %u iterations: static %.1f MB, runs %.1f MB (%.2fx static), ideal %.1f "
              "MB (%.2fx static); requests static %llu, runs %llu\n",
              summary.iterations, MB(total.static_bytes), MB(total.runs_bytes),
              Ratio(total.runs_bytes, total.static_bytes), MB(total.ideal_bytes),
              Ratio(total.ideal_bytes, total.static_bytes),
              static_cast<unsigned long long>(total.static_requests),
              static_cast<unsigned long long>(total.runs_requests));
  if (static_seconds > 0) {
    std::printf("timed iterations, targets read cold (O_DIRECT): static %.3f s, runs %.3f s "
                "(%.2fx)\n",
                static_seconds, runs_seconds, runs_seconds / static_seconds);
  }
  return summary.converged ? 0 : 1;
}

int Run(const Options& o) {
  const ShardSet set = ShardSet::Open(o.shards, false);
  if (o.app == "pagerank") {
    apps::PageRank pagerank;
    pagerank.tolerance = static_cast<float>(o.tolerance);
    return Measure(set, pagerank, o);
  }
  if (o.app == "cc") return Measure(set, apps::ConnectedComponents{}, o);
  std::fprintf(stderr, "active_runs: --app is pagerank or cc, not %s\n", o.app.c_str());
  return 2;
}

}  // namespace
}  // namespace needle::bench

int main(int argc, char** argv) {
  return needle::bench::BenchMain<needle::bench::Options>("active_runs", argc, argv,
                                                          needle::bench::Parse, needle::bench::Run);
}
