// RoutedGather: a dense pass's gather with each thread folding only the in-edges of the targets
// it owns, in shard order, so that gather work does not grow with the thread count.
//
// The scan gather (engine.h) has every thread read every in-edge of the interval and keep its
// own targets': T threads read each edge T times. Routing reads each edge once: the pass's
// windows, taken as one sequence of edges, are cut into rounds of T chunks; in a round each
// thread counts the messages of its chunk by owner, places them (target, weight, message) in
// a shared route buffer ordered by (owner, chunk, position), and each owner then folds its
// part. Rounds in order, chunks in order within a round: every target folds its messages in
// shard order, as the scan does, so both give the same values bit for bit at any thread count.
//
// Two barriers a round; the route buffer holds T chunks (RouteBytes(), in the memory plan).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/engine_options.h"

namespace needle {

// kBlock: the sweep block (engine.h), a power of two; thread ownership is by whole blocks.
template <typename EdgeValue, uint32_t kBlock>
class RoutedGather {
  static_assert((kBlock & (kBlock - 1)) == 0);
 public:
  struct Routed {
    uint32_t target;  // in the interval
    float weight;
    EdgeValue message;
  };
  // Edges a thread places per round: kThreadRouteBytes of route buffer a thread, so that
  // the chunk it counts is still in its cache when it places it.
  static constexpr uint64_t kThreadRouteBytes = uint64_t{256} << 10;
  static uint64_t ChunkEdges(int /*threads*/) {
    return std::max<uint64_t>(1024, kThreadRouteBytes / sizeof(Routed));
  }
  static uint64_t RouteBytes(int threads) {
    const uint64_t t = uint64_t(threads);
    return t * ChunkEdges(threads) * sizeof(Routed) + 2 * t * t * sizeof(uint64_t);
  }

  // Inside the parallel region, called by every thread of the team. `windows[k]` has first, last (edge
  // positions of `targets`) and messages (of last - first edges). `fold(v, message, weight)`
  // folds into target v (< count) of this thread. Returns the first edge whose target is not
  // in the interval (UINT64_MAX: none), found by the thread whose chunk holds it.
  template <typename Window, typename Fold>
  uint64_t Run(const std::vector<Window>& windows, const uint32_t* targets, const float* weights,
               uint32_t begin, uint32_t count, const EdgeValue& identity,
               Fold&& fold) {
    const uint32_t blocks = (count + kBlock - 1) / kBlock;
#pragma omp single
    Prepare(omp_get_num_threads(), blocks);
    const int nt = threads_, t = omp_get_thread_num();
    uint64_t total = 0;
    for (const Window& w : windows) total += w.last - w.first;
    const uint64_t round_edges = uint64_t(nt) * chunk_;
    const uint64_t rounds = (total + round_edges - 1) / round_edges;
    uint64_t stray = UINT64_MAX;
    // This thread's cursor: window k, edge i of `targets`; moved to the start of its chunk.
    size_t k = 0;
    uint64_t i = windows.empty() ? 0 : windows[0].first, at = 0;  // at: position in the sequence
    auto seek = [&](uint64_t pos) {
      while (k < windows.size() && at + (windows[k].last - i) <= pos) {
        at += windows[k].last - i;
        if (++k < windows.size()) i = windows[k].first;
      }
      if (k < windows.size()) {
        i += pos - at;
        at = pos;
      }
    };
    // Visits this thread's chunk of round r: f(edge, target in the interval, message).
    auto chunk = [&](uint64_t r, auto&& f) {
      const uint64_t from = std::min(total, r * round_edges + uint64_t(t) * chunk_);
      const uint64_t to = std::min(total, from + chunk_);
      seek(from);
      size_t kk = k;
      uint64_t ii = i, left = to - from;
      while (left > 0) {
        const Window& w = windows[kk];
        const uint64_t n = std::min(left, w.last - ii);
        const EdgeValue* m = w.messages + (ii - w.first);
        for (uint64_t e = 0; e < n; ++e) f(ii + e, targets[ii + e] - begin, m[e]);
        left -= n;
        ii += n;
        if (ii == w.last && ++kk < windows.size()) ii = windows[kk].first;
      }
    };
    auto counts = [&](uint64_t r) { return counts_.data() + (r & 1) * size_t(nt) * nt; };
    auto count_round = [&](uint64_t r) {
      uint64_t* c = counts(r) + size_t(t) * nt;
      std::fill(c, c + nt, 0);
      chunk(r, [&](uint64_t edge, uint32_t v, const EdgeValue& m) {
        if (v >= count) {  // a damaged shard, found whatever the edge carries
          stray = std::min(stray, edge);
        } else if (!(m == identity)) {
          ++c[owner_[v / kBlock]];
        }
      });
    };
    std::vector<uint64_t> at_owner(nt);
    if (rounds > 0) count_round(0);
    for (uint64_t r = 0; r < rounds; ++r) {
#pragma omp barrier
      // Place: owner o's part is (chunk 0's, chunk 1's, ...) messages to o, in order.
      const uint64_t* c = counts(r);
      for (uint64_t o = 0, base = 0; o < uint64_t(nt); ++o) {
        for (int s = 0; s < nt; ++s) {
          if (s == t) at_owner[o] = base;
          base += c[size_t(s) * nt + o];
        }
      }
      chunk(r, [&](uint64_t edge, uint32_t v, const EdgeValue& m) {
        if (v >= count || m == identity) return;
        route_[at_owner[owner_[v / kBlock]]++] = {
            v, weights != nullptr ? weights[edge] : 1.0f, m};
      });
#pragma omp barrier
      uint64_t from = 0, to = 0;
      for (int o = 0; o <= t; ++o) {
        for (int s = 0; s < nt; ++s) (o < t ? from : to) += c[size_t(s) * nt + o];
      }
      to += from;
      for (uint64_t e = from; e < to; ++e) {
        fold(route_[e].target, route_[e].message, route_[e].weight);
      }
      // The next round's counts go to the other half of counts_, which no thread reads now.
      if (r + 1 < rounds) count_round(r + 1);
    }
#pragma omp barrier
    return stray;
  }

 private:
  // The owner of every sweep block (thread t of T owns blocks
  // [blocks × t / T, blocks × (t + 1) / T), as in engine.h).
  void Prepare(int threads, uint32_t blocks) {
    threads_ = threads;
    chunk_ = ChunkEdges(threads);
    if (route_.size() < uint64_t(threads) * chunk_) route_.resize(uint64_t(threads) * chunk_);
    counts_.assign(2 * size_t(threads) * threads, 0);
    owner_.resize(blocks);
    for (int t = 0; t < threads; ++t) {
      const uint32_t lo = uint32_t(uint64_t{blocks} * t / threads);
      const uint32_t hi = uint32_t(uint64_t{blocks} * (t + 1) / threads);
      std::fill(owner_.begin() + lo, owner_.begin() + hi, static_cast<uint16_t>(t));
    }
  }

  int threads_ = 1;
  uint64_t chunk_ = 0;
  std::vector<Routed> route_;
  std::vector<uint64_t> counts_;
  std::vector<uint16_t> owner_;
};

}  // namespace needle
