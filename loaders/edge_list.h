// EdgeList: the edges of a graph as the parallel text reader produced them.
//
// Each parsing thread appends to its own buffer (GVEL's per-thread edge lists, no sharing);
// `segments` records, in input order, which slice of which buffer holds the edges of each
// input block. Walking the segments in order yields the edges exactly in file order, which is
// what makes the CSR built from them independent of the thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "base/huge_array.h"
#include "base/types.h"

namespace needle {

struct EdgeBuffer {
  HugeArray<Edge> edges;
  HugeArray<Weight> weights;  // empty when the graph is unweighted
};

struct EdgeSegment {
  uint32_t buffer = 0;  // index into EdgeList::buffers
  uint64_t begin = 0;   // first edge in that buffer
  uint64_t count = 0;
};

struct EdgeList {
  uint64_t num_vertices = 0;
  bool weighted = false;
  std::vector<EdgeBuffer> buffers;
  std::vector<EdgeSegment> segments;  // in input order

  uint64_t NumEdges() const {
    uint64_t total = 0;
    for (const EdgeSegment& s : segments) total += s.count;
    return total;
  }
  std::span<const Edge> Edges(const EdgeSegment& s) const {
    return {buffers[s.buffer].edges.data() + s.begin, s.count};
  }
  std::span<const Weight> Weights(const EdgeSegment& s) const {
    if (!weighted) return {};
    return {buffers[s.buffer].weights.data() + s.begin, s.count};
  }

  // Start of every segment in the edge sequence, plus the total at the end.
  std::vector<uint64_t> SegmentStarts() const {
    std::vector<uint64_t> starts;
    starts.reserve(segments.size() + 1);
    uint64_t total = 0;
    for (const EdgeSegment& s : segments) {
      starts.push_back(total);
      total += s.count;
    }
    starts.push_back(total);
    return starts;
  }

  // Calls f(edges, weights or nullptr, count) for the runs that make up positions
  // [begin, end) of the edge sequence, in order. `starts` is SegmentStarts().
  template <class F>
  void ForEachRun(const std::vector<uint64_t>& starts, uint64_t begin, uint64_t end, F&& f) const {
    if (begin >= end) return;
    size_t s = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), begin) -
                                   starts.begin() - 1);
    for (uint64_t at = begin; at < end; ++s) {
      const EdgeSegment& seg = segments[s];
      const uint64_t first = at - starts[s];
      const uint64_t last = std::min<uint64_t>(seg.count, end - starts[s]);
      const EdgeBuffer& b = buffers[seg.buffer];
      f(b.edges.data() + seg.begin + first,
        weighted ? b.weights.data() + seg.begin + first : nullptr, last - first);
      at = starts[s] + last;
    }
  }

  // Calls f(edge, weight) for every edge in input order (serial; for tests and small tools).
  template <class F>
  void ForEach(F&& f) const {
    for (const EdgeSegment& s : segments) {
      std::span<const Edge> e = Edges(s);
      std::span<const Weight> w = Weights(s);
      for (uint64_t i = 0; i < s.count; ++i) f(e[i], weighted ? w[i] : Weight{1});
    }
  }
};

}  // namespace needle
