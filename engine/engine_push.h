// Push turns (docs/engine.md, "Push turns"): planned, sent from the out-adjacency, chosen per
// iteration with pull turns (ChooseTurns).
//
// Part of engine.h, which includes it after the class: include engine/engine.h.
#pragma once

namespace needle {

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
  // Pull turns and those of the iteration between take their messages by target where they
  // can. (The first iteration's turns have nothing to take from msgs_.)
  for (uint8_t& in : in_sources_) in = (pull_ || pull_later_) && iteration > 0;
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

}  // namespace needle
