// An interval's turn: its vertex values loaded and stored, the turn computed (or streamed, for a
// hub), and window (p, p)'s runs found for its inner passes.
//
// Part of engine.h, which includes it after the class: include engine/engine.h.
#pragma once

namespace needle {

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
double Engine<Program>::StoreValues(uint32_t p) {
  if (plan_.resident) return 0;
  const auto t = Clock::now();
  store_->Store(set_.interval_begin(p), set_.interval_end(p));
  if (delay_store_ && delayed_in_[p] > 0) {
    delay_store_->Write(set_.interval_begin(p), set_.interval_end(p), interval_delay_.data());
  }
  const double seconds = Since(t);
  stats_.write_back_seconds += seconds;
  return seconds;
}

template <GasProgram Program>
void Engine<Program>::UseValueStore() {
  store_.emplace(VertexStore::Create(*io_, work_->path(), "run", set_.manifest().num_vertices,
                                     sizeof(VertexValue)));
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
  ForEachWindowInFoldOrder(p, [&](uint32_t r) {
    if (!transport_->Carries(p, r)) return;
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
  });
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
  // Either way p's values are written once its last pass is done and before its scatter
  // write-back starts (EndCompute), so that their write does not wait behind the windows'
  // (R-MAT 22 PageRank with the values on disk: 0.88-0.97x static's time, bench/RESULTS.md).
  double stored = 0;
  if (changed == 0) {
    // No vertex of p changed: every message is identity, and no runs need decoding.
    stored = StoreValues(p);
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
    stored = StoreValues(p);
    transport_->EndCompute(carries_.data());
  }
  if (!data.all_runs) ++stats_.intervals_own_runs;
  stats_.compute_seconds += Since(t) - stored;  // (the store's time is write-back's)
  ++stats_.intervals_computed;
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

}  // namespace needle
