// Linear-time, parallel sorting of the sharder's edge records (edge_record.h).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "loaders/huge_array.h"
#include "shards/edge_record.h"

namespace needle {

// A stable parallel counting partition: out receives in[0, count) grouped by key(in[i]) (a
// value below `keys`), each group in input order — whatever the thread count. starts gets
// keys + 1 entries: group g is out[starts[g], starts[g + 1]).
template <class T, class Key>
void StablePartition(const T* in, T* out, uint64_t count, uint64_t keys, Key key, int threads,
                     std::vector<uint64_t>& starts) {
  std::vector<uint64_t> counts(static_cast<size_t>(threads) * keys, 0);
  starts.assign(keys + 1, 0);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    const uint64_t lo = count * t / nt, hi = count * (t + 1) / nt;
    uint64_t* c = counts.data() + static_cast<size_t>(t) * keys;
    for (uint64_t i = lo; i < hi; ++i) ++c[key(in[i])];
#pragma omp barrier
#pragma omp single
    {
      uint64_t at = 0;
      for (uint64_t g = 0; g < keys; ++g) {  // group by group, thread slices in order
        starts[g] = at;
        for (int u = 0; u < nt; ++u) {
          uint64_t& slot = counts[static_cast<size_t>(u) * keys + g];
          const uint64_t n = slot;
          slot = at;
          at += n;
        }
      }
      starts[keys] = at;
    }
    for (uint64_t i = lo; i < hi; ++i) out[c[key(in[i])]++] = in[i];
  }
}

// Sorts edges (sources below num_vertices) by RecordLess, using scratch (as large) as the
// other buffer, in linear time: a parallel counting pass groups the records by the high bits
// of the source (≤ 1024 groups: the scatter stays cache-friendly), then each group is
// counting-sorted by its exact source, and each source's run is sorted by target (insertion
// sort for the many short runs).
template <class Record>
void SortBySource(HugeArray<Record>& edges, HugeArray<Record>& scratch, uint64_t num_vertices,
                  int threads) {
  const uint64_t e = edges.size();
  if (e < 2) return;
  int bits = 0;
  while ((uint64_t{1} << bits) < num_vertices) ++bits;
  const int shift = std::clamp(bits - 10, 0, 16);
  const uint64_t groups = (num_vertices >> shift) + 1;
  auto less = [](const Record& a, const Record& b) { return RecordLess(a, b); };
  std::vector<uint64_t> start;
  StablePartition(
      edges.data(), scratch.data(), e, groups,
      [shift](const Record& r) { return r.source >> shift; }, threads, start);
#pragma omp parallel num_threads(threads)
  {
    std::vector<uint64_t> local(size_t{1} << shift);
#pragma omp for schedule(dynamic, 4)
    for (uint64_t g = 0; g < groups; ++g) {
      const uint64_t begin = start[g], end = start[g + 1];
      const uint32_t base = static_cast<uint32_t>(g << shift);
      std::fill(local.begin(), local.end(), 0);
      for (uint64_t i = begin; i < end; ++i) ++local[scratch[i].source - base];
      uint64_t at = begin;
      for (uint64_t& slot : local) {
        const uint64_t n = slot;
        slot = at;
        at += n;
      }
      for (uint64_t i = begin; i < end; ++i) edges[local[scratch[i].source - base]++] = scratch[i];
      // local[k] now ends source base + k's run: sort each run by target.
      uint64_t run_begin = begin;
      for (uint64_t run_end : local) {
        if (run_end - run_begin > 16) {
          std::sort(edges.begin() + run_begin, edges.begin() + run_end, less);
        } else {
          for (uint64_t i = run_begin + 1; i < run_end; ++i) {
            const Record r = edges[i];
            uint64_t j = i;
            for (; j > run_begin && less(r, edges[j - 1]); --j) edges[j] = edges[j - 1];
            edges[j] = r;
          }
        }
        run_begin = run_end;
      }
    }
  }
}

}  // namespace needle
