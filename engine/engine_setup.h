// Engine's constructor: the memory plan, the mode and the transport it chooses, and the
// turns (push, pull) the plan allows.
//
// Part of engine.h, which includes it after the class: include engine/engine.h.
#pragma once

namespace needle {

template <GasProgram Program>
Engine<Program>::Engine(const ShardSet& set, Program program, EngineOptions options)
    : set_(set), program_(std::move(program)), options_(std::move(options)) {
  KeepLargeBlocksMapped();  // so that a run's peak is its own (base/heap_policy.h)
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

}  // namespace needle
