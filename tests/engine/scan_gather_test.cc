// ScanGather (engine/scan_gather.h) against a walk of every edge: the same folds, in the same
// order, and the same first stray edge, for a thread that owns part of the interval. The
// targets come in stretches of one owner, of mixed owners and of the ends of the thread's
// range, so that batches are skipped, folded whole and compacted, and counting backs off and
// resumes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <tuple>
#include <vector>

#include "engine/scan_gather.h"

namespace needle {
namespace {

struct Window {
  uint64_t first, last;
  const float* messages;
};

using Fold = std::tuple<uint32_t, float, uint64_t>;

constexpr float kIdentity = 0.0f;

// What a walk of every edge in order folds for targets [lo, hi) of the interval [begin, begin +
// count), and the first edge outside the interval.
uint64_t Walk(std::span<const Window> windows, const std::vector<uint32_t>& targets,
              uint32_t begin, uint32_t count, uint32_t lo, uint32_t hi, std::vector<Fold>& out) {
  uint64_t stray = UINT64_MAX;
  for (const Window& w : windows) {
    for (uint64_t i = w.first; i < w.last; ++i) {
      const uint32_t v = targets[i] - begin;
      if (v >= count) {
        stray = std::min(stray, i);
        continue;
      }
      const float m = w.messages[i - w.first];
      if (v >= lo && v < hi && m != kIdentity) out.emplace_back(v, m, i);
    }
  }
  return stray;
}

TEST(ScanGatherTest, FoldsWhatAWalkFolds) {
  std::mt19937 rng(11);
  auto pick = [&](uint32_t a, uint32_t b) {  // in [a, b]
    return std::uniform_int_distribution<uint32_t>(a, b)(rng);
  };
  constexpr uint32_t kBegin = 1000, kCount = 4096;
  for (int trial = 0; trial < 300; ++trial) {
    const uint32_t lo = pick(0, kCount), hi = pick(lo, kCount);
    std::vector<uint32_t> targets;
    while (targets.size() < 20000) {
      const uint32_t stretch = pick(1, 1500);
      // 0: this thread's, 1: the others', 2: mixed, 3: next to the ends of [lo, hi)
      const uint32_t kind = pick(0, 3);
      for (uint32_t e = 0; e < stretch; ++e) {
        uint32_t v = pick(0, kCount - 1);
        if (kind == 0 && lo < hi) v = pick(lo, hi - 1);
        if (kind == 1 && (lo > 0 || hi < kCount)) {
          v = lo > 0 && (hi == kCount || pick(0, 1) == 0) ? pick(0, lo - 1) : pick(hi, kCount - 1);
        }
        if (kind == 3) {
          const uint32_t ends[] = {lo == 0 ? 0 : lo - 1, lo, hi == 0 ? 0 : hi - 1, hi};
          v = std::min(ends[pick(0, 3)], kCount - 1);
        }
        targets.push_back(kBegin + v);
      }
    }
    // A few trials hold a stray target (below or above the interval) somewhere.
    if (trial % 5 == 0) {
      const size_t at = pick(0, static_cast<uint32_t>(targets.size()) - 1);
      targets[at] = pick(0, 1) == 0 ? kBegin - 1 - pick(0, 5) : kBegin + kCount + pick(0, 5);
    }
    std::vector<float> messages(targets.size());
    for (float& m : messages) m = pick(0, 3) == 0 ? kIdentity : static_cast<float>(pick(1, 99));
    // Windows of any length, with gaps between them (edges no window covers).
    std::vector<Window> windows;
    for (uint64_t at = pick(0, 50); at < targets.size();) {
      const uint64_t last = std::min<uint64_t>(targets.size(), at + pick(0, 3000));
      windows.push_back({at, last, messages.data() + at});
      at = last + pick(0, 100);
    }
    std::vector<Fold> want, got;
    const uint64_t want_stray = Walk(windows, targets, kBegin, kCount, lo, hi, want);
    const uint64_t got_stray =
        ScanGather(std::span<const Window>(windows), targets.data(), kBegin, kCount, lo, hi,
                   kIdentity, [&](uint32_t v, const float& m, uint64_t i) {
                     got.emplace_back(v, m, i);
                   });
    ASSERT_EQ(got_stray, want_stray) << "trial " << trial;
    ASSERT_EQ(got, want) << "trial " << trial << ", targets [" << lo << ", " << hi << ")";
  }
}

}  // namespace
}  // namespace needle
