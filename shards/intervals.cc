#include "shards/intervals.h"

#include <algorithm>
#include <stdexcept>

#include "base/error.h"

namespace needle {
namespace {

uint64_t CostOf(const IntervalCosts& costs, uint64_t out, uint64_t in, uint64_t vertices) {
  return 2 * (costs.in_edge * in + costs.out_edge * out + costs.vertex * vertices);
}

// The rule over `count` units: cost(k) and first_id(k) (first_id(count) = n). A unit that
// alone exceeds the budget is handed to oversize(k, cost), which throws or returns false
// (then so does this, leaving plan unfinished).
//
// Cuts are greedy under a capacity: an interval ends where the next unit would take it over.
// Greedy under the budget gives the fewest intervals any cut can (P); the capacity used is the
// smallest that still gives P (found by bisection), so the P intervals come out as even as
// contiguous cuts allow.
template <class Cost, class FirstId, class Oversize>
bool Plan(uint64_t count, Cost cost, FirstId first_id, Oversize oversize, IntervalPlan& plan) {
  uint64_t total = 0, largest = 0;
  for (uint64_t k = 0; k < count; ++k) {
    const uint64_t c = cost(k);
    if (c > plan.usable_bytes && !oversize(k, c)) return false;
    total += c;
    largest = std::max(largest, c);
  }
  // Intervals greedy cuts make under `capacity` (at least the largest unit); with `bounds`,
  // also the cuts and the largest interval's cost.
  auto greedy = [&](uint64_t capacity, std::vector<uint32_t>* bounds, uint64_t* max_cost) {
    uint64_t parts = 1, interval = 0, most = 0;
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t c = cost(k);
      if (interval > 0 && interval + c > capacity) {
        ++parts;
        if (bounds != nullptr) bounds->push_back(static_cast<uint32_t>(first_id(k)));
        most = std::max(most, interval);
        interval = 0;
      }
      interval += c;
    }
    if (max_cost != nullptr) *max_cost = std::max(most, interval);
    return parts;
  };
  const uint64_t parts = greedy(plan.usable_bytes, nullptr, nullptr);
  uint64_t low = std::max(largest, (total + parts - 1) / parts), high = plan.usable_bytes;
  while (low < high) {  // the smallest capacity in [low, high] that still gives `parts`
    const uint64_t mid = low + (high - low) / 2;
    if (greedy(mid, nullptr, nullptr) <= parts) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  plan.bounds.assign(1, 0);
  greedy(high, &plan.bounds, &plan.max_cost);
  plan.bounds.push_back(static_cast<uint32_t>(first_id(count)));
  const uint64_t floor = std::max<uint64_t>(1, (total + plan.usable_bytes - 1) / plan.usable_bytes);
  plan.rule = "intervals: " + std::to_string(plan.num_intervals()) +
              ", the fewest whose cost fits the usable memory (at least ceil(" + FormatMiB(total) +
              " of interval cost / " + FormatMiB(plan.usable_bytes) +
              " usable) = " + std::to_string(floor) + "), cut evenly [cost = 2 x (" + plan.rule +
              "), usable = budget - " + FormatMiB(kReservedBytes) + "]; largest interval " +
              FormatMiB(plan.max_cost);
  return true;
}

IntervalPlan Start(uint64_t memory_bytes, const IntervalCosts& costs) {
  if (memory_bytes <= kReservedBytes) {
    throw std::invalid_argument("--memory must be more than " +
                                std::to_string(kReservedBytes >> 20) +
                                " MiB (the engine's fixed reserve)");
  }
  IntervalPlan plan;
  plan.usable_bytes = memory_bytes - kReservedBytes;
  plan.rule = costs.ToString();  // Plan() wraps it into the rule
  return plan;
}

[[noreturn]] void VertexDoesNotFit(uint64_t v, uint64_t out, uint64_t in, uint64_t cost,
                                   uint64_t held) {
  throw std::invalid_argument(
      "vertex " + std::to_string(v) + " (out-degree " + std::to_string(out) + ", in-degree " +
      std::to_string(in) + ") needs " + FormatMiB(cost) +
      " alone, more than --memory allows: give --memory " + FormatMiB(cost + kReservedBytes + held) +
      " or more (its cost, the " + FormatMiB(kReservedBytes) + " reserve" +
      (held > 0 ? " and " + FormatMiB(held) + " of degree arrays" : std::string()) + ")");
}

}  // namespace

std::string FormatMiB(uint64_t bytes) {
  const uint64_t mib = uint64_t{1} << 20;
  const uint64_t tenths = bytes / mib * 10 + ((bytes % mib) * 10 + mib - 1) / mib;
  const std::string whole = std::to_string(tenths / 10);
  return (tenths % 10 == 0 ? whole : whole + "." + std::to_string(tenths % 10)) + " MiB";
}

std::string IntervalCosts::ToString() const {
  return std::to_string(in_edge) + " B/in-edge + " + std::to_string(out_edge) + " B/out-edge + " +
         std::to_string(vertex) + " B/vertex";
}

IntervalCosts IntervalCostsFor(const ValueWidths& w) {
  IntervalCosts costs;  // the defaults, which every program that fits them shares
  const uint64_t in_edge = 4 + w.edge + (w.weights ? 4 : 0);  // target, message, weight
  const uint64_t out_edge = 8 + w.edge;                         // a run at most, and the message
  // degrees, accumulator and message, touched flag, value (sweep offsets are in the reserve)
  const uint64_t vertex = 8 + w.accumulator + w.edge + 1 + w.vertex;
  // Wider edges change the plan; the per-vertex part alone has slack in the reserve.
  if (in_edge > costs.in_edge || out_edge > costs.out_edge) {
    costs.in_edge = std::max(costs.in_edge, in_edge);
    costs.out_edge = std::max(costs.out_edge, out_edge);
    costs.vertex = std::max(costs.vertex, vertex);
  }
  return costs;
}

IntervalPlan PlanIntervals(std::span<const uint32_t> out_degree,
                           std::span<const uint32_t> in_degree, uint64_t memory_bytes,
                           const IntervalCosts& costs, uint64_t held_bytes) {
  IntervalPlan plan = Start(memory_bytes, costs);
  Plan(
      out_degree.size(), [&](uint64_t v) { return CostOf(costs, out_degree[v], in_degree[v], 1); },
      [](uint64_t v) { return v; },
      [&](uint64_t v, uint64_t c) -> bool {
        VertexDoesNotFit(v, out_degree[v], in_degree[v], c, held_bytes);
      },
      plan);
  return plan;
}

std::optional<IntervalPlan> PlanIntervalsByUnits(std::span<const uint64_t> unit_out,
                                                 std::span<const uint64_t> unit_in, int unit_shift,
                                                 uint64_t n, uint64_t memory_bytes,
                                                 const IntervalCosts& costs,
                                                 uint64_t held_bytes) {
  IntervalPlan plan = Start(memory_bytes, costs);
  const uint64_t count = n == 0 ? 0 : ((n - 1) >> unit_shift) + 1;
  auto first_id = [&](uint64_t k) { return std::min(k << unit_shift, n); };
  const bool planned = Plan(
      count,
      [&](uint64_t k) {
        return CostOf(costs, unit_out[k], unit_in[k], first_id(k + 1) - first_id(k));
      },
      first_id,
      [&](uint64_t k, uint64_t c) {
        if (unit_shift > 0) return false;
        VertexDoesNotFit(k, unit_out[k], unit_in[k], c, held_bytes);
      },
      plan);
  if (!planned) return std::nullopt;
  if (unit_shift > 0) {
    plan.rule += "; cut at multiples of " + std::to_string(uint64_t{1} << unit_shift) + " ids";
  }
  return plan;
}

}  // namespace needle
