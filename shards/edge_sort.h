// Linear-time, parallel sorting of the sharder's edge records (edge_record.h).
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "base/huge_array.h"
#include "shards/edge_record.h"

namespace needle {

// Per-thread counts of a partition (counts[t × keys + g]: thread t's items with key g) become
// each thread's first output slot per key — key by key, thread slices in order, so the output
// keeps the input order — and starts[0, keys] gets where each key's group begins (and the
// total). `threads` is how many threads counted.
inline void PrefixSlots(uint64_t* counts, uint64_t keys, int threads, uint64_t* starts) {
  uint64_t at = 0;
  for (uint64_t g = 0; g < keys; ++g) {
    starts[g] = at;
    for (int t = 0; t < threads; ++t) {
      uint64_t& slot = counts[static_cast<size_t>(t) * keys + g];
      const uint64_t n = slot;
      slot = at;
      at += n;
    }
  }
  starts[keys] = at;
}

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
    PrefixSlots(counts.data(), keys, nt, starts.data());
    for (uint64_t i = lo; i < hi; ++i) out[c[key(in[i])]++] = in[i];
  }
}

// Sorts the edges of one interval — targets in [lo, hi), sources below num_vertices — by
// RecordLess, using scratch (as large) as the other buffer: a least-significant-digit radix
// sort of the key (source, target - lo), in as few passes of at most 11 bits as its width
// needs (4 passes of 10 bits for 4 M vertices and 25 intervals), each a stable parallel
// counting partition; then, for weighted records, parallel edges are ordered by weight bits.
// Linear time and independent of the thread count. The arrays may be swapped.
template <class Record>
void SortInterval(HugeArray<Record>& edges, HugeArray<Record>& scratch, uint64_t num_vertices,
                  uint64_t lo, uint64_t hi, int threads) {
  const uint64_t e = edges.size();
  if (e < 2) return;
  auto bits_for = [](uint64_t n) {  // bits of the largest value below n
    int b = 0;
    while (b < 64 && (n - 1) >> b != 0) ++b;
    return b;
  };
  const int target_bits = bits_for(hi - lo);
  const int total = bits_for(num_vertices) + target_bits;
  const int passes = std::max(1, (total + 10) / 11);
  const int digit = (total + passes - 1) / passes;
  const uint64_t mask = (uint64_t{1} << digit) - 1;
  std::vector<uint64_t> starts;
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = pass * digit;
    StablePartition(
        edges.data(), scratch.data(), e, mask + 1,
        [=](const Record& r) {
          const uint64_t key = uint64_t{r.source} << target_bits | (r.target - lo);
          return (key >> shift) & mask;
        },
        threads, starts);
    std::swap(edges, scratch);
  }
  if constexpr (Record::kWeighted) {
    // Runs of parallel edges (equal key) by weight bits: insertion sort, they are short. The
    // chunks' bounds are moved to run boundaries first, before anything moves, so that every
    // run lies in one chunk and no thread reads what another writes.
    constexpr uint64_t kChunks = 64;
    std::array<uint64_t, kChunks + 1> bounds{};
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint64_t chunk = 0; chunk < kChunks; ++chunk) {
      uint64_t begin = e * chunk / kChunks;
      while (begin > 0 && begin < e && edges[begin].key() == edges[begin - 1].key()) ++begin;
      bounds[chunk] = begin;
    }
    bounds[kChunks] = e;
    for (uint64_t chunk = 1; chunk <= kChunks; ++chunk) {
      bounds[chunk] = std::max(bounds[chunk], bounds[chunk - 1]);
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint64_t chunk = 0; chunk < kChunks; ++chunk) {
      const uint64_t begin = bounds[chunk], end = bounds[chunk + 1];
      for (uint64_t i = begin + 1; i < end; ++i) {
        const Record r = edges[i];
        uint64_t j = i;
        for (; j > begin && r.key() == edges[j - 1].key() && RecordLess(r, edges[j - 1]); --j)
          edges[j] = edges[j - 1];
        edges[j] = r;
      }
    }
  }
}

}  // namespace needle
