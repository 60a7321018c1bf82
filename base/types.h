// Basic graph types shared by the loaders, the shards and the engine.
#pragma once

#include <cstdint>

namespace needle {

using VertexId = uint32_t;   // vertex ids are 32-bit
using EdgeIndex = uint64_t;  // edge counts and offsets are 64-bit
using Weight = float;        // edge weights (integers are exact up to 2^24)

// The largest id a graph may use. UINT32_MAX is reserved as "no vertex", so a graph has at
// most 2^32 - 1 vertices and its vertex count always fits a VertexId.
inline constexpr uint64_t kMaxVertexId = UINT32_MAX - 1;
inline constexpr VertexId kNoVertex = UINT32_MAX;

struct Edge {
  VertexId source;
  VertexId target;
  friend bool operator==(const Edge&, const Edge&) = default;
};

}  // namespace needle
