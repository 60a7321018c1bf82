// Engine: runs a GAS program (program.h) over a static shard set with Parallel Sliding Windows.
//
//   Engine<PageRank> engine(shard_set, PageRank{...}, options);
//   RunSummary summary = engine.Run();
//   engine.ForEachInterval([](VertexId first, std::span<const float> ranks) { ... });
//
// One iteration visits the intervals in order. For interval p it waits for p's reads (issued
// while the previous interval computed), issues the next interval's reads, then in parallel
// gathers the messages on p's in-edges (memory shard p), applies, and scatters p's messages
// into the windows of p in every shard, which are written back while the next interval runs.
// An interval none of whose in-edges carries a message is not loaded; one that is not computed
// but still has messages out from an earlier turn gets them overwritten ("cleared"), so that
// no message is consumed twice. Reads of an interval issued before the previous interval's
// write-back completed are patched from that interval's scatter buffer.
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
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/edge_value_files.h"
#include "engine/engine_options.h"
#include "engine/interval_io.h"
#include "engine/memory_plan.h"
#include "engine/program.h"
#include "engine/run_stats.h"
#include "engine/work_dir.h"
#include "loaders/error.h"
#include "shards/run_codec.h"
#include "shards/shard_set.h"
#include "shards/vertex_store.h"

namespace needle {

template <GasProgram Program>
class Engine {
 public:
  using VertexValue = typename Program::VertexValue;
  using EdgeValue = typename Program::EdgeValue;
  using Accumulator = AccumulatorOf<Program>;
  static constexpr bool kAccumulation = AccumulationProgram<Program>;

  // The engine reads `set` for its whole life: it must outlive the engine (a temporary
  // cannot be passed).
  Engine(const ShardSet& set, Program program, EngineOptions options)
      : set_(set), program_(std::move(program)), options_(std::move(options)) {
    std::string note;
    io_ = IoBackend::Create(options_.io, &note);
    if (!note.empty() && options_.log) options_.log(note);
    work_ = std::make_unique<WorkDir>(set.dir());
    edges_ = std::make_unique<EdgeValueFiles>(*io_, set, work_->path(), sizeof(EdgeValue));
    shard_io_ = std::make_unique<IntervalIo>(*io_, set, *edges_, Program::kUsesWeights);
    plan_ = PlanMemory(set, *shard_io_, sizeof(EdgeValue) + sizeof(Accumulator),
                       sizeof(VertexValue), options_.memory_bytes, options_.values_in_memory);
    if (options_.log) options_.log(plan_.Describe());
    for (auto& d : data_) shard_io_->Allocate(d);
    for (auto& s : scatter_) shard_io_->Allocate(s);
    size_t largest = 0;
    for (uint32_t p = 0; p < set.num_intervals(); ++p) {
      largest = std::max<size_t>(largest, set.interval_end(p) - set.interval_begin(p));
    }
    acc_.resize(largest);
    message_.resize(largest);
    touched_.resize(largest);
    if (plan_.resident) {
      all_values_.resize(set.manifest().num_vertices);
    } else {
      interval_values_.resize(largest);
      store_.emplace(VertexStore::Create(*io_, work_->path(), "run", set.manifest().num_vertices,
                                         sizeof(VertexValue)));
    }
    threads_ = options_.threads > 0 ? options_.threads : omp_get_max_threads();
    // Direct transfers into buffers the ring knows skip pinning pages per request (io_uring
    // and options.io.register_buffers; refused quietly when RLIMIT_MEMLOCK is too small).
    if (options_.io.direct) {
      std::vector<AlignedBuffer*> buffers;
      for (auto& d : data_) {
        for (AlignedBuffer* b : {&d.targets, &d.values, &d.weights, &d.runs, &d.degrees}) {
          buffers.push_back(b);
        }
      }
      for (auto& sc : scatter_) buffers.push_back(&sc.bytes);
      buffers_registered_ = io_->RegisterBuffers(buffers);
    }
  }
  Engine(ShardSet&&, Program, EngineOptions) = delete;

  // Waits for any reads and writes still in flight (a run that threw), before the buffers
  // they target are freed, and unregisters them from the ring.
  ~Engine() {
    for (auto& d : data_) {
      try {
        shard_io_->Drain(d);
      } catch (...) {  // the run's error has been reported already
      }
    }
    for (auto& s : scatter_) {
      try {
        shard_io_->FinishWriteBack(s);
      } catch (...) {
      }
    }
    io_->UnregisterBuffers();  // before the buffers are freed
  }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const MemoryPlan& memory_plan() const { return plan_; }
  // Whether the I/O buffers are registered with the ring (direct runs on io_uring, when
  // RLIMIT_MEMLOCK allows).
  bool buffers_registered() const { return buffers_registered_; }
  const IoBackend& backend() const { return *io_; }

  RunSummary Run();

  // Calls f(first_vertex, values) for every interval in order, after Run().
  template <class F>
  void ForEachInterval(F&& f) {
    for (uint32_t p = 0; p < set_.num_intervals(); ++p) {
      const VertexId begin = set_.interval_begin(p), end = set_.interval_end(p);
      f(begin, std::span<const VertexValue>(LoadValues(p), end - begin));
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
  VertexValue* LoadValues(uint32_t p);
  void StoreValues(uint32_t p);
  // The first interval after `p` (wrapping into the next iteration) that has messages.
  uint32_t NextPending(uint32_t p) const;
  IntervalData& Acquire(uint32_t p);
  void Patch(IntervalData& data);
  ScatterBuffer& BeginTurn(uint32_t p, bool prefetch);
  void Compute(uint32_t p, uint32_t iteration);
  void Clear(uint32_t p);
  void Scatter(uint32_t p, ScatterBuffer& out, IntervalData* data);

  const ShardSet& set_;
  Program program_;
  EngineOptions options_;
  std::unique_ptr<IoBackend> io_;
  std::unique_ptr<WorkDir> work_;
  std::unique_ptr<EdgeValueFiles> edges_;
  std::unique_ptr<IntervalIo> shard_io_;
  MemoryPlan plan_;
  int threads_ = 1;
  bool buffers_registered_ = false;

  IntervalData data_[2];
  ScatterBuffer scatter_[2];
  uint64_t scatter_sequence_[2] = {0, 0};  // which buffer was written last
  uint64_t turns_ = 0;

  std::vector<Accumulator> acc_;    // per vertex of the current interval
  std::vector<EdgeValue> message_;  // what the vertex sends on its out-edges this turn
  std::vector<uint8_t> touched_;    // an in-edge carried a message
  std::vector<VertexValue> all_values_;
  std::vector<VertexValue> interval_values_;
  std::optional<VertexStore> store_;

  std::vector<uint8_t> pending_;  // per interval: some in-edge carries a message
  std::vector<uint8_t> dirty_;    // per interval: its out-edges carry messages
  // Per window, shard-major: window (q, p) of shard q carries messages. Only such windows are
  // read for gather; a window is rewritten only when it carries messages now or did before.
  std::vector<uint8_t> window_dirty_;
  std::vector<uint8_t> wanted_;  // scratch: the windows a load asks for
  std::vector<uint8_t> write_;   // scratch: the windows a write-back writes
  // The windows of memory shard q a load should read: those with messages, and the one the
  // interval computing now (`current`) may be about to fill.
  const uint8_t* Wanted(uint32_t q, uint32_t current) {
    const uint32_t n = num_intervals();
    for (uint32_t r = 0; r < n; ++r) {
      wanted_[r] = window_dirty_[static_cast<size_t>(q) * n + r] | (r == current ? 1 : 0);
    }
    return wanted_.data();
  }
  // Reads the windows of data's memory shard that carry messages but were not loaded.
  void LoadMissing(IntervalData& data);
  IterationStats stats_;
};

template <GasProgram Program>
typename Program::VertexValue* Engine<Program>::LoadValues(uint32_t p) {
  const VertexId begin = set_.interval_begin(p), end = set_.interval_end(p);
  if (plan_.resident) return all_values_.data() + begin;
  const auto t = Clock::now();
  store_->Read(begin, end, interval_values_.data());
  stats_.io_wait_seconds += Since(t);
  return interval_values_.data();
}

template <GasProgram Program>
void Engine<Program>::StoreValues(uint32_t p) {
  if (plan_.resident) return;
  const auto t = Clock::now();
  store_->Write(set_.interval_begin(p), set_.interval_end(p), interval_values_.data());
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
IntervalData& Engine<Program>::Acquire(uint32_t p) {
  for (auto& d : data_) {
    if (d.interval == p) {
      const auto t = Clock::now();
      shard_io_->FinishLoad(d);
      stats_.io_wait_seconds += Since(t);
      return d;
    }
  }
  // Not prefetched (the guess was wrong): drop what is in flight and read p now.
  const auto t = Clock::now();
  for (auto& d : data_) {
    shard_io_->FinishLoad(d);
    d.interval = kNoInterval;
  }
  shard_io_->StartLoad(p, data_[0], Wanted(p, kNoInterval));
  shard_io_->FinishLoad(data_[0]);
  stats_.io_wait_seconds += Since(t);
  return data_[0];
}

template <GasProgram Program>
void Engine<Program>::LoadMissing(IntervalData& data) {
  const uint32_t n = num_intervals(), p = data.interval;
  bool any = false;
  for (uint32_t r = 0; r < n; ++r) {
    wanted_[r] = window_dirty_[static_cast<size_t>(p) * n + r] && !data.loaded[r];
    any = any || wanted_[r];
  }
  if (!any) return;
  const auto t = Clock::now();
  shard_io_->StartLoad(p, data, wanted_.data(), /*windows_only=*/true);
  shard_io_->FinishLoad(data);
  stats_.io_wait_seconds += Since(t);
}

// Windows of p written by an interval whose write-back may have been in flight when p's reads
// were issued come from that interval's scatter buffer instead (older buffer first).
template <GasProgram Program>
void Engine<Program>::Patch(IntervalData& data) {
  const uint32_t p = data.interval;
  const int order[2] = {scatter_sequence_[0] <= scatter_sequence_[1] ? 0 : 1,
                        scatter_sequence_[0] <= scatter_sequence_[1] ? 1 : 0};
  for (int i : order) {
    const ScatterBuffer& s = scatter_[i];
    if (s.interval == kNoInterval) continue;
    const uint64_t bytes = edges_->WindowBytes(p, s.interval);
    if (bytes == 0) continue;
    std::memcpy(data.values.data() + edges_->WindowOffset(p, s.interval),
                s.bytes.data() + s.offsets[p], bytes);
  }
}

// Starts interval p's turn: the scatter buffer it will fill (whose older write-back is waited
// for first, so that no read issued from here on can see a write in progress that no buffer
// still holds), and, when `prefetch`, the reads of the next interval with messages.
template <GasProgram Program>
ScatterBuffer& Engine<Program>::BeginTurn(uint32_t p, bool prefetch) {
  const int mine = scatter_sequence_[0] <= scatter_sequence_[1] ? 0 : 1;
  ScatterBuffer& out = scatter_[mine];
  const auto t = Clock::now();
  shard_io_->FinishWriteBack(out);
  stats_.write_back_seconds += Since(t);
  // A prefetched interval's reads may have run while this buffer was being written: patch
  // them from it now, before its contents are gone.
  for (auto& d : data_) {
    if (d.interval == kNoInterval || d.interval == p || out.interval == kNoInterval) continue;
    shard_io_->FinishLoad(d);
    const uint64_t bytes = edges_->WindowBytes(d.interval, out.interval);
    if (bytes == 0) continue;
    std::memcpy(d.values.data() + edges_->WindowOffset(d.interval, out.interval),
                out.bytes.data() + out.offsets[d.interval], bytes);
  }
  out.interval = kNoInterval;  // its old contents are on disk now
  if (prefetch) {
    const uint32_t next = NextPending(p);
    IntervalData* slot = nullptr;
    for (auto& d : data_) {
      if (d.interval != p && !d.in_flight) slot = &d;
    }
    if (next != kNoInterval && next != p && slot != nullptr && data_[0].interval != next &&
        data_[1].interval != next) {
      shard_io_->StartLoad(next, *slot, Wanted(next, p));
    }
  }
  shard_io_->Prepare(p, out);
  scatter_sequence_[mine] = ++turns_;
  return out;
}

template <GasProgram Program>
void Engine<Program>::Compute(uint32_t p, uint32_t iteration) {
  IntervalData& data = Acquire(p);
  LoadMissing(data);
  Patch(data);
  pending_[p] = 0;
  ScatterBuffer& out = BeginTurn(p, /*prefetch=*/true);
  VertexValue* values = LoadValues(p);

  const auto t = Clock::now();
  const VertexId begin = set_.interval_begin(p);
  const uint32_t count = set_.interval_end(p) - begin;
  const EdgeValue identity = program_.identity();
  const uint32_t* targets = data.Targets();
  const float* weights = Program::kUsesWeights ? data.Weights() : nullptr;
  const uint32_t* out_degrees = data.OutDegrees();
  const uint32_t* in_degrees = data.InDegrees();
  uint64_t active = 0, changed = 0;
  uint64_t stray = UINT64_MAX;  // the first in-edge whose target lies outside p

#pragma omp parallel num_threads(threads_) reduction(+ : active, changed) reduction(min : stray)
  {
    const int nt = omp_get_num_threads(), t_id = omp_get_thread_num();
    const uint32_t lo = static_cast<uint32_t>(uint64_t{count} * t_id / nt);
    const uint32_t hi = static_cast<uint32_t>(uint64_t{count} * (t_id + 1) / nt);
    for (uint32_t v = lo; v < hi; ++v) {
      const VertexContext ctx{begin + v, out_degrees[v], in_degrees[v], iteration};
      if constexpr (kAccumulation) {
        acc_[v] = program_.extract(ctx, values[v]);
      } else {
        acc_[v] = Accumulator(identity);
      }
      touched_[v] = 0;
    }
    // Gather: this thread owns targets [lo, hi) and folds their in-edges in shard order.
    for (uint32_t r = 0; r < num_intervals(); ++r) {
      if (!window_dirty_[static_cast<size_t>(p) * num_intervals() + r]) continue;  // all identity
      const uint64_t first = set_.Window(p, r).first_edge, last = set_.Window(p, r + 1).first_edge;
      const auto* messages =
          reinterpret_cast<const EdgeValue*>(data.values.data() + edges_->WindowOffset(p, r));
      for (uint64_t i = first; i < last; ++i) {
        const uint32_t v = targets[i] - begin;
        if (v - lo >= hi - lo) {  // another thread's target, or none of p's (a damaged shard)
          if (v >= count) stray = std::min(stray, i);
          continue;
        }
        const EdgeValue& m = messages[i - first];
        if (m == identity) continue;
        acc_[v] = program_.gather(acc_[v], m, weights != nullptr ? weights[i] : 1.0f);
        touched_[v] = 1;
      }
    }
    // Apply.
    for (uint32_t v = lo; v < hi; ++v) {
      message_[v] = identity;
      if (iteration != 0 && !touched_[v]) continue;
      const VertexContext ctx{begin + v, out_degrees[v], in_degrees[v], iteration};
      const VertexValue old = values[v];
      const VertexValue now = program_.apply(ctx, old, acc_[v]);
      values[v] = now;
      ++active;
      if (iteration == 0 || program_.changed(old, now)) {
        message_[v] = program_.scatter(ctx, iteration == 0 ? VertexValue{} : old, now);
        ++changed;
      }
    }
  }
  if (stray != UINT64_MAX) {
    throw Error::AtByte(set_.AdjacencyPath(p), set_.header(p).targets_pos + 4 * stray,
                        "target " + std::to_string(targets[stray]) + " lies outside interval " +
                            std::to_string(p) + " (the shard file is damaged)");
  }
  stats_.active_vertices += active;
  stats_.changed_vertices += changed;
  for (uint32_t r = 0; r < num_intervals(); ++r) {
    if (window_dirty_[static_cast<size_t>(p) * num_intervals() + r]) {
      stats_.edges_loaded += set_.Window(p, r + 1).first_edge - set_.Window(p, r).first_edge;
    }
  }
  // No vertex of p changed: every message is identity, and scatter need not decode any runs.
  Scatter(p, out, changed == 0 ? nullptr : &data);
  data.interval = kNoInterval;  // consumed: the next turn of p reads it again
  stats_.compute_seconds += Since(t);
  ++stats_.intervals_computed;
  shard_io_->StartWriteBack(out, write_);
  StoreValues(p);
}

template <GasProgram Program>
void Engine<Program>::Clear(uint32_t p) {
  ScatterBuffer& out = BeginTurn(p, /*prefetch=*/false);
  const uint32_t count = set_.interval_end(p) - set_.interval_begin(p);
  std::fill_n(message_.begin(), count, program_.identity());
  Scatter(p, out, nullptr);
  ++stats_.intervals_cleared;
  shard_io_->StartWriteBack(out, write_);
}

// Fills window (q, p) of every shard q with the messages of its sources.
template <GasProgram Program>
void Engine<Program>::Scatter(uint32_t p, ScatterBuffer& out, IntervalData* data) {
  const VertexId begin = set_.interval_begin(p);
  const EdgeValue identity = program_.identity();
  uint64_t edges_changed = 0;
  bool any = false;
  // Without runs (Clear() loaded none; Compute() changed no vertex) every message is identity,
  // so the runs do not matter.
  if (data == nullptr) {
    for (uint32_t q = 0; q < num_intervals(); ++q) {
      auto* window = reinterpret_cast<EdgeValue*>(out.bytes.data() + out.offsets[q]);
      const uint64_t n = set_.Window(q, p + 1).first_edge - set_.Window(q, p).first_edge;
      std::fill_n(window, n, identity);
      const size_t w = static_cast<size_t>(q) * num_intervals() + p;
      write_[q] = window_dirty_[w];
      window_dirty_[w] = 0;
    }
    dirty_[p] = 0;
    return;
  }
  // The runs of window (q, p) come from p's scatter index (run_codec.h: about 2 bytes a run),
  // checked against the window index as they are decoded.
  const uint32_t n = num_intervals();
  const VertexId end = set_.interval_end(p);
  uint32_t damaged = n;  // the first window whose runs do not decode
  RunDecodeStatus damage;
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1) \
    reduction(+ : edges_changed) reduction(|| : any)
  for (uint32_t q = 0; q < n; ++q) {
    auto* window = reinterpret_cast<EdgeValue*>(out.bytes.data() + out.offsets[q]);
    bool hit = false;
    uint64_t at = 0;
    auto fill = [&](uint32_t source, uint64_t count) {
      const EdgeValue& m = message_[source - begin];
      std::fill_n(window + at, count, m);
      at += count;
      if (!(m == identity)) {
        hit = true;
        edges_changed += count;
      }
    };
    const WindowEntry &first = set_.Window(q, p), &last = set_.Window(q, p + 1);
    const RunDecodeStatus status =
        DecodeRuns(data->RunBytes(q), data->RunBytes(q + 1), last.first_run - first.first_run,
                   begin, end, last.first_edge - first.first_edge, fill);
    if (!status.ok()) {
#pragma omp critical(needle_scatter_damage)
      if (q < damaged) {
        damaged = q;
        damage = status;
      }
    }
    if (hit) {
      pending_[q] = 1;
      any = true;
    }
    const size_t w = static_cast<size_t>(q) * num_intervals() + p;
    write_[q] = hit || window_dirty_[w];
    window_dirty_[w] = hit;
  }
  if (damaged < n) {
    throw Error::AtByte(set_.ScatterIndexPath(p), set_.ScatterOffset(damaged, p) + damage.at,
                        std::string("window of shard ") + std::to_string(damaged) + ": " +
                            damage.error + " (the scatter index is damaged)");
  }
  dirty_[p] = any ? 1 : 0;
  stats_.edges_changed += edges_changed;
}

template <GasProgram Program>
RunSummary Engine<Program>::Run() {
  const auto start = Clock::now();
  const uint32_t n = num_intervals();
  RunSummary summary;
  summary.io_backend = std::string(io_->name());
  summary.direct = options_.io.direct;
  summary.num_vertices = set_.manifest().num_vertices;
  summary.num_edges = set_.manifest().num_edges;
  summary.num_intervals = n;
  summary.memory_budget = options_.memory_bytes;
  summary.memory_planned = plan_.Total();
  summary.vertex_values_resident = plan_.resident;
  summary.iteration_limit = options_.max_iterations;

  // Initial values, interval by interval.
  for (uint32_t p = 0; p < n; ++p) {
    VertexValue* values =
        plan_.resident ? all_values_.data() + set_.interval_begin(p) : interval_values_.data();
    const VertexId begin = set_.interval_begin(p);
    const uint32_t count = set_.interval_end(p) - begin;
    IntervalData& data = data_[1];
    shard_io_->LoadDegrees(p, data);
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
  window_dirty_.assign(static_cast<size_t>(n) * n, 0);  // the files start without messages
  wanted_.assign(n, 0);
  write_.assign(n, 0);
  if (n > 0) shard_io_->StartLoad(0, data_[0], Wanted(0, kNoInterval));

  uint32_t iteration = 0;
  for (; iteration < options_.max_iterations; ++iteration) {
    if (std::none_of(pending_.begin(), pending_.end(), [](uint8_t b) { return b != 0; })) {
      summary.converged = true;
      break;
    }
    const auto t = Clock::now();
    const IoCounters before = io_->counters();
    stats_ = {};
    stats_.iteration = iteration;
    for (uint32_t p = 0; p < n; ++p) {
      if (pending_[p]) {
        Compute(p, iteration);
      } else if (dirty_[p]) {
        Clear(p);
      }
    }
    stats_.seconds = Since(t);
    IoCounters delta = io_->counters();
    for (size_t k = 0; k < delta.read.size(); ++k) {
      delta.read[k] -= before.read[k];
      delta.written[k] -= before.written[k];
    }
    stats_.io = delta;
    summary.io_wait_seconds += stats_.io_wait_seconds;
    summary.compute_seconds += stats_.compute_seconds;
    summary.write_back_seconds += stats_.write_back_seconds;
    summary.edges_loaded += stats_.edges_loaded;
    summary.edges_changed += stats_.edges_changed;
    if (options_.on_iteration) options_.on_iteration(stats_);
  }
  if (!summary.converged &&
      std::none_of(pending_.begin(), pending_.end(), [](uint8_t b) { return b != 0; })) {
    summary.converged = true;
  }
  for (auto& d : data_) {
    shard_io_->Drain(d);
    d.interval = kNoInterval;
  }
  for (auto& s : scatter_) shard_io_->FinishWriteBack(s);
  summary.iterations = iteration;
  summary.seconds = Since(start);
  summary.io = io_->counters();
  summary.peak_rss_bytes = PeakRssBytes();
  summary.fixed_buffer_requests = io_->fixed_buffer_requests();
  if (options_.on_finish) options_.on_finish(summary);
  return summary;
}

}  // namespace needle
