// R-MAT graph generator with the Graph500 parameters.
//
// 2^scale vertices and edge_factor · 2^scale directed edges. Each edge descends `scale`
// levels of the adjacency matrix choosing a quadrant with probabilities a, b, c, 1-a-b-c.
// Edge i is a pure function of (options, i) — a counter-based generator — so the graph is
// identical for any thread count. Vertex ids are then scrambled by a seeded bijection on
// [0, 2^scale) so that high-degree vertices are not clustered at small ids.
#pragma once

#include <cstdint>
#include <functional>

#include "loaders/edge_list.h"

namespace needle {

struct RmatOptions {
  int scale = 16;        // log2 of the vertex count, 1..31
  int edge_factor = 16;  // edges per vertex
  uint64_t seed = 1;
  bool weighted = false;  // integer weights drawn uniformly from [1, 255]
  double a = 0.57;
  double b = 0.19;
  double c = 0.19;
  bool scramble_ids = true;
  // Called now and then with the edges generated so far and the total, always from the
  // calling thread's OpenMP thread 0 (never concurrently); may be empty.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

// Throws std::invalid_argument for a scale outside 1..31, an edge factor below 1 or
// probabilities that do not fit. Self-loops and duplicate edges are kept, as in Graph500.
EdgeList GenerateRmat(const RmatOptions& options, int threads = 0);

}  // namespace needle
