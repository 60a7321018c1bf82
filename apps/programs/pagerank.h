// PageRank in the accumulation model (ATC'16 §4): r(v) = 0.15 + 0.85 · Σ r(u) / outdeg(u) over
// the in-edges u → v, unnormalised (ranks sum to about the number of vertices when no vertex
// is dangling); a vertex without out-edges keeps its rank to itself.
//
// Edges carry changes of r(u) / outdeg(u). The accumulator is the sum of contributions not yet
// applied to the stored rank, so extract() is 0 and apply() is the paper's simplified form
// r(v) + 0.85 · sum — the same arithmetic as the traditional form, without a rounding round
// trip through (r − 0.15) / 0.85.
//
// Stop rule: a vertex sends when its rank has moved by more than `tolerance` × rank since it
// last sent; the run ends when no edge carries a change. The tolerance is relative because
// ranks are floats (an absolute one below a large rank's rounding step could never be met).
// Messages are floats (4 bytes per edge); ranks are doubles, updated by many small steps.
// Each vertex remembers the rank it last sent, so small changes are held back, not lost: at
// the end every rank is within tolerance × rank of what its neighbours were told. What each
// vertex holds back adds up along paths (damped by 0.85 a hop), so the ranks end within about
// 10 × the tolerance, relative, of the fixed point: measured 8.7 to 10.5 × at tolerances 1e-3
// to 1e-6 on three real graphs (bench/pagerank_accuracy; bench/RESULTS.md).
#pragma once

#include <cmath>

#include "engine/program.h"

namespace needle::apps {

struct PageRank {
  struct VertexValue {  // double: a float rank drifts by its rounding step at every update
    double rank = 0;
    double sent = 0;  // the rank the out-neighbours have been told
  };
  using EdgeValue = float;
  using Accumulator = double;  // a float sum over thousands of in-edges loses digits
  static constexpr Aggregation kAggregation = Aggregation::kSum;
  static constexpr bool kUsesWeights = false;
  static constexpr bool kUsesInDegree = false;  // loads skip in-degrees (program.h)

  float tolerance = 1e-4f;

  float identity() const { return 0.0f; }
  VertexValue init(const VertexContext&) const { return {0.15f, 0.0f}; }
  double extract(const VertexContext&, const VertexValue&) const { return 0.0; }
  double gather(double acc, float change, float) const { return acc + change; }
  VertexValue apply(const VertexContext&, VertexValue v, double sum) const {
    v.rank += 0.85 * sum;
    if (std::fabs(v.rank - v.sent) > tolerance * v.rank) v.sent = v.rank;
    return v;
  }
  bool changed(const VertexValue& old, const VertexValue& now) const {
    return now.sent != old.sent;
  }
  // The progress shown per iteration: how far the rank moved, relative to it.
  double change(const VertexValue& old, const VertexValue& now) const {
    return std::fabs(now.rank - old.rank) / now.rank;
  }
  float scatter(const VertexContext& v, const VertexValue& old, const VertexValue& now) const {
    return v.out_degree == 0 ? 0.0f : static_cast<float>((now.sent - old.sent) / v.out_degree);
  }
};

}  // namespace needle::apps
