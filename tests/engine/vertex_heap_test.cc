// VertexHeap against a std::set of (key, offset): the same pops, in the same order, through
// random adds, updates (up and down), peeks and pops, for packed keys (float, uint32_t,
// int32_t) and a key that is kept as a pair (double).
#include "engine/vertex_heap.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "shards/intervals.h"

namespace needle {
namespace {

template <class Key>
Key RandomKey(std::mt19937_64& rng) {
  // Few distinct keys, so that ties (broken by offset) are common.
  const int k = static_cast<int>(rng() % 17) - 8;
  if constexpr (std::is_same_v<Key, uint32_t>) {
    return k < 0 ? UINT32_MAX - static_cast<uint32_t>(-k) : static_cast<uint32_t>(k);
  } else if constexpr (std::is_floating_point_v<Key>) {
    if (k == 8) return std::numeric_limits<Key>::infinity();
    if (k == -8) return -std::numeric_limits<Key>::infinity();
    if (k == 7) return Key(-0.0);
    return static_cast<Key>(k) / Key(4);
  } else {
    return k == 8 ? std::numeric_limits<Key>::max()
                  : (k == -8 ? std::numeric_limits<Key>::min() : static_cast<Key>(k));
  }
}

// The reference's order: key by operator<, equal keys (as -0 and +0 are) by offset.
template <class Key>
struct ByKeyThenOffset {
  bool operator()(const std::pair<Key, uint32_t>& a, const std::pair<Key, uint32_t>& b) const {
    return a.first < b.first || (!(b.first < a.first) && a.second < b.second);
  }
};

template <class Key>
void CheckAgainstSet(uint64_t seed, uint32_t n, bool add_first) {
  std::mt19937_64 rng(seed);
  VertexHeap<Key> heap;
  using Entry = std::pair<Key, uint32_t>;
  for (int round = 0; round < 3; ++round) {  // Reset reuses the heap
    heap.Reset(n);
    std::set<Entry, ByKeyThenOffset<Key>> ref;
    std::map<uint32_t, Key> key_of;
    if (add_first) {
      for (uint32_t v = 0; v < n; ++v) {
        if (rng() % 4 == 0) continue;
        const Key k = RandomKey<Key>(rng);
        heap.Add(v, k);
        ref.insert({k, v});
        key_of[v] = k;
      }
    }
    for (int step = 0; step < 20 * static_cast<int>(n); ++step) {
      ASSERT_EQ(heap.empty(), ref.empty());
      if (!ref.empty() && rng() % 3 == 0) {
        const Entry least = *ref.begin();
        ref.erase(ref.begin());
        key_of.erase(least.second);
        ASSERT_EQ(heap.Peek(), least.second) << "step " << step;
        ASSERT_EQ(heap.Pop(), least.second) << "step " << step;
        continue;
      }
      const auto v = static_cast<uint32_t>(rng() % n);
      const Key k = RandomKey<Key>(rng);
      if (auto it = key_of.find(v); it != key_of.end()) ref.erase({it->second, v});
      heap.Prefetch(v);
      heap.Update(v, k);
      ref.insert({k, v});
      key_of[v] = k;
    }
    while (!ref.empty()) {
      ASSERT_FALSE(heap.empty());
      ASSERT_EQ(heap.Pop(), ref.begin()->second);
      ref.erase(ref.begin());
    }
    EXPECT_TRUE(heap.empty());
    EXPECT_EQ(heap.Peek(), VertexHeap<Key>::kNone);
  }
}

TEST(VertexHeapTest, FloatKeysPopAsASortedSetDoes) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    CheckAgainstSet<float>(seed, 200, /*add_first=*/true);
    CheckAgainstSet<float>(seed, 200, /*add_first=*/false);
  }
}

TEST(VertexHeapTest, IntegerKeysPopAsASortedSetDoes) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    CheckAgainstSet<uint32_t>(seed, 200, true);
    CheckAgainstSet<int32_t>(seed, 200, true);
    CheckAgainstSet<int32_t>(seed, 97, false);
  }
}

TEST(VertexHeapTest, OtherKeysPopAsASortedSetDoes) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    CheckAgainstSet<double>(seed, 200, true);
    CheckAgainstSet<double>(seed, 97, false);
  }
}

TEST(VertexHeapTest, AddedVerticesComeOutSortedAndUpdatesLeaveTheQueue) {
  VertexHeap<float> heap;
  heap.Reset(6);
  const float inf = std::numeric_limits<float>::infinity();
  // Added out of order: sorted on first use.
  heap.Add(0, inf);
  heap.Add(1, 2.0f);
  heap.Add(2, inf);
  heap.Add(3, 0.0f);
  heap.Add(4, inf);
  heap.Update(4, 1.0f);  // leaves the queue for the heap
  heap.Update(1, 3.0f);  // a queued vertex whose key grows
  heap.Update(5, -0.0f);  // not added: ties with 3's +0 and comes after it by offset
  std::vector<uint32_t> order;
  while (!heap.empty()) order.push_back(heap.Pop());
  EXPECT_EQ(order, (std::vector<uint32_t>{3, 5, 4, 1, 0, 2}));
}

TEST(VertexHeapTest, CountsWhatItHolds) {
  EXPECT_EQ(VertexHeap<float>::kBytesPerVertex, 4u + 2 * 8);
  EXPECT_EQ(VertexHeap<uint32_t>::kBytesPerVertex, 4u + 2 * 8);
  EXPECT_EQ(VertexHeap<double>::kBytesPerVertex, 4u + 2 * 16);
  // The sharder's cost model counts the same for the keys in use, and never less.
  EXPECT_EQ(OrderedBytesPerVertex(sizeof(float)), VertexHeap<float>::kBytesPerVertex);
  EXPECT_EQ(OrderedBytesPerVertex(sizeof(double)), VertexHeap<double>::kBytesPerVertex);
  struct Five {
    uint8_t b[5];
    bool operator<(const Five& o) const { return std::memcmp(b, o.b, 5) < 0; }
  };
  EXPECT_GE(OrderedBytesPerVertex(sizeof(Five)), VertexHeap<Five>::kBytesPerVertex);
}

}  // namespace
}  // namespace needle
