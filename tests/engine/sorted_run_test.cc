// TargetsWithin: the part of an ascending run whose targets lie in a range, against a walk.
#include <gtest/gtest.h>

#include <cstdint>
#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "engine/sorted_run.h"

namespace needle {
namespace {

std::pair<uint64_t, uint64_t> Walk(const std::vector<uint32_t>& t, uint64_t first, uint64_t last,
                                   uint32_t lo, uint32_t hi) {
  uint64_t a = first;
  while (a < last && t[a] < lo) ++a;
  uint64_t b = a;
  while (b < last && t[b] < hi) ++b;
  if (a == b) return {last, last};  // nothing inside: the empty range at the run's end
  return {a, b};
}

TEST(SortedRunTest, FindsWhatAWalkFinds) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint32_t> t(std::uniform_int_distribution<int>(0, 12)(rng));
    for (auto& x : t) x = std::uniform_int_distribution<uint32_t>(10, 30)(rng);  // duplicates
    std::sort(t.begin(), t.end());
    t.insert(t.begin(), 99);  // the run starts at edge 1 of the array
    const uint32_t lo = std::uniform_int_distribution<uint32_t>(5, 35)(rng);
    const uint32_t hi = std::uniform_int_distribution<uint32_t>(5, 35)(rng);
    const auto got = TargetsWithin(t.data(), 1, t.size(), lo, hi);
    const auto want = Walk(t, 1, t.size(), lo, hi);
    ASSERT_EQ(got.second - got.first, want.second - want.first) << lo << " " << hi;
    if (want.first < want.second) {
      ASSERT_EQ(got, want) << lo << " " << hi;
    }
  }
}

TEST(SortedRunTest, WholeAndNoneCostNoSearch) {
  const std::vector<uint32_t> t{3, 4, 4, 9};
  EXPECT_EQ(TargetsWithin(t.data(), 0, 4, 3, 10), std::make_pair(uint64_t{0}, uint64_t{4}));
  EXPECT_EQ(TargetsWithin(t.data(), 0, 4, 10, 20), std::make_pair(uint64_t{4}, uint64_t{4}));
  EXPECT_EQ(TargetsWithin(t.data(), 0, 4, 0, 3), std::make_pair(uint64_t{4}, uint64_t{4}));
  EXPECT_EQ(TargetsWithin(t.data(), 0, 4, 4, 5), std::make_pair(uint64_t{1}, uint64_t{3}));
  EXPECT_EQ(TargetsWithin(t.data(), 2, 2, 0, 100), std::make_pair(uint64_t{2}, uint64_t{2}));
}

}  // namespace
}  // namespace needle
