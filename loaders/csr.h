// Csr: a graph in compressed sparse row form, and its parallel construction from an EdgeList.
//
// BuildCsr follows GVEL's Algorithm 2 idea (degrees counted in partitions, then merged) but
// partitions the edge sequence into contiguous ranges, one per thread: each thread counts
// the degrees of its range, the per-range counts give every range its own write cursor per
// vertex, and each thread scatters its range without atomics. Within an out-list the edges
// therefore keep their input order, so the CSR is identical for any thread count.
#pragma once

#include <cstdint>
#include <span>

#include "base/huge_array.h"
#include "base/types.h"
#include "loaders/edge_list.h"

namespace needle {

struct Csr {
  uint64_t num_vertices = 0;
  HugeArray<EdgeIndex> offsets;  // num_vertices + 1 entries
  HugeArray<VertexId> targets;
  HugeArray<Weight> weights;  // one per target when weighted, else empty
  bool weighted = false;

  uint64_t NumEdges() const { return targets.size(); }
  uint64_t Degree(VertexId v) const { return offsets[v + 1] - offsets[v]; }
  std::span<const VertexId> Neighbors(VertexId v) const {
    return {targets.data() + offsets[v], offsets[v + 1] - offsets[v]};
  }
  std::span<const Weight> NeighborWeights(VertexId v) const {
    if (!weighted) return {};
    return {weights.data() + offsets[v], offsets[v + 1] - offsets[v]};
  }
};

enum class SelfLoopPolicy { kKeep, kDrop };
enum class DuplicatePolicy { kKeep, kDrop };  // kDrop keeps the first copy in input order

struct CsrOptions {
  bool transpose = false;   // rows are targets: the in-edges of each vertex
  bool symmetrize = false;  // add the reverse of every edge (self-loops once)
  SelfLoopPolicy self_loops = SelfLoopPolicy::kKeep;
  DuplicatePolicy duplicates = DuplicatePolicy::kKeep;
  bool count_duplicates = true;  // costs one more pass over the edges
  int threads = 0;               // ThreadCount() (parallel.h): 0 is OpenMP's default
};

struct CsrReport {
  uint64_t input_edges = 0;
  uint64_t self_loops = 0;          // self-loops in the input
  uint64_t duplicates = 0;          // edges repeating an earlier (u, v) in the built CSR
  bool duplicates_counted = false;  // false when count_duplicates was off and nothing dropped
  uint64_t dropped_self_loops = 0;
  uint64_t dropped_duplicates = 0;
};

Csr BuildCsr(const EdgeList& edges, const CsrOptions& options, CsrReport* report = nullptr);

// Number of edges in `csr` that repeat an earlier (u, v) of the same out-list.
uint64_t CountDuplicates(const Csr& csr, int threads = 0);

}  // namespace needle
