#include "shards/vertex_order.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "base/error.h"
#include "base/huge_array.h"
#include "shards/intervals.h"

namespace needle {
namespace {

constexpr VertexId kUnreached = std::numeric_limits<VertexId>::max();

void CheckBudget(uint64_t vertices, uint64_t edges, uint64_t memory_bytes) {
  const uint64_t need = OrderBytes(vertices, edges) + kReservedBytes;
  if (need > memory_bytes) {
    throw std::invalid_argument(
        "--order bfs holds the graph in memory while it orders the vertices: " +
        FormatMiB(need) + " with the " + FormatMiB(kReservedBytes) + " reserve for " +
        std::to_string(vertices) + " vertices or more and " + std::to_string(edges) +
        " edges or more, over --memory " + FormatMiB(memory_bytes) +
        ": raise --memory or keep the input's order");
  }
}

}  // namespace

bool IsVertexOrder(const std::string& name) {
  return name == kInputOrder || name == kBreadthFirstOrder;
}

uint64_t OrderBytes(uint64_t vertices, uint64_t edges) {
  // Edges as read (8 B), both ways as lists (8 B), offsets (8 B a vertex), the two maps and
  // the queue (12 B a vertex).
  return 16 * edges + 20 * (vertices + 1);
}

VertexOrder BreadthFirst(GraphReader& reader, uint64_t memory_bytes) {
  // The edges, kept as read; grown by doubling, within the budget.
  std::vector<VertexId> sources, targets;
  uint64_t ids = reader.num_vertices().value_or(0);
  if (const auto m = reader.num_edges()) {
    CheckBudget(ids, *m, memory_bytes);
    sources.reserve(*m);
    targets.reserve(*m);
  }
  constexpr uint64_t kBlock = uint64_t{1} << 20;
  HugeArray<VertexId> block_sources(kBlock), block_targets(kBlock);
  HugeArray<Weight> block_weights(reader.weighted() ? kBlock : 0);
  const EdgeBuffers buffers{block_sources.span(), block_targets.span(), block_weights.span()};
  for (uint64_t position = 0;;) {
    const EdgeBlock b = reader.ReadEdges(position, buffers);
    if (b.size() == 0) break;
    position += b.size();
    for (size_t i = 0; i < b.size(); ++i) {
      ids = std::max<uint64_t>(ids, uint64_t{std::max(b.sources[i], b.targets[i])} + 1);
    }
    if (sources.capacity() < position) {
      const uint64_t capacity = std::max<uint64_t>(position, 2 * sources.capacity());
      CheckBudget(ids, capacity, memory_bytes);  // the vertices seen so far, at least
      sources.reserve(capacity);
      targets.reserve(capacity);
    }
    sources.insert(sources.end(), b.sources.begin(), b.sources.end());
    targets.insert(targets.end(), b.targets.begin(), b.targets.end());
  }
  const uint64_t n = ids, m = sources.size();
  CheckBudget(n, m, memory_bytes);
  // Every edge both ways (a self-loop once), in input order per vertex.
  std::vector<uint64_t> offsets(n + 1, 0);
  for (uint64_t e = 0; e < m; ++e) {
    ++offsets[sources[e] + 1];
    if (sources[e] != targets[e]) ++offsets[targets[e] + 1];
  }
  for (uint64_t v = 0; v < n; ++v) offsets[v + 1] += offsets[v];
  std::vector<VertexId> neighbours(offsets[n]);
  {
    std::vector<uint64_t> at(offsets.begin(), offsets.end() - 1);
    for (uint64_t e = 0; e < m; ++e) {
      neighbours[at[sources[e]]++] = targets[e];
      if (sources[e] != targets[e]) neighbours[at[targets[e]]++] = sources[e];
    }
  }
  std::vector<VertexId>().swap(sources);
  std::vector<VertexId>().swap(targets);
  VertexOrder order;
  order.set_id.assign(n, kUnreached);
  order.input_id.resize(n);  // also the queue: the vertices in the order they are reached
  uint64_t reached = 0;
  for (uint64_t root = 0; root < n; ++root) {
    if (order.set_id[root] != kUnreached) continue;
    order.set_id[root] = static_cast<VertexId>(reached);
    order.input_id[reached++] = static_cast<VertexId>(root);
    for (uint64_t head = reached - 1; head < reached; ++head) {
      const VertexId u = order.input_id[head];
      for (uint64_t k = offsets[u]; k < offsets[u + 1]; ++k) {
        const VertexId v = neighbours[k];
        if (order.set_id[v] != kUnreached) continue;
        order.set_id[v] = static_cast<VertexId>(reached);
        order.input_id[reached++] = v;
      }
    }
  }
  return order;
}

}  // namespace needle
