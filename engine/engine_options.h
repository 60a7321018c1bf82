// What a run of the engine may use and report: its memory budget, iteration limit, threads,
// I/O backend, and where statistics and progress go.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "io/io_backend.h"

namespace needle {

struct BuildEstimate;
struct IterationStats;
struct RunSummary;

// Where an iteration stands (EngineOptions::on_interval).
struct IntervalProgress {
  uint32_t iteration = 0;
  uint32_t intervals_done = 0;  // of `intervals`, in order
  uint32_t intervals = 0;
  uint64_t bytes_read = 0;  // by the iteration so far
  uint64_t bytes_written = 0;
};

// EngineOptions::max_iterations for "until converged" (the default).
inline constexpr uint32_t kNoIterationLimit = UINT32_MAX;

// Which transport moves the messages (transport.h; --transport).
enum class TransportChoice {
  kAuto,      // resident when the memory plan holds the shard set, else static windows
  kStatic,    // static windows: every turn reads its interval's shards, writes its messages
  kResident,  // the shard set is read once; messages stay in memory
};
std::string_view TransportName(TransportChoice choice);  // "auto", "static", "resident"
TransportChoice ParseTransport(std::string_view name);   // throws std::invalid_argument

// Which edges an iteration reads (--mode; engine.h, "Dynamic shards").
enum class ShardMode {
  kStatic,  // every iteration reads the static shards
  kAds,     // dynamic shards rebuilt after every iteration from the edges that carried messages
  kOds,     // dynamic shards rebuilt only in shadow iterations
  kAuto,    // ods, building only when the I/O cost model says it pays (auto_mode.h)
};
std::string_view ShardModeName(ShardMode mode);  // "static", "ads", "ods", "auto"
ShardMode ParseShardMode(std::string_view name);  // throws std::invalid_argument

// How a dense pass gathers with several threads (--gather): kScan has every thread read every
// in-edge and keep its own targets'; kRoute reads each edge once and routes its message to the
// target's thread (engine/routed_gather.h); kSplit gives each thread an equal share of the
// in-edges and combines what the threads heard (engine/split_gather.h: selection programs
// aggregated by min, max, or, and only). kAuto splits where the program allows it (in passes
// where that pays), routes the other passes from kRouteFromThreads threads on, and scans
// otherwise. The same values bit for bit whichever runs.
enum class GatherChoice { kAuto, kScan, kRoute, kSplit };
inline constexpr int kRouteFromThreads = 8;
std::string_view GatherName(GatherChoice choice);  // "auto", "scan", "route", "split"
GatherChoice ParseGather(std::string_view name);   // throws std::invalid_argument
inline bool UsesRoute(GatherChoice choice, int threads) {
  return threads > 1 && (choice == GatherChoice::kRoute ||
                         (choice == GatherChoice::kAuto && threads >= kRouteFromThreads));
}
// `splits`: the program allows it (SplitsGather, engine/split_gather.h).
inline bool UsesSplit(GatherChoice choice, int threads, bool splits) {
  return threads > 1 && splits &&
         (choice == GatherChoice::kSplit || choice == GatherChoice::kAuto);
}

// The dynamic modes' thresholds by default (ATC'16 §5): the first shadow iteration comes when
// fewer than 30 % of the edges carried a message in an iteration, the next ones when the delay
// buffer holds more than 100 KB.
inline constexpr double kDefaultShadowBelow = 0.30;
inline constexpr uint64_t kDefaultDelayBufferBytes = 100'000;

// EngineOptions::max_inner_passes by default (bench/inner_passes: see bench/RESULTS.md).
inline constexpr uint32_t kDefaultInnerPasses = 16;
// EngineOptions::sparse_own_share by default: an eighth (PageRank at page grain on cnr-2000
// and uk-2007-05-100k: bench/RESULTS.md, "Sparse turns at page grain").
inline constexpr double kDefaultSparseOwnShare = 0.125;
// EngineOptions::sparse_own_min_edges by default: 256 KiB of targets. A sparse turn trades one
// read of window (p, p) for a synchronous round of small reads per inner pass; on
// uk-2007-05-100k over 64 intervals (windows (p, p) of a few tens of thousands of edges) that
// cost 7 % of the time cold for 6 % fewer bytes.
inline constexpr uint64_t kDefaultSparseOwnMinEdges = uint64_t{1} << 16;

// Push turns (--push; docs/engine.md, "Push turns"): where few vertices send, a turn reads its
// senders' out-edges from an out-adjacency file built once in the run's work directory
// (engine/out_adjacency.h) and puts each message into an in-memory log of its target's
// interval (engine/message_logs.h), instead of into the static windows. kAuto pushes in the
// iterations after one in which fewer than push_below of the edges carried a message; kAlways
// in every iteration (tests); kNever: the windows only.
// Pull turns (--pull; docs/engine.md, "Pull turns"): where many vertices send, a turn keeps
// each vertex's message to other intervals once, in an in-memory array of every vertex's,
// instead of on every out-edge in the static windows; the target interval's next turn reads
// its windows' targets and source runs and takes each edge's message from the array. kAuto
// pulls in the first iteration and in those after one in which at least push_below of the
// edges between two intervals carried a message (at page grain a sparse iteration reads less
// through the windows);
// kAlways in every iteration that does not push (tests).
enum class TurnChoice { kNever, kAuto, kAlways };
std::string_view TurnChoiceName(TurnChoice choice);  // "never", "auto", "always"
TurnChoice ParseTurnChoice(std::string_view name);   // throws std::invalid_argument
inline constexpr double kDefaultPushBelow = 0.20;

struct EngineOptions {
  uint64_t memory_bytes = uint64_t{1} << 30;  // hard budget: buffers and vertex values
  // Stop after this many iterations even if not converged (RunSummary::converged says which);
  // by default a run goes on until no edge carries a message.
  uint32_t max_iterations = kNoIterationLimit;
  int threads = 0;  // 0: OpenMP default
  IoOptions io;     // backend and O_DIRECT for the shard files
  // false: vertex values always go through the run's vertex file, even when they would fit.
  bool values_in_memory = true;
  TransportChoice transport = TransportChoice::kAuto;
  // Asynchronous intervals: after its turn, an interval whose vertices sent messages to each
  // other is computed again on those messages alone, while it is loaded, until it sends none
  // to itself or it has had this many extra passes (0: one pass per turn, synchronous).
  uint32_t max_inner_passes = kDefaultInnerPasses;
  GatherChoice gather = GatherChoice::kAuto;
  // Static windows at page grain (--windows pages; engine/window_chunks.h): a turn writes, and
  // the next reads, only the 4 KiB chunks of a window that hold messages (with the targets
  // under them) instead of the whole window; nothing is cleared. Static mode only.
  bool page_windows = false;
  // Page grain: a turn whose marked chunks hold fewer edges than this share of window (p, p)'s
  // reads the targets of (p, p) only under the runs its passes send on, and its sweeps deliver
  // nothing at once (static_windows.h). 0: never; tests force it with a large share. Only
  // where window (p, p) has at least sparse_own_min_edges edges.
  double sparse_own_share = kDefaultSparseOwnShare;
  uint64_t sparse_own_min_edges = kDefaultSparseOwnMinEdges;
  // Stream every interval of one vertex (static windows), not only those the buffers cannot
  // hold (memory_plan.h): for tests and comparisons.
  bool stream_one_vertex_intervals = false;
  // Hold every interval's scatter index in memory when the budget allows (memory_plan.h);
  // false: each load reads its interval's, as on a graph whose indexes do not fit (tests).
  bool hold_scatter_indexes = true;
  // Dynamic shards (ads, ods: static windows only; a resident run reads nothing from disk and
  // runs static). shadow_below: the first shadow iteration comes after an iteration in which
  // the share of edges that carried a message drops below it (lies below it and below the
  // share of the iteration before; above 1, tests: after iteration 0); delay_buffer_bytes:
  // the delay buffer's size (entries × (4 + message width)) above which the next one comes.
  // Push turns (above): static windows at page grain, mode static or auto before any dynamic
  // set, no streamed interval, no input weights in use. push_log_bytes: the logs' room (0: what
  // the memory plan leaves, up to kMaxPushBytes).
  TurnChoice push = TurnChoice::kNever;
  double push_below = kDefaultPushBelow;
  uint64_t push_log_bytes = 0;
  // Tests: replaces --push auto's verdict on pushing in `iteration` (the cost model is not
  // asked; the other conditions hold).
  std::function<bool(uint32_t iteration)> push_decides;
  // Pull turns (above): static windows at page grain, mode static or auto before any dynamic
  // set, no streamed interval; an iteration pulls when it does not push.
  TurnChoice pull = TurnChoice::kNever;
  // Pull turns of accumulation programs that read no weights fold their other windows'
  // messages by target from an in-adjacency built before the first of them
  // (engine/in_adjacency.h) where the budget allows; false: from the shards' runs (tests and
  // comparisons).
  bool pull_by_target = true;
  // The bytes of a source in the in-adjacency (engine/in_section.h); 0: the fewest that number
  // every vertex. (Tests: the same turns at every width.)
  uint32_t in_source_width = 0;
  ShardMode mode = ShardMode::kStatic;
  double shadow_below = kDefaultShadowBelow;
  uint64_t delay_buffer_bytes = kDefaultDelayBufferBytes;
  // auto: replaces the cost model's verdict on building dynamic shards after `iteration`
  // (tests force builds with it); empty: BuildEstimate::Pays().
  std::function<bool(const BuildEstimate&, uint32_t iteration)> auto_decides;
  // Which shards of a dynamic set are kept whole (dynamic_shards.h, WholeShardRule): never;
  // auto, in mode auto where the cost model says it pays (engine_dynamic.h, WholeRule), in ads
  // and ods (ATC'16's modes) none; always, every shard. whole_shards, when set, replaces the
  // choice in every dynamic mode (tests).
  TurnChoice whole = TurnChoice::kAuto;
  std::function<bool(uint32_t shard, uint64_t kept, uint64_t edges)> whole_shards;
  // Called after every iteration and once at the end; either may be empty.
  std::function<void(const IterationStats&)> on_iteration;
  std::function<void(const RunSummary&)> on_finish;
  // After every interval of an iteration (computed or not): how far the iteration has got.
  // May be empty; called on the engine's thread.
  std::function<void(const IntervalProgress&)> on_interval;
  // One-line messages a person should see (the I/O backend fallback note, mode decisions);
  // may be empty.
  std::function<void(const std::string&)> log;
  // Lines that explain a decision in detail (the memory plan): needle run --verbose.
  std::function<void(const std::string&)> detail;
};

}  // namespace needle
