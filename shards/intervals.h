// Intervals: how the vertex ids are split so that one interval's work fits --memory.
//
// The rule (printed by `needle shard`): the engine, working on interval p, holds p's memory
// shard (its in-edges: target, value and source runs, ≤ 16 B per edge), the windows of p in
// every other shard (its out-edges: value and runs, ≤ 12 B per edge), p's vertex values
// (16 B per vertex), and the same again for the next interval being prefetched. So
//
//   cost(p) = 2 × (16 × in_edges(p) + 12 × out_edges(p) + 16 × vertices(p))
//
// must stay within usable = memory − kReservedBytes (I/O rings, degree arrays and bookkeeping
// are in the reserve). Intervals are cut in id order, greedily: one ends where the next
// vertex would take it over a capacity. Under capacity = usable that gives the fewest
// intervals any cut can, P (at least ceil(total cost / usable)); the capacity used is the
// smallest that still gives P, so the intervals are as even as P contiguous cuts allow.
//
// 16, 12 and 16 are the defaults (IntervalCosts{}); a program whose edge or vertex values are
// wider or narrower plans with its own per-edge and per-vertex bytes, and the same formula.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace needle {

inline constexpr uint64_t kReservedBytes = uint64_t{64} << 20;
inline constexpr uint64_t kInEdgeBytes = 16;
inline constexpr uint64_t kOutEdgeBytes = 12;
inline constexpr uint64_t kVertexBytes = 16;

// `bytes` in MiB for messages: "12 MiB", "0.1 MiB" — rounded up to a tenth, so that an amount
// that is needed is never shown as less (or as 0) than it is.
std::string FormatMiB(uint64_t bytes);

// Bytes the engine holds per in-edge, per out-edge and per vertex of an interval (the three
// factors of cost(p) above).
struct IntervalCosts {
  uint64_t in_edge = kInEdgeBytes;
  uint64_t out_edge = kOutEdgeBytes;
  uint64_t vertex = kVertexBytes;
  friend bool operator==(const IntervalCosts&, const IntervalCosts&) = default;
  bool is_default() const { return *this == IntervalCosts{}; }
  // "16 B/in-edge + 12 B/out-edge + 16 B/vertex"
  std::string ToString() const;
};

// A program's value widths in bytes (engine/program.h's WidthsOf<Program>() fills it from the
// types): what one interval costs depends on them.
struct ValueWidths {
  uint64_t edge = 4;         // EdgeValue: one message per edge
  uint64_t accumulator = 4;  // what gather folds into
  uint64_t vertex = 4;       // VertexValue
  bool weights = false;      // reads the input weights, 4 B per in-edge
};

// The one cost model, used by `needle shard` (default widths), `needle run` (each app's
// widths) and library users: the bytes per in-edge, out-edge and vertex the engine holds for
// a program of these widths — the defaults above, or more when the program's values are
// wider (an in-edge holds its target, message and weight; an out-edge its message and a run;
// a vertex its degrees, accumulator, message, flag, sweep offset and value). A set planned
// with the defaults serves every program that needs no more.
IntervalCosts IntervalCostsFor(const ValueWidths& widths);

struct IntervalPlan {
  std::vector<uint32_t> bounds;  // P + 1 vertex ids: interval p is [bounds[p], bounds[p+1])
  uint64_t usable_bytes = 0;
  uint64_t max_cost = 0;  // the largest interval's cost
  std::string rule;       // one line describing the computation
  uint32_t num_intervals() const { return static_cast<uint32_t>(bounds.size() - 1); }
};

// Plans with cost(p) = 2 × (costs.in_edge × in + costs.out_edge × out + costs.vertex × vertices).
// Throws std::invalid_argument when memory is below the reserve or one vertex alone does not
// fit (naming the vertex, its degrees and the smallest --memory that holds it: its cost, the
// reserve and `held_bytes`, what the caller keeps of --memory outside `memory_bytes`).
IntervalPlan PlanIntervals(std::span<const uint32_t> out_degree,
                           std::span<const uint32_t> in_degree, uint64_t memory_bytes,
                           const IntervalCosts& costs = {}, uint64_t held_bytes = 0);

// The same rule over units of 2^unit_shift consecutive ids (n ids in all; the last unit may be
// shorter), given each unit's summed out- and in-degrees: cuts fall on unit boundaries, and a
// unit's cost is exactly the sum of its vertices' costs. With unit_shift 0 this is
// PlanIntervals. Returns nullopt when a unit of more than one id alone does not fit (the
// caller then plans per vertex); throws like PlanIntervals otherwise.
std::optional<IntervalPlan> PlanIntervalsByUnits(std::span<const uint64_t> unit_out,
                                                 std::span<const uint64_t> unit_in, int unit_shift,
                                                 uint64_t n, uint64_t memory_bytes,
                                                 const IntervalCosts& costs = {},
                                                 uint64_t held_bytes = 0);

}  // namespace needle
