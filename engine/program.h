// The GAS programming model: what a vertex program is, and what the engine promises it.
//
// A program is a small copyable struct of pure functions:
//
//   struct MyProgram {
//     using VertexValue = ...;  // trivially copyable, fixed width
//     using EdgeValue = ...;    // trivially copyable, fixed width, with operator==
//     using Accumulator = ...;  // optional: what gather folds into (default: EdgeValue), e.g.
//                               // double sums of float messages
//     static constexpr needle::Aggregation kAggregation = needle::Aggregation::kSum;
//     static constexpr bool kUsesWeights = false;  // gather() sees the input's edge weights
//     static constexpr bool kUsesInDegree = false;  // optional (default true): false, and
//                                                   // VertexContext::in_degree is 0, unread
//
//     EdgeValue identity() const;                      // "nothing new" on an edge
//     VertexValue init(const VertexContext& v) const;  // value before the first iteration
//     // optional — its presence selects the accumulation model (below):
//     Accumulator extract(const VertexContext& v, const VertexValue& value) const;
//     Accumulator gather(const Accumulator& acc, const EdgeValue& edge, float weight) const;
//     VertexValue apply(const VertexContext& v, const VertexValue& old,
//                       const Accumulator& acc) const;
//     bool changed(const VertexValue& old, const VertexValue& now) const;  // activation rule
//     EdgeValue scatter(const VertexContext& v, const VertexValue& old,
//                       const VertexValue& now) const;
//   };
//
// What one iteration does for a vertex v (the engine handles shards, windows and buffers):
//   acc = extract(v, value)  if the program has extract   — accumulation model
//       = identity()          otherwise                     — selection model (then the
//                                                             Accumulator is the EdgeValue)
//   for each in-edge e, in order of source id:  acc = gather(acc, e.value, e.weight)
//   now = apply(v, value, acc)                  — stored as v's value
//   if changed(value, now): every out-edge of v gets scatter(v, value, now), and its target
//                           becomes active; else every out-edge gets identity()
//
// Edges carry messages, and every message is consumed exactly once: an edge's value is read by
// its target at the target's next computation after the source wrote it, and not again (the
// engine overwrites it with identity() once it has been consumed). So:
//  - In the accumulation model (extract present) edges carry *changes* (scatter returns
//    new − old in the program's terms) and an in-edge with nothing new contributes identity(),
//    which must be the neutral element of gather (0 for a sum). extract(v, value) recovers the
//    accumulated gather that produced `value`, so apply(v, value, extract(v, value)) == value
//    up to rounding.
//  - In the selection model (no extract; min/max-selection such as connected components or
//    shortest paths) edges carry values, and re-reading an older value would be harmless.
//    identity() is the neutral element of gather (e.g. +infinity for a min).
//
// Activation and stopping: in the first iteration every vertex is active and counts as
// changed, with VertexValue{} (zero-initialised) as its old value for scatter — so it sends
// its whole initial value (ATC'16 Table 2, iteration 0). Afterwards a vertex is computed only
// when at least one in-edge holds a value != identity(); an interval with no such vertex is not
// loaded at all. The run stops when no edge carries a message, or after --iters iterations.
//
// Determinism: gather folds a vertex's in-edges from its own interval first, then those from
// the other intervals, each in increasing source order (and, for one source, in
// target-then-input order); apply and scatter are per vertex; nothing depends on the thread
// count. With asynchronous intervals (EngineOptions::max_inner_passes > 0, the default), the
// messages of earlier vertices of the same sweep block (engine.h) are folded after those, in
// sweep order. Iterations are asynchronous in the GraphChi sense: intervals are computed in order,
// and a vertex sees the messages of in-neighbours in earlier intervals of the same iteration.
//
// Ordered schedule (optional, selection programs only): a program that also defines
//     // any totally ordered type; `heard`: what the vertex gathered since it was last applied
//     Priority priority(const VertexValue& value, const Accumulator& heard) const;
// has each interval's messages to itself used in order of priority, least first, ties by id
// (engine.h): a vertex is applied when it is the least of the interval's vertices with
// messages, and its messages to vertices of the same interval are gathered at once. For a
// min-selection such as connected components (priority: the label heard) that is Dijkstra's
// order, and a vertex is applied about once per turn instead of once per sweep. The order
// changes how much work a turn does, never its result: a selection program's fixpoint does not
// depend on the order its messages are used in. The program promises what selection means:
// apply keeps the best of the value and what was heard, so a message that would not change a
// vertex now could not change it later (the engine drops such a message).
//
// kAggregation (aggregation.h) combines several changes of one vertex into one; the dynamic
// shard modes use it for the delay buffer.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "base/types.h"
#include "engine/aggregation.h"
#include "shards/intervals.h"

namespace needle {

// What a program knows about the vertex it computes.
struct VertexContext {
  VertexId id = 0;
  uint32_t out_degree = 0;
  uint32_t in_degree = 0;
  uint32_t iteration = 0;  // 0-based
};

namespace program_detail {
template <class P>
struct AccumulatorOf {
  using type = typename P::EdgeValue;
};
template <class P>
requires requires { typename P::Accumulator; }
struct AccumulatorOf<P> {
  using type = typename P::Accumulator;
};
}  // namespace program_detail

// The type gather() folds into: P::Accumulator when the program names one, else P::EdgeValue.
template <class P>
using AccumulatorOf = typename program_detail::AccumulatorOf<P>::type;

template <class P>
concept GasProgram = std::is_trivially_copyable_v<typename P::VertexValue> &&
    std::is_trivially_copyable_v<typename P::EdgeValue> &&
    std::default_initializable<typename P::VertexValue> &&
    std::equality_comparable<typename P::EdgeValue> &&
    std::is_trivially_copyable_v<AccumulatorOf<P>> &&
    requires(const P& p, const VertexContext& v, const typename P::VertexValue& value,
             const typename P::EdgeValue& edge, const AccumulatorOf<P>& acc, float weight) {
  { P::kAggregation } -> std::convertible_to<Aggregation>;
  { P::kUsesWeights } -> std::convertible_to<bool>;
  { p.identity() } -> std::same_as<typename P::EdgeValue>;
  { p.init(v) } -> std::same_as<typename P::VertexValue>;
  { p.gather(acc, edge, weight) } -> std::same_as<AccumulatorOf<P>>;
  { p.apply(v, value, acc) } -> std::same_as<typename P::VertexValue>;
  { p.changed(value, value) } -> std::convertible_to<bool>;
  { p.scatter(v, value, value) } -> std::same_as<typename P::EdgeValue>;
};

// Whether the program reads VertexContext::in_degree. Every turn reads its vertices'
// in-degrees unless the program says it does not:
//   static constexpr bool kUsesInDegree = false;
// and then in_degree is 0 everywhere (out_degree is always there).
template <class P>
constexpr bool UsesInDegree() {
  if constexpr (requires { P::kUsesInDegree; }) {
    return static_cast<bool>(P::kUsesInDegree);
  } else {
    return true;
  }
}

// True when the program defines extract(): the accumulation model.
template <class P>
concept AccumulationProgram = GasProgram<P> &&
    requires(const P& p, const VertexContext& v, const typename P::VertexValue& value) {
  { p.extract(v, value) } -> std::same_as<AccumulatorOf<P>>;
};

// True when the program defines change(old, now): how far a vertex moved in one apply, for
// the progress a person watches (PageRank: the relative change of the rank). The engine
// reports the largest of an iteration (IterationStats::largest_change); it never decides
// anything with it.
template <class P>
concept ReportsChange = GasProgram<P> &&
    requires(const P& p, const typename P::VertexValue& value) {
  { p.change(value, value) } -> std::convertible_to<double>;
};

// True when a selection program defines priority(): the ordered schedule (above).
template <class P>
concept OrderedProgram = GasProgram<P> && !AccumulationProgram<P> &&
    requires(const P& p, const typename P::VertexValue& value, const AccumulatorOf<P>& acc) {
  { p.priority(value, acc) } -> std::totally_ordered;
};

// The type of a program's priority() (uint32_t, unused, when it has none).
namespace program_detail {
template <class P>
struct PriorityOf {
  using type = uint32_t;
};
template <OrderedProgram P>
struct PriorityOf<P> {
  using type = std::remove_cvref_t<decltype(std::declval<const P&>().priority(
      std::declval<const typename P::VertexValue&>(),
      std::declval<const needle::AccumulatorOf<P>&>()))>;
};
}  // namespace program_detail
template <class P>
using PriorityOf = typename program_detail::PriorityOf<P>::type;

// A program's value widths, for the cost model that plans its intervals:
//   shard_options.costs = IntervalCostsFor(WidthsOf<MyProgram>());
template <class P>
constexpr ValueWidths WidthsOf() {
  return {sizeof(typename P::EdgeValue), sizeof(AccumulatorOf<P>), sizeof(typename P::VertexValue),
          OrderedProgram<P> ? sizeof(PriorityOf<P>) : 0};
}

}  // namespace needle
