// VertexHeap: an indexed binary min-heap of the vertices of one interval (offsets 0..n-1) by
// a key each, for the ordered schedule of engine.h. Vertices with equal keys come out by
// offset, so the order of pops follows from the keys alone, not from the order of the
// updates. 8 bytes a vertex plus its key: the heap, each vertex's place in it, and the keys.
#pragma once

#include <cstdint>
#include <vector>

namespace needle {

template <class Key>
class VertexHeap {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  // Room for n vertices, none in the heap.
  void Reset(uint32_t n) {
    heap_.clear();
    heap_.reserve(n);
    place_.assign(n, kAbsent);
    key_.resize(n);
  }
  void Release() {
    std::vector<uint32_t>().swap(heap_);
    std::vector<uint32_t>().swap(place_);
    std::vector<Key>().swap(key_);
  }
  bool empty() const { return heap_.empty(); }

  // Adds v with `key`, or moves it there if it is in the heap already.
  void Update(uint32_t v, const Key& key) {
    key_[v] = key;
    uint32_t at = place_[v];
    if (at == kAbsent) {
      at = static_cast<uint32_t>(heap_.size());
      heap_.push_back(v);
    }
    Down(Up(at, v), v);
  }
  // Removes and returns the vertex of the least key (of the least offset among equal keys).
  uint32_t Pop() {
    const uint32_t top = heap_.front();
    place_[top] = kAbsent;
    const uint32_t last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) Down(0, last);
    return top;
  }

 private:
  bool Less(uint32_t a, uint32_t b) const {
    return key_[a] < key_[b] || (!(key_[b] < key_[a]) && a < b);
  }
  // Moves v, to be placed at `at`, towards the root; returns where it went.
  uint32_t Up(uint32_t at, uint32_t v) {
    while (at > 0) {
      const uint32_t parent = (at - 1) / 2;
      if (!Less(v, heap_[parent])) break;
      Put(at, heap_[parent]);
      at = parent;
    }
    Put(at, v);
    return at;
  }
  void Down(uint32_t at, uint32_t v) {
    const uint64_t n = heap_.size();
    while (true) {
      uint64_t child = 2 * uint64_t{at} + 1;
      if (child >= n) break;
      if (child + 1 < n && Less(heap_[child + 1], heap_[child])) ++child;
      if (!Less(heap_[child], v)) break;
      Put(at, heap_[child]);
      at = static_cast<uint32_t>(child);
    }
    Put(at, v);
  }
  void Put(uint32_t at, uint32_t v) {
    heap_[at] = v;
    place_[v] = at;
  }

  std::vector<uint32_t> heap_;
  std::vector<uint32_t> place_;  // per vertex: its index in heap_, or kAbsent
  std::vector<Key> key_;         // per vertex in the heap: its key
};

}  // namespace needle
