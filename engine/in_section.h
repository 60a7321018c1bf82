// InSection: where one shard's section of the in-adjacency (in_adjacency.h) keeps what.
//
// A section has the shard's geometry: window (p, p)'s targets at their byte in the shard (4 bytes
// an edge from the shard's first target), so that a load reads them into the buffer the targets
// go to, and the turn finds them where it finds a shard's. The other windows' places hold the
// "cross" sources, target by target, packed `width` bytes each (the fewest that number every
// vertex: 3 for up to 2^24 vertices): cross edge i < own_first at byte width * i, from the start
// of the places before window (p, p); cross edge i >= own_first at byte 4 * own_end + width *
// (i - own_first), from the start of the places after it. So a section is shorter than its
// shard's targets by the bytes the packing saves, and a byte of it lies at the same offset in
// the file's section and in the load's buffer, whatever part of it a load reads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "shards/shard_set.h"

namespace needle {

// The bytes a cross source takes in a set of `num_vertices` vertices: the fewest that hold the
// largest id.
inline uint32_t InSourceWidth(uint64_t num_vertices) {
  uint32_t width = 1;
  while (width < 4 && num_vertices > (uint64_t{1} << (8 * width))) ++width;
  return width;
}

struct InSection {
  uint64_t own_first = 0;  // window (p, p)'s first edge in shard p
  uint64_t own_end = 0;    // and the edge after its last
  uint32_t width = 4;      // bytes a cross source
  uint32_t mask = ~uint32_t{0};

  static InSection Of(const ShardSet& set, uint32_t p, uint32_t width) {
    InSection s;
    s.own_first = set.Window(p, p).first_edge;
    s.own_end = set.Window(p, p + 1).first_edge;
    s.width = width;
    s.mask = width >= 4 ? ~uint32_t{0} : (uint32_t{1} << (8 * width)) - 1;
    return s;
  }

  // The byte where cross edge i's source begins.
  uint64_t CrossByte(uint64_t i) const {
    return i < own_first ? width * i : 4 * own_end + width * (i - own_first);
  }
  // The section's length for a shard of `edges` edges: where its last place ends.
  uint64_t Bytes(uint64_t edges) const {
    if (edges > own_end) return 4 * own_end + width * (edges - own_end);
    return own_end > own_first ? 4 * own_end : width * own_first;
  }
  // Cross edge i's source, from the section read at `bytes`. Reads 4 bytes: those after the
  // last source lie inside the section's places too (4 bytes a place), so the buffer a load
  // reads the section into holds them.
  uint32_t Source(const std::byte* bytes, uint64_t i) const {
    uint32_t x;
    std::memcpy(&x, bytes + CrossByte(i), sizeof x);  // (little-endian, as the files are)
    return x & mask;
  }
  // Writes source s as cross edge i's, `width` bytes, at `bytes`.
  void Put(std::byte* bytes, uint64_t i, uint32_t s) const {
    std::byte* at = bytes + CrossByte(i);
    switch (width) {
      case 1: std::memcpy(at, &s, 1); break;
      case 2: std::memcpy(at, &s, 2); break;
      case 3: std::memcpy(at, &s, 3); break;
      default: std::memcpy(at, &s, 4); break;
    }
  }
  // The byte ranges [begin, end) that hold the places of the shard's edges [first, last): at
  // most three (before window (p, p), its own, after it), empty ones skipped. f(begin, end).
  template <class F>
  void ForEachRange(uint64_t first, uint64_t last, F&& f) const {
    if (const uint64_t end = std::min(last, own_first); end > first) f(width * first, width * end);
    const uint64_t a = std::max(first, own_first), b = std::min(last, own_end);
    if (b > a) f(4 * a, 4 * b);
    if (const uint64_t begin = std::max(first, own_end); last > begin) {
      f(4 * own_end + width * (begin - own_end), 4 * own_end + width * (last - own_end));
    }
  }
};

}  // namespace needle
