#include "shards/intervals.h"

#include <algorithm>
#include <stdexcept>

#include "loaders/error.h"

namespace needle {
namespace {

uint64_t VertexCost(const IntervalCosts& costs, uint32_t out, uint32_t in) {
  return 2 * (costs.in_edge * in + costs.out_edge * out + costs.vertex);
}

}  // namespace

std::string IntervalCosts::ToString() const {
  return std::to_string(in_edge) + " B/in-edge + " + std::to_string(out_edge) + " B/out-edge + " +
         std::to_string(vertex) + " B/vertex";
}

IntervalPlan PlanIntervals(std::span<const uint32_t> out_degree,
                           std::span<const uint32_t> in_degree, uint64_t memory_bytes,
                           const IntervalCosts& costs) {
  if (memory_bytes <= kReservedBytes) {
    throw std::invalid_argument("--memory must be more than " +
                                std::to_string(kReservedBytes >> 20) +
                                " MiB (the engine's fixed reserve)");
  }
  const uint64_t n = out_degree.size();
  IntervalPlan plan;
  plan.usable_bytes = memory_bytes - kReservedBytes;
  uint64_t total = 0;
  for (uint64_t v = 0; v < n; ++v) {
    const uint64_t c = VertexCost(costs, out_degree[v], in_degree[v]);
    if (c > plan.usable_bytes) {
      throw std::invalid_argument(
          "vertex " + std::to_string(v) + " (out-degree " + std::to_string(out_degree[v]) +
          ", in-degree " + std::to_string(in_degree[v]) + ") needs " + std::to_string(c >> 20) +
          " MiB alone, more than --memory allows; raise --memory");
    }
    total += c;
  }
  const uint64_t parts = std::max<uint64_t>(1, (total + plan.usable_bytes - 1) / plan.usable_bytes);
  plan.bounds.push_back(0);
  uint64_t running = 0;   // cost of all vertices before the current interval's end
  uint64_t interval = 0;  // cost of the current interval
  uint64_t next_cut = 1;  // the k of the next k × total / parts target
  for (uint64_t v = 0; v < n; ++v) {
    const uint64_t c = VertexCost(costs, out_degree[v], in_degree[v]);
    const bool over_budget = interval + c > plan.usable_bytes;
    const bool past_target = next_cut < parts && running >= total / parts * next_cut;
    if (interval > 0 && (over_budget || past_target)) {
      plan.bounds.push_back(static_cast<uint32_t>(v));
      plan.max_cost = std::max(plan.max_cost, interval);
      interval = 0;
      while (next_cut < parts && running >= total / parts * next_cut) ++next_cut;
    }
    interval += c;
    running += c;
  }
  plan.max_cost = std::max(plan.max_cost, interval);
  plan.bounds.push_back(static_cast<uint32_t>(n));
  plan.rule = "intervals: " + std::to_string(plan.num_intervals()) + " = ceil(" +
              std::to_string(total >> 20) + " MiB of interval cost / " +
              std::to_string(plan.usable_bytes >> 20) + " MiB usable) [cost = 2 x (" +
              costs.ToString() + "), usable = budget - " + std::to_string(kReservedBytes >> 20) +
              " MiB]; largest interval " + std::to_string(plan.max_cost >> 20) + " MiB";
  return plan;
}

}  // namespace needle
