// Weakly connected components by label propagation (min-selection, no extract): every vertex
// starts with its own id and takes the smallest label it hears of; the label of a component
// is its smallest vertex id.
//
// Edges must be followed both ways, so the engine runs it on a symmetrised shard set
// (`needle shard GRAPH --symmetrize`; `needle run cc GRAPH` shards that way itself).
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/program.h"

namespace needle::apps {

struct ConnectedComponents {
  using VertexValue = uint32_t;
  using EdgeValue = uint32_t;
  static constexpr Aggregation kAggregation = Aggregation::kMin;
  static constexpr bool kUsesWeights = false;
  static constexpr bool kUsesInDegree = false;  // loads skip in-degrees (program.h)

  uint32_t identity() const { return UINT32_MAX; }  // above every vertex id
  uint32_t init(const VertexContext& v) const { return v.id; }
  uint32_t gather(uint32_t acc, uint32_t label, float) const { return std::min(acc, label); }
  uint32_t apply(const VertexContext&, uint32_t label, uint32_t heard) const {
    return std::min(label, heard);
  }
  bool changed(uint32_t old_label, uint32_t label) const { return label < old_label; }
  uint32_t scatter(const VertexContext&, uint32_t, uint32_t label) const { return label; }
  // The ordered schedule: the smallest label heard first (engine/program.h).
  uint32_t priority(uint32_t, uint32_t heard) const { return heard; }
};

}  // namespace needle::apps
