// Multiple-source shortest paths (min-selection, no extract): the distances from up to K
// sources at once, relaxed along the input's edge weights (1 when unweighted). Weights must be
// non-negative (the run command checks before it starts). Unused source slots hold kNoVertex;
// unreachable distances are +infinity.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>

#include "base/types.h"
#include "engine/program.h"

namespace needle::apps {

template <size_t K>
struct ShortestPaths {
  using VertexValue = std::array<float, K>;
  using EdgeValue = std::array<float, K>;
  static constexpr Aggregation kAggregation = Aggregation::kMin;
  static constexpr bool kUsesWeights = true;
  static constexpr bool kUsesInDegree = false;  // loads skip in-degrees (program.h)
  static constexpr float kInfinity = std::numeric_limits<float>::infinity();

  std::array<VertexId, K> sources;

  EdgeValue identity() const {
    EdgeValue d;
    d.fill(kInfinity);
    return d;
  }
  VertexValue init(const VertexContext& v) const {
    VertexValue d;
    for (size_t k = 0; k < K; ++k) d[k] = sources[k] == v.id ? 0.0f : kInfinity;
    return d;
  }
  EdgeValue gather(EdgeValue acc, const EdgeValue& from, float weight) const {
    for (size_t k = 0; k < K; ++k) acc[k] = std::min(acc[k], from[k] + weight);
    return acc;
  }
  VertexValue apply(const VertexContext&, VertexValue d, const EdgeValue& heard) const {
    for (size_t k = 0; k < K; ++k) d[k] = std::min(d[k], heard[k]);
    return d;
  }
  bool changed(const VertexValue& old_d, const VertexValue& d) const {
    for (size_t k = 0; k < K; ++k) {
      if (d[k] < old_d[k]) return true;
    }
    return false;
  }
  EdgeValue scatter(const VertexContext&, const VertexValue&, const VertexValue& d) const {
    return d;
  }
  // The ordered schedule (engine/program.h): the vertex with the shortest distance heard that
  // improves on its own first — Dijkstra's order for each source, the sources interleaved.
  float priority(const VertexValue& d, const EdgeValue& heard) const {
    float least = kInfinity;
    for (size_t k = 0; k < K; ++k) {
      if (heard[k] < d[k]) least = std::min(least, heard[k]);
    }
    return least;
  }
};

}  // namespace needle::apps
