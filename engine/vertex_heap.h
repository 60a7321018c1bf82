// VertexHeap: the vertices of one interval (offsets 0..n-1) by a key each, least key first,
// for the ordered schedule of engine.h. Vertices with equal keys come out by offset, so the
// order of pops follows from the keys alone, not from the order of the updates. Keys must be
// totally ordered by < (no NaN).
//
// The vertices a drain starts with (Add: in the first iteration every vertex of the interval,
// most of them with nothing heard yet) are sorted once into a queue; only those whose key
// changes (Update) move into a 4-ary heap. Pop takes the lesser of the two fronts. The heap
// then holds the frontier, not the interval, so sifting stays shallow and in cache. Each heap
// slot holds its vertex's key, so sifting compares neighbouring slots (a vertex's four
// children lie side by side) instead of looking keys up by vertex.
//
// Memory: 4 bytes a vertex (its place), and a slot (8 bytes for a 4-byte key) for each vertex
// added and for each in the heap.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace needle {

template <class Key>
class VertexHeap {
  struct Pair {
    Key key;
    uint32_t vertex;
  };
  // A 4-byte float or integer key and the offset pack into one integer that orders as (key,
  // offset) does, so sifting compares without branching on ties; other keys keep a pair.
  static constexpr bool kPacked = std::is_same_v<Key, float> || std::is_same_v<Key, uint32_t> ||
                                  std::is_same_v<Key, int32_t>;
  using Slot = std::conditional_t<kPacked, uint64_t, Pair>;

 public:
  // What Reset(n) holds per vertex of n: its place, a queue slot and a heap slot.
  static constexpr size_t kBytesPerVertex = sizeof(uint32_t) + 2 * sizeof(Slot);

  // Room for n vertices, none waiting.
  void Reset(uint32_t n) {
    heap_.clear();
    queue_.clear();
    heap_.reserve(n);  // each holds at most n: what the memory plan counts
    queue_.reserve(n);
    front_ = 0;
    sorted_ = true;
    place_.assign(n, kAbsent);
  }
  void Release() {
    std::vector<Slot>().swap(heap_);
    std::vector<Slot>().swap(queue_);
    std::vector<uint32_t>().swap(place_);
  }

  // Adds v with `key`: only before the first Pop, Peek or Update, and each v once.
  void Add(uint32_t v, const Key& key) {
    assert(heap_.empty() && front_ == 0 && place_[v] == kAbsent);
    const Slot slot = Make(key, v);
    if (!queue_.empty() && Less(slot, queue_.back())) sorted_ = false;
    queue_.push_back(slot);
    place_[v] = kQueued;
  }

  bool empty() {
    Sort();
    return heap_.empty() && front_ == queue_.size();
  }

  // The vertex Pop() would return now, or kNone when none waits.
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t Peek() {
    Sort();
    if (QueueFirst()) return VertexOf(queue_[front_]);
    return heap_.empty() ? kNone : VertexOf(heap_.front());
  }

  // Asks the cache for what Update(v, ...) will read first.
  void Prefetch(uint32_t v) const { __builtin_prefetch(&place_[v]); }

  // Makes `key` v's key, whether v waits already or not.
  void Update(uint32_t v, const Key& key) {
    const Slot slot = Make(key, v);
    uint32_t at = place_[v];
    if (at == kQueued || at == kAbsent) {
      const bool queued = at == kQueued;
      at = static_cast<uint32_t>(heap_.size());
      heap_.push_back(slot);
      Up(at, slot);
      // A queued v's slot in the queue goes stale: the front passes it if it is there.
      if (queued && sorted_) SkipStale();
    } else if (Less(slot, heap_[at])) {
      Up(at, slot);
    } else {
      Down(at, slot);
    }
  }
  // Removes and returns the waiting vertex of the least key (of the least offset among equal
  // keys). Not when empty().
  uint32_t Pop() {
    Sort();
    if (QueueFirst()) {
      const uint32_t v = VertexOf(queue_[front_++]);
      place_[v] = kAbsent;
      SkipStale();
      return v;
    }
    const uint32_t top = VertexOf(heap_.front());
    place_[top] = kAbsent;
    const Slot last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) Down(0, last);
    return top;
  }

 private:
  static constexpr uint32_t kAbsent = UINT32_MAX;
  static constexpr uint32_t kQueued = UINT32_MAX - 1;
  static constexpr uint32_t kArity = 4;
  static Slot Make(const Key& key, uint32_t v) {
    if constexpr (kPacked) {
      uint32_t bits;
      if constexpr (std::is_same_v<Key, float>) {
        // IEEE order: flip a negative number's bits, set a positive one's sign (-0 as +0).
        bits = std::bit_cast<uint32_t>(key == 0.0f ? 0.0f : key);
        bits = (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
      } else {
        bits = static_cast<uint32_t>(key) ^ (std::is_signed_v<Key> ? 0x80000000u : 0u);
      }
      return uint64_t{bits} << 32 | v;
    } else {
      return Pair{key, v};
    }
  }
  static uint32_t VertexOf(const Slot& slot) {
    if constexpr (kPacked) {
      return static_cast<uint32_t>(slot);
    } else {
      return slot.vertex;
    }
  }
  static bool Less(const Slot& a, const Slot& b) {
    if constexpr (kPacked) {
      return a < b;
    } else {
      return a.key < b.key || (!(b.key < a.key) && a.vertex < b.vertex);
    }
  }
  // Sorts the queue on first use (Adds out of order). From then on its front is a vertex that
  // still waits there (or the end).
  void Sort() {
    if (sorted_) return;
    std::sort(queue_.begin(), queue_.end(), Less);
    sorted_ = true;
    SkipStale();
  }
  // Passes the front slots of vertices that left the queue (Update, Pop).
  void SkipStale() {
    while (front_ < queue_.size() && place_[VertexOf(queue_[front_])] != kQueued) ++front_;
  }
  // Whether the queue's front comes before the heap's top (and there is one).
  bool QueueFirst() const {
    return front_ < queue_.size() && (heap_.empty() || Less(queue_[front_], heap_.front()));
  }
  // Moves `slot`, to be placed at `at`, towards the root.
  void Up(uint32_t at, const Slot& slot) {
    while (at > 0) {
      const uint32_t parent = (at - 1) / kArity;
      if (!Less(slot, heap_[parent])) break;
      Put(at, heap_[parent]);
      at = parent;
    }
    Put(at, slot);
  }
  // Moves `slot`, to be placed at `at`, away from the root.
  void Down(uint32_t at, const Slot& slot) {
    const uint64_t n = heap_.size();
    while (true) {
      const uint64_t first = kArity * uint64_t{at} + 1;
      if (first >= n) break;
      uint64_t child = first;
      if constexpr (kPacked) {
        if (first + kArity <= n) {
          // All four children: the least without branches (their order is unpredictable).
          const Slot* c = &heap_[first];
          const uint64_t ab = c[1] < c[0] ? 1 : 0, cd = c[3] < c[2] ? 3 : 2;
          child = first + (c[cd] < c[ab] ? cd : ab);
        } else {
          for (uint64_t c = first + 1; c < n; ++c) {
            if (heap_[c] < heap_[child]) child = c;
          }
        }
      } else {
        const uint64_t end = std::min<uint64_t>(first + kArity, n);
        for (uint64_t c = first + 1; c < end; ++c) {
          if (Less(heap_[c], heap_[child])) child = c;
        }
      }
      if (!Less(heap_[child], slot)) break;
      Put(at, heap_[child]);
      at = static_cast<uint32_t>(child);
    }
    Put(at, slot);
  }
  void Put(uint32_t at, const Slot& slot) {
    heap_[at] = slot;
    place_[VertexOf(slot)] = at;
  }

  std::vector<Slot> heap_;
  std::vector<Slot> queue_;      // the vertices added, by key and offset once sorted
  size_t front_ = 0;             // queue_[front_..] may still wait
  bool sorted_ = true;
  std::vector<uint32_t> place_;  // per vertex: its slot in heap_, kQueued, or kAbsent
};

}  // namespace needle
