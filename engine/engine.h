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
  Engine(const ShardSet& set, Program program, EngineOptions options)
      : set_(set), program_(std::move(program)), options_(std::move(options)) {
    // Held open at once: each interval's adjacency, scatter index (and weights) and message
    // file, and with ads or ods two dynamic sets' as many at a build; then the value and delay
    // stores, the ring and the run's outputs. Refused here rather than at the file that would
    // not open (base/open_files.h).
    const uint64_t per_set = uint64_t{set.num_intervals()} * (set.weighted() ? 4 : 3);
    const bool two_more = options_.mode == ShardMode::kAds || options_.mode == ShardMode::kOds;
    CheckOpenFiles(set.dir(), per_set * (two_more ? 3 : 1) + 16,
                   "a run over its " + std::to_string(set.num_intervals()) + " intervals" +
                       (two_more ? " in mode " + std::string(ShardModeName(options_.mode)) : ""));
    std::string note;
    io_ = IoBackend::Create(options_.io, &note);
    if (!note.empty() && options_.log) options_.log(note);
    work_ = std::make_unique<WorkDir>(set.dir());
    edges_ = std::make_unique<EdgeValueFiles>(*io_, set, work_->path(), sizeof(EdgeValue));
    shard_io_ = std::make_unique<IntervalIo>(*io_, set, *edges_, Program::kUsesWeights,
                                             /*dynamic=*/false, UsesInDegree<Program>());
    // the ordered schedule's places, queue and heap besides the sweeps' arrays (an interval
    // may take either: memory_plan.h counts the sweeps')
    const size_t key = kOrdered ? VertexHeap<PriorityOf<Program>>::kBytesPerVertex : 0;
    // (The sharder's cost model, IntervalCostsFor, must not count less.)
    static_assert(!kOrdered || VertexHeap<PriorityOf<Program>>::kBytesPerVertex <=
                                   OrderedBytesPerVertex(sizeof(PriorityOf<Program>)));
    mode_ = options_.mode;
    // Page grain on the static shards' windows, in every mode (dynamic shard sets are read
    // whole: they hold the edges that carried messages).
    const bool chunked = options_.page_windows;
    threads_ = ThreadCount(options_.threads);
    // A pass splits where it pays (split_), else routes (route_), else scans; auto may want both.
    route_ = UsesRoute(options_.gather, threads_);
    split_ = UsesSplit(options_.gather, threads_, SplitsGather<Program>());
    if (options_.gather == GatherChoice::kSplit && !SplitsGather<Program>()) {
      throw std::invalid_argument(
          "--gather split needs a selection program aggregated by min, max, or or and (its "
          "messages folded in any order give the same value); use scan or route");
    }
    const size_t largest = set.largest_interval();
    auto plan_with = [&](uint64_t dynamic_bytes, bool values_in_memory, bool share = false) {
      return PlanMemory(set, *shard_io_, sizeof(EdgeValue) + sizeof(Accumulator) + key,
                        sizeof(VertexValue), options_.memory_bytes, values_in_memory,
                        options_.transport, options_.stream_one_vertex_intervals, dynamic_bytes,
                        (route_ ? Router::RouteBytes(threads_) : 0) +
                            (split_ ? Splitter::Bytes(threads_, largest) : 0),
                        chunked ? WindowChunks::Bytes(set, sizeof(EdgeValue)) : 0,
                        dynamic_bytes > 0 ? kDynamicBuildBytes : 0, share);
    };
    // Dynamic shards add a flag per vertex, the delay buffer and two build buffers. The delay
    // buffer lives with the vertex values: in memory beside them when they are, else in the
    // run's directory, read and written with each interval's values (an interval's slice
    // and its staging copy in memory).
    auto plan = [&](bool dynamic) {
      if (!dynamic) return plan_with(0, options_.values_in_memory);
      const uint64_t n = set.manifest().num_vertices;
      static_assert(kDynamicBuildBytes == 2 * WriteBuffers::kBytes);
      const uint64_t builds = kDynamicBuildBytes;
      if (options_.values_in_memory) {
        try {
          MemoryPlan dense = plan_with(n * (1 + sizeof(EdgeValue)) + builds, true);
          if (dense.resident) return dense;
        } catch (const std::invalid_argument&) {  // perhaps with the values on disk
        }
      }
      // ads and ods hold the values until their first build where there is room (auto runs
      // static rather than move them to disk: below).
      return plan_with(DynamicShardBytes(n, largest, sizeof(EdgeValue)), false,
                       options_.values_in_memory && mode_ != ShardMode::kAuto);
    };
    // auto: static where the dynamic shards' buffers do not fit, or would push the vertex
    // values out of memory (their traffic every iteration outweighs what the sets save).
    // Sets *why when auto falls back to static; mode_ and the log follow the plan that
    // succeeds (a retry without routing decides again).
    auto plan_mode = [&](std::string* why) {
      if (mode_ != ShardMode::kAuto) return plan(mode_ != ShardMode::kStatic);
      // A set held in memory is read once: no dynamic shard would save a read, so auto takes
      // the resident plan wherever the budget holds it without the dynamic shards' buffers.
      if (options_.transport != TransportChoice::kStatic) {
        try {
          MemoryPlan fixed = plan(false);
          if (fixed.transport == TransportChoice::kResident) return fixed;
        } catch (const std::invalid_argument&) {  // decided below
        }
      }
      try {
        MemoryPlan dynamic = plan(true);
        if (dynamic.resident || !options_.values_in_memory) return dynamic;
        MemoryPlan fixed = plan(false);
        if (!fixed.resident) return dynamic;
        *why = "its buffers would push the vertex values out of --memory";
        return fixed;
      } catch (const std::invalid_argument&) {
        *why = "--memory cannot hold its buffers";
      }
      return plan(false);
    };
    std::string auto_static;
    for (;;) {
      try {
        plan_ = plan_mode(&auto_static);
        break;
      } catch (const std::invalid_argument&) {
        // auto: without the split's arrays, then without the route's buffer, rather than
        // refuse a budget that holds the rest
        if (!(route_ || split_) || options_.gather != GatherChoice::kAuto) throw;
        if (split_) {
          split_ = false;
        } else {
          route_ = false;
        }
        auto_static.clear();
      }
    }
    if ((route_ || split_) && options_.gather == GatherChoice::kAuto) {
      // auto: scan rather than give up what the budget holds in memory without the helper's
      // buffers (the last plan made is the one the interval I/O follows: PlanMemory).
      const bool route = route_, split = split_;
      route_ = split_ = false;
      std::string why;
      MemoryPlan scan = plan_mode(&why);
      if (scan.transport == plan_.transport && scan.resident == plan_.resident &&
          scan.num_streamed == plan_.num_streamed && why == auto_static) {
        route_ = route;
        split_ = split;
        plan_ = plan_mode(&auto_static);
      } else {
        plan_ = std::move(scan);
        auto_static = why;
      }
    }
    // auto decides for itself: what it decided is detail (-v); a mode asked for by name that
    // does not apply is said.
    const auto& say = mode_ == ShardMode::kAuto ? options_.detail : options_.log;
    if (!auto_static.empty()) {
      if (say) say("mode auto: static shards only, since " + auto_static);
      mode_ = ShardMode::kStatic;
    }
    if (!options_.hold_scatter_indexes) {
      plan_.runs = 0;
      plan_.runs_shared = false;
    }
    if (options_.detail) options_.detail(plan_.Describe());
    if (chunked && plan_.transport == TransportChoice::kStatic) {
      marks_.emplace(set, sizeof(EdgeValue));
    } else if (chunked && say) {
      say("page grain not used: the shard set is held in memory, so no window is read from "
          "disk");
    }
    const EdgeValue identity = program_.identity();
    identity_.resize(sizeof(EdgeValue));
    std::memcpy(identity_.data(), &identity, sizeof(EdgeValue));
    if (plan_.transport == TransportChoice::kResident) {
      transport_ = std::make_unique<ResidentShards>(set, *shard_io_, *edges_, stats_);
    } else {
      transport_ = MakeStaticWindows(set, *shard_io_, *edges_);
    }
    if (mode_ != ShardMode::kStatic) {
      std::string why;
      if (plan_.transport == TransportChoice::kResident) {
        why = "the shard set is held in memory, so no iteration reads it from disk";
      } else if (plan_.num_streamed > 0) {
        why = "dynamic shards need every interval in the buffers, and " +
              std::to_string(plan_.num_streamed) + " are streamed";
      }
      if (!why.empty()) {
        if (say) {
          say("mode " + std::string(ShardModeName(mode_)) + " not used: " + why +
              "; running mode static");
        }
        mode_ = ShardMode::kStatic;
      } else {
        flags_.assign(set.manifest().num_vertices, kPresent);
        delayed_in_.assign(set.num_intervals(), 0);
        if (plan_.values_shared) {
          // On disk from the first build (SpillValues): no delay before it.
        } else if (plan_.resident) {
          delay_.resize(set.manifest().num_vertices);
        } else {
          UseDelayStore();
        }
        if (mode_ == ShardMode::kAuto) {
          for (const auto& entry : std::filesystem::directory_iterator(set.dir())) {
            if (entry.is_regular_file()) static_set_bytes_ += entry.file_size();
          }
        }
      }
    }
    acc_.resize(largest);
    if (split_) splitter_.Reset(threads_, largest);
    message_.resize(largest);
    touched_.resize(largest);
    carries_.resize(set.num_intervals());
    if (plan_.resident) {
      all_values_.resize(set.manifest().num_vertices);
    } else {
      UseValueStore();
    }
    PlanPull();
    PlanPush();
    if (plan_.transport == TransportChoice::kStatic) {  // (what PlanPull left held)
      if (plan_.degrees > 0) shard_io_->HoldDegrees();
      if (plan_.runs > 0) shard_io_->HoldRuns();
    }
    if (pull_allowed_ || push_allowed_) {
      own_runs_only_.assign(set.num_intervals(), 0);
      transport_->SetOwnRunsOnly(&own_runs_only_);
    }
  }
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
  VertexValue* LoadValues(uint32_t p);
  // Starts reading the values of `next` (the turn after p's) while p's are used.
  void PrefetchValues(uint32_t p, uint32_t next);
  void StoreValues(uint32_t p);
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

template <GasProgram Program>
typename Program::VertexValue* Engine<Program>::LoadValues(uint32_t p) {
  const VertexId begin = set_.interval_begin(p), end = set_.interval_end(p);
  if (plan_.resident) {
    if (!delay_.empty()) delay_view_ = delay_.data() + begin;
    return all_values_.data() + begin;
  }
  const auto t = Clock::now();
  auto* values = reinterpret_cast<VertexValue*>(store_->Load(begin, end));
  if (delay_store_) {
    delay_view_ = interval_delay_.data();
    if (delayed_in_[p] > 0) delay_store_->Read(begin, end, interval_delay_.data());
  }
  stats_.io_wait_seconds += Since(t);
  return values;
}

template <GasProgram Program>
void Engine<Program>::PrefetchValues(uint32_t p, uint32_t next) {
  // p's values are written back at the end of its turn: they cannot be read ahead for it.
  if (plan_.resident || next == kNoInterval || next == p) return;
  store_->Prefetch(set_.interval_begin(next), set_.interval_end(next));
}

template <GasProgram Program>
void Engine<Program>::StoreValues(uint32_t p) {
  if (plan_.resident) return;
  const auto t = Clock::now();
  store_->Store(set_.interval_begin(p), set_.interval_end(p));
  if (delay_store_ && delayed_in_[p] > 0) {
    delay_store_->Write(set_.interval_begin(p), set_.interval_end(p), interval_delay_.data());
  }
  stats_.write_back_seconds += Since(t);
}

template <GasProgram Program>
uint32_t Engine<Program>::NextPending(uint32_t p) const {
  const uint32_t n = num_intervals();
  for (uint32_t step = 1; step <= n; ++step) {
    const uint32_t q = (p + step) % n;
    if (pending_[q]) return q;
  }
  return kNoInterval;
}

template <GasProgram Program>
void Engine<Program>::ComputeStreamed(uint32_t p, uint32_t iteration) {
  pending_[p] = 0;
  const IntervalData& data = transport_->BeginStreamed(p);
  VertexValue* values = LoadValues(p);
  const auto t = Clock::now();
  const uint32_t n = num_intervals();
  const EdgeValue identity = program_.identity();
  const VertexContext ctx{set_.interval_begin(p), data.OutDegrees()[0], data.InDegrees()[0],
                          iteration};
  Accumulator acc = Accumulator(identity);
  if constexpr (kAccumulation) acc = program_.extract(ctx, values[0]);
  bool touched = false;
  for (uint32_t r = 0; r < n; ++r) {
    if (!transport_->Carries(p, r)) continue;
    stats_.edges_loaded += cur_->Window(p, r + 1).first_edge - cur_->Window(p, r).first_edge;
    transport_->StreamIn(r, [&](const std::byte* bytes, const float* weights, uint64_t count) {
      for (uint64_t i = 0; i < count; ++i) {
        EdgeValue m;
        std::memcpy(&m, bytes + i * sizeof(EdgeValue), sizeof(EdgeValue));
        if (m == identity) continue;
        acc = program_.gather(acc, m, Program::kUsesWeights && weights != nullptr ? weights[i]
                                                                                  : 1.0f);
        touched = true;
        ++stats_.edges_used;
      }
    });
  }
  const bool everyone = iteration == 0;
  bool changed = false;
  EdgeValue message = identity;
  if (everyone || touched) {
    ++stats_.active_vertices;
    if (Apply(ctx, values[0], acc, everyone, message, stats_.largest_change)) {
      changed = !(message == identity);
      ++stats_.changed_vertices;
    }
  }
  for (uint32_t q = 0; q < n; ++q) {
    const uint64_t edges = cur_->Window(q, p + 1).first_edge - cur_->Window(q, p).first_edge;
    carries_[q] = changed && edges > 0;
    if (carries_[q]) {
      pending_[q] = 1;
      stats_.edges_changed += edges;
    }
  }
  pending_[p] = carries_[p];
  dirty_[p] = std::any_of(carries_.begin(), carries_.end(), [](uint8_t c) { return c != 0; });
  transport_->EndStreamed(reinterpret_cast<const std::byte*>(&message), carries_.data());
  stats_.compute_seconds += Since(t);
  ++stats_.intervals_computed;
  StoreValues(p);
}

template <GasProgram Program>
void Engine<Program>::Compute(uint32_t p, uint32_t iteration) {
  if (transport_->Streamed(p)) {
    ComputeStreamed(p, iteration);
    return;
  }
  pending_[p] = 0;
  ForgetSent(p);  // every other interval has taken it
  const uint32_t next = NextPending(p);
  const IntervalData& data = transport_->BeginCompute(p, next);
  VertexValue* values = LoadValues(p);

  const auto t = Clock::now();
  const uint32_t n = num_intervals();
  in_turn_ = false;
  if (data.in_sources) {
    // By target where every other window's message waits in msgs_ (if any); else the
    // shard's own targets, where a pass needs those of another window.
    bool pulled = false, carried = false;
    for (uint32_t r = 0; r < n; ++r) {
      if (r == p) continue;
      pulled = pulled || pulled_[static_cast<size_t>(p) * n + r];
      carried = carried || transport_->Carries(p, r);
    }
    in_turn_ = pulled && !carried && !(logs_ && logs_->size(p) > 0);
    if (!in_turn_ && (pulled || carried)) transport_->UseShardTargets();
  }
  if (in_turn_) {
    pull_in_ = false;
    in_now_ = in_starts_->Take(p, &stats_.io_wait_seconds);
  } else {
    PullIn(p);
  }
  for (uint32_t r = 0; r < n; ++r) {
    if ((pull_in_ && pull_from_[r]) || (in_turn_ && r != p)) {
      stats_.edges_loaded += cur_->Window(p, r + 1).first_edge - cur_->Window(p, r).first_edge;
    }
    if (!transport_->Carries(p, r)) continue;
    if (transport_->Chunked()) {
      uint64_t read = 0;
      for (const EdgeRange& s : transport_->Segments(r)) read += s.last - s.first;
      stats_.edges_loaded += read;
      stats_.edges_skipped +=
          cur_->Window(p, r + 1).first_edge - cur_->Window(p, r).first_edge - read;
    } else {
      stats_.edges_loaded += cur_->Window(p, r + 1).first_edge - cur_->Window(p, r).first_edge;
    }
  }
  // Asynchronous intervals also make a message inside a block of p visible in the same pass
  // (sweeps), or inside p (the ordered schedule).
  const bool own = options_.max_inner_passes > 0 &&
                   cur_->Window(p, p + 1).first_edge > cur_->Window(p, p).first_edge;
  // The ordered schedule is sequential after the gather: it pays where p's vertices send each
  // other a good share of p's in-edges (kOrderedShare), else the parallel sweeps do better.
  const uint64_t own_edges = cur_->Window(p, p + 1).first_edge - cur_->Window(p, p).first_edge;
  const uint64_t in_edges = cur_->Window(p, n).first_edge - cur_->Window(p, 0).first_edge;
  // (Not in a shadow iteration: its first pass also flushes the delay buffer.)
  ordered_ = kOrdered && own && own_edges * kOrderedShare >= in_edges && !flush_;
  sweep_ = own && !ordered_;
  // A turn with few messages against window (p, p) (page grain) reads the targets of (p, p)
  // only under the runs its passes send on; its sweeps then deliver nothing at once.
  // (Not the first iteration: every vertex sends in it.)
  sparse_own_ = sweep_ && iteration > 0 && transport_->OwnTargetsSparse();
  if (sparse_own_) ++stats_.intervals_sparse;
  own_runs_ = own;
  own_sorted_ = false;  // until FindOwnRuns checks this turn's window (p, p)
  if (own) {
    if (!sparse_own_) transport_->LoadOwnWindow();
    FindOwnRuns(p, data, sweep_ && !sparse_own_);  // (only the sweeps search runs)
  }
  // The turn's own reads are done: the next turn's may start (after them, not before, so
  // that these did not wait behind them).
  transport_->StartPrefetch();
  PrefetchValues(p, next);
  PrefetchColumn(p, next);
  forward_ = true;
  if (logs_) stats_.edges_loaded += logs_->size(p);
  uint64_t changed = Pass(p, iteration, data, values, /*inner=*/false);
  if (in_turn_) PrefetchStarts(next);  // this turn's are used
  if (logs_) logs_->Clear(p);  // folded by the pass
  if (pull_in_ || in_turn_) {  // and so were the pulled windows (by target: all of them)
    if (in_turn_) ++stats_.intervals_by_target;
    for (uint32_t r = 0; r < n; ++r) {
      uint8_t& pulled = pulled_[static_cast<size_t>(p) * n + r];
      if (r == p || !pulled || (pull_in_ && !pull_from_[r])) continue;
      pulled = 0;
      --pulled_count_;
    }
    pull_in_ = false;
    in_turn_ = false;
  }
  if (ordered_) {
    changed = Drain(p, iteration, data, values);
    ++stats_.intervals_ordered;
  }
  if (changed == 0) {
    // No vertex of p changed: every message is identity, and no runs need decoding.
    transport_->EndCompute(nullptr);
    dirty_[p] = 0;
  } else {
    Scatter(p, data, /*merge=*/false);  // carries_[p] implies `own`: window (p, p) is loaded
    uint32_t passes = 0;
    while (sweep_ && carries_[p] && passes < options_.max_inner_passes) {
      ++passes;
      forward_ = passes % 2 == 0;  // sweeps alternate: backward, forward, ...
      // A sparse turn reads the targets of the runs the last pass's senders sent on.
      if (sparse_own_) transport_->LoadOwnRuns(frontier_, own_start_.data());
      if (Pass(p, iteration, data, values, /*inner=*/true) == 0) {
        carries_[p] = 0;  // the pass consumed window (p, p) and sent nothing
        break;
      }
      Scatter(p, data, /*merge=*/true);
    }
    stats_.inner_passes += passes;
    stats_.inner_passes_max = std::max(stats_.inner_passes_max, passes);
    if (push_) PushOut(p, data);
    if (pull_) PullOut(p, data);
    if (pull_later_) PullOutLater(p, data);
    // Only p's own turn sets pending_[p]: what p still sends itself is all that matters.
    pending_[p] = carries_[p];
    dirty_[p] = std::any_of(carries_.begin(), carries_.end(), [](uint8_t c) { return c != 0; });
    transport_->EndCompute(carries_.data());
  }
  if (!data.all_runs) ++stats_.intervals_own_runs;
  stats_.compute_seconds += Since(t);
  ++stats_.intervals_computed;
  StoreValues(p);
}

template <GasProgram Program>
void Engine<Program>::FindOwnRuns(uint32_t p, const IntervalData& data, bool check) {
  const VertexId begin = set_.interval_begin(p), end = set_.interval_end(p);
  own_start_.assign(static_cast<size_t>(end - begin) + 1, 0);
  const WindowEntry &first = cur_->Window(p, p), &last = cur_->Window(p, p + 1);
  const RunDecodeStatus status = DecodeRuns(
      data.RunBytes(p), data.RunBytes(p + 1), last.first_run - first.first_run, begin, end,
      last.first_edge - first.first_edge,
      [&](uint32_t source, uint64_t count) { own_start_[source - begin + 1] = count; });
  if (!status.ok()) {
    throw Error::AtByte(cur_->ScatterIndexPath(p), cur_->ScatterOffset(p, p) + status.at,
                        std::string("window of shard ") + std::to_string(p) + ": " +
                            status.error + " (the scatter index is damaged)");
  }
  for (size_t v = 1; v < own_start_.size(); ++v) own_start_[v] += own_start_[v - 1];
  own_sorted_ = false;
  if (!check) return;
  // Every target in p, ascending within its run; else the first edge that breaks it.
  const uint64_t own_first = first.first_edge;
  const uint32_t* own = data.Targets() + own_first;
  const uint32_t count = end - begin;
  uint64_t bad = UINT64_MAX;
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(min : bad)
  for (uint32_t v = 0; v < count; ++v) {
    uint32_t previous = begin;
    for (uint64_t e = own_start_[v]; e < own_start_[v + 1]; ++e) {
      if (own[e] < previous || own[e] >= end) {
        bad = std::min(bad, e);
        break;
      }
      previous = own[e];
    }
  }
  if (bad != UINT64_MAX) {
    const uint64_t edge = own_first + bad;
    const uint32_t target = data.Targets()[edge];
    if (target < begin || target >= end) throw TargetOutside(p, edge, target);
    throw Error::AtByte(cur_->AdjacencyPath(p), cur_->header(p).targets_pos + 4 * edge,
                        "target " + std::to_string(target) +
                            " is out of order in its source's run (the shard file is damaged)");
  }
  own_sorted_ = true;
}

template <GasProgram Program>
uint64_t Engine<Program>::Pass(uint32_t p, uint32_t iteration, const IntervalData& data,
                               VertexValue* values, bool inner) {
  const VertexId begin = set_.interval_begin(p);
  const uint32_t count = set_.interval_end(p) - begin;
  const EdgeValue identity = program_.identity();
  const uint32_t* targets = data.Targets();
  const float* weights = Program::kUsesWeights ? data.Weights() : nullptr;
  auto weight = [weights](uint64_t edge) { return weights != nullptr ? weights[edge] : 1.0f; };
  const uint32_t* out_degrees = data.OutDegrees();
  const uint32_t* in_degrees = data.InDegrees();
  const uint32_t n = num_intervals();
  std::vector<Source>& sources = sources_;
  sources.clear();
  size_t own_source = SIZE_MAX;  // window (p, p) whole in sources, its runs searchable
  if (!inner) {
    for (uint32_t r = 0; r < n; ++r) {
      // A pulled window's messages were put in place whole (PullIn).
      const bool pulled = pull_in_ && pull_from_[r];
      if (!transport_->Carries(p, r) && !pulled) continue;  // all identity
      if (r == p && own_sorted_ && !transport_->Chunked()) own_source = sources.size();
      const EdgeValue* messages =
          reinterpret_cast<const EdgeValue*>(data.values.data() + transport_->WindowOffset(p, r));
      const uint64_t first = cur_->Window(p, r).first_edge;
      if (transport_->Chunked() && !pulled) {  // the runs of chunks that were read
        for (const EdgeRange& s : transport_->Segments(r)) {
          sources.push_back({s.first, s.last, messages + (s.first - first)});
        }
      } else {
        sources.push_back({first, cur_->Window(p, r + 1).first_edge, messages});
      }
    }
  }
  // An inner pass reads window (p, p) as p's previous pass wrote it, where only the edges of
  // that pass's senders (frontier_) can carry a message.
  auto* own_window = inner ? reinterpret_cast<EdgeValue*>(transport_->OutWindow(p)) : nullptr;
  const bool everyone = iteration == 0 && !inner;  // the first pass computes every vertex
  const uint64_t own_first = cur_->Window(p, p).first_edge;
  const uint32_t blocks = (count + kSweepBlock - 1) / kSweepBlock;
  if (sweep_) {  // sized once for the largest interval (the memory plan counts 8 B a vertex)
    if (block_sent_.size() < blocks) {
      block_sent_.resize(blocks);
      block_active_.resize(blocks, 0);
      for (auto& sent : block_sent_) sent.reserve(kSweepBlock);
    }
    if (frontier_.capacity() < count) frontier_.reserve(acc_.size());
    for (auto& sent : block_sent_) sent.clear();
  }
  uint64_t active = 0, changed = 0;
  uint64_t stray = UINT64_MAX;  // the first in-edge whose target lies outside p

  // The split gather where it pays (split_gather.h), or where it was asked for.
  bool split = false;
  if constexpr (SplitsGather<Program>()) {
    uint64_t edges = 0;
    for (const Source& s : sources) edges += s.last - s.first;
    split = split_ && !inner &&
            (options_.gather == GatherChoice::kSplit || Splitter::Pays(edges, count));
    if (split) splitter_.Prepare(identity);
  }
  const bool flush = flush_ && !inner;
  uint64_t flushed = 0;
  uint64_t used = 0;  // messages found on the loaded in-edges (dense passes)
  double largest = stats_.largest_change;
  double gather_cpu = 0;
#pragma omp parallel num_threads(threads_) reduction(+ : active, changed, flushed, used, \
                                                         gather_cpu) \
    reduction(min : stray) reduction(max : largest)
  {
    const int nt = omp_get_num_threads(), t_id = omp_get_thread_num();
    // This thread's targets: whole sweep blocks, so that a block's flag has one writer.
    const uint32_t lo = static_cast<uint32_t>(
        std::min<uint64_t>(count, uint64_t{blocks} * t_id / nt * kSweepBlock));
    const uint32_t hi = static_cast<uint32_t>(
        std::min<uint64_t>(count, uint64_t{blocks} * (t_id + 1) / nt * kSweepBlock));
    auto start = [&](uint32_t v) {  // the accumulator before v's first message of the pass
      if constexpr (kAccumulation) {
        const VertexContext ctx{begin + v, out_degrees[v], in_degrees[v], iteration};
        acc_[v] = program_.extract(ctx, values[v]);
      } else {
        acc_[v] = Accumulator(identity);
      }
    };
    // The first message v gets in an inner pass starts its accumulator (a dense pass started
    // them all) and marks its block for the apply below.
    auto touch = [&](uint32_t v) {
      if (touched_[v]) return;
      touched_[v] = 1;
      if (inner) {
        start(v);
        block_active_[v / kSweepBlock] = 1;
      }
    };
    // message_[v] is not identity() only for the last pass's senders: a dense pass clears it
    // here, an inner pass for its senders as it gathers; apply sets the new ones.
    if (!inner) {
      const double cpu = ThreadCpuSeconds();
      for (uint32_t v = lo; v < hi; ++v) {
        start(v);
        touched_[v] = 0;
        message_[v] = identity;
      }
      // A turn by target (in_turn_): the other windows' messages from msgs_, each target's
      // sources in earlier intervals before window (p, p)'s messages, those in later ones
      // after (in_adjacency.h): shard order all the same.
      auto by_target = [&](bool earlier) {
        // The in-adjacency's sources in the other windows' places (in_section.h).
        const auto* cross = reinterpret_cast<const std::byte*>(targets);
        const InSection section = InSection::Of(*cur_, p, in_adj_->width());
        const EdgeValue* sent = msgs_.data();
        auto source = [&](uint64_t i) { return section.Source(cross, i); };
        constexpr uint64_t kAhead = 24;
        const uint64_t last = in_now_[hi];
        for (uint32_t v = lo; v < hi; ++v) {
          uint64_t i = in_now_[v];
          const uint64_t end = in_now_[v + 1];
          if (!earlier) {  // v's first source in a later interval
            for (uint64_t j = end; i < j;) {
              const uint64_t mid = i + (j - i) / 2;
              if (source(mid) < begin) {
                i = mid + 1;
              } else {
                j = mid;
              }
            }
          }
          Accumulator a = acc_[v];
          uint64_t got = 0;
          for (; i < end; ++i) {
            const uint32_t s = source(i);
            if (earlier && s >= begin) break;
            if (i + kAhead < last) __builtin_prefetch(sent + source(i + kAhead));
            const EdgeValue m = sent[s];
            if (m == identity) continue;
            a = program_.gather(a, m, 1.0f);
            ++got;
          }
          acc_[v] = a;
          if (got > 0) touched_[v] = 1;
          used += got;
        }
      };
      if (in_turn_) by_target(true);
      // Gather: this thread owns targets [lo, hi) and folds their in-edges in shard order.
      if (split) {
        if constexpr (SplitsGather<Program>()) {
          stray = std::min(stray, splitter_.Run(program_, sources, targets, weights, begin, count,
                                                lo, hi, acc_.data(), touched_.data(), used));
        }
      } else if (route_) {
        stray = std::min(stray, router_.Run(sources, targets, weights, begin, count, identity,
                                            [&](uint32_t v, const EdgeValue& m, float w) {
                                              acc_[v] = program_.gather(acc_[v], m, w);
                                              touched_[v] = 1;
                                              ++used;
                                            }));
      } else {
        auto fold = [&](uint32_t v, const EdgeValue& m, uint64_t i) {
          acc_[v] = program_.gather(acc_[v], m, weight(i));
          touched_[v] = 1;
          ++used;
        };
        const std::span<const Source> all(sources);
        if (own_source == SIZE_MAX) {
          stray = std::min(stray, ScanGather(all, targets, begin, count, lo, hi, identity, fold));
        } else {
          // Window (p, p) run by run, each searched for this thread's targets (own_sorted_);
          // the windows before and after it scanned: shard order all the same.
          stray = std::min(stray, ScanGather(all.first(own_source), targets, begin, count, lo, hi,
                                             identity, fold));
          const EdgeValue* messages = sources[own_source].messages;
          for (uint32_t u = 0; u < count; ++u) {
            const auto [a, b] = TargetsWithin(targets + own_first, own_start_[u],
                                              own_start_[u + 1], begin + lo, begin + hi);
            for (uint64_t e = a; e < b; ++e) {
              if (!(messages[e] == identity)) {
                fold(targets[own_first + e] - begin, messages[e], own_first + e);
              }
            }
          }
          stray = std::min(stray, ScanGather(all.subspan(own_source + 1), targets, begin, count,
                                             lo, hi, identity, fold));
        }
      }
      if (in_turn_) by_target(false);
      if (logs_ && logs_->size(p) > 0) {
        // What push turns sent p (message_logs.h), after the windows' messages, in the order
        // it was sent: the same at any thread count. (Only unweighted use pushes.)
        logs_->ForEach(p, [&](const typename MessageLogs<EdgeValue>::Entry& e) {
          const uint32_t v = e.target - begin;
          if (v - lo >= hi - lo) return;
          acc_[v] = program_.gather(acc_[v], e.message, 1.0f);
          touched_[v] = 1;
          ++used;
        });
      }
      gather_cpu += ThreadCpuSeconds() - cpu;
    } else {
      // Only the previous pass's senders carry anything, in ascending order: each target folds
      // its messages in the order a scan of the window would (shard order, by source).
      const uint32_t* own_targets = targets + own_first;
      for (uint32_t u : frontier_) {
        if (u - lo < hi - lo) message_[u] = identity;  // sent; this pass sets it anew
        const auto [from, to] =
            own_sorted_ ? TargetsWithin(own_targets, own_start_[u], own_start_[u + 1],
                                        begin + lo, begin + hi)
                        : std::pair{own_start_[u], own_start_[u + 1]};
        for (uint64_t e = from; e < to; ++e) {
          const uint32_t v = targets[own_first + e] - begin;
          if (v - lo >= hi - lo) {
            if (v >= count) stray = std::min(stray, own_first + e);
            continue;
          }
          const EdgeValue& m = own_window[e];
          if (m == identity) continue;
          touch(v);
          acc_[v] = program_.gather(acc_[v], m, weight(own_first + e));
        }
      }
#pragma omp barrier
      // Gathered: window (p, p) carries nothing now.
#pragma omp for schedule(static)
      for (size_t k = 0; k < frontier_.size(); ++k) {
        const uint32_t u = frontier_[k];
        std::fill(own_window + own_start_[u], own_window + own_start_[u + 1], identity);
      }
    }
    // Apply.
    auto apply = [&](uint32_t v) {
      // A shadow iteration's first pass of p also sends what waits in the delay buffer,
      // before the vertex's own change of this pass.
      const bool delayed = flush && (flags_[begin + v] & kDelayed) != 0;
      if (!everyone && !touched_[v] && !delayed) return;
      bool sent = false;
      if (everyone || touched_[v]) {
        const VertexContext ctx{begin + v, out_degrees[v], in_degrees[v], iteration};
        ++active;
        sent = Apply(ctx, values[v], acc_[v], everyone, message_[v], largest);
      }
      if (delayed) {
        const EdgeValue& d = delay_view_[v];
        message_[v] = sent ? Aggregate(program_, d, message_[v]) : d;
        flags_[begin + v] = static_cast<uint8_t>(flags_[begin + v] & ~kDelayed);
        ++flushed;
      }
      if (sent || delayed) ++changed;
    };
    if (ordered_) {
      // Drain() applies them, in order.
    } else if (!sweep_) {
      for (uint32_t v = lo; v < hi; ++v) apply(v);
    } else {
      // Block by block, in order: a changed vertex's message reaches the later vertices of
      // its block now (FreshRange), before they apply. An inner pass visits only the blocks its
      // messages reached.
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
      for (uint32_t b = 0; b < blocks; ++b) {
        if (inner && !block_active_[b]) continue;
        const uint32_t b0 = b * kSweepBlock, b1 = std::min(count, b0 + kSweepBlock);
        for (uint32_t i = 0; i < b1 - b0; ++i) {
          const uint32_t u = forward_ ? b0 + i : b1 - 1 - i;
          apply(u);
          touched_[u] = 0;
          const EdgeValue m = message_[u];
          if (m == identity) continue;
          block_sent_[b].push_back(u);
          if (sparse_own_) {
            if (!FreshHeld(u)) continue;  // its targets are read after the pass
            const auto [lo_t, hi_t] = FreshTargets(u, begin, count);
            for (uint64_t e = own_start_[u]; e < own_start_[u + 1]; ++e) {
              const uint64_t edge = own_first + e;
              if (targets[edge] - lo_t >= hi_t - lo_t) continue;
              const uint32_t v = targets[edge] - begin;
              touch(v);
              acc_[v] = program_.gather(acc_[v], m, weight(edge));
            }
            continue;
          }
          // Its fresh targets (a sweep turn that is not sparse has own_sorted_).
          const auto [from, to] =
              FreshRange(targets + own_first, own_start_[u], own_start_[u + 1], u, begin, count);
          for (uint64_t e = from; e < to; ++e) {
            const uint64_t edge = own_first + e;
            const uint32_t v = targets[edge] - begin;
            touch(v);
            acc_[v] = program_.gather(acc_[v], m, weight(edge));
          }
        }
        block_active_[b] = 0;
      }
    }
  }
  if (stray != UINT64_MAX) throw TargetOutside(p, stray, targets[stray]);
  if (sweep_) {  // this pass's senders, ascending
    frontier_.clear();
    for (auto& sent : block_sent_) {
      if (!forward_) std::reverse(sent.begin(), sent.end());
      frontier_.insert(frontier_.end(), sent.begin(), sent.end());
    }
  }
  stats_.active_vertices += active;
  stats_.edges_used += used;
  stats_.gather_cpu_seconds += gather_cpu;
  stats_.changed_vertices += changed;
  stats_.largest_change = largest;
  delayed_count_ -= flushed;
  if (flushed > 0) delayed_in_[p] -= static_cast<uint32_t>(flushed);
  return changed;
}

template <GasProgram Program>
uint64_t Engine<Program>::Drain(uint32_t p, uint32_t iteration, const IntervalData& data,
                                VertexValue* values) {
  if constexpr (!kOrdered) {
    throw std::logic_error("Drain() is the ordered schedule's");
  } else {
    const VertexId begin = set_.interval_begin(p);
    const uint32_t count = set_.interval_end(p) - begin;
    const EdgeValue identity = program_.identity();
    const uint32_t* targets = data.Targets();
    const float* weights = Program::kUsesWeights ? data.Weights() : nullptr;
    const uint32_t* out_degrees = data.OutDegrees();
    const uint32_t* in_degrees = data.InDegrees();
    const uint64_t own_first = cur_->Window(p, p).first_edge;
    // Least priority first, ties by offset (VertexHeap): the pops follow from the gathered
    // messages alone, not from the thread count that gathered them.
    heap_.Reset(count);
    const bool first = iteration == 0;
    // Every vertex waits in the first iteration; afterwards those whose messages change them
    // (the others' messages are dropped, as below), found in parallel.
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (uint32_t v = 0; v < count; ++v) {
      if (first) {
        touched_[v] |= kFirst;
      } else if (touched_[v] != 0) {
        const VertexContext ctx{begin + v, out_degrees[v], in_degrees[v], iteration};
        if (!program_.changed(values[v], program_.apply(ctx, values[v], acc_[v]))) {
          touched_[v] = 0;
          acc_[v] = Accumulator(identity);
        }
      }
    }
    for (uint32_t v = 0; v < count; ++v) {
      if (touched_[v] != 0) heap_.Add(v, program_.priority(values[v], acc_[v]));
    }
    const uint64_t bound = (uint64_t{options_.max_inner_passes} + 1) * count;
    const bool static_mode = mode_ == ShardMode::kStatic;
    uint64_t applied = 0, changed = 0;
    while (!heap_.empty()) {
      const uint32_t v = heap_.Pop();
      const bool late = ++applied > bound;  // the rest are applied once, without gathering
      if (const uint32_t next = heap_.Peek(); next != heap_.kNone) {
        // Likely the next to pop (unless v's messages move another ahead of it).
        __builtin_prefetch(&values[next]);
        __builtin_prefetch(&acc_[next]);
        // Its out-edges' targets and weights: the load of own_start_[next] may miss, but
        // nothing of v's below waits for it.
        const uint64_t next_first = own_first + own_start_[next];
        __builtin_prefetch(&targets[next_first]);
        if (weights != nullptr) __builtin_prefetch(&weights[next_first]);
      }
      if (!late) {
        // The targets' state is scattered over the interval: ask for it while v applies.
        for (uint64_t e = own_start_[v]; e < own_start_[v + 1]; ++e) {
          const uint32_t t = targets[own_first + e] - begin;
          if (t >= count) continue;  // damaged: reported below
          __builtin_prefetch(&acc_[t]);
          __builtin_prefetch(&values[t]);
          __builtin_prefetch(&touched_[t]);
          heap_.Prefetch(t);
        }
      }
      const VertexContext ctx{begin + v, out_degrees[v], in_degrees[v], iteration};
      const VertexValue old = values[v];
      const VertexValue now = program_.apply(ctx, old, acc_[v]);
      values[v] = now;
      acc_[v] = Accumulator(identity);
      const bool everyone = (touched_[v] & kFirst) != 0;
      touched_[v] &= kLate;
      if (!everyone && !program_.changed(old, now)) continue;
      ++changed;
      const EdgeValue m = program_.scatter(ctx, everyone ? VertexValue{} : old, now);
      if (late) {
        message_[v] = message_[v] == identity ? m : Aggregate(program_, message_[v], m);
        touched_[v] |= kLate;
        continue;
      }
      // What v sends is gathered below where its out-edges lie in p; message_ keeps it for the
      // others (Scatter), and for the delay buffer (Delay) in the dynamic modes. (A vertex
      // that turns late sends its latest message on window (p, p); the earlier ones were
      // gathered, and a selection program keeps the best it heard.)
      if (!static_mode || out_degrees[v] != own_start_[v + 1] - own_start_[v]) {
        message_[v] = message_[v] == identity ? m : Aggregate(program_, message_[v], m);
      }
      for (uint64_t e = own_start_[v]; e < own_start_[v + 1]; ++e) {
        const uint64_t edge = own_first + e;
        const uint32_t t = targets[edge] - begin;
        if (t >= count) throw TargetOutside(p, edge, targets[edge]);
        acc_[t] = program_.gather(acc_[t], m, weights != nullptr ? weights[edge] : 1.0f);
        if ((touched_[t] & (kHeard | kFirst)) == 0) {
          // t is not waiting: a message that would not change it is dropped (a selection
          // program keeps the best it heard, so applying it later could not change t either).
          const VertexContext tc{begin + t, out_degrees[t], in_degrees[t], iteration};
          if (!program_.changed(values[t], program_.apply(tc, values[t], acc_[t]))) {
            acc_[t] = Accumulator(identity);
            continue;
          }
        }
        touched_[t] |= kHeard;
        heap_.Update(t, program_.priority(values[t], acc_[t]));
      }
    }
    stats_.active_vertices += applied;
    stats_.changed_vertices += changed;
    return changed;
  }
}

template <GasProgram Program>
void Engine<Program>::Delay(uint32_t p, const IntervalData& data, bool inner) {
  const VertexId begin = set_.interval_begin(p);
  const uint32_t count = set_.interval_end(p) - begin;
  const EdgeValue identity = program_.identity();
  const uint32_t* out_degrees = data.OutDegrees();
  const bool all_present = dynamic_ == nullptr;  // the static shards hold every edge
  // Returns 0 when v's message (if any) goes on its edges, 1 when it joins its earlier one in
  // the buffer, 2 when it is v's first there.
  auto visit = [&](uint32_t v) -> int {
    const EdgeValue& m = message_[v];
    if (m == identity) return 0;
    uint8_t& f = flags_[begin + v];
    if (all_present || (f & kPresent) != 0) {
      f |= kSent;
      return 0;
    }
    if (out_degrees[v] == 0) return 0;
    EdgeValue& d = delay_view_[v];
    if ((f & kDelayed) != 0) {
      d = Aggregate(program_, d, m);
      return 1;
    }
    d = m;
    f |= kDelayed;
    return 2;
  };
  uint64_t added = 0, fresh = 0;
  if (inner) {
    for (uint32_t v : frontier_) {
      const int k = visit(v);
      added += k > 0;
      fresh += k > 1;
    }
  } else {
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(+ : added, fresh)
    for (uint32_t v = 0; v < count; ++v) {
      const int k = visit(v);
      added += k > 0;
      fresh += k > 1;
    }
  }
  delayed_count_ += fresh;
  delayed_in_[p] += static_cast<uint32_t>(fresh);
  stats_.delayed += added;
}

template <GasProgram Program>
void Engine<Program>::UseSet(const ShardSet& set, IntervalIo& io, const EdgeValueFiles& edges,
                             std::vector<uint8_t> carries) {
  const uint32_t n = num_intervals();
  cur_ = &set;
  transport_ = MakeStaticWindows(set, io, edges);
  for (uint32_t q = 0; q < n; ++q) {
    pending_[q] = 0;
    dirty_[q] = 0;
  }
  for (uint32_t q = 0; q < n; ++q) {
    for (uint32_t r = 0; r < n; ++r) {
      if (carries[static_cast<size_t>(q) * n + r] == 0) continue;
      pending_[q] = 1;
      dirty_[r] = 1;
    }
  }
  uint32_t first = kNoInterval;
  for (uint32_t q = 0; q < n && first == kNoInterval; ++q) {
    if (pending_[q]) first = q;
  }
  transport_->Resume(first, std::move(carries));
}

template <GasProgram Program>
void Engine<Program>::UseValueStore() {
  store_.emplace(VertexStore::Create(*io_, work_->path(), "run", set_.manifest().num_vertices,
                                     sizeof(VertexValue)));
}

template <GasProgram Program>
void Engine<Program>::UseDelayStore() {
  interval_delay_.resize(set_.largest_interval());
  delay_store_.emplace(VertexStore::Create(*io_, work_->path(), "delay",
                                           set_.manifest().num_vertices, sizeof(EdgeValue)));
}

template <GasProgram Program>
void Engine<Program>::SpillValues() {
  if (delayed_count_ != 0) {
    throw std::logic_error("vertex values moved to disk with scatters delayed");
  }
  const auto t = Clock::now();
  UseValueStore();
  // In pieces of whole 4 KiB blocks of the file (no neighbour's bytes to read back), each no
  // larger than the buffer the plan counts for an interval's values.
  const uint64_t width = sizeof(VertexValue);
  const uint64_t unit = std::lcm(width, kDirectAlignment) / width;  // vertices
  const uint64_t step = unit * std::max<uint64_t>(1, set_.largest_interval() / unit);
  const uint64_t n = all_values_.size();
  for (uint64_t begin = 0; begin < n; begin += step) {
    store_->Write(begin, std::min(n, begin + step), all_values_.data() + begin);
  }
  std::vector<VertexValue>().swap(all_values_);
  UseDelayStore();
  plan_.resident = false;
  stats_.write_back_seconds += Since(t);
  if (options_.log) {
    options_.log("vertex values moved to disk for the dynamic shard builds (--memory holds "
                 "them only until the first build)");
  }
}

template <GasProgram Program>
void Engine<Program>::BuildDynamic(uint8_t keep) {
  if (plan_.values_shared && plan_.resident) SpillValues();
  // Degrees and scatter indexes held in the builds' room (MemoryPlan::degrees_shared,
  // runs_shared) give it back for good.
  if (plan_.degrees_shared) shard_io_->ReleaseDegrees();
  if (plan_.runs_shared) shard_io_->ReleaseRuns();
  const IoCounters before = io_->counters();
  const std::vector<uint8_t> carries = StopTransport();
  auto next = std::make_unique<DynamicSet>();
  next->dir = work_->path() + "/dynamic-" + std::to_string(builds_++);
  std::filesystem::create_directory(next->dir);
  const bool from_dynamic = dynamic_ != nullptr;
  WriteDynamicSet(*io_, *cur_, from_dynamic, KeptSources{flags_, keep}, next->dir, threads_);
  next->set.emplace(ShardSet::Open(next->dir, /*verify_digests=*/false));
  next->edges = std::make_unique<EdgeValueFiles>(*io_, *next->set, next->dir, sizeof(EdgeValue));
  next->io = std::make_unique<IntervalIo>(*io_, *next->set, *next->edges, Program::kUsesWeights,
                                          /*dynamic=*/true, UsesInDegree<Program>());
  const EdgeValueFiles& from_edges = from_dynamic ? *dynamic_->edges : *edges_;
  const WindowChunks* marks = !from_dynamic && marks_ ? &*marks_ : nullptr;
  std::vector<uint8_t> moved = MoveMessages(*io_, *cur_, from_dynamic, from_edges, carries,
                                            *next->set, true, *next->edges, identity_, marks);
  // Both sets, with their messages, are on disk now.
  for (const auto& entry : std::filesystem::directory_iterator(next->dir)) {
    if (entry.is_regular_file()) next->disk_bytes += entry.file_size();
  }
  dynamic_disk_peak_ = std::max(dynamic_disk_peak_,
                                next->disk_bytes + (dynamic_ ? dynamic_->disk_bytes : 0));
  // The new set's sources: those kept, whose runs it holds.
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (uint64_t u = 0; u < flags_.size(); ++u) {
    const bool present = (flags_[u] & keep) != 0;
    flags_[u] = static_cast<uint8_t>((flags_[u] & kDelayed) | (present ? kPresent : 0));
  }
  cur_ = &set_;  // the old set goes
  dynamic_ = std::move(next);
  UseSet(*dynamic_->set, *dynamic_->io, *dynamic_->edges, std::move(moved));
  AddBuildIo(before);
  const IoCounters& now = io_->counters();
  last_build_read_ = now.TotalRead() - before.TotalRead();
  last_build_written_ = now.TotalWritten() - before.TotalWritten();
  last_build_edges_ = dynamic_->set->manifest().num_edges;
}

template <GasProgram Program>
void Engine<Program>::BeginShadow() {
  const IoCounters before = io_->counters();
  if (dynamic_) {
    const std::vector<uint8_t> carries = StopTransport();
    std::vector<uint8_t> moved = MoveMessages(*io_, *dynamic_->set, true, *dynamic_->edges,
                                              carries, set_, false, *edges_, identity_);
    cur_ = &set_;
    dynamic_.reset();
    UseSet(set_, *shard_io_, *edges_, std::move(moved));
  }
  // Every interval with a vertex in the delay buffer is computed: its first pass sends it.
  for (uint32_t p = 0; p < num_intervals() && delayed_count_ > 0; ++p) {
    for (VertexId v = set_.interval_begin(p); v < set_.interval_end(p) && !pending_[p]; ++v) {
      if ((flags_[v] & kDelayed) != 0) pending_[p] = 1;
    }
  }
  flush_ = true;
  AddBuildIo(before);
}

template <GasProgram Program>
void Engine<Program>::Scatter(uint32_t p, const IntervalData& data, bool merge) {
  if (mode_ != ShardMode::kStatic) Delay(p, data, merge && sweep_);
  // Window (p, p) by its runs in own_start_, where the turn found them (ScatterOwn).
  uint64_t edges_changed = own_runs_ ? ScatterOwn(p, data, merge) : 0;
  Windows which = Windows::kAll;
  if (push_ || pull_ || pull_later_) {
    // A push or pull turn keeps its messages to other intervals per vertex, combined over its
    // passes as the windows would combine them, until PushOut or PullOut.
    const EdgeValue identity = program_.identity();
    const uint32_t count = set_.interval_end(p) - set_.interval_begin(p);
    if (!merge) {
      std::copy(message_.begin(), message_.begin() + count, out_msg_.begin());
    } else {
      // An inner pass (a sweep): only its senders, frontier_, have messages.
#pragma omp parallel for num_threads(threads_) schedule(static)
      for (size_t k = 0; k < frontier_.size(); ++k) {
        const uint32_t u = frontier_[k];
        const EdgeValue& m = message_[u];
        if (m == identity) continue;
        out_msg_[u] = out_msg_[u] == identity ? m : Aggregate(program_, out_msg_[u], m);
      }
    }
    which = Windows::kOwnOnly;
  } else {
    transport_->LoadAllRuns();  // (a load for a push or pull turn may have read only (p, p)'s)
  }
  edges_changed += ScatterWindows(p, data, message_.data(), merge, which);
  stats_.edges_changed += edges_changed;
}

template <GasProgram Program>
uint64_t Engine<Program>::ScatterWindows(uint32_t p, const IntervalData& data,
                                         const EdgeValue* messages, bool merge, Windows which,
                                         Fill how) {
  const bool fill = how == Fill::kFill;
  const VertexId begin = set_.interval_begin(p);
  const EdgeValue identity = program_.identity();
  // The runs of window (q, p) come from p's scatter index (run_codec.h: about 2 bytes a run),
  // checked against the window index as they are decoded.
  const uint32_t n = num_intervals();
  const VertexId end = set_.interval_end(p);
  uint32_t damaged = n;  // the first window whose runs do not decode
  RunDecodeStatus damage;
  uint64_t edges_changed = 0, others = 0;
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1) \
    reduction(+ : edges_changed, others)
  for (uint32_t q = 0; q < n; ++q) {
    if (own_runs_ && q == p) continue;  // ScatterOwn's
    const bool skipped = which == Windows::kOwnOnly       ? q != p
                         : which == Windows::kOthersOnly  ? q == p
                         : which == Windows::kEarlierOnly ? q >= p
                         : which == Windows::kLaterOnly   ? q <= p
                                                          : false;
    if (skipped) {
      if (!merge && q != p) carries_[q] = 0;
      continue;
    }
    auto* window = reinterpret_cast<EdgeValue*>(transport_->OutWindow(q));
    const bool combine = merge && q != p;
    bool hit = false;
    uint64_t at = 0;
    auto visit = [&](uint32_t source, uint64_t count) {
      const EdgeValue& m = messages[source - begin];
      if (m == identity) {
        if (!combine && fill) std::fill_n(window + at, count, m);
      } else {
        hit = true;
        edges_changed += count;
        if (q != p) others += count;
        if (fill && !combine) {
          std::fill_n(window + at, count, m);
        } else if (fill) {
          for (uint64_t e = at; e < at + count; ++e) {
            window[e] = window[e] == identity ? m : Aggregate(program_, window[e], m);
          }
        }
      }
      at += count;
    };
    auto find = [&](uint32_t source, uint64_t) {  // stops at the window's first message
      hit = !(messages[source - begin] == identity);
      return !hit;
    };
    std::pair<uint32_t, uint32_t> sources{1, 0};  // kBound: the window's first and last
    auto bound = [&](uint32_t source, uint64_t) {
      hit = hit || !(messages[source - begin] == identity);
      if (sources.first > sources.second) sources.first = source;
      sources.second = source;
    };
    const WindowEntry &first = cur_->Window(q, p), &last = cur_->Window(q, p + 1);
    const uint8_t *runs = data.RunBytes(q), *runs_end = data.RunBytes(q + 1);
    const uint64_t num_runs = last.first_run - first.first_run;
    const uint64_t edges = last.first_edge - first.first_edge;
    const RunDecodeStatus status =
        how == Fill::kFind    ? DecodeRuns(runs, runs_end, num_runs, begin, end, edges, find)
        : how == Fill::kBound ? DecodeRuns(runs, runs_end, num_runs, begin, end, edges, bound)
                              : DecodeRuns(runs, runs_end, num_runs, begin, end, edges, visit);
    if (how == Fill::kBound) window_sources_[static_cast<size_t>(q) * n + p] = sources;
    if (!status.ok()) {
#pragma omp critical(needle_scatter_damage)
      if (q < damaged) {
        damaged = q;
        damage = status;
      }
    }
    carries_[q] = combine ? (carries_[q] | hit) : hit;
    if (hit) pending_[q] = 1;
  }
  if (damaged < n) {
    throw Error::AtByte(cur_->ScatterIndexPath(p), cur_->ScatterOffset(damaged, p) + damage.at,
                        std::string("window of shard ") + std::to_string(damaged) + ": " +
                            damage.error + " (the scatter index is damaged)");
  }
  others_changed_ += others;
  return edges_changed;
}

template <GasProgram Program>
void Engine<Program>::PushOut(uint32_t p, const IntervalData& data) {
  const VertexId begin = set_.interval_begin(p);
  const uint32_t count = set_.interval_end(p) - begin;
  const EdgeValue identity = program_.identity();
  const uint32_t* out_degrees = data.OutDegrees();
  senders_.clear();
  uint64_t edges = 0;  // an upper bound: p's own targets are among them
  for (uint32_t u = 0; u < count; ++u) {
    if (out_msg_[u] == identity) continue;
    senders_.push_back(u);
    edges += out_degrees[u];
  }
  if (senders_.empty()) return;
  if (!logs_->Fits(edges, num_intervals())) {
    // The logs are full: this turn fills the windows, as a turn that does not push.
    ++stats_.push_fallbacks;
    transport_->LoadAllRuns();
    stats_.edges_changed +=
        ScatterWindows(p, data, out_msg_.data(), /*merge=*/false, Windows::kOthersOnly);
    return;
  }
  pushed_ = true;
  ++stats_.intervals_pushed;
  uint64_t pushed = 0;
  const uint64_t num_vertices = set_.manifest().num_vertices;
  out_adj_->ReadSenders(
      p, senders_, out_degrees, count, push_buffer_,
      [&](uint32_t u, const uint32_t* targets, uint64_t k) {
        const EdgeValue m = out_msg_[u];
        uint32_t r = 0;  // targets ascend: their intervals too
        for (uint64_t i = 0; i < k; ++i) {
          const uint32_t t = targets[i];
          if (t >= num_vertices) {
            throw Error(work_->path() + "/out.adj",
                        "vertex " + std::to_string(begin + u) + " has an out-edge to " +
                            std::to_string(t) + ", past the last vertex");
          }
          while (t >= set_.interval_end(r)) ++r;
          if (r == p) continue;  // through window (p, p)
          logs_->Append(r, t, m);
          pending_[r] = 1;
          ++pushed;
        }
      });
  stats_.edges_pushed += pushed;
  others_changed_ += pushed;
  stats_.edges_changed += pushed;
}

template <GasProgram Program>
void Engine<Program>::PlanPush() {
  if (options_.push == TurnChoice::kNever) return;
  std::string why = TurnsUnusable();
  if (why.empty() && Program::kUsesWeights && set_.weighted()) {
    why = "the program uses the input weights, which the out-adjacency does not hold";
  }
  const uint64_t out_msg = set_.largest_interval() * sizeof(EdgeValue);
  const uint64_t build = OutAdjacency::BuildBufferBytes(set_, *shard_io_, threads_);
  // Pull turns' room is push turns' too: the two are never allocated at once (ChooseTurns).
  const uint64_t planned = plan_.Total() - plan_.pull;
  const uint64_t headroom =
      options_.memory_bytes > planned ? options_.memory_bytes - planned : 0;
  const uint64_t block = MessageLogs<EdgeValue>::BytesPerEntry() *
                         MessageLogs<EdgeValue>::kBlockEntries;
  // In mode auto the room planned for the dynamic shard builds' write buffers (allocated only
  // while a set is written) is lent to push turns: no set is built once a turn has pushed, and
  // nothing of push turns is allocated before the first one.
  const uint64_t lent = LentFromBuilds();
  uint64_t logs = options_.push_log_bytes;
  if (logs == 0 && headroom + lent > out_msg + kPushReadBytes) {
    logs = std::min(kMaxPushLogBytes, headroom + lent - out_msg - kPushReadBytes);
  }
  const uint64_t need = out_msg + std::max(build, kPushReadBytes + logs);
  if (why.empty() && (need > headroom + lent || logs < 2 * block)) {
    why = "--memory leaves " + FormatMiB(headroom + lent) + " of the " +
          FormatMiB(out_msg + std::max(build, kPushReadBytes + 2 * block)) + " they need";
  }
  if (!why.empty()) {
    SayTurnsUnused(options_.push, "push", why);
    return;
  }
  push_allowed_ = true;
  push_log_bytes_ = logs;
  push_bytes_ = need;
  plan_.push = need - std::min(need, lent);
  if (options_.detail) {
    options_.detail("push turns: " + FormatMiB(need) + " of the plan" +
                    (lent > 0 ? " (" + FormatMiB(lent) + " of it the dynamic shard builds')"
                              : ""));
  }
}

template <GasProgram Program>
void Engine<Program>::PlanPull() {
  if (options_.pull == TurnChoice::kNever) return;
  std::string why = TurnsUnusable();
  const uint32_t n = num_intervals();
  const uint64_t num_vertices = set_.manifest().num_vertices;
  uint64_t window_runs = 0;
  for (uint32_t q = 0; q < n; ++q) {
    for (uint32_t r = 0; r < n; ++r) {
      window_runs = std::max(window_runs, set_.ScatterOffset(q + 1, r) - set_.ScatterOffset(q, r));
    }
  }
  // By target (in_adjacency.h; accumulation programs that read no weights): the starts'
  // buffer too, and the column buffer, which then serves only the turns that
  // cannot go by target, at its least. Where the budget cannot hold that, from the runs.
  bool by_target = kAccumulation && options_.pull_by_target &&
                   !(Program::kUsesWeights && set_.weighted());
  const uint64_t in_need = InAdjacency::StartsBytes(set_);
  uint64_t need = 0;
  auto plan_need = [&] {
    column_bytes_ = PullColumns::Bytes(window_runs, by_target ? 0 : shard_io_->ColumnBytes());
    // out_msg_ and msgs_, the column buffer, pulled_, window_sources_ and sources_known_, sent_
    need = (set_.largest_interval() + num_vertices) * sizeof(EdgeValue) + column_bytes_ +
           uint64_t{n} * n * (1 + 2 * sizeof(uint32_t)) + n +
           (set_.largest_interval() / 64 + 1) * sizeof(uint64_t) + (by_target ? in_need : 0);
  };
  plan_need();
  uint64_t headroom =
      options_.memory_bytes > plan_.Total() ? options_.memory_bytes - plan_.Total() : 0;
  // In mode auto the dynamic shard builds' room is lent, as to push turns (PlanPush): a set is
  // built only when no pulled message waits, after msgs_ is freed.
  const uint64_t lent = LentFromBuilds();
  // Pull turns save more than holding the degrees (4-8 B a vertex an iteration) or the scatter
  // indexes does: where the budget holds those but not pull turns too, it holds pull turns.
  // Then the route's buffer (--gather auto from kRouteFromThreads threads): the passes scan
  // instead, which costs gather CPU where pull turns save a dense iteration's window writes
  // and reads.
  const uint64_t degrees = plan_.degrees_shared ? 0 : plan_.degrees;
  const uint64_t runs = plan_.runs_shared ? 0 : plan_.runs;
  const uint64_t route =
      route_ && options_.gather == GatherChoice::kAuto ? Router::RouteBytes(threads_) : 0;
  std::string why_not;  // pull turns by target
  if (by_target && why.empty() && need > headroom + lent + degrees + runs + route) {
    by_target = false;
    plan_need();
    why_not = "--memory cannot hold their " + FormatMiB(in_need);
  }
  if (why.empty() && need > headroom + lent &&
      need <= headroom + lent + degrees + runs + route) {
    std::string instead;
    // Gives up `held` bytes of `field` (the plan's) while pull turns do not fit yet.
    auto give_up = [&](uint64_t held, uint64_t& field, const char* what) {
      if (need <= headroom + lent || held == 0) return false;
      headroom += held;
      field -= held;
      instead += std::string(instead.empty() ? "" : " and ") + what;
      return true;
    };
    give_up(degrees, plan_.degrees, "the degrees in memory");
    give_up(runs, plan_.runs, "the scatter indexes in memory");
    if (give_up(route, plan_.gather, "the route's buffer (dense passes scan)")) route_ = false;
    if (options_.detail) options_.detail("pull turns in place of " + instead);
  }
  if (why.empty() && need > headroom + lent) {
    why = "--memory leaves " + FormatMiB(headroom + lent) + " of the " + FormatMiB(need) +
          " they need";
  }
  if (!why.empty()) {
    SayTurnsUnused(options_.pull, "pull", why);
    return;
  }
  pull_allowed_ = true;
  other_edges_ = set_.manifest().num_edges;
  for (uint32_t p = 0; p < n; ++p) {
    other_edges_ -= set_.Window(p, p + 1).first_edge - set_.Window(p, p).first_edge;
  }
  pulled_.assign(static_cast<size_t>(n) * n, 0);
  pull_from_.assign(n, 0);
  window_sources_.assign(static_cast<size_t>(n) * n, {1, 0});
  sources_known_.assign(n, 0);
  plan_.pull = need - std::min(need, lent);
  transport_->SetPulled(&pulled_);
  if (options_.detail) {
    options_.detail("pull turns: " + FormatMiB(need) + " of the plan" +
                    (lent > 0 ? " (" + FormatMiB(lent) + " of it the dynamic shard builds')"
                              : ""));
  }
  // By target, the in-adjacency's build takes what msgs_, the column buffer and the starts'
  // buffer take later (free until the first pull turn) and what is left.
  const uint64_t build = InAdjacency::BuildBufferBytes(set_, *shard_io_, threads_);
  const uint64_t overlapped = InAdjacency::OverlappedBufferBytes(set_, *shard_io_, threads_);
  const uint64_t build_room = headroom + lent - need + num_vertices * sizeof(EdgeValue) +
                              column_bytes_ + in_need;
  if (by_target && build > build_room) {
    why_not = "the in-adjacency's build needs " + FormatMiB(build) + " and --memory leaves " +
              FormatMiB(build_room);
    by_target = false;
  }
  if (!why_not.empty() && options_.detail) {
    options_.detail("pull turns by target not used: " + why_not);
  }
  in_planned_ = by_target;
  in_build_bytes_ = overlapped <= build_room ? overlapped : build;
}

template <GasProgram Program>
void Engine<Program>::ChooseTurns(uint32_t iteration, bool shadow) {
  // Push turns: on the static shards, where the last iteration sent little; pull turns: where
  // it sent much (or always, asked). Neither starts while the other's messages still wait in
  // memory: an iteration of plain turns consumes them first, and each frees the other's room.
  const bool on_static = !dynamic_ && !shadow;
  const bool want_push = push_allowed_ && on_static &&
                         (options_.push == TurnChoice::kAlways || push_next_);
  push_ = want_push && pulled_count_ == 0;
  push_waited_ = want_push && !push_;
  // Pull turns change only what moves between intervals: the share that counts is that of the
  // edges between intervals that carried a message in the last iteration.
  const bool dense = iteration == 0 || static_cast<double>(others_changed_) >=
                                           options_.push_below * static_cast<double>(other_edges_);
  others_changed_ = 0;
  pulled_edges_ = 0;
  pull_ = pull_allowed_ && on_static && !want_push &&
          (options_.pull == TurnChoice::kAlways || dense) && (!logs_ || logs_->entries() == 0);
  pull_later_ = push_waited_ && !msgs_.empty() && columns_.has_value();
  if (push_ || pull_ || pull_later_) {
    if (out_msg_.empty()) out_msg_.assign(set_.largest_interval(), program_.identity());
  }
  if (push_) {
    msgs_ = HugeArray<EdgeValue>();
    std::vector<uint64_t>().swap(sent_);
    columns_.reset();
    if (!out_adj_) BuildOutAdjacency();
    if (push_buffer_.size() == 0) push_buffer_ = AlignedBuffer(kPushReadBytes);
    if (!logs_) logs_.emplace(num_intervals(), push_log_bytes_);
  }
  if (pull_) {
    logs_.reset();
    push_buffer_ = AlignedBuffer();
    if (in_planned_ && !in_adj_) BuildInAdjacency();  // (before msgs_ takes its room)
    if (in_adj_ && !in_starts_) {  // (given up to a dynamic shard build)
      in_starts_.emplace(*io_, *in_adj_, InAdjacency::StartsBytes(set_));
    }
    if (msgs_.empty()) {
      msgs_.Resize(set_.manifest().num_vertices);
      std::fill(msgs_.begin(), msgs_.end(), program_.identity());
      std::fill(msgs_fresh_.begin(), msgs_fresh_.end(), 0);
    }
    if (sent_.empty()) sent_.assign(set_.largest_interval() / 64 + 1, 0);
    if (!columns_) columns_.emplace(*shard_io_, num_intervals(), column_bytes_);
  }
  SetOwnRunsOnly();
  // (The first iteration's turns have nothing to take from msgs_.)
  for (uint8_t& in : in_sources_) in = pull_ && iteration > 0;
}

template <GasProgram Program>
void Engine<Program>::BuildInAdjacency() {
  in_planned_ = false;
  const IoCounters before = io_->counters();
  const auto t = Clock::now();
  {
    AlignedBuffer buffer(in_build_bytes_);
    in_adj_.emplace(
        InAdjacency::Build(*io_, set_, *shard_io_, work_->path() + "/in.adj", buffer, threads_,
                           options_.in_source_width));
  }
  const uint32_t n = num_intervals();
  std::vector<uint64_t> sections(n);
  for (uint32_t p = 0; p < n; ++p) sections[p] = in_adj_->section(p);
  shard_io_->SetInSources(&in_adj_->file(), std::move(sections), in_adj_->width());
  in_sources_.assign(n, 0);
  transport_->SetInSources(&in_sources_);
  in_starts_.emplace(*io_, *in_adj_, InAdjacency::StartsBytes(set_));
  msgs_fresh_.assign(n, 0);
  AddBuildIo(before);
  if (options_.detail) {
    options_.detail("pull turns: in-adjacency of " + FormatMiB(in_adj_->disk_bytes()) +
                    " built in " + std::to_string(static_cast<uint64_t>(Since(t) * 1000)) + " ms");
  }
}

template <GasProgram Program>
void Engine<Program>::ForgetSent(uint32_t p) {
  if (msgs_fresh_.empty() || !msgs_fresh_[p]) return;
  msgs_fresh_[p] = 0;
  if (msgs_.empty()) return;
  std::fill(msgs_.begin() + set_.interval_begin(p), msgs_.begin() + set_.interval_end(p),
            program_.identity());
}

template <GasProgram Program>
void Engine<Program>::SetOwnRunsOnly() {
  for (uint32_t p = 0; p < own_runs_only_.size(); ++p) {
    own_runs_only_[p] = push_ || (pull_ && PullsWithoutRows(p));
  }
}

template <GasProgram Program>
void Engine<Program>::PullIn(uint32_t p) {
  pull_in_ = false;
  if (pulled_count_ == 0) return;
  const uint32_t n = num_intervals();
  for (uint32_t r = 0; r < n; ++r) {
    pull_from_[r] = r != p && pulled_[static_cast<size_t>(p) * n + r];
    pull_in_ = pull_in_ || pull_from_[r];
  }
  if (!pull_in_) return;
  uint32_t damaged = n;  // the first window whose runs do not decode
  RunDecodeStatus damage;
  columns_->ForEachBatch(p, pull_from_.data(), &stats_.io_wait_seconds, [&](uint32_t from,
                                                                            uint32_t next) {
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
    for (uint32_t w = from; w < next; ++w) {
      if (!pull_from_[w]) continue;
      auto* messages = reinterpret_cast<EdgeValue*>(transport_->PulledMessages(w));
      const WindowEntry &first = set_.Window(p, w), &last = set_.Window(p, w + 1);
      const uint8_t* bytes = columns_->Runs(w);
      const uint64_t length = set_.ScatterOffset(p + 1, w) - set_.ScatterOffset(p, w);
      uint64_t at = 0;
      const EdgeValue* sent = msgs_.data();
      const RunDecodeStatus status = DecodeRuns(
          bytes, bytes + length, last.first_run - first.first_run, set_.interval_begin(w),
          set_.interval_end(w), last.first_edge - first.first_edge,
          [&](uint32_t source, uint64_t count) {
            const EdgeValue m = sent[source];
            if (count == 1) {
              messages[at] = m;  // most runs: one edge
            } else {
              std::fill_n(messages + at, count, m);
            }
            at += count;
          });
      if (!status.ok()) {
#pragma omp critical(needle_pull_damage)
        if (w < damaged) {
          damaged = w;
          damage = status;
        }
      }
    }
    if (damaged < n) {
      throw Error::AtByte(set_.ScatterIndexPath(damaged),
                          set_.ScatterOffset(p, damaged) + damage.at,
                          std::string("window of shard ") + std::to_string(p) + ": " +
                              damage.error + " (the scatter index is damaged)");
    }
  });
}

template <GasProgram Program>
void Engine<Program>::PrefetchColumn(uint32_t p, uint32_t next) {
  if (!columns_ || next == kNoInterval || next == p) return;
  const uint32_t n = num_intervals();
  if (ByTargetNext(next)) return;  // (its starts are read after p's gather)
  std::vector<uint8_t> wanted(n);
  for (uint32_t r = 0; r < n; ++r) {
    wanted[r] = r != next && (pulled_[static_cast<size_t>(next) * n + r] ||
                              ((pull_ || (pull_later_ && next > p)) && r == p));
  }
  columns_->Prefetch(next, std::move(wanted));
}

template <GasProgram Program>
void Engine<Program>::PullOut(uint32_t p, const IntervalData& data) {
  const VertexId begin = set_.interval_begin(p), end = set_.interval_end(p);
  KeepInArray(p);
  ++stats_.intervals_pulled;
  // The windows the messages reach, found as a turn filling them would, without the fill.
  const bool own_empty = set_.Window(p, p + 1).first_edge == set_.Window(p, p).first_edge;
  if (!own_runs_ && !own_empty) {
    transport_->LoadAllRuns();
    stats_.edges_changed += ScatterWindows(p, data, out_msg_.data(), /*merge=*/false,
                                           Windows::kOthersOnly, Fill::kCount);
  } else {
    // Without decoding every run: the edges that carry a message to other intervals are a
    // sender's out-edges but those in window (p, p) (own_start_), and a window carries from
    // its first run whose source sent (or, without its runs, when a sender lies between its
    // first and last source).
    const EdgeValue identity = program_.identity();
    const uint32_t* out_degrees = data.OutDegrees();
    const uint32_t count = end - begin;
    uint64_t others = 0;
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(+ : others)
    for (uint32_t u = 0; u < count; ++u) {
      if (out_msg_[u] == identity) continue;
      others += out_degrees[u] - (own_runs_ ? own_start_[u + 1] - own_start_[u] : 0);
    }
    stats_.edges_changed += others;
    others_changed_ += others;
    if (sources_known_[p] && !data.all_runs) {
      MarkBySources(p);
    } else if (sources_known_[p]) {
      ScatterWindows(p, data, out_msg_.data(), /*merge=*/false, Windows::kOthersOnly,
                     Fill::kFind);
    } else {
      transport_->LoadAllRuns();  // (a load issued for a push turn read only (p, p)'s)
      ScatterWindows(p, data, out_msg_.data(), /*merge=*/false, Windows::kOthersOnly,
                     Fill::kBound);
      sources_known_[p] = 1;
      own_runs_only_[p] = PullsWithoutRows(p);  // for p's next loads
    }
  }
  MarkPulled(p, 0);
}

template <GasProgram Program>
void Engine<Program>::KeepInArray(uint32_t p) {
  const VertexId begin = set_.interval_begin(p), end = set_.interval_end(p);
  const uint32_t n = num_intervals();
  for (uint32_t q = 0; q < n; ++q) {
    if (q != p && pulled_[static_cast<size_t>(q) * n + p]) {
      throw std::logic_error("turn of interval " + std::to_string(p) + " before interval " +
                             std::to_string(q) + " took its pulled messages");
    }
  }
  std::copy(out_msg_.begin(), out_msg_.begin() + (end - begin), msgs_.begin() + begin);
  if (!msgs_fresh_.empty()) msgs_fresh_[p] = 1;
}

template <GasProgram Program>
void Engine<Program>::MarkPulled(uint32_t p, uint32_t first) {
  const uint32_t n = num_intervals();
  for (uint32_t q = first; q < n; ++q) {
    if (q == p || !carries_[q]) continue;
    carries_[q] = 0;
    pulled_[static_cast<size_t>(q) * n + p] = 1;
    ++pulled_count_;
    pulled_edges_ += set_.Window(q, p + 1).first_edge - set_.Window(q, p).first_edge;
  }
}

template <GasProgram Program>
void Engine<Program>::PullOutLater(uint32_t p, const IntervalData& data) {
  transport_->LoadAllRuns();  // (nothing to do where the turn's load read them all)
  // Later intervals take them from msgs_ in this iteration (PullIn): the windows they reach,
  // found as a turn filling them would, without the fill. (First: the fill below clears the
  // flags of the windows it leaves.)
  KeepInArray(p);
  stats_.edges_changed += ScatterWindows(p, data, out_msg_.data(), /*merge=*/false,
                                         Windows::kLaterOnly, Fill::kCount);
  MarkPulled(p, p + 1);
  // Earlier ones in the next iteration, from the windows.
  stats_.edges_changed += ScatterWindows(p, data, out_msg_.data(), /*merge=*/false,
                                         Windows::kEarlierOnly);
}

template <GasProgram Program>
void Engine<Program>::MarkBySources(uint32_t p) {
  const VertexId begin = set_.interval_begin(p);
  const uint32_t count = set_.interval_end(p) - begin;
  const EdgeValue identity = program_.identity();
  std::fill(sent_.begin(), sent_.end(), 0);
  for (uint32_t u = 0; u < count; ++u) {
    if (!(out_msg_[u] == identity)) sent_[u / 64] |= uint64_t{1} << (u % 64);
  }
  // Whether a vertex of [lo, hi] (offsets in p) sent.
  auto any = [&](uint32_t lo, uint32_t hi) {
    const uint32_t a = lo / 64, b = hi / 64;
    const uint64_t low = ~uint64_t{0} << (lo % 64), high = ~uint64_t{0} >> (63 - hi % 64);
    if (a == b) return (sent_[a] & low & high) != 0;
    if ((sent_[a] & low) != 0 || (sent_[b] & high) != 0) return true;
    for (uint32_t w = a + 1; w < b; ++w) {
      if (sent_[w] != 0) return true;
    }
    return false;
  };
  const uint32_t n = num_intervals();
  for (uint32_t q = 0; q < n; ++q) {
    if (q == p) continue;
    const auto [first, last] = window_sources_[static_cast<size_t>(q) * n + p];
    carries_[q] = first <= last && any(first - begin, last - begin);
    if (carries_[q]) pending_[q] = 1;
  }
}

template <GasProgram Program>
bool Engine<Program>::PushNext(const IoCounters& before, uint64_t previous_changed) {
  const bool few = static_cast<double>(stats_.edges_changed) <
                   options_.push_below * static_cast<double>(set_.manifest().num_edges);
  if (push_allowed_ && !dynamic_ && options_.push_decides) {
    return options_.push_decides(stats_.iteration + 1);
  }
  if (!push_allowed_ || dynamic_ || !few || stats_.edges_changed == 0) return false;
  // Pushing already, or decided and put off by pulled messages: on while few send. (The
  // iteration that consumed them may send a little more than the one before, which would
  // stop the decay the cost model counts on.)
  if (push_ || push_waited_) return true;
  PushInputs in;
  static_cast<IterationMeasure&>(in) = MeasureNow(before, previous_changed);
  in.pulled_message_bytes = pulled_edges_ * sizeof(EdgeValue);
  const uint32_t n = num_intervals();
  uint64_t own = 0, indexes = 0;
  for (uint32_t p = 0; p < n; ++p) {
    own += set_.Window(p, p + 1).first_edge - set_.Window(p, p).first_edge;
    indexes += shard_io_->scatter_index_bytes(p);
  }
  in.own = in.num_edges > 0 ? static_cast<double>(own) / static_cast<double>(in.num_edges) : 0;
  in.build_bytes = out_adj_ ? 0 : 8 * in.num_edges + indexes;
  const PushEstimate estimate = EstimatePush(in);
  if (estimate.Pays() && options_.detail) {
    options_.detail("push turns from iteration " + std::to_string(stats_.iteration + 1) + ": " +
                    estimate.Describe());
  }
  return estimate.Pays();
}

template <GasProgram Program>
void Engine<Program>::BuildOutAdjacency() {
  const IoCounters before = io_->counters();
  const auto t = Clock::now();
  {
    AlignedBuffer buffer(push_bytes_ - set_.largest_interval() * sizeof(EdgeValue));
    out_adj_.emplace(
        OutAdjacency::Build(*io_, set_, *shard_io_, work_->path() + "/out.adj", buffer,
                            threads_));
  }
  push_buffer_ = AlignedBuffer(kPushReadBytes);
  AddBuildIo(before);
  if (options_.detail) {
    options_.detail("push turns: out-adjacency of " + FormatMiB(out_adj_->disk_bytes()) +
                    " built in " + std::to_string(static_cast<uint64_t>(Since(t) * 1000)) + " ms" +
                    (out_adj_->built_ahead() ? ", reading ahead" : ""));
  }
}

template <GasProgram Program>
uint64_t Engine<Program>::ScatterOwn(uint32_t p, const IntervalData& data, bool merge) {
  const VertexId begin = set_.interval_begin(p);
  const uint32_t count = set_.interval_end(p) - begin;
  const EdgeValue identity = program_.identity();
  auto* window = reinterpret_cast<EdgeValue*>(transport_->OutWindow(p));
  const uint32_t* own = data.Targets() + cur_->Window(p, p).first_edge;
  // Writes u's message m on its edges [from, to) but for the fresh ones, consumed in the pass
  // that sent them (identity() there). Returns whether one edge carries m.
  auto fill_fresh = [&](uint32_t u, uint64_t from, uint64_t to, const EdgeValue& m) {
    if (sparse_own_ && !FreshHeld(u)) {  // nothing was gathered at once
      std::fill(window + from, window + to, m);
      return from < to;
    }
    if (sparse_own_) {  // edge by edge, as the pass gathered
      const auto [lo_t, hi_t] = FreshTargets(u, begin, count);
      bool carries = false;
      for (uint64_t e = from; e < to; ++e) {
        const bool fresh = own[e] - lo_t < hi_t - lo_t;
        window[e] = fresh ? identity : m;
        carries = carries || !fresh;
      }
      return carries;
    }
    // A sweep turn that is not sparse has own_sorted_.
    const auto [a, b] = FreshRange(own, from, to, u, begin, count);
    std::fill(window + from, window + a, m);
    std::fill(window + a, window + b, identity);
    std::fill(window + b, window + to, m);
    return b - a < to - from;
  };
  uint64_t edges_changed = 0;
  bool hit = false;
  if (merge && sweep_) {
    // After an inner pass window (p, p) is all identity (the pass consumed it): only this
    // pass's senders write, where their messages were not gathered at once.
#pragma omp parallel for num_threads(threads_) schedule(static) \
    reduction(+ : edges_changed) reduction(|| : hit)
    for (size_t k = 0; k < frontier_.size(); ++k) {
      const uint32_t u = frontier_[k];
      edges_changed += own_start_[u + 1] - own_start_[u];
      if (fill_fresh(u, own_start_[u], own_start_[u + 1], message_[u])) hit = true;
    }
  } else {
#pragma omp parallel for num_threads(threads_) schedule(static) \
    reduction(+ : edges_changed) reduction(|| : hit)
    for (uint32_t u = 0; u < count; ++u) {
      const uint64_t from = own_start_[u], to = own_start_[u + 1];
      if (from == to) continue;
      if (ordered_) {
        // The ordered schedule gathered p's messages to p at once, but for its late senders'.
        const bool late = (touched_[u] & kLate) != 0;
        std::fill(window + from, window + to, late ? message_[u] : identity);
        if (late) {
          hit = true;
          edges_changed += to - from;
        }
        continue;
      }
      const EdgeValue& m = message_[u];
      if (m == identity) {
        std::fill(window + from, window + to, identity);
        continue;
      }
      edges_changed += to - from;
      if (!sweep_) {
        std::fill(window + from, window + to, m);
        hit = true;
      } else if (fill_fresh(u, from, to, m)) {
        hit = true;
      }
    }
  }
  carries_[p] = hit;
  if (hit) pending_[p] = 1;
  return edges_changed;
}

template <GasProgram Program>
RunSummary Engine<Program>::Run() {
  if (!transport_) throw std::logic_error("Engine::Run() runs once");
  const auto start = Clock::now();
  const uint32_t n = num_intervals();
  RunSummary summary;
  summary.io_backend = std::string(io_->name());
  summary.direct = options_.io.direct;
  summary.transport = std::string(TransportName(plan_.transport));
  summary.page_windows = marks_.has_value();
  summary.shard_set = set_.dir();
  summary.num_vertices = set_.manifest().num_vertices;
  summary.num_edges = set_.manifest().num_edges;
  summary.num_intervals = n;
  summary.intervals_streamed = plan_.num_streamed;
  summary.memory_budget = options_.memory_bytes;
  summary.memory_planned = plan_.Total();
  summary.vertex_values_resident = plan_.resident;
  summary.iteration_limit = options_.max_iterations;
  summary.max_inner_passes = options_.max_inner_passes;

  // Initial values, interval by interval.
  stats_ = {};
  for (uint32_t p = 0; p < n; ++p) {
    const VertexId begin = set_.interval_begin(p);
    VertexValue* values =
        plan_.resident ? all_values_.data() + begin
                       : reinterpret_cast<VertexValue*>(store_->Fresh(begin, set_.interval_end(p)));
    const uint32_t count = set_.interval_end(p) - begin;
    const IntervalData& data = transport_->Degrees(p);
    const uint32_t* out_degrees = data.OutDegrees();
    const uint32_t* in_degrees = data.InDegrees();
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (uint32_t v = 0; v < count; ++v) {
      values[v] = program_.init(VertexContext{begin + v, out_degrees[v], in_degrees[v], 0});
    }
    StoreValues(p);
  }
  stats_ = {};
  pending_.assign(n, 1);
  dirty_.assign(n, 0);
  transport_->Start(n > 0 ? 0 : kNoInterval);

  summary.mode = std::string(ShardModeName(mode_));
  auto idle = [&] {
    return std::none_of(pending_.begin(), pending_.end(), [](uint8_t b) { return b != 0; });
  };
  bool shadow_next = false, shadowed = false;
  const bool auto_mode = mode_ == ShardMode::kAuto;
  uint64_t previous_changed = 0;
  uint32_t iteration = 0;
  for (; iteration < options_.max_iterations; ++iteration) {
    bool final_flush = false;
    if (idle()) {
      if (delayed_count_ == 0) {
        summary.converged = true;
        break;
      }
      shadow_next = true;  // a final shadow iteration flushes the delay buffer
      final_flush = true;
    }
    const auto t = Clock::now();
    const IoCounters before = io_->counters();
    stats_ = {};
    stats_.iteration = iteration;
    const bool shadow = mode_ != ShardMode::kStatic && shadow_next;
    if (shadow) {
      // The first shadow iteration builds from its own senders alone (every vertex sent in the
      // first iteration).
      if (!shadowed) {
        for (uint8_t& f : flags_) f = static_cast<uint8_t>(f & ~kSent);
      }
      BeginShadow();
    } else if (auto_mode && !dynamic_) {
      // auto on the static shards: this iteration's senders would make the next set; the
      // last iteration's are kept to measure the overlap (auto_mode.h).
#pragma omp parallel for num_threads(threads_) schedule(static)
      for (uint64_t u = 0; u < flags_.size(); ++u) {
        const uint8_t f = flags_[u];
        flags_[u] = static_cast<uint8_t>((f & ~(kSent | kSentBefore)) |
                                         ((f & kSent) != 0 ? kSentBefore : 0));
      }
    }
    ChooseTurns(iteration, shadow);
    for (uint32_t p = 0; p < n; ++p) {
      if (pending_[p]) {
        Compute(p, iteration);
      } else if (ForgetSent(p); dirty_[p]) {
        transport_->Clear(p);
        dirty_[p] = 0;
        ++stats_.intervals_cleared;
      }
      if (options_.on_interval) {
        const IoCounters now = io_->counters();
        options_.on_interval(IntervalProgress{
            iteration, p + 1, n, now.TotalRead() - before.TotalRead(),
            now.TotalWritten() - before.TotalWritten()});
      }
    }
    flush_ = false;
    if (shadow && delayed_count_ != 0) {
      throw std::logic_error("a shadow iteration left " + std::to_string(delayed_count_) +
                             " vertices in the delay buffer");
    }
    if (mode_ != ShardMode::kStatic) {
      stats_.shadow = shadow;
      if (dynamic_) {
        stats_.dynamic_edges = stats_.edges_loaded;
        ++served_;
      }
      if (shadow) {
        shadowed = true;
        ++summary.shadow_iterations;
      }
      // ads: a new set after every iteration, of the edges that carried messages in it; ods:
      // after shadow iterations only, of those that carried one since the last; auto: after
      // an iteration on the static shards (not the final flush) when the cost model says it
      // pays.
      bool build = false;
      if (auto_mode && !dynamic_ && !pushed_) {
        const uint64_t moved = (io_->counters().TotalRead() - before.TotalRead()) +
                               (io_->counters().TotalWritten() - before.TotalWritten()) -
                               stats_.shard_build_io.TotalRead() -
                               stats_.shard_build_io.TotalWritten();
        full_static_bytes_ = std::max(full_static_bytes_, moved);
        if (!idle() && !final_flush) {
          AutoInputs inputs = AutoInputsNow(before, previous_changed);
          BuildEstimate estimate = EstimateBuild(inputs);
          // The sender overlap (a pass over every vertex's flags) can only lower the estimate:
          // measured only when the rest says a build pays and no set has been built yet.
          if (estimate.Pays() && last_build_edges_ == 0) {
            inputs.overlap = SenderOverlap();
            estimate = EstimateBuild(inputs);
          }
          build = options_.auto_decides ? options_.auto_decides(estimate, iteration)
                                        : estimate.Pays();
          if (build && options_.log) {
            options_.log("mode auto: dynamic shards after iteration " +
                         std::to_string(iteration) + ": " + estimate.Describe());
          }
        }
        if (!build && shadow) {
          // Staying on the static shards: every vertex has all its out-edges again.
          for (uint8_t& f : flags_) f = static_cast<uint8_t>((f & ~kDelayed) | kPresent);
        }
      } else if (!auto_mode) {
        build = !idle() && (shadow || (mode_ == ShardMode::kAds && dynamic_));
      }
      if (build && pulled_count_ > 0) {
        // Pulled messages wait in memory for turns of the next iteration: no set yet.
        build = false;
        if (options_.log) options_.log("mode auto: the build waits for pulled messages");
      }
      if (build) {
        msgs_ = HugeArray<EdgeValue>();  // pull turns lend their room to the build
        std::vector<uint64_t>().swap(sent_);
        columns_.reset();
        in_starts_.reset();
        BuildDynamic(kSent);
        ++summary.dynamic_builds;
        served_ = 0;
      }
      stats_.delayed_vertices = delayed_count_;
      stats_.dynamic_disk_bytes = dynamic_ ? dynamic_->disk_bytes : 0;
      summary.delayed += stats_.delayed;
      summary.delayed_max = std::max(summary.delayed_max, delayed_count_);
      const uint64_t width = sizeof(VertexId) + sizeof(EdgeValue);
      if (auto_mode) {
        shadow_next = dynamic_ && delayed_count_ * width > options_.delay_buffer_bytes;
      } else {
        shadow_next = !shadowed ? ShareDropsBelow(stats_.edges_changed, previous_changed,
                                                  summary.num_edges)
                                : delayed_count_ * width > options_.delay_buffer_bytes;
      }
    }
    if (options_.push == TurnChoice::kAuto) push_next_ = PushNext(before, previous_changed);
    summary.intervals_pushed += stats_.intervals_pushed;
    summary.edges_pushed += stats_.edges_pushed;
    summary.push_fallbacks += stats_.push_fallbacks;
    summary.intervals_pulled += stats_.intervals_pulled;
    summary.intervals_by_target += stats_.intervals_by_target;
    summary.intervals_own_runs += stats_.intervals_own_runs;
    stats_.seconds = Since(t);
    stats_.io = io_->counters();
    stats_.io -= before;
    summary.io_wait_seconds += stats_.io_wait_seconds;
    summary.compute_seconds += stats_.compute_seconds;
    summary.gather_cpu_seconds += stats_.gather_cpu_seconds;
    summary.write_back_seconds += stats_.write_back_seconds;
    summary.edges_loaded += stats_.edges_loaded;
    summary.edges_changed += stats_.edges_changed;
    previous_changed = stats_.edges_changed;
    summary.edges_used += stats_.edges_used;
    summary.inner_passes += stats_.inner_passes;
    summary.edges_skipped += stats_.edges_skipped;
    summary.intervals_ordered += stats_.intervals_ordered;
    summary.intervals_sparse += stats_.intervals_sparse;
    if (stats_.shadow) {
      summary.shadow_bytes_read += stats_.io.TotalRead();
      summary.shadow_bytes_written += stats_.io.TotalWritten();
    }
    if (options_.on_iteration) options_.on_iteration(stats_);
  }
  if (!summary.converged && idle() && delayed_count_ == 0) {
    summary.converged = true;
  }
  if (summary.converged && pulled_count_ != 0) {
    throw std::logic_error("a run converged with " + std::to_string(pulled_count_) +
                           " pulled windows unread");
  }
  if (summary.converged && logs_ && logs_->entries() != 0) {
    throw std::logic_error("a run converged with " + std::to_string(logs_->entries()) +
                           " pushed messages unread");
  }
  summary.out_adjacency_bytes = out_adj_ ? out_adj_->disk_bytes() : 0;
  summary.in_adjacency_bytes = in_adj_ ? in_adj_->disk_bytes() : 0;
  transport_->Finish();
  ReleaseRunBuffers();
  summary.iterations = iteration;
  summary.seconds = Since(start);
  summary.io = io_->counters();
  summary.peak_rss_bytes = PeakRssBytes();
  summary.fixed_buffer_requests = io_->fixed_buffer_requests();
  summary.delay_buffer_max_bytes = summary.delayed_max * (sizeof(VertexId) + sizeof(EdgeValue));
  summary.threads = threads_;
  summary.dynamic_disk_peak = dynamic_disk_peak_;
  summary.vertex_values_resident = plan_.resident;  // false once moved to disk (SpillValues)
  if (options_.on_finish) options_.on_finish(summary);
  return summary;
}

}  // namespace needle
