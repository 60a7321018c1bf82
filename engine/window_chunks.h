// WindowChunks: which parts of each window hold the messages of its source interval's last
// turn, for the static windows at page grain (EngineOptions::page_windows; static_windows.h).
//
// A window's messages are cut into chunks of lcm(width, 4 KiB) bytes from the window's start — a
// whole number of messages, and whole pages where windows are aligned to 4 KiB (O_DIRECT; through
// the page cache windows are packed) — so chunk c of window (p, r) holds the messages of
// its edges [c × chunk_edges(), (c + 1) × chunk_edges()). When interval r's turn ends, the chunks
// of each window (q, r) in which some message's bytes differ from identity()'s are marked (so an
// identity that is not equal to itself, a NaN, is taken as identity here), and only those are
// written; q's next turn reads only those (and the targets under them). A chunk left unmarked
// holds only identity() in the scatter buffer, so what the file still holds there — older,
// consumed messages — is never read: nothing has to be cleared.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "shards/shard_set.h"

namespace needle {

class WindowChunks {
 public:
  // For `set`'s windows and messages `width` bytes wide; every chunk starts unmarked.
  WindowChunks(const ShardSet& set, size_t width);

  // Bytes the marks of `set`'s windows take in memory (the memory plan counts them).
  static uint64_t Bytes(const ShardSet& set, size_t width);
  // Edges per chunk: lcm(width, 4096) / width.
  static uint64_t ChunkEdges(size_t width);

  uint64_t chunk_edges() const { return chunk_edges_; }
  uint64_t chunk_bytes() const { return chunk_edges_ * width_; }

  // Marks the chunks of window (q, p) whose messages, `messages` (the window's edges in order,
  // `width` bytes each), are not all identity (`pattern`: chunk_bytes() of identity()). Returns
  // whether any chunk is marked. Unmarks the others.
  bool Mark(uint32_t q, uint32_t p, const std::byte* messages, const std::byte* pattern);
  void MarkAll(uint32_t q, uint32_t p);
  void Clear(uint32_t q, uint32_t p);
  // The number of marked chunks of window (q, p).
  uint64_t Marked(uint32_t q, uint32_t p) const;

  // Calls f(first_edge, end_edge) — edges of shard q, [first, end) — for every run of marked
  // chunks of window (q, p), in order; the last chunk ends at the window's end.
  template <class F>
  void ForEachRun(uint32_t q, uint32_t p, F&& f) const {
    const size_t w = Index(q, p);
    const uint64_t first = set_->Window(q, p).first_edge, last = set_->Window(q, p + 1).first_edge;
    const uint64_t chunks = first_[w + 1] - first_[w];
    for (uint64_t c = 0; c < chunks;) {
      if (!Test(first_[w] + c)) {
        ++c;
        continue;
      }
      uint64_t end = c + 1;
      while (end < chunks && Test(first_[w] + end)) ++end;
      f(first + c * chunk_edges_, std::min(last, first + end * chunk_edges_));
      c = end;
    }
  }

 private:
  size_t Index(uint32_t q, uint32_t p) const { return static_cast<size_t>(q) * n_ + p; }
  bool Test(uint64_t bit) const { return (bits_[bit / 64] >> (bit % 64) & 1) != 0; }
  void Set(uint64_t bit, bool on) {
    const uint64_t mask = uint64_t{1} << (bit % 64);
    bits_[bit / 64] = on ? bits_[bit / 64] | mask : bits_[bit / 64] & ~mask;
  }

  const ShardSet* set_;
  uint32_t n_;
  size_t width_;
  uint64_t chunk_edges_;
  std::vector<uint64_t> first_;  // per window (shard-major), its first chunk's bit; then the end
  std::vector<uint64_t> bits_;
};

}  // namespace needle
