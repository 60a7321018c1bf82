#include "shards/intervals.h"

#include <algorithm>
#include <functional>
#include <span>
#include <queue>
#include <utility>
#include <stdexcept>

#include "base/error.h"

namespace needle {
namespace {

// a, b and c of cost(p) for P intervals: the program's bytes and what the format adds.
IntervalCosts Charged(const IntervalCosts& costs, bool weighted, uint64_t p) {
  return {costs.in_edge + (weighted ? kWeightBytes : 0), costs.out_edge + kRunBytesPerOutEdge,
          costs.vertex + (p + 63) / 64};
}

uint64_t CostOf(const IntervalCosts& c, uint64_t out, uint64_t in, uint64_t vertices) {
  return 2 * (c.in_edge * in + c.out_edge * out + c.vertex * vertices);
}

// The units being planned: `count` of them, unit k with out[k] out-edges, in[k] in-edges and
// ids [first_id(k), first_id(k + 1)) — vertices (Degree uint32_t, shift 0), blocks of
// 2^shift ids (uint64_t sums), or the intervals of a set already cut (`cut`, its bounds).
template <class Degree>
struct Units {
  uint64_t count;
  std::span<const Degree> out, in;
  int shift;
  uint64_t n;  // ids in all
  uint64_t stream_above = UINT64_MAX;  // a vertex costing more is streamed
  std::span<const uint32_t> cut = {};  // when not empty: unit k is ids [cut[k], cut[k + 1])
  uint64_t first_id(uint64_t k) const {
    return cut.empty() ? std::min(k << shift, n) : cut[k];
  }
  uint64_t vertices(uint64_t k) const { return first_id(k + 1) - first_id(k); }
  // A unit of one vertex whose interval alone would cost more than stream_above is streamed
  // (kStreamBufferBytes): an interval of its own, whose cost is what sharding holds of it —
  // its in-edges, sorted in memory (2 x in_edge a piece, like any interval's) — the engine
  // holding only its per-vertex bytes (BoundOf).
  uint64_t Cost(const IntervalCosts& c, uint64_t k, bool* streamed = nullptr) const {
    const uint64_t whole = CostOf(c, out[k], in[k], vertices(k));
    const bool alone = vertices(k) == 1 && whole > stream_above;
    if (streamed != nullptr) *streamed = alone;
    return alone ? CostOf(c, 0, in[k], 1) : whole;
  }
  bool Streamed(const IntervalCosts& c, uint64_t k) const {
    bool streamed = false;
    Cost(c, k, &streamed);
    return streamed;
  }
};

// The units' total cost, the costliest unit held in the buffers, and the costliest streamed
// one (what sorting its in-edges takes).
struct Totals {
  uint64_t total = 0, largest = 0, largest_unit = 0;
  uint64_t streamed = 0, streamed_unit = 0;
};
template <class U>
Totals TotalsOf(const U& u, const IntervalCosts& c) {
  Totals t;
  for (uint64_t k = 0; k < u.count; ++k) {
    bool streamed = false;
    const uint64_t cost = u.Cost(c, k, &streamed);
    t.total += cost;
    if (streamed) {
      if (cost > t.streamed) t.streamed = cost, t.streamed_unit = k;
    } else if (cost > t.largest) {
      t.largest = cost, t.largest_unit = k;
    }
  }
  return t;
}

// Greedy cuts under `capacity`: an interval ends where the next unit would take it over.
// Returns the number of intervals; with `cuts`, their first units (and count at the end).
template <class U>
uint64_t Greedy(const U& u, const IntervalCosts& c, uint64_t capacity,
                std::vector<uint64_t>* cuts) {
  if (cuts != nullptr) cuts->assign(1, 0);
  uint64_t parts = 1, interval = 0;
  bool alone = false;  // the interval holds a streamed vertex: nothing joins it
  for (uint64_t k = 0; k < u.count; ++k) {
    bool streamed = false;
    const uint64_t cost = u.Cost(c, k, &streamed);
    if (interval > 0 && (alone || streamed || interval + cost > capacity)) {
      ++parts;
      if (cuts != nullptr) cuts->push_back(k);
      interval = 0;
    }
    interval += cost;
    alone = streamed;
  }
  if (cuts != nullptr) cuts->push_back(u.count);
  return parts;
}

// What the engine holds for these cuts: each buffer sized for its own largest interval.
struct Bound {
  uint64_t engine_bytes = 0, max_cost = 0;
  uint64_t sorted = 0;  // the largest streamed interval's cost (sharding sorts its in-edges)
};
// sorting: the bound also holds what sharding sorts of a streamed vertex (its in-edges).
template <class U>
Bound BoundOf(const U& u, const IntervalCosts& c, const std::vector<uint64_t>& cuts,
              bool sorting = true) {
  const uint64_t p = cuts.size() - 1;
  uint64_t max_in = 0, max_out = 0, max_vertices = 0;
  bool streams = false;
  Bound b;
  for (uint64_t i = 0; i < p; ++i) {
    if (cuts[i + 1] - cuts[i] == 1 && u.Streamed(c, cuts[i])) {  // not in the buffers
      streams = true;
      max_vertices = std::max<uint64_t>(max_vertices, 1);
      b.max_cost = std::max(b.max_cost, u.Cost(c, cuts[i]));
      b.sorted = std::max(b.sorted, u.Cost(c, cuts[i]));
      continue;
    }
    uint64_t in = 0, out = 0;
    for (uint64_t k = cuts[i]; k < cuts[i + 1]; ++k) {
      in += u.in[k];
      out += u.out[k];
    }
    const uint64_t vertices = u.first_id(cuts[i + 1]) - u.first_id(cuts[i]);
    max_in = std::max(max_in, in);
    max_out = std::max(max_out, out);
    max_vertices = std::max(max_vertices, vertices);
    b.max_cost = std::max(b.max_cost, CostOf(c, out, in, vertices));
  }
  b.engine_bytes = CostOf(c, max_out, max_in, max_vertices) + EngineFixedBytes(p) +
                   (streams ? kStreamBufferBytes : 0);
  // What a run holds is bounded by engine_bytes; what sharding holds, by the largest interval
  // (streamed ones included) besides the fixed bytes.
  if (sorting) b.engine_bytes = std::max(b.engine_bytes, b.sorted + EngineFixedBytes(p));
  return b;
}

// The cuts into at most `parts` intervals with the smallest largest one: greedy under the
// smallest capacity in [low, high] that still gives `parts` or fewer (bisection).
template <class U>
std::vector<uint64_t> EvenCuts(const U& u, const IntervalCosts& c, uint64_t parts,
                               uint64_t low, uint64_t high) {
  while (low < high) {
    const uint64_t mid = low + (high - low) / 2;
    if (Greedy(u, c, mid, nullptr) <= parts) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  std::vector<uint64_t> cuts;
  Greedy(u, c, high, &cuts);
  return cuts;
}

// `cuts` split further, the costliest interval of two or more units at its cost's middle each
// time, until there are `parts` intervals or none can be split: splitting never raises the
// largest interval, and greedy cuts under the smallest capacity can give fewer than asked.
template <class U>
std::vector<uint64_t> SplitTo(const U& u, const IntervalCosts& c, std::vector<uint64_t> cuts,
                              uint64_t parts) {
  std::vector<uint64_t> prefix(u.count + 1, 0);
  for (uint64_t k = 0; k < u.count; ++k) prefix[k + 1] = prefix[k] + u.Cost(c, k);
  using Piece = std::pair<uint64_t, std::pair<uint64_t, uint64_t>>;  // cost, [first, end) units
  std::priority_queue<Piece> heap;
  auto push = [&](uint64_t b, uint64_t e) {
    if (e - b >= 2) heap.push({prefix[e] - prefix[b], {b, e}});
  };
  for (size_t i = 0; i + 1 < cuts.size(); ++i) push(cuts[i], cuts[i + 1]);
  while (cuts.size() - 1 < parts && !heap.empty()) {
    const auto [b, e] = heap.top().second;
    heap.pop();
    const uint64_t half = prefix[b] + (prefix[e] - prefix[b]) / 2;
    uint64_t m = std::upper_bound(prefix.begin() + b, prefix.begin() + e, half) - prefix.begin();
    m = std::clamp(m, b + 1, e - 1);
    cuts.push_back(m);
    push(b, m);
    push(m, e);
  }
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

template <class U>
void Fill(const U& u, const std::vector<uint64_t>& cuts, const IntervalCosts& charged,
          uint64_t usable, uint64_t total, const Bound& bound, IntervalPlan& plan) {
  const uint64_t p = cuts.size() - 1;
  plan.bounds.clear();
  for (uint64_t k : cuts) plan.bounds.push_back(static_cast<uint32_t>(u.first_id(k)));
  plan.charged = charged;
  plan.usable_bytes = usable;
  plan.max_cost = bound.max_cost;
  plan.engine_bytes = bound.engine_bytes;
  plan.rule = "intervals: " + std::to_string(p) +
              ", the fewest whose cost fits the usable memory (at least ceil(" +
              FormatMiB(total) + " of interval cost / " + FormatMiB(usable) + " usable) = " +
              std::to_string(std::max<uint64_t>(1, (total + usable - 1) / usable)) +
              "), cut evenly [cost = 2 x (" + charged.ToString() + "), usable = --memory - " +
              FormatMiB(EngineFixedBytes(p)) + " fixed (the " + FormatMiB(kReservedBytes) +
              " reserve, window tables and padding)]; largest interval " +
              FormatMiB(bound.max_cost) + ", engine at most " + FormatMiB(bound.engine_bytes);
}

// `asked` intervals (fewer where the units run out), cut evenly; throws when they do not fit.
template <class U>
void PlanAsked(U u, uint64_t memory, const IntervalCosts& costs, const PlanContext& context,
               IntervalPlan& plan) {
  const bool weighted = context.weighted;
  const uint64_t asked = context.intervals;
  const IntervalCosts c = Charged(costs, weighted, asked);
  const uint64_t fixed = EngineFixedBytes(asked);
  u.stream_above = memory > fixed ? memory - fixed : 0;
  const Totals t = TotalsOf(u, c);
  const uint64_t parts = std::min<uint64_t>(asked, std::max<uint64_t>(u.count, 1));
  const uint64_t low = std::max({t.largest, t.streamed, (t.total + parts - 1) / parts});
  std::vector<uint64_t> cuts = EvenCuts(u, c, parts, low, std::max(low, t.total));
  if (cuts.size() - 1 < parts) cuts = SplitTo(u, c, std::move(cuts), parts);
  const uint64_t p = cuts.size() - 1;
  const IntervalCosts charged = Charged(costs, weighted, p);
  const Bound bound = BoundOf(u, charged, cuts);
  if (bound.engine_bytes > memory) {
    throw std::invalid_argument(
        "--intervals " + std::to_string(asked) + " does not fit --memory " +
        FormatMiB(memory + context.kept_now) + ": its largest interval costs " +
        FormatMiB(bound.max_cost) + "; give --memory " +
        FormatMiB(bound.engine_bytes + context.kept_most) + " or more, or more intervals" +
        context.KeptNote());
  }
  Fill(u, cuts, charged, memory - EngineFixedBytes(p), t.total, bound, plan);
  plan.rule.replace(0, plan.rule.find(" [cost"),
                    "intervals: " + std::to_string(p) + " as asked" +
                        (p < asked ? " (fewer: no more cuts between ids)" : std::string()) +
                        ", cut evenly");
}

enum class Outcome { kPlanned, kUnitTooLarge };

// The rule over `u` at `memory`. kUnitTooLarge, with the unit in *unit, when a unit alone
// cannot be held; else the plan.
template <class U>
Outcome Plan(U u, uint64_t memory, const IntervalCosts& costs, bool weighted,
             IntervalPlan& plan, uint64_t* unit) {
  uint64_t guess = 1;              // the P the per-vertex bytes are charged for
  uint64_t capacity = UINT64_MAX;  // lowered while the engine's bound is over --memory
  for (int attempt = 0;; ++attempt) {
    const uint64_t fixed = EngineFixedBytes(guess);
    const IntervalCosts c = Charged(costs, weighted, guess);
    const uint64_t usable = std::min(memory > fixed ? memory - fixed : 0, capacity);
    // A vertex that alone is over the capacity is streamed (its interval holds its per-vertex
    // bytes; the stream buffer is in the bound, which lowers the capacity when it is over).
    u.stream_above = usable;
    const auto [total, largest, largest_unit, streamed, streamed_unit] = TotalsOf(u, c);
    // A streamed vertex's in-edges are sorted with nothing else held: they need the whole
    // room, whatever capacity the buffers were lowered to.
    const uint64_t room = memory > fixed ? memory - fixed : 0;
    if (largest > usable || streamed > room || usable == 0) {
      *unit = streamed > room ? streamed_unit : largest_unit;
      return Outcome::kUnitTooLarge;
    }
    const uint64_t parts = Greedy(u, c, usable, nullptr);
    const std::vector<uint64_t> cuts =
        EvenCuts(u, c, parts, std::max(largest, (total + parts - 1) / parts), usable);
    const uint64_t p = cuts.size() - 1;
    const IntervalCosts charged = Charged(costs, weighted, p);
    const Bound bound = BoundOf(u, charged, cuts);
    if (bound.engine_bytes <= memory) {
      Fill(u, cuts, charged, usable, total, bound, plan);
      return Outcome::kPlanned;
    }
    // Over: charge what P intervals cost, and lower the capacity by the excess (by at least
    // a 32nd after a few tries, so that this ends).
    guess = std::max(guess, p);
    const uint64_t excess = bound.engine_bytes - memory;
    const uint64_t step = attempt < 8 ? excess : std::max(excess, usable / 32);
    capacity = usable > step ? usable - step : 0;
  }
}

// The smallest --memory (to 1/64 of it, rounded up) at which `u` plans, from `from` up:
// doubled until it plans, then bisected.
template <class U>
uint64_t SmallestMemory(const U& u, const IntervalCosts& costs, bool weighted, uint64_t from) {
  IntervalPlan plan;
  uint64_t unit = 0;
  auto plans = [&](uint64_t memory) {
    return Plan(u, memory, costs, weighted, plan, &unit) == Outcome::kPlanned;
  };
  uint64_t low = from, high = from;  // low fails (or is from), high plans
  while (!plans(high)) {
    low = high;
    high *= 2;
  }
  while (high - low > high / 64) {
    const uint64_t mid = low + (high - low) / 2;
    (plans(mid) ? high : low) = mid;
  }
  return high;
}

template <class U>
[[noreturn]] void VertexDoesNotFit(const U& u, uint64_t v, uint64_t memory,
                                   const IntervalCosts& costs, const PlanContext& context) {
  const IntervalCosts alone = Charged(costs, context.weighted, 1);
  // A vertex over the capacity is streamed by a run, but sharding sorts its in-edges in memory.
  const uint64_t cost = CostOf(alone, 0, u.in[v], 1);
  const uint64_t smallest = std::max(
      context.floor_bytes,
      SmallestMemory(u, costs, context.weighted, std::max(memory, cost + EngineFixedBytes(1))));
  throw std::invalid_argument(
      "vertex " + std::to_string(v) + " (out-degree " + std::to_string(u.out[v]) +
      ", in-degree " + std::to_string(u.in[v]) + ") needs " + FormatMiB(cost) +
      " alone to sort its in-edges, more than --memory " +
      FormatMiB(memory + context.kept_now) + " allows: give --memory " +
      FormatMiB(smallest + context.kept_most) + " or more (the intervals' buffers, the " +
      FormatMiB(kReservedBytes) + " reserve, window tables and padding" +
      (context.floor_bytes > 0 ? ", and at least what sharding holds" : "") + ")" +
      context.KeptNote());
}

}  // namespace

std::string FormatMiB(uint64_t bytes) {
  const uint64_t mib = uint64_t{1} << 20;
  const uint64_t tenths = bytes / mib * 10 + ((bytes % mib) * 10 + mib - 1) / mib;
  const std::string whole = std::to_string(tenths / 10);
  return (tenths % 10 == 0 ? whole : whole + "." + std::to_string(tenths % 10)) + " MiB";
}

std::string PlanContext::KeptNote() const {
  if (kept_most == 0) return "";
  return "; with up to " + FormatMiB(kept_most) + " kept for dynamic shards (" +
         FormatMiB(kept_now) + " now)";
}

std::string IntervalCosts::ToString() const {
  return std::to_string(in_edge) + " B/in-edge + " + std::to_string(out_edge) + " B/out-edge + " +
         std::to_string(vertex) + " B/vertex";
}

IntervalCosts IntervalCostsFor(const ValueWidths& w) {
  const IntervalCosts defaults;
  const uint64_t in_edge = 4 + w.edge;  // target, message
  const uint64_t out_edge = w.edge;     // message
  // two degrees per interval buffer; accumulator, message, flag (1), sweep offset (8), senders
  // (2 x 4), with a priority the ordered schedule's place and slots (OrderedBytesPerVertex),
  // and the value twice, once
  const uint64_t ordered = w.priority > 0 ? OrderedBytesPerVertex(w.priority) : 0;
  const uint64_t vertex = 8 + (w.accumulator + w.edge + 17 + ordered + 2 * w.vertex + 1) / 2;
  return {std::max(defaults.in_edge, in_edge), std::max(defaults.out_edge, out_edge),
          std::max(defaults.vertex, vertex)};
}

void CheckFixedBytes(uint64_t memory_bytes) {
  if (memory_bytes <= EngineFixedBytes(1)) {
    throw std::invalid_argument("--memory must be more than " +
                                FormatMiB(EngineFixedBytes(1)) +
                                " (the engine's fixed reserve, tables and padding)");
  }
}

IntervalPlan PlanIntervals(std::span<const uint32_t> out_degree,
                           std::span<const uint32_t> in_degree, uint64_t memory_bytes,
                           const IntervalCosts& costs, const PlanContext& context) {
  CheckFixedBytes(memory_bytes);
  const Units<uint32_t> u{out_degree.size(), out_degree, in_degree, 0, out_degree.size()};
  IntervalPlan plan;
  if (context.intervals > 0) {
    PlanAsked(u, memory_bytes, costs, context, plan);
    return plan;
  }
  uint64_t v = 0;
  if (Plan(u, memory_bytes, costs, context.weighted, plan, &v) != Outcome::kPlanned) {
    VertexDoesNotFit(u, v, memory_bytes, costs, context);
  }
  return plan;
}

std::optional<IntervalPlan> PlanIntervalsByUnits(std::span<const uint64_t> unit_out,
                                                 std::span<const uint64_t> unit_in, int unit_shift,
                                                 uint64_t n, uint64_t memory_bytes,
                                                 const IntervalCosts& costs,
                                                 const PlanContext& context) {
  CheckFixedBytes(memory_bytes);
  const uint64_t count = n == 0 ? 0 : ((n - 1) >> unit_shift) + 1;
  const Units<uint64_t> u{count, unit_out, unit_in, unit_shift, n};
  IntervalPlan plan;
  if (context.intervals > 0) {
    PlanAsked(u, memory_bytes, costs, context, plan);
    // Units too coarse for the cuts asked: per vertex.
    if (unit_shift > 0 && plan.num_intervals() < context.intervals) return std::nullopt;
    return plan;
  }
  uint64_t k = 0;
  if (Plan(u, memory_bytes, costs, context.weighted, plan, &k) != Outcome::kPlanned) {
    if (unit_shift > 0) return std::nullopt;
    VertexDoesNotFit(u, k, memory_bytes, costs, context);
  }
  if (unit_shift > 0) {
    plan.rule += "; cut at multiples of " + std::to_string(uint64_t{1} << unit_shift) + " ids";
  }
  return plan;
}

uint64_t EngineBytesOfCut(std::span<const uint32_t> bounds,
                          std::span<const uint64_t> out_edges,
                          std::span<const uint64_t> in_edges, uint64_t memory_bytes,
                          const IntervalCosts& costs, bool weighted) {
  const uint64_t p = bounds.size() - 1;
  Units<uint64_t> u{p, out_edges, in_edges, 0, bounds.back()};
  u.cut = bounds;
  std::vector<uint64_t> cuts(p + 1);
  for (uint64_t k = 0; k <= p; ++k) cuts[k] = k;
  const IntervalCosts c = Charged(costs, weighted, p);
  // As the engine plans (engine/memory_plan.h): the one-vertex intervals streamed, costliest
  // first, until the rest fit `memory_bytes` (or all are).
  std::vector<uint64_t> alone;
  for (uint64_t k = 0; k < p; ++k) {
    if (u.vertices(k) == 1) alone.push_back(CostOf(c, out_edges[k], in_edges[k], 1));
  }
  std::sort(alone.begin(), alone.end(), std::greater<>());
  uint64_t bound = BoundOf(u, c, cuts, /*sorting=*/false).engine_bytes;
  for (const uint64_t cost : alone) {
    if (bound <= memory_bytes || cost == 0) break;
    u.stream_above = cost - 1;  // this one and every costlier one
    bound = std::min(bound, BoundOf(u, c, cuts, /*sorting=*/false).engine_bytes);
  }
  return bound;
}

}  // namespace needle
