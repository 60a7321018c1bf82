// Helpers for the engine tests: shard a graph file into a chosen number of intervals, run a
// program on it with a chosen backend, and load the same file as an in-memory CSR for the
// oracles (apps/oracles), which never go through the engine.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "loaders/edge_list_writer.h"
#include "loaders/load_graph.h"
#include "loaders/rmat.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"
#include "test_util.h"
#include "tests/shards/shard_test_util.h"

namespace needle {

// Writes an R-MAT graph of 2^scale vertices and 8 edges a vertex to `path` as text; returns
// the path.
inline std::string WriteRmatText(const std::string& path, uint32_t scale) {
  RmatOptions options;
  options.scale = scale;
  options.edge_factor = 8;
  WriteEdgeListText(GenerateRmat(options), path);
  return path;
}

using testing::DatasetPath;
using testing::WithTempDir;
using testing::WriteFile;

inline constexpr uint64_t kMiB = uint64_t{1} << 20;

// The in-memory CSR the shard set describes (symmetrised like the shards when asked).
inline Csr LoadCsr(const std::string& input, bool symmetrize = false) {
  LoadOptions options;
  options.csr.symmetrize = symmetrize;
  return LoadGraph(input, options);
}

// Shards `input` into `dir` in `parts` intervals (as asked: --intervals).
// memory: the sharding budget (parts 0: the intervals it plans).
inline ShardSet ShardInto(const std::string& input, const std::string& dir, uint32_t parts,
                          bool symmetrize = false, const IntervalCosts& costs = {},
                          uint64_t memory = uint64_t{1} << 30) {
  ShardOptions options;
  options.costs = costs;
  options.out_dir = dir;
  options.symmetrize = symmetrize;
  options.memory_bytes = memory;
  if (parts > 1) options.intervals = parts;
  ShardGraph(input, options);
  return ShardSet::Open(dir);
}

// How messages move in a test run: the transport, and whether intervals run asynchronously
// (inner passes) or one pass per turn.
// kStaticStreamed: static windows with inner passes, every one-vertex interval streamed
// (EngineOptions::stream_one_vertex_intervals).
// kAds, kOds: dynamic shards (static windows, inner passes), with thresholds that force a
// shadow iteration right after the first iteration and again whenever a vertex waits in the
// delay buffer (ads) or more than four do (ods).
// kAdsWhole, kOdsWhole: kAds, kOds with every other shard of each dynamic set kept whole
// (EngineOptions::whole_shards): the left-out sources' edges read, carrying nothing.
// kAuto: its cost model overruled: dynamic shards built after every other iteration read
// from the static shards (odd ones), so that runs both build and stay static after shadow
// iterations; a shadow iteration when more than four vertices wait.
enum class Mode {
  kStaticSync,
  kStaticAsync,
  kResidentSync,
  kResidentAsync,
  kStaticStreamed,
  kAds,
  kOds,
  kAuto,
  kStaticPages,  // static windows at page grain, with inner passes, every turn after the first
                 // sparse (EngineOptions::sparse_own_share)
  kAutoPages,    // kAuto with the static shards' windows at page grain (the default share),
                 // pull turns after iterations in which most edges carried a message (the
                 // builds wait for their messages)
  kStaticPush,   // kStaticPages at the default share, push turns in every iteration, the logs
                 // small enough that dense turns find them full and fill the windows; scatter
                 // indexes read with each load, not held
  kStaticPull,   // kStaticPages at the default share, pull turns in every iteration that does
                 // not push, push turns (small logs) asked for in two of every four: both ways
                 // between them; scatter indexes read with each load, not held
  kAdsWhole,
  kOdsWhole
};
inline std::string ModeName(Mode m) {
  switch (m) {
    case Mode::kStaticSync:
      return "static_sync";
    case Mode::kStaticAsync:
      return "static_async";
    case Mode::kResidentSync:
      return "resident_sync";
    case Mode::kResidentAsync:
      return "resident_async";
    case Mode::kStaticStreamed:
      return "static_streamed";
    case Mode::kAds:
      return "ads";
    case Mode::kOds:
      return "ods";
    case Mode::kAuto:
      return "auto";
    case Mode::kStaticPages:
      return "static_pages";
    case Mode::kAutoPages:
      return "auto_pages";
    case Mode::kStaticPush:
      return "static_push";
    case Mode::kStaticPull:
      return "static_pull";
    case Mode::kAdsWhole:
      return "ads_whole";
    case Mode::kOdsWhole:
      return "ods_whole";
  }
  return "?";
}
inline TransportChoice TransportOf(Mode m) {
  return m == Mode::kResidentSync || m == Mode::kResidentAsync ? TransportChoice::kResident
                                                               : TransportChoice::kStatic;
}
inline bool IsAsync(Mode m) { return m != Mode::kStaticSync && m != Mode::kResidentSync; }
inline bool IsAuto(Mode m) { return m == Mode::kAuto || m == Mode::kAutoPages; }
inline bool IsWhole(Mode m) { return m == Mode::kAdsWhole || m == Mode::kOdsWhole; }
inline bool IsDynamic(Mode m) {
  return m == Mode::kAds || m == Mode::kOds || IsWhole(m) || IsAuto(m);
}
inline bool IsPages(Mode m) {
  return m == Mode::kStaticPages || m == Mode::kAutoPages || m == Mode::kStaticPush ||
         m == Mode::kStaticPull;
}
inline constexpr Mode kAllModes[] = {Mode::kStaticSync,    Mode::kStaticAsync,
                                     Mode::kResidentSync,  Mode::kResidentAsync,
                                     Mode::kStaticStreamed, Mode::kAds,
                                     Mode::kOds,           Mode::kAuto,
                                     Mode::kStaticPages,   Mode::kAutoPages,
                                     Mode::kStaticPush,    Mode::kStaticPull,
                                     Mode::kAdsWhole,      Mode::kOdsWhole};

struct EngineRun {
  IoKind io = IoKind::kPread;
  TransportChoice transport = TransportChoice::kAuto;
  uint32_t max_inner_passes = kDefaultInnerPasses;
  bool stream = false;  // EngineOptions::stream_one_vertex_intervals
  bool pages = false;   // EngineOptions::page_windows
  double sparse_own_share = kDefaultSparseOwnShare;
  uint64_t sparse_own_min_edges = kDefaultSparseOwnMinEdges;
  ShardMode shard_mode = ShardMode::kStatic;
  double shadow_below = kDefaultShadowBelow;
  uint64_t delay_buffer = kDefaultDelayBufferBytes;
  TurnChoice push = TurnChoice::kNever;
  uint64_t push_log_bytes = 0;  // EngineOptions::push_log_bytes
  std::function<bool(uint32_t)> push_decides;  // EngineOptions::push_decides
  TurnChoice pull = TurnChoice::kNever;
  double push_below = kDefaultPushBelow;  // EngineOptions::push_below
  bool hold_runs = true;                   // EngineOptions::hold_scatter_indexes
  bool pull_by_target = true;              // EngineOptions::pull_by_target
  uint32_t in_source_width = 0;            // EngineOptions::in_source_width
  void Use(Mode m) {
    transport = TransportOf(m);
    max_inner_passes = IsAsync(m) ? kDefaultInnerPasses : 0;
    stream = m == Mode::kStaticStreamed;
    pages = IsPages(m);
    sparse_own_share = m == Mode::kStaticPages ? 1e18 : kDefaultSparseOwnShare;
    sparse_own_min_edges = m == Mode::kStaticPages ? 0 : kDefaultSparseOwnMinEdges;
    shard_mode = m == Mode::kAds || m == Mode::kAdsWhole   ? ShardMode::kAds
                 : m == Mode::kOds || m == Mode::kOdsWhole ? ShardMode::kOds
                 : IsAuto(m)                               ? ShardMode::kAuto
                                                           : ShardMode::kStatic;
    if (IsDynamic(m)) {
      shadow_below = 2.0;  // every share is below: the first shadow iteration comes second
      delay_buffer = shard_mode == ShardMode::kAds ? 0 : 4 * 16;
    }
    if (IsWhole(m)) {
      whole_shards = [](uint32_t shard, uint64_t, uint64_t) { return shard % 2 == 0; };
    }
    if (m == Mode::kStaticPush) {
      push = TurnChoice::kAlways;
      push_log_bytes = 256 * 1024;
      hold_runs = false;  // (a turn may read only window (p, p)'s runs)
    }
    if (m == Mode::kAutoPages) {
      // The first iteration sends on every edge, the token program's next ones on about half:
      // pulls in iterations 0 and 1, so the build asked for after 1 waits (the one after 3 is
      // made).
      pull = TurnChoice::kAuto;
      push_below = 0.6;
    }
    if (m == Mode::kStaticPull) {
      pull = TurnChoice::kAlways;
      push = TurnChoice::kAuto;
      push_log_bytes = 256 * 1024;
      // Pushing is asked for in iterations 2-3, 6-7, ...: the first of each pair drains the
      // pulled messages, the next after it the pushed ones.
      push_decides = [](uint32_t iteration) { return iteration % 4 >= 2; };
      hold_runs = false;
    }
    if (IsAuto(m)) {
      auto_decides = [](const BuildEstimate&, uint32_t iteration) { return iteration % 2 == 1; };
    }
  }
  uint64_t memory = 256 * kMiB;
  uint32_t max_iterations = 10000;
  bool direct = false;
  unsigned direct_alignment = 0;  // IoOptions::direct_alignment: 0 is the file system's
  bool values_in_memory = true;
  int threads = 0;  // 0: OpenMP's default (OMP_NUM_THREADS: 1, 2 or 8 in the suite)
  std::function<bool(const BuildEstimate&, uint32_t)> auto_decides;
  std::function<bool(uint32_t, uint64_t, uint64_t)> whole_shards;  // EngineOptions::whole_shards
  GatherChoice gather = GatherChoice::kAuto;
};

// The engine options `run` stands for.
inline EngineOptions OptionsFor(const EngineRun& run) {
  EngineOptions options;
  options.memory_bytes = run.memory;
  options.max_iterations = run.max_iterations;
  options.io.kind = run.io;
  options.io.direct = run.direct;
  options.io.direct_alignment = run.direct_alignment;
  options.values_in_memory = run.values_in_memory;
  options.hold_scatter_indexes = run.hold_runs;
  options.transport = run.transport;
  options.max_inner_passes = run.max_inner_passes;
  options.stream_one_vertex_intervals = run.stream;
  options.page_windows = run.pages;
  options.sparse_own_share = run.sparse_own_share;
  options.sparse_own_min_edges = run.sparse_own_min_edges;
  options.mode = run.shard_mode;
  options.shadow_below = run.shadow_below;
  options.delay_buffer_bytes = run.delay_buffer;
  options.threads = run.threads;
  options.auto_decides = run.auto_decides;
  options.whole_shards = run.whole_shards;
  options.gather = run.gather;
  options.push = run.push;
  options.push_log_bytes = run.push_log_bytes;
  options.push_decides = run.push_decides;
  options.pull = run.pull;
  options.pull_by_target = run.pull_by_target;
  options.in_source_width = run.in_source_width;
  options.push_below = run.push_below;
  return options;
}

template <class Program>
std::vector<typename Program::VertexValue> RunProgram(
    const ShardSet& set, Program program, const EngineRun& run = {}, RunSummary* summary = nullptr,
    std::vector<IterationStats>* stats = nullptr) {
  EngineOptions options = OptionsFor(run);
  if (stats != nullptr)
    options.on_iteration = [stats](const IterationStats& s) { stats->push_back(s); };
  Engine<Program> engine(set, std::move(program), options);
  RunSummary s = engine.Run();
  if (summary != nullptr) *summary = s;
  return engine.Values();
}

// io_uring unless the environment refuses it (then the uring cases run on pread and say so).
inline IoKind UringOrSkipNote() {
  if (std::getenv("NEEDLE_TEST_NO_URING") != nullptr) return IoKind::kPread;
  return IoKind::kUring;
}

}  // namespace needle
