// The edges of one source's run whose targets lie in a range, found by search instead of by a
// walk: a shard holds each window's edges sorted by (source, target) (shards/shard_layout.h),
// so a run's targets ascend and the edges to a range of vertices are contiguous.
//
// The engine uses it where a thread needs only part of a run (its own targets, a sweep block's
// fresh ones) and has checked that the runs ascend (Engine::FindOwnRuns): a damaged run that
// did not would otherwise hide edges from the search.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

namespace needle {

// Of edges [first, last) of `targets` (ascending), those whose target lies in [lo, hi).
// A run wholly inside or wholly outside the range costs two comparisons.
inline std::pair<uint64_t, uint64_t> TargetsWithin(const uint32_t* targets, uint64_t first,
                                                   uint64_t last, uint32_t lo, uint32_t hi) {
  if (first == last || lo >= hi) return {last, last};
  if (targets[first] >= lo && targets[last - 1] < hi) return {first, last};
  if (targets[last - 1] < lo || targets[first] >= hi) return {last, last};
  const uint32_t* a = std::lower_bound(targets + first, targets + last, lo);
  const uint32_t* b = std::lower_bound(a, targets + last, hi);
  return {static_cast<uint64_t>(a - targets), static_cast<uint64_t>(b - targets)};
}

}  // namespace needle
