// The order a shard set numbers its vertices in. "input" keeps the input's ids. "bfs" numbers
// them breadth-first, following every edge both ways, from vertex 0 and then from the least
// unreached id, each vertex's neighbours in input order: vertices a few hops apart get nearby
// ids, so an interval holds a region of the graph and few edges cross intervals. On a road
// network whose ids do not follow its roads (DIMACS NE: 44 % of the edges cross intervals at 15
// intervals; 2 % in breadth-first order), a label then crosses intervals a few times instead of
// hundreds, and the run takes that many fewer iterations (bench/RESULTS.md).
//
// The sharder numbers the edges as it reads them (sharder.cc) and writes the input id of every
// vertex to order.bin (shard_layout.h); runs work in the set's ids, and what they write
// (needle run's --out, --verify, --top; a source given on the command line) is in input ids.
// Ordering holds the graph in memory once, before sharding: OrderBytes says how much.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/types.h"
#include "loaders/graph_reader.h"

namespace needle {

// The names --order accepts: "input", "bfs".
inline constexpr const char* kInputOrder = "input";
inline constexpr const char* kBreadthFirstOrder = "bfs";
bool IsVertexOrder(const std::string& name);

struct VertexOrder {
  std::vector<VertexId> set_id;    // per input id: its id in the set
  std::vector<VertexId> input_id;  // per set id: its input id
};

// Bytes BreadthFirst holds at most, for a graph of `vertices` and `edges` (its edges as read,
// twice over as undirected lists, the two id maps and the queue).
uint64_t OrderBytes(uint64_t vertices, uint64_t edges);

// Reads every edge of `reader` from the start and numbers its vertices (at least the reader's
// count, when it has one) breadth-first, as above. Throws
// std::invalid_argument when OrderBytes and the process's reserve (intervals.h) would exceed
// `memory_bytes` (checked as edges arrive, before each allocation), Error for bad input.
VertexOrder BreadthFirst(GraphReader& reader, uint64_t memory_bytes);

}  // namespace needle
