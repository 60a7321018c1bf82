// SplitGather: a dense pass's gather for programs whose messages may be folded in any order and
// grouping (selection programs aggregated by min, max, or, and: SplitsGather below), with each
// thread reading only its share of the in-edges.
//
// The scan gather (engine.h) has every thread read every in-edge and keep its own targets':
// T threads read each edge T times, and each sorts out its own. Here the pass's windows, taken
// as one sequence of edges, are cut into T equal parts. Thread 0 folds its part into the
// interval's accumulators; thread t > 0 folds its part into accumulators of its own (one per
// vertex of the interval, identity() where it heard nothing). After a barrier, each thread
// combines, for the targets it owns, what the others heard into the interval's accumulator
// with the program's aggregation, and resets their entries. A min (max, or, and) does not
// depend on the order or grouping of what it combines, so the result equals the scan's at any
// thread count.
//
// The combining step costs time in proportion to the interval's vertices, the scan's second
// read in proportion to its edges: under --gather auto a pass splits only when it gathers at
// least kMinEdgesPerVertex in-edges a vertex (Pays), and scans otherwise (the same values).
//
// Memory: (T − 1) × the largest interval × (accumulator width + 1) bytes (Bytes(), in the
// memory plan), allocated by the first pass that splits; the routed gather (routed_gather.h)
// costs a fixed buffer instead and is the one for many threads.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/aggregation.h"
#include "engine/program.h"

namespace needle {

// True when a program's gather may be split: a selection program (no extract: its accumulator
// is its message type) whose kAggregation is order-free and exact. Such a program promises, as
// the delay buffer already assumes, that gather(acc, m, w) == aggregate(acc, gather(identity(),
// m, w)).
template <class P>
constexpr bool SplitsGather() {
  return !AccumulationProgram<P> &&
         (P::kAggregation == Aggregation::kMin || P::kAggregation == Aggregation::kMax ||
          P::kAggregation == Aggregation::kOr || P::kAggregation == Aggregation::kAnd);
}

template <class Program>
class SplitGather {
 public:
  using EdgeValue = typename Program::EdgeValue;

  static uint64_t Bytes(int threads, uint64_t largest_interval) {
    return threads <= 1 ? 0
                        : uint64_t(threads - 1) * largest_interval * (sizeof(EdgeValue) + 1);
  }

  // Measured (bench/RESULTS.md, "The split gather"): R-MAT passes of about 20 in-edges a
  // vertex gain most; road network passes of about 1 lose.
  static constexpr uint64_t kMinEdgesPerVertex = 4;
  static bool Pays(uint64_t edges, uint32_t count) {
    return edges >= kMinEdgesPerVertex * uint64_t{count};
  }

  // For `threads` threads and intervals of up to `largest` vertices (allocated by Prepare).
  void Reset(int threads, uint64_t largest) {
    threads_ = threads;
    largest_ = largest;
  }
  // Outside the parallel region, before a Run: every entry identity() (Run keeps them so).
  void Prepare(const EdgeValue& identity) {
    if (!heard_.empty() || threads_ <= 1) return;
    heard_.assign(threads_ - 1, std::vector<EdgeValue>(largest_, identity));
    touched_.assign(threads_ - 1, std::vector<uint8_t>(largest_, 0));
  }
  void Release() {
    std::vector<std::vector<EdgeValue>>().swap(heard_);
    std::vector<std::vector<uint8_t>>().swap(touched_);
  }

  // Inside the parallel region, called by every thread of the team after each has started the
  // accumulators of its targets [lo, hi) (acc[v], touched[v] = 0). `windows[k]` has first,
  // last (edge positions of `targets`) and messages. On return acc[v] and touched[v] of this
  // thread's targets hold the whole pass's messages. Returns the first edge whose target is
  // not in the interval (UINT64_MAX: none) among this thread's part; adds to `used` the
  // messages it folded.
  template <typename Window>
  uint64_t Run(const Program& program, const std::vector<Window>& windows,
               const uint32_t* targets, const float* weights, uint32_t begin, uint32_t count,
               uint32_t lo, uint32_t hi, EdgeValue* acc, uint8_t* touched, uint64_t& used) {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const EdgeValue identity = program.identity();
    uint64_t total = 0;
    for (const Window& w : windows) total += w.last - w.first;
    const uint64_t from = total * uint64_t(t) / uint64_t(nt);
    const uint64_t to = total * uint64_t(t + 1) / uint64_t(nt);
    EdgeValue* mine = t == 0 ? acc : heard_[t - 1].data();
    uint8_t* heard = t == 0 ? touched : touched_[t - 1].data();
    uint64_t stray = UINT64_MAX;
#pragma omp barrier
    // Fold [from, to) of the sequence.
    uint64_t at = 0;
    for (const Window& w : windows) {
      const uint64_t size = w.last - w.first;
      const uint64_t a = std::max(from, at), b = std::min(to, at + size);
      if (a < b) {
        const uint64_t i0 = w.first + (a - at), i1 = w.first + (b - at);
        for (uint64_t i = i0; i < i1; ++i) {
          const uint32_t v = targets[i] - begin;
          if (v >= count) {  // none of p's (a damaged shard)
            stray = std::min(stray, i);
            continue;
          }
          const EdgeValue& m = w.messages[i - w.first];
          if (m == identity) continue;
          mine[v] = program.gather(mine[v], m, weights != nullptr ? weights[i] : 1.0f);
          heard[v] = 1;
          ++used;
        }
      }
      at += size;
      if (at >= to) break;
    }
#pragma omp barrier
    // Combine what the others heard for this thread's targets, and clear it for the next pass.
    for (size_t k = 0; k < heard_.size(); ++k) {
      EdgeValue* other = heard_[k].data();
      uint8_t* seen = touched_[k].data();
      for (uint32_t v = lo; v < hi; ++v) {
        if (!seen[v]) continue;
        acc[v] = Aggregate(program, acc[v], other[v]);
        touched[v] = 1;
        other[v] = identity;
        seen[v] = 0;
      }
    }
    return stray;
  }

 private:
  int threads_ = 1;
  uint64_t largest_ = 0;
  std::vector<std::vector<EdgeValue>> heard_;  // per thread after the first, per vertex
  std::vector<std::vector<uint8_t>> touched_;
};

}  // namespace needle
