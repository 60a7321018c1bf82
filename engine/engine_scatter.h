// Scatter: what an interval's vertices send, written onto the windows of their out-edges
// (window (p, p) split among the threads by source).
//
// Part of engine.h, which includes it after the class: include engine/engine.h.
#pragma once

namespace needle {

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

}  // namespace needle
