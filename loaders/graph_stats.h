// GraphStats: the numbers `needle info` prints about a graph.
#pragma once

#include <cstdint>

#include "loaders/csr.h"

namespace needle {

struct GraphStats {
  uint64_t vertices = 0;
  uint64_t edges = 0;
  uint64_t self_loops = 0;
  uint64_t duplicates = 0;  // edges repeating an earlier (u, v)
  uint64_t max_out_degree = 0;
  uint64_t max_in_degree = 0;
  uint64_t zero_out_degree = 0;  // vertices with no out-edge
  uint64_t isolated = 0;         // vertices with no edge at all
  double average_degree = 0;     // edges / vertices
};

GraphStats ComputeStats(const Csr& csr, int threads = 0);

}  // namespace needle
