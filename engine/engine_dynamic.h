// Dynamic shards (docs/engine.md, "Dynamic shards"): the delay buffer, a switch of the set the
// transport reads, the value and delay stores spilled before a build, the builds and the
// shadow iterations.
//
// Part of engine.h, which includes it after the class: include engine/engine.h.
#pragma once

namespace needle {

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
    int k = 1;
    if ((f & kDelayed) != 0) {
      d = Aggregate(program_, d, m);
    } else {
      d = m;
      f |= kDelayed;
      k = 2;
    }
    // Nothing of it goes on the edges it has in shards kept whole (dynamic_shards.h): all of
    // them wait for the shadow iteration, with the rest.
    message_[v] = identity;
    return k;
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
  const DynamicSetWritten written = WriteDynamicSet(
      *io_, *cur_, from_dynamic, KeptSources{flags_, keep}, next->dir, threads_, WholeRule());
  next->whole_shards = written.WholeCount();
  next->set.emplace(ShardSet::Open(next->dir, /*verify_digests=*/false));
  next->edges = std::make_unique<EdgeValueFiles>(*io_, *next->set, next->dir, sizeof(EdgeValue));
  next->io = std::make_unique<IntervalIo>(*io_, *next->set, *next->edges, Program::kUsesWeights,
                                          /*dynamic=*/true, UsesInDegree<Program>());
  const EdgeValueFiles& from_edges = from_dynamic ? *dynamic_->edges : *edges_;
  const WindowChunks* marks = !from_dynamic && marks_ ? &*marks_ : nullptr;
  std::vector<uint8_t> moved = MoveMessages(*io_, *cur_, from_dynamic, from_edges, carries,
                                            *next->set, true, *next->edges, identity_, marks);
  // Both sets, with their messages, are on disk now. (A file linked from the static set, or
  // from the set before, takes no more room.)
  for (const auto& entry : std::filesystem::directory_iterator(next->dir)) {
    if (entry.is_regular_file() && entry.hard_link_count() == 1) {
      next->disk_bytes += entry.file_size();
    }
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

// --whole-shards auto in mode auto: shard q is kept whole when the iterations the set is
// expected to serve would read its left-out edges for less than the build would move for its
// kept ones. Each left-out edge a regular iteration reads costs its target (and weight), and
// its message read and written (identity: the windows a turn writes hold every edge); each
// kept edge the build reads and writes once. ads and ods keep none (ATC'16's modes) unless
// told to keep every shard.
template <GasProgram Program>
WholeShardRule Engine<Program>::WholeRule() const {
  if (options_.whole_shards) return options_.whole_shards;
  if (options_.whole == TurnChoice::kAlways) {
    return [](uint32_t, uint64_t, uint64_t) { return true; };
  }
  if (options_.whole == TurnChoice::kNever || mode_ != ShardMode::kAuto) return {};
  const double column = Program::kUsesWeights ? 8 : 4;
  const double read = column + 2 * sizeof(EdgeValue);
  const double build = 2 * column;
  const double serves = build_serves_;
  return [=](uint32_t, uint64_t kept, uint64_t edges) {
    return serves * read * static_cast<double>(edges - kept) <
           build * static_cast<double>(kept);
  };
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

}  // namespace needle
