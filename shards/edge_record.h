// The edge records of the sharder's bucket file and sort. The target comes first (the bucket
// file filters on it without knowing the record type), then the source: an unweighted record
// read as one little-endian uint64 is its (source, target) sort key. A weighted record adds
// the weight, which breaks ties between parallel edges by its bits (a total order, so shards
// are the same whatever order the input lists the edges in).
#pragma once

#include <cstdint>
#include <cstring>

#include "base/types.h"

namespace needle {

struct PlainRecord {
  VertexId target;
  VertexId source;

  static constexpr bool kWeighted = false;
  static PlainRecord Make(VertexId source, VertexId target, Weight) { return {target, source}; }
  uint64_t key() const { return uint64_t{source} << 32 | target; }
  uint32_t weight_bits() const { return 0x3f800000u; }  // 1.0f
};
static_assert(sizeof(PlainRecord) == 8);

struct WeightedRecord {
  VertexId target;
  VertexId source;
  Weight weight;

  static constexpr bool kWeighted = true;
  static WeightedRecord Make(VertexId source, VertexId target, Weight weight) {
    return {target, source, weight};
  }
  uint64_t key() const { return uint64_t{source} << 32 | target; }
  uint32_t weight_bits() const {
    uint32_t bits;
    std::memcpy(&bits, &weight, 4);
    return bits;
  }
};
static_assert(sizeof(WeightedRecord) == 12);

template <class Record>
inline bool RecordLess(const Record& a, const Record& b) {
  if constexpr (!Record::kWeighted) {
    return a.key() < b.key();
  } else {
    if (a.key() != b.key()) return a.key() < b.key();
    return a.weight_bits() < b.weight_bits();
  }
}

}  // namespace needle
