// ScanGather: the scan way of a dense pass's gather (--gather scan; docs/engine.md, step 3).
// The calling thread reads every in-edge of the pass's windows and folds the messages of the
// targets it owns, [lo, hi), in shard order; T threads so read every edge T times.
//
// A thread that owns part of the interval goes batch by batch (kBatch edges). It first counts,
// without branching (a loop the compiler vectorises), how many of the batch's targets are its
// own: a batch of none is skipped without reading its messages, a batch of all is folded as
// read. Where targets lie near their sources (web graphs in crawl order, road networks) most
// batches are one thread's. A mixed batch is compacted to the thread's own (target, offset)
// pairs — every pair written, the cursor advanced only for its own, since "is this target
// mine" goes either way at random — and those are folded. After a mixed batch the count is
// skipped for the next 1, 3, 7, then 15 batches, so that a graph whose batches are all mixed
// (R-MAT) pays almost nothing for it. A thread that owns the whole interval folds as it reads.
// The order of the folds is the same every way.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

namespace needle {

// `windows[k]` has first, last (edge positions of `targets`) and messages (of last - first
// edges). fold(v, message, edge) folds a message other than `identity` into target v (< count)
// of this thread. Returns the first edge whose target is not in the interval (UINT64_MAX: none).
template <typename Window, typename EdgeValue, typename Fold>
uint64_t ScanGather(std::span<const Window> windows, const uint32_t* targets, uint32_t begin,
                    uint32_t count, uint32_t lo, uint32_t hi, const EdgeValue& identity,
                    Fold&& fold) {
  uint64_t stray = UINT64_MAX;
  if (lo == 0 && hi == count) {
    for (const Window& w : windows) {
      for (uint64_t i = w.first; i < w.last; ++i) {
        const uint32_t v = targets[i] - begin;
        if (v >= count) {
          stray = std::min(stray, i);
          continue;
        }
        const EdgeValue& m = w.messages[i - w.first];
        if (!(m == identity)) fold(v, m, i);
      }
    }
    return stray;
  }
  constexpr uint32_t kBatch = 256;
  constexpr uint32_t kMostUncounted = 15;
  constexpr uint32_t kBias = 0x80000000u;  // unsigned order as signed order, which SSE2 has
  const int32_t own_lo = static_cast<int32_t>(lo ^ kBias);
  const int32_t own_hi = static_cast<int32_t>(hi ^ kBias);
  const int32_t all_hi = static_cast<int32_t>(count ^ kBias);
  uint32_t own_targets[kBatch];
  uint16_t own_offsets[kBatch];
  uint32_t backoff = 0, uncounted = 0;
  for (const Window& w : windows) {
    for (uint64_t base = w.first; base < w.last; base += kBatch) {
      const uint32_t size = static_cast<uint32_t>(std::min<uint64_t>(kBatch, w.last - base));
      const uint32_t* batch = targets + base;
      const EdgeValue* messages = w.messages + (base - w.first);
      if (uncounted > 0) {
        --uncounted;
      } else {
        // How many of the batch are this thread's, and how many are p's: a loop without
        // branches, which the compiler vectorises.
        uint32_t mine = 0, inside = 0;
        for (uint32_t e = 0; e < size; ++e) {
          const int32_t v = static_cast<int32_t>((batch[e] - begin) ^ kBias);
          mine += (v >= own_lo) & (v < own_hi);
          inside += v < all_hi;
        }
        if (inside == size && (mine == 0 || mine == size)) {
          backoff = 0;
          if (mine == 0) continue;  // all the other threads'
          for (uint32_t e = 0; e < size; ++e) {
            const EdgeValue& m = messages[e];
            if (!(m == identity)) fold(batch[e] - begin, m, base + e);
          }
          continue;
        }
        // Mixed: count again after 1, 3, 7, then every kMostUncounted + 1 batches.
        backoff = std::min(2 * backoff + 1, kMostUncounted);
        uncounted = backoff;
      }
      uint32_t own = 0;
      bool outside = false;
      for (uint32_t e = 0; e < size; ++e) {
        const uint32_t v = batch[e] - begin;
        own_targets[own] = v;
        own_offsets[own] = static_cast<uint16_t>(e);
        own += v - lo < hi - lo;
        outside |= v >= count;
      }
      if (outside) [[unlikely]] {  // none of p's (a damaged shard)
        for (uint32_t e = 0; e < size; ++e) {
          if (batch[e] - begin >= count) {
            stray = std::min(stray, base + e);
            break;
          }
        }
      }
      for (uint32_t k = 0; k < own; ++k) {
        const EdgeValue& m = messages[own_offsets[k]];
        if (!(m == identity)) fold(own_targets[k], m, base + own_offsets[k]);
      }
    }
  }
  return stray;
}

}  // namespace needle
