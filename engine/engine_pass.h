// A pass over an interval: gather (dense, by target, or an inner pass's frontier), then apply
// in sweep blocks or in the ordered schedule (Drain).
//
// Part of engine.h, which includes it after the class: include engine/engine.h.
#pragma once

namespace needle {

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
  std::vector<Source>& sources = sources_;
  sources.clear();
  bool own_runs = false;  // window (p, p) whole in sources (the first), its runs searchable
  if (!inner) {
    // The order of the fold: window (p, p) first, then the others by ascending source
    // (ForEachWindowInFoldOrder).
    ForEachWindowInFoldOrder(p, [&](uint32_t r) {
      // A pulled window's messages were put in place whole (PullIn).
      const bool pulled = pull_in_ && pull_from_[r];
      if (!transport_->Carries(p, r) && !pulled) return;  // all identity
      if (r == p && own_sorted_ && !transport_->Chunked()) own_runs = true;
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
    });
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
      // A turn by target (in_turn_) takes the other windows' messages from msgs_ once the
      // windows' gather has folded window (p, p)'s: each target's sources in one pass,
      // ascending (in_adjacency.h), the order of the fold.
      auto by_target = [&] {
        // The in-adjacency's sources in the other windows' places (in_section.h).
        const auto* cross = reinterpret_cast<const std::byte*>(targets);
        const InSection section = InSection::Of(*cur_, p, in_adj_->width());
        const EdgeValue* sent = msgs_.data();
        const EdgeValue none = identity;  // (a copy the loop keeps in a register)
        const uint32_t mask = section.mask, width = section.width;
        // Each message is a miss (the sources are anywhere): read 128 sources ahead (24 took
        // 1.3x the CPU on R-MAT 22), on the targets after this one too.
        constexpr uint64_t kAhead = 128;
        const uint64_t last = in_now_[hi];
        for (uint32_t v = lo; v < hi; ++v) {
          Accumulator a = acc_[v];
          uint64_t got = 0;
          for (uint64_t i = in_now_[v], end = in_now_[v + 1]; i < end;) {
            // A piece on one side of window (p, p)'s places: one stride.
            const uint64_t piece =
                i < section.own_first ? std::min(end, section.own_first) : end;
            const std::byte* at = cross + section.CrossByte(i);
            for (; i < piece; ++i, at += width) {
              if (i + kAhead < last) __builtin_prefetch(sent + section.Source(cross, i + kAhead));
              uint32_t s;
              std::memcpy(&s, at, sizeof s);  // (the section holds the bytes after the last)
              const EdgeValue m = sent[s & mask];
              if (m == none) continue;
              a = program_.gather(a, m, 1.0f);
              ++got;
            }
          }
          acc_[v] = a;
          if (got > 0) touched_[v] = 1;
          used += got;
        }
      };
      // Gather: this thread owns targets [lo, hi) and folds their in-edges in the order of the
      // fold (window (p, p)'s first).
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
        if (!own_runs) {
          stray = std::min(stray, ScanGather(all, targets, begin, count, lo, hi, identity, fold));
        } else {
          // Window (p, p) run by run, each searched for this thread's targets (own_sorted_);
          // the windows after it scanned: the order of the fold all the same.
          const EdgeValue* messages = sources.front().messages;
          for (uint32_t u = 0; u < count; ++u) {
            const auto [a, b] = TargetsWithin(targets + own_first, own_start_[u],
                                              own_start_[u + 1], begin + lo, begin + hi);
            for (uint64_t e = a; e < b; ++e) {
              if (!(messages[e] == identity)) {
                fold(targets[own_first + e] - begin, messages[e], own_first + e);
              }
            }
          }
          stray = std::min(stray, ScanGather(all.subspan(1), targets, begin, count, lo, hi,
                                             identity, fold));
        }
      }
      if (in_turn_) by_target();
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
          if (!Present(begin + u)) continue;  // it waits in the delay buffer (Delay)
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
      if (!Present(begin + v)) continue;  // it waits in the delay buffer (Delay)
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

}  // namespace needle
