// Pull turns (docs/engine.md, "Pull turns"): planned, their messages kept in memory and put in
// place by the turn that takes them, by source runs or from the in-adjacency.
//
// Part of engine.h, which includes it after the class: include engine/engine.h.
#pragma once

namespace needle {

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
void Engine<Program>::SetOwnRunsOnly() {
  for (uint32_t p = 0; p < own_runs_only_.size(); ++p) {
    own_runs_only_[p] = push_ || (pull_ && PullsWithoutRows(p));
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

}  // namespace needle
