// ScanGather: the scan way of a dense pass's gather (--gather scan; docs/engine.md, step 3).
// The calling thread reads every in-edge of the pass's windows and folds the messages of the
// targets it owns, [lo, hi), in shard order; T threads so read every edge T times.
//
// Whether a target is the thread's own goes either way at random when several threads share an
// interval, and a branch on it is mispredicted about every other edge at two threads. So a
// thread that owns part of the interval compacts a batch of kBatch edges to its own (target,
// offset) pairs first — every pair written, the cursor advanced only for its own — and then
// folds those; a thread that owns all of it folds as it reads. The order of the folds is the
// same either way.
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
  constexpr uint32_t kBatch = 2048;
  uint32_t own_targets[kBatch];
  uint16_t own_offsets[kBatch];
  for (const Window& w : windows) {
    for (uint64_t base = w.first; base < w.last; base += kBatch) {
      const uint32_t size = static_cast<uint32_t>(std::min<uint64_t>(kBatch, w.last - base));
      const uint32_t* batch = targets + base;
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
      const EdgeValue* messages = w.messages + (base - w.first);
      for (uint32_t k = 0; k < own; ++k) {
        const EdgeValue& m = messages[own_offsets[k]];
        if (!(m == identity)) fold(own_targets[k], m, base + own_offsets[k]);
      }
    }
  }
  return stray;
}

}  // namespace needle
