#include "loaders/graph_stats.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "base/parallel.h"

namespace needle {

GraphStats ComputeStats(const Csr& csr, int threads) {
  threads = ThreadCount(threads);
  const uint64_t n = csr.num_vertices;
  GraphStats s;
  s.vertices = n;
  s.edges = csr.NumEdges();
  s.average_degree = n == 0 ? 0.0 : static_cast<double>(s.edges) / static_cast<double>(n);
  s.duplicates = CountDuplicates(csr, threads);

  HugeArray<uint64_t> in_degree(n);  // relaxed atomic counters: only the totals matter
  std::fill_n(in_degree.data(), n, uint64_t{0});
  uint64_t loops = 0, max_out = 0, zero_out = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4096) \
    reduction(+ : loops, zero_out) reduction(max : max_out)
  for (uint64_t u = 0; u < n; ++u) {
    const uint64_t degree = csr.offsets[u + 1] - csr.offsets[u];
    max_out = std::max(max_out, degree);
    zero_out += degree == 0;
    for (EdgeIndex i = csr.offsets[u]; i < csr.offsets[u + 1]; ++i) {
      const VertexId v = csr.targets[i];
      loops += v == u;
      std::atomic_ref<uint64_t>(in_degree[v]).fetch_add(1, std::memory_order_relaxed);
    }
  }
  uint64_t max_in = 0, isolated = 0;
#pragma omp parallel for num_threads(threads) reduction(max : max_in) reduction(+ : isolated)
  for (uint64_t v = 0; v < n; ++v) {
    const uint64_t in = in_degree[v];
    max_in = std::max(max_in, in);
    isolated += in == 0 && csr.offsets[v + 1] == csr.offsets[v];
  }
  s.self_loops = loops;
  s.max_out_degree = max_out;
  s.zero_out_degree = zero_out;
  s.max_in_degree = max_in;
  s.isolated = isolated;
  return s;
}

}  // namespace needle
