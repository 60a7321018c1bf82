// Engine::Run: the schedule of iterations and turns, the mode's sets and shadow iterations, and
// the run's summary.
//
// Part of engine.h, which includes it after the class: include engine/engine.h.
#pragma once

namespace needle {

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
        stats_.whole_shards = dynamic_->whole_shards;
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
          build_serves_ = estimate.iterations;
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
        summary.whole_shards += dynamic_->whole_shards;
        if (dynamic_->whole_shards > 0 && options_.log) {
          options_.log(std::to_string(dynamic_->whole_shards) + " of " +
                       std::to_string(num_intervals()) +
                       " shards of the dynamic set kept whole (--whole-shards " +
                       std::string(TurnChoiceName(options_.whole)) + ")");
        }
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
    stats_.seconds = Since(t);
    stats_.io = io_->counters();
    stats_.io -= before;
    summary.Add(stats_);
    previous_changed = stats_.edges_changed;
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
