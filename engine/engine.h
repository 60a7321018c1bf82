// Engine: runs a GAS program (program.h) over a static shard set with Parallel Sliding Windows.
//
//   Engine<PageRank> engine(shard_set, PageRank{...}, options);
//   RunSummary summary = engine.Run();
//   engine.ForEachInterval([](VertexId first, std::span<const float> ranks) { ... });
//
// One iteration visits the intervals in order. For interval p the transport (transport.h)
// hands over p's in-edges with their messages; the engine gathers, applies and scatters p's
// messages into window (q, p) of every shard q, in parallel over p's vertices. An interval none
// of whose in-edges carries a message is not computed; one that is not computed but still has
// messages out from an earlier turn has them cleared, so that no message is consumed twice.
// The transport decides where messages live: static windows (static_windows.h: read from and
// written to the run's edge value files, Parallel Sliding Windows) or resident shards
// (resident_shards.h: the set read once, messages in memory), as the memory plan chooses.
//
// Asynchronous intervals: when p's vertices sent messages to each other (window (p, p)), p is
// computed again on those messages alone before its turn ends, up to
// options.max_inner_passes times; messages p sends to other intervals meanwhile are combined
// with the program's kAggregation into the ones it sent before in the same turn. A program
// with a priority (OrderedProgram, program.h) is scheduled in order instead, in an interval
// whose window (p, p) holds at least a quarter of its in-edges: after gathering,
// p's vertices with messages are applied one at a time, least priority first, and a message
// to a vertex of p is gathered at once, until none is left or (1 + max_inner_passes) × |p|
// vertices have been applied; the vertices still waiting then are applied once more and their
// messages to p wait in window (p, p) for p's next turn.
//
// Streamed intervals: an interval of one vertex whose edges the memory plan does not hold in
// the buffers (a hub) has its turn in pieces (ComputeStreamed): its in-edges' messages are
// folded into its accumulator piece by piece, in shard order, and its one message is written
// on its out-edges window by window; it has no inner passes (its messages to itself are read
// at its next turn).
//
// Memory: MemoryPlan (memory_plan.h) is checked against options.memory_bytes in the
// constructor; vertex values stay in memory when the budget holds them, else they live in the
// run's work directory and are read and written per interval. The work directory (messages,
// vertex values) is removed when the Engine is destroyed, so read the results first.
//
// Errors: Error for I/O failures and bad shard files; std::invalid_argument when the budget
// cannot hold the largest interval.
//
// This file declares the class; its members are defined in the parts it includes at its end:
// engine_setup.h (the constructor: plan, mode, transport), engine_run.h (Run: the schedule),
// engine_turn.h (an interval's turn), engine_pass.h (gather and apply), engine_scatter.h,
// engine_dynamic.h (dynamic shards, the delay buffer), engine_push.h and engine_pull.h.
#pragma once

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/heap_policy.h"
#include "base/huge_array.h"
#include "base/open_files.h"
#include "base/parallel.h"
#include "engine/auto_mode.h"
#include "engine/dynamic_shards.h"
#include "engine/edge_value_files.h"
#include "engine/engine_options.h"
#include "engine/in_adjacency.h"
#include "engine/in_section.h"
#include "engine/interval_io.h"
#include "engine/memory_plan.h"
#include "engine/program.h"
#include "engine/pull_columns.h"
#include "engine/resident_shards.h"
#include "engine/routed_gather.h"
#include "engine/run_stats.h"
#include "engine/scan_gather.h"
#include "engine/sorted_run.h"
#include "engine/split_gather.h"
#include "engine/static_windows.h"
#include "engine/transport.h"
#include "engine/vertex_heap.h"
#include "engine/vertex_store.h"
#include "engine/message_logs.h"
#include "engine/out_adjacency.h"
#include "engine/work_dir.h"
#include "shards/hashing_writer.h"
#include "shards/intervals.h"
#include "shards/run_codec.h"
#include "shards/shard_set.h"

namespace needle {

template <GasProgram Program>
class Engine {
 public:
  using VertexValue = typename Program::VertexValue;
  using EdgeValue = typename Program::EdgeValue;
  using Accumulator = AccumulatorOf<Program>;
  static constexpr bool kAccumulation = AccumulationProgram<Program>;
  static constexpr bool kOrdered = OrderedProgram<Program>;

  // The engine reads `set` for its whole life: it must outlive the engine (a temporary
  // cannot be passed).
  Engine(const ShardSet& set, Program program, EngineOptions options);
  Engine(ShardSet&&, Program, EngineOptions) = delete;

  // Waits for any reads and writes still in flight (a run that threw), before the buffers
  // they target are freed, and unregisters them from the ring.
  ~Engine() {
    try {
      if (transport_) transport_->Finish();
    } catch (...) {  // the run's error has been reported already
    }
    columns_.reset();  // waits for its reads
    in_starts_.reset();
    io_->UnregisterBuffers();  // before the buffers are freed
  }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const MemoryPlan& memory_plan() const { return plan_; }
  // The mode the run uses: options.mode, or kStatic where dynamic shards do not apply.
  ShardMode mode() const { return mode_; }
  // Whether the I/O buffers are registered with the ring (direct runs on io_uring, when
  // RLIMIT_MEMLOCK allows).
  bool buffers_registered() const { return buffers_registered_; }
  const IoBackend& backend() const { return *io_; }

  // Runs once. When it returns, only the vertex values are held (in memory or in the run's
  // file): the shard buffers and per-vertex arrays are freed, so that what the caller does
  // next (writing the values, checking them) has the budget to itself.
  RunSummary Run();

  // Calls f(first_vertex, values) for every interval in order, after Run().
  template <class F>
  void ForEachInterval(F&& f) {
    const uint32_t n = set_.num_intervals();
    for (uint32_t p = 0; p < n; ++p) {
      const VertexId begin = set_.interval_begin(p), end = set_.interval_end(p);
      const VertexValue* values = LoadValues(p);
      PrefetchValues(p, p + 1 < n ? p + 1 : kNoInterval);
      f(begin, std::span<const VertexValue>(values, end - begin));
    }
  }
  std::vector<VertexValue> Values() {
    std::vector<VertexValue> out;
    ForEachInterval([&](VertexId, std::span<const VertexValue> v) {
      out.insert(out.end(), v.begin(), v.end());
    });
    return out;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double Since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }

  uint32_t num_intervals() const { return set_.num_intervals(); }
  // The end of Run(): frees everything but the values (unregistering the ring's buffers first).
  void ReleaseRunBuffers() {
    io_->UnregisterBuffers();
    transport_.reset();
    std::vector<Accumulator>().swap(acc_);
    std::vector<EdgeValue>().swap(message_);
    std::vector<uint8_t>().swap(touched_);
    std::vector<uint64_t>().swap(own_start_);
    std::vector<uint32_t>().swap(frontier_);
    std::vector<std::vector<uint32_t>>().swap(block_sent_);
    std::vector<uint8_t>().swap(block_active_);
    std::vector<Source>().swap(sources_);
    splitter_.Release();
    heap_.Release();
    dynamic_.reset();
    std::vector<uint8_t>().swap(flags_);
    std::vector<EdgeValue>().swap(delay_);
    std::vector<EdgeValue>().swap(interval_delay_);
    delay_store_.reset();
    delay_view_ = nullptr;
    logs_.reset();
    push_buffer_ = AlignedBuffer();
    std::vector<EdgeValue>().swap(out_msg_);
    msgs_ = HugeArray<EdgeValue>();
    std::vector<uint64_t>().swap(sent_);
    columns_.reset();
    in_starts_.reset();
  }
  // The static windows over `set` (the static shards or a dynamic shard set).
  std::unique_ptr<Transport> MakeStaticWindows(const ShardSet& set, IntervalIo& io,
                                               const EdgeValueFiles& edges) {
    auto windows =
        std::make_unique<StaticWindows>(set, io, edges, identity_, stats_,
                                        &set == &set_ && marks_ ? &*marks_ : nullptr,
                                        options_.max_inner_passes > 0, options_.sparse_own_share,
                                        options_.sparse_own_min_edges);
    if (&set == &set_ && pull_allowed_) windows->SetPulled(&pulled_);
    if (&set == &set_ && !own_runs_only_.empty()) windows->SetOwnRunsOnly(&own_runs_only_);
    if (&set == &set_ && in_adj_) windows->SetInSources(&in_sources_);
    // Direct transfers into buffers the ring knows skip pinning pages per request (io_uring
    // and options.io.register_buffers; refused quietly when RLIMIT_MEMLOCK is too small).
    if (options_.io.direct) buffers_registered_ = io_->RegisterBuffers(windows->Buffers());
    return windows;
  }
  // Dynamic shards (see the top of this file). A dynamic shard set with its run files: removed
  // when superseded.
  struct DynamicSet {
    std::string dir;
    std::optional<ShardSet> set;
    std::unique_ptr<EdgeValueFiles> edges;
    std::unique_ptr<IntervalIo> io;
    uint64_t disk_bytes = 0;  // its files, with the messages' (RunSummary::dynamic_disk_peak)
    uint32_t whole_shards = 0;  // shards kept whole (WholeShardRule)
    ~DynamicSet() {
      io.reset();
      edges.reset();
      set.reset();
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  };
  // Ends the current transport between two iterations, returning the windows whose messages
  // have not been consumed. A window (q, r) flagged with r < q holds messages that r wrote
  // before q's turn in the iteration that just ended, and q has read them (they are cleared
  // only by r's next turn); only those with r ≥ q were written after q's turn.
  std::vector<uint8_t> StopTransport() {
    transport_->Finish();
    std::vector<uint8_t> carries = transport_->carries();
    const uint32_t n = num_intervals();
    for (uint32_t q = 0; q < n; ++q) {
      for (uint32_t r = 0; r < q; ++r) carries[static_cast<size_t>(q) * n + r] = 0;
    }
    io_->UnregisterBuffers();
    transport_.reset();
    return carries;
  }
  // Adds what the backend moved since `before` to stats_.shard_build_io.
  void AddBuildIo(const IoCounters& before) {
    IoCounters moved = io_->counters();
    moved -= before;
    stats_.shard_build_io += moved;
  }
  // ads, ods: whether the share of the edges that carried a message in the iteration just run
  // (`changed`) "drops below" options_.shadow_below (§5): lies below it and below the share of
  // the iteration before (`previous`; none before iteration 0), so that a search whose activity
  // is still spreading (MSSP's first iterations) reaches its peak before the first shadow
  // iteration, which would otherwise write a set of nearly every edge. A threshold above 1
  // (tests) makes the first shadow iteration come second, whatever the shares.
  bool ShareDropsBelow(uint64_t changed, uint64_t previous, uint64_t num_edges) const {
    if (options_.shadow_below > 1) return true;
    return static_cast<double>(changed) <
               options_.shadow_below * static_cast<double>(num_edges) &&
           changed < previous;
  }
  // What the iteration that began at `before` measured, for auto_mode.h's cost models.
  IterationMeasure MeasureNow(const IoCounters& before, uint64_t previous_changed) const {
    IterationMeasure m;
    m.iteration_io = io_->counters();
    m.iteration_io -= before;
    m.iteration_io -= stats_.shard_build_io;
    m.edges_loaded = stats_.edges_loaded;
    m.activity = stats_.edges_changed;
    m.previous_activity = previous_changed;
    m.num_edges = set_.manifest().num_edges;
    m.iteration = stats_.iteration;
    return m;
  }
  AutoInputs AutoInputsNow(const IoCounters& before, uint64_t previous_changed) const {
    AutoInputs in;
    static_cast<IterationMeasure&>(in) = MeasureNow(before, previous_changed);
    in.full_static_bytes = full_static_bytes_;
    in.static_set_bytes = static_set_bytes_;
    in.edge_write_bytes = sizeof(VertexId) + sizeof(EdgeValue) + 2 +
                          (Program::kUsesWeights && set_.manifest().weighted ? sizeof(float) : 0);
    in.last_build_read = last_build_read_;
    in.last_build_written = last_build_written_;
    in.last_build_edges = last_build_edges_;
    in.last_served = served_;
    in.overlap = 1;  // not measured yet: no bound (SenderOverlap)
    return in;
  }
  // The share of this iteration's senders that also sent in the one before (auto_mode.h).
  double SenderOverlap() const {
    uint64_t sent = 0, again = 0;
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(+ : sent, again)
    for (uint64_t u = 0; u < flags_.size(); ++u) {
      sent += (flags_[u] & kSent) != 0;
      again += (flags_[u] & (kSent | kSentBefore)) == (kSent | kSentBefore);
    }
    return sent > 0 ? static_cast<double>(again) / static_cast<double>(sent) : 0;
  }
  // Reads `set` (the static shards, or dynamic_'s) from now on, its windows `carries`.
  void UseSet(const ShardSet& set, IntervalIo& io, const EdgeValueFiles& edges,
              std::vector<uint8_t> carries);
  // Writes the dynamic shard set of the edges of the current set whose source has a flag of
  // `keep`, moves the pending messages into it and reads it from now on.
  void BuildDynamic(uint8_t keep);
  // Vertex values, and the delay buffer, through files in the run's directory an interval at a
  // time (LoadValues, StoreValues), where the plan does not hold them in memory.
  void UseValueStore();
  void UseDelayStore();
  // Values held only until the first build (MemoryPlan::values_shared) move to their file, and
  // the delay buffer to its own, before the build takes their room.
  void SpillValues();
  // A shadow iteration begins: the dynamic shards' messages go back into the static shards'
  // windows, which the iteration reads, and the intervals of the vertices in the delay buffer
  // are computed: the first pass of each sends their delayed scatters (Pass) on all their
  // out-edges, combined before what they send in it. (The scatters cannot be put on the edges
  // beforehand: a window (q, r) with r < q is rewritten by r's turn before q's.)
  void BeginShadow();
  // Puts the messages of p's senders (of its last pass: frontier_ after an inner pass) whose
  // out-edges the current set does not hold into the delay buffer, and flags the others kSent.
  void Delay(uint32_t p, const IntervalData& data, bool inner);
  WholeShardRule WholeRule() const;
  VertexValue* LoadValues(uint32_t p);
  // Starts reading the values of `next` (the turn after p's) while p's are used.
  void PrefetchValues(uint32_t p, uint32_t next);
  double StoreValues(uint32_t p);  // returns the seconds it took (counted as write-back)
  // The first interval after `p` (wrapping into the next iteration) that has messages.
  uint32_t NextPending(uint32_t p) const;
  void Compute(uint32_t p, uint32_t iteration);
  void ComputeStreamed(uint32_t p, uint32_t iteration);
  // Applies `acc` to `value`. Returns whether the vertex changed (every vertex does in the first
  // iteration, `everyone`), and then sets `message` to what it sends.
  // `largest` keeps the largest change() seen (ReportsChange programs).
  bool Apply(const VertexContext& ctx, VertexValue& value, const Accumulator& acc, bool everyone,
             EdgeValue& message, double& largest) const {
    const VertexValue old = value;
    value = program_.apply(ctx, old, acc);
    if constexpr (ReportsChange<Program>) {
      largest = std::max(largest, static_cast<double>(program_.change(old, value)));
    }
    if (!everyone && !program_.changed(old, value)) return false;
    message = program_.scatter(ctx, everyone ? VertexValue{} : old, value);
    return true;
  }
  // The order in which p's turn folds its windows' messages into a vertex (docs/engine.md,
  // "The order of the fold"): window (p, p)'s first, then window (p, r)'s by ascending r,
  // each in shard order; f(r).
  template <class F>
  void ForEachWindowInFoldOrder(uint32_t p, F&& f) const {
    f(p);
    for (uint32_t r = 0; r < num_intervals(); ++r) {
      if (r != p) f(r);
    }
  }
  // One pass over p's vertices: gather from the windows (p, r) that carry messages (`inner`:
  // from window (p, p) as p's previous pass wrote it), apply, and set message_. Returns the
  // number of vertices that changed.
  uint64_t Pass(uint32_t p, uint32_t iteration, const IntervalData& data, VertexValue* values,
                bool inner);
  // own_start_: where each vertex of p's out-edges in window (p, p) start (relative to the
  // window's first edge), from the window's runs. `check`: the window's targets are loaded
  // and will be searched; they are checked (in p, ascending in each run) and own_sorted_ set.
  void FindOwnRuns(uint32_t p, const IntervalData& data, bool check);
  // Of source u's edges [from, to) of window (p, p) (targets `own`, own_sorted_), the fresh
  // ones, whose message is consumed in the pass that sent it: target in u's sweep block, after
  // u in the sweep's direction. p starts at `begin` and has `count` vertices.
  std::pair<uint64_t, uint64_t> FreshRange(const uint32_t* own, uint64_t from, uint64_t to,
                                           uint32_t u, VertexId begin, uint32_t count) const {
    const auto [lo, hi] = FreshTargets(u, begin, count);
    return TargetsWithin(own, from, to, lo, hi);
  }
  // The fresh targets of u: [first, last), u's sweep block after u in the sweep's direction.
  std::pair<VertexId, VertexId> FreshTargets(uint32_t u, VertexId begin, uint32_t count) const {
    const uint32_t b0 = u / kSweepBlock * kSweepBlock;
    const uint32_t b1 = std::min(count, b0 + kSweepBlock);
    return {begin + (forward_ ? u + 1 : b0), begin + (forward_ ? b1 : u)};
  }
  // In a sparse turn, whether u's messages along window (p, p) are gathered at once (as in
  // any sweep, FreshTargets): only where the turn holds the targets of u's whole run, which
  // was not checked (FindOwnRuns), so each edge's target decides, not a search of the run.
  bool FreshHeld(uint32_t u) const {
    return transport_->OwnEdgesHeld(own_start_[u], own_start_[u + 1]);
  }
  // Whether vertex v (an id of the set) sends on its out-edges now: every vertex on the static
  // shards, on a dynamic set those it holds all of (kPresent). Another's runs in a shard kept
  // whole carry nothing of it: its message waits in the delay buffer.
  bool Present(VertexId v) const { return dynamic_ == nullptr || (flags_[v] & kPresent) != 0; }
  // The error for an in-edge of shard p (edge `edge` of its targets) whose target lies outside
  // interval p.
  Error TargetOutside(uint32_t p, uint64_t edge, uint32_t target) const {
    return Error::AtByte(cur_->AdjacencyPath(p), cur_->header(p).targets_pos + 4 * edge,
                         "target " + std::to_string(target) + " lies outside interval " +
                             std::to_string(p) + " (the shard file is damaged)");
  }
  // The ordered schedule (kOrdered): applies p's vertices with messages (every vertex in the
  // first iteration) least priority first, gathering their messages to p at once, and
  // combines what each sends into message_. Returns the number of vertices that changed.
  uint64_t Drain(uint32_t p, uint32_t iteration, const IntervalData& data, VertexValue* values);
  // Fills window (q, p) of every shard q with the messages of its sources, and carries_.
  // merge: window (q, p) for q != p already holds this turn's earlier messages; a new one is
  // combined into them (kAggregation) and identity() leaves them as they are.
  void Scatter(uint32_t p, const IntervalData& data, bool merge);
  // Scatter's window (p, p), split among the threads by source (own_runs_); returns the edges
  // that changed.
  uint64_t ScatterOwn(uint32_t p, const IntervalData& data, bool merge);

  const ShardSet& set_;
  Program program_;
  EngineOptions options_;
  std::unique_ptr<IoBackend> io_;
  std::unique_ptr<WorkDir> work_;
  std::unique_ptr<EdgeValueFiles> edges_;
  std::unique_ptr<IntervalIo> shard_io_;
  // Page grain: which chunks of the static shards' windows hold messages (window_chunks.h).
  // The engine's, not the transport's: a dynamic shard build moves the messages on after the
  // static transport has gone (declared before transport_, which uses them).
  std::optional<WindowChunks> marks_;
  MemoryPlan plan_;
  IterationStats stats_;
  std::vector<std::byte> identity_;  // the bytes of program_.identity()
  // Dynamic shards: the mode, the set the transport reads (set_, or dynamic_'s), and per vertex
  // kPresent (its out-edges are in the dynamic shards), kSent (it sent on them since the last
  // build: ads, or since the last shadow iteration: ods; auto on the static shards: in this
  // iteration), kDelayed (its scatter waits in delay_, combined with kAggregation) and
  // kSentBefore (auto on the static shards: it sent in the iteration before).
  ShardMode mode_ = ShardMode::kStatic;
  const ShardSet* cur_ = &set_;
  std::unique_ptr<DynamicSet> dynamic_;
  static constexpr uint8_t kPresent = 1, kSent = 2, kDelayed = 4, kSentBefore = 8;
  std::vector<uint8_t> flags_;
  // The delay buffer: every vertex's entry (delay_) when the values are in memory; else the
  // current interval's (interval_delay_), kept in delay_store_ between its turns, read and
  // written only for intervals with delayed vertices (delayed_in_). delay_view_: the current
  // interval's entries, indexed by offset in the interval.
  std::vector<EdgeValue> delay_;
  std::vector<EdgeValue> interval_delay_;
  std::optional<VertexStore> delay_store_;
  std::vector<uint32_t> delayed_in_;
  EdgeValue* delay_view_ = nullptr;
  uint64_t delayed_count_ = 0;  // vertices with kDelayed
  bool flush_ = false;          // a shadow iteration: first passes send the delayed scatters
  uint32_t builds_ = 0;
  uint64_t dynamic_disk_peak_ = 0;
  // --mode auto (auto_mode.h): the static set's size, the most one static iteration moved,
  // and the last build's I/O and edges.
  uint64_t static_set_bytes_ = 0, full_static_bytes_ = 0;
  uint64_t last_build_read_ = 0, last_build_written_ = 0, last_build_edges_ = 0;
  uint32_t served_ = 0;  // regular iterations the current (or last) dynamic set served
  double build_serves_ = 0;  // auto: the iterations the cost model expects the next set to serve
  std::unique_ptr<Transport> transport_;
  int threads_ = 1;
  bool buffers_registered_ = false;

  std::vector<Accumulator> acc_;    // per vertex of the current interval
  std::vector<EdgeValue> message_;  // what the vertex sends on its out-edges this pass
  std::vector<uint8_t> touched_;    // an in-edge carried a message
  std::vector<VertexValue> all_values_;
  std::optional<VertexStore> store_;  // where they are not resident: the current interval's

  std::vector<uint8_t> pending_;  // per interval: some in-edge carries a message
  std::vector<uint8_t> dirty_;    // per interval: its out-edges carry messages
  std::vector<uint8_t> carries_;  // per shard q: window (q, p) of this turn carries messages
  // Sweeps (asynchronous intervals): a pass applies the vertices of each block of
  // kSweepBlock in order (forward or backward), and a message to a later vertex of the same
  // block is gathered at once. Blocks are fixed, so results do not depend on the thread count.
  static constexpr uint32_t kSweepBlock = 4096;
  bool route_ = false;  // dense passes gather through router_
  using Router = RoutedGather<EdgeValue, kSweepBlock>;
  Router router_;
  bool split_ = false;  // dense passes gather through splitter_
  using Splitter = SplitGather<Program>;
  Splitter splitter_;
  bool sweep_ = false;
  bool forward_ = true;
  // The ordered schedule (Drain) this turn: the vertices waiting to be applied, and touched_
  // bits: kHeard (messages gathered, not yet applied), kFirst (not yet applied in the first
  // iteration), kLate (sent after the bound: its messages to p go into window (p, p)).
  bool ordered_ = false;
  static constexpr uint8_t kHeard = 1, kFirst = 2, kLate = 4;
  static constexpr uint64_t kOrderedShare = 4;  // window (p, p) ≥ 1/4 of p's in-edges
  VertexHeap<PriorityOf<Program>> heap_;
  std::vector<uint64_t> own_start_;  // per vertex of p + 1 (FindOwnRuns)
  bool sparse_own_ = false;  // this turn reads (p, p)'s targets run by run
  // Window (p, p)'s targets are loaded and checked: a thread finds the part of a run it needs
  // by search (TargetsWithin) instead of walking the run.
  bool own_sorted_ = false;
  bool own_runs_ = false;  // own_start_ holds window (p, p)'s runs this turn
  // The vertices of p whose last sweep pass sent a message (offsets in p, ascending): an inner
  // pass gathers only their edges of window (p, p), the only ones that can carry one, and
  // applies only the blocks those reach; Scatter writes only their edges of it.
  std::vector<uint32_t> frontier_;
  std::vector<std::vector<uint32_t>> block_sent_;  // per sweep block: its senders this pass
  std::vector<uint8_t> block_active_;              // per sweep block: a vertex got a message
  // The windows a pass gathers from: (first edge, end edge, messages); kept between passes.
  struct Source {
    uint64_t first, last;
    const EdgeValue* messages;
  };
  std::vector<Source> sources_;

  // Push turns (EngineOptions::push; out_adjacency.h, message_logs.h): whether this run may
  // push, whether this iteration's turns do, whether they wanted to but pulled messages
  // waited, the next's, and whether any turn has (auto then builds no dynamic set: its builds
  // move the windows' messages, not the logs').
  bool push_allowed_ = false;
  bool push_ = false;
  bool push_waited_ = false;
  bool push_next_ = false;
  bool pushed_ = false;
  uint64_t push_log_bytes_ = 0;
  uint64_t push_bytes_ = 0;  // what push turns allocate at most (MemoryPlan::push, and more lent)
  static constexpr uint64_t kPushReadBytes = uint64_t{1} << 20;
  static constexpr uint64_t kMaxPushLogBytes = uint64_t{256} << 20;
  std::optional<OutAdjacency> out_adj_;
  std::optional<MessageLogs<EdgeValue>> logs_;
  AlignedBuffer push_buffer_;       // out-adjacency reads
  std::vector<EdgeValue> out_msg_;  // per vertex of p: its message to other intervals this turn
  std::vector<uint32_t> senders_;
  void PlanPush();
  // Pull turns (EngineOptions::pull; docs/engine.md, "Pull turns"): whether this run may pull
  // and whether this iteration's turns do; every vertex's last message to other intervals
  // (msgs_, allocated while pulling, in transparent huge pages: a turn by target reads it at
  // random, one entry an edge, and 2 MiB pages spare those reads most TLB misses); the windows
  // (q, p), shard-major, whose messages wait there for q's next turn (pulled_, and how many),
  // and those of them the current turn takes (pull_from_, per r); the source runs a turn reads
  // of them (columns_, allocated while pulling, in column_bytes_).
  bool pull_allowed_ = false;
  bool pull_ = false;
  // The iteration in which push turns wait for pulled messages: its turns send to later
  // intervals through msgs_ (taken by their turns of the same iteration) and to earlier ones
  // through the windows (PullOutLater), so that at its end no message waits in memory and
  // none was written to a window that this iteration reads back.
  bool pull_later_ = false;
  HugeArray<EdgeValue> msgs_;
  std::vector<uint8_t> pulled_;
  uint64_t pulled_count_ = 0;
  std::vector<uint8_t> pull_from_;
  bool pull_in_ = false;  // pull_from_ has a window this turn
  uint64_t column_bytes_ = 0;
  std::optional<PullColumns> columns_;
  void PlanPull();
  // Pull turns from the in-adjacency (in_adjacency.h; docs/engine.md, "Pull turns"), for
  // accumulation programs that read no weights: planned by PlanPull (in_planned_: the starts'
  // buffer in the plan, the build's buffer in the room pull turns take later),
  // built before the first pull turn. in_sources_[p]: a load of p for this iteration's turns
  // reads its targets from it (where no other window carries messages); in_turn_: this turn
  // folds its other windows' messages from msgs_ by target (Compute). msgs_fresh_[p]: msgs_
  // holds what p sent in its last pull turn, which is forgotten (ForgetSent) at p's next place
  // in the order, every interval having taken it by then.
  bool in_planned_ = false;
  uint64_t in_build_bytes_ = 0;  // the build's buffer (reading ahead where the room allows)
  std::optional<InAdjacency> in_adj_;
  std::optional<InStarts> in_starts_;
  std::vector<uint8_t> in_sources_;
  const uint32_t* in_now_ = nullptr;  // the turn's starts (InAdjacency)
  bool in_turn_ = false;
  std::vector<uint8_t> msgs_fresh_;
  void BuildInAdjacency();
  // Whether q's turn, if next, is expected to go by target.
  bool ByTargetNext(uint32_t q) const {
    if (!in_starts_ || q == kNoInterval || !in_sources_[q]) return false;
    for (uint32_t r = 0; r < num_intervals(); ++r) {
      if (r != q && transport_->Carries(q, r)) return false;
    }
    return true;
  }
  void PrefetchStarts(uint32_t next) {
    if (next != kNoInterval && ByTargetNext(next)) in_starts_->Prefetch(next);
  }
  void ForgetSent(uint32_t p);
  // Starts reading the runs the turn after p's, `next`, pulls (as far as they are known: the
  // windows marked for it, and (next, p) if p pulls), while p computes.
  void PrefetchColumn(uint32_t p, uint32_t next);
  // Why push and pull turns cannot apply to this run ("": they can).
  std::string TurnsUnusable() const {
    if (plan_.transport != TransportChoice::kStatic) return "the shard set is held in memory";
    if (!marks_) return "they need the static windows at page grain (--windows pages or auto)";
    if (plan_.num_streamed > 0) {
      return std::to_string(plan_.num_streamed) + " intervals are streamed";
    }
    if (mode_ == ShardMode::kAds || mode_ == ShardMode::kOds) {
      return "mode " + std::string(ShardModeName(mode_)) + " reads dynamic shards";
    }
    return "";
  }
  // Says why `what` turns are not used: in the run's log when asked for always, else in -v.
  void SayTurnsUnused(TurnChoice choice, const char* what, const std::string& why) const {
    const auto& tell = choice == TurnChoice::kAlways ? options_.log : options_.detail;
    if (tell) tell(std::string(what) + " turns not used: " + why);
  }
  // Mode auto: the room planned for the dynamic shard builds' write buffers (allocated only
  // while a set is written), which push and pull turns may use, unless the plan keeps vertex
  // values, degrees or scatter indexes there already (MemoryPlan::*_shared).
  uint64_t LentFromBuilds() const {
    const bool taken = plan_.values_shared || plan_.degrees_shared || plan_.runs_shared;
    return mode_ == ShardMode::kAuto && plan_.dynamic >= kDynamicBuildBytes && !taken
               ? kDynamicBuildBytes
               : 0;
  }
  // Push and pull turns send to other intervals from memory: own_runs_only_[p] lets a load of
  // p read only window (p, p)'s runs of its scatter index (Transport::SetOwnRunsOnly), set
  // for the iteration's turns when they push, or pull and PullsWithoutRows(p).
  std::vector<uint8_t> own_runs_only_;
  void SetOwnRunsOnly();
  // A pull turn without the runs of its other windows finds those its messages reach from
  // each window (q, p)'s first and last source (window_sources_, shard-major; known for p
  // once a pull turn of p decoded them all: sources_known_[p]): a window carries when a
  // sender lies between them (sent_, a bit per vertex of p). It needs window (p, p)'s runs
  // decoded (own_runs_) unless that window is empty.
  std::vector<std::pair<uint32_t, uint32_t>> window_sources_;
  std::vector<uint8_t> sources_known_;
  std::vector<uint64_t> sent_;
  bool PullsWithoutRows(uint32_t p) const {
    const bool own_empty = set_.Window(p, p + 1).first_edge == set_.Window(p, p).first_edge;
    return sources_known_[p] && (own_empty || options_.max_inner_passes > 0);
  }
  void MarkBySources(uint32_t p);
  // The turn of p, before its first pass: puts the messages of its pulled windows in place.
  void PullIn(uint32_t p);
  // The end of a pull turn of p: keeps its messages in msgs_, marks the windows they reach.
  void PullOut(uint32_t p, const IntervalData& data);
  // The end of p's turn in the iteration where push turns wait (pull_later_): its messages to
  // earlier intervals into the windows, those to later ones into msgs_.
  void PullOutLater(uint32_t p, const IntervalData& data);
  // Both: out_msg_ into p's place in msgs_ (every window pulled from p before was taken).
  void KeepInArray(uint32_t p);
  // The windows (q, p), q >= first, q != p, that carry (carries_): pulled now instead.
  void MarkPulled(uint32_t p, uint32_t first);
  // Between iterations: what this one's turns do (push, pull or neither), and the memory that
  // goes with it.
  void ChooseTurns(uint32_t iteration, bool shadow);
  // Messages put on edges between two intervals in this iteration (ScatterWindows, PushOut;
  // those of inner passes each time), and how many such edges the set has: --pull auto
  // weighs the first against the second.
  uint64_t others_changed_ = 0;
  uint64_t other_edges_ = 0;
  // Edges of the windows this iteration's pull turns marked: the windows would have written
  // and read a message on each (PushNext counts them as the plain turns' cost).
  uint64_t pulled_edges_ = 0;
  // --push auto, after an iteration: whether the next one pushes (auto_mode.h, EstimatePush).
  bool PushNext(const IoCounters& before, uint64_t previous_changed);
  void BuildOutAdjacency();
  void PushOut(uint32_t p, const IntervalData& data);
  // Fills windows (q, p) from `messages` (per vertex of p): window (p, p) only (own_only) or
  // every other one (others_only), or all; merge: combine with what this turn wrote there.
  // Returns the edges given a message. Pull turns write nothing: kCount only finds which
  // windows carry one (carries_, pending_) and counts; kFind decodes each window up to its
  // first message and counts nothing (returns 0); kBound is kFind that decodes every run and
  // keeps each window's first and last source (window_sources_).
  enum class Windows { kAll, kOwnOnly, kOthersOnly, kEarlierOnly, kLaterOnly };
  enum class Fill { kFill, kCount, kFind, kBound };
  uint64_t ScatterWindows(uint32_t p, const IntervalData& data, const EdgeValue* messages,
                          bool merge, Windows which, Fill fill = Fill::kFill);
};

}  // namespace needle

#include "engine/engine_setup.h"
#include "engine/engine_turn.h"
#include "engine/engine_pass.h"
#include "engine/engine_scatter.h"
#include "engine/engine_dynamic.h"
#include "engine/engine_push.h"
#include "engine/engine_pull.h"
#include "engine/engine_run.h"
