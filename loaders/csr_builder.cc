// BuildCsr and CountDuplicates (see csr.h for the method).
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "loaders/csr.h"

namespace needle {
namespace {

int ThreadCount(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

// The edge sequence split into `parts` contiguous ranges of (almost) equal size.
class EdgeRanges {
 public:
  EdgeRanges(const EdgeList& list, size_t parts) : list_(list), parts_(parts) {
    starts_.reserve(list.segments.size() + 1);
    uint64_t total = 0;
    for (const EdgeSegment& s : list.segments) {
      starts_.push_back(total);
      total += s.count;
    }
    starts_.push_back(total);
    total_ = total;
  }
  size_t parts() const { return parts_; }
  uint64_t total() const { return total_; }

  // Calls f(edge, weight) for each edge of part `p`, in input order.
  template <class F>
  void ForEach(size_t p, F&& f) const {
    uint64_t begin = total_ * p / parts_;
    uint64_t end = total_ * (p + 1) / parts_;
    if (begin >= end) return;
    size_t s = std::upper_bound(starts_.begin(), starts_.end(), begin) - starts_.begin() - 1;
    for (uint64_t at = begin; at < end; ++s) {
      const EdgeSegment& seg = list_.segments[s];
      uint64_t first = at - starts_[s];
      uint64_t last = std::min<uint64_t>(seg.count, end - starts_[s]);
      const Edge* e = list_.buffers[seg.buffer].edges.data() + seg.begin;
      if (list_.weighted) {
        const Weight* w = list_.buffers[seg.buffer].weights.data() + seg.begin;
        for (uint64_t i = first; i < last; ++i) f(e[i], w[i]);
      } else {
        for (uint64_t i = first; i < last; ++i) f(e[i], Weight{1});
      }
      at = starts_[s] + last;
    }
  }

 private:
  const EdgeList& list_;
  size_t parts_;
  std::vector<uint64_t> starts_;
  uint64_t total_ = 0;
};

// Exclusive prefix sum of a[0..n) in place, in parallel; returns the total.
uint64_t ExclusiveScan(EdgeIndex* a, size_t n, int threads) {
  std::vector<uint64_t> sums(static_cast<size_t>(threads) + 1, 0);
  int team = 1;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    if (t == 0) team = nt;
    const size_t begin = n * t / nt;
    const size_t end = n * (t + 1) / nt;
    uint64_t sum = 0;
    for (size_t i = begin; i < end; ++i) sum += a[i];
    sums[t + 1] = sum;
#pragma omp barrier
#pragma omp single
    for (int i = 0; i < nt; ++i) sums[i + 1] += sums[i];
    uint64_t running = sums[t];
    for (size_t i = begin; i < end; ++i) {
      uint64_t d = a[i];
      a[i] = running;
      running += d;
    }
  }
  return sums[static_cast<size_t>(team)];
}

template <class Count>
void Build(const EdgeList& list, const CsrOptions& options, int threads, Csr& csr,
           CsrReport& report) {
  const uint64_t n = list.num_vertices;
  const EdgeRanges ranges(list, static_cast<size_t>(threads));
  const size_t parts = ranges.parts();
  const bool drop_loops = options.self_loops == SelfLoopPolicy::kDrop;
  const bool transpose = options.transpose;
  const bool symmetrize = options.symmetrize;

  // Calls emit(u, v, w) for every CSR entry that edge e produces, in a fixed order.
  auto expand = [&](const Edge& e, Weight w, auto&& emit) {
    VertexId u = transpose ? e.target : e.source;
    VertexId v = transpose ? e.source : e.target;
    if (u == v) {
      if (!drop_loops) emit(u, v, w);
      return;
    }
    emit(u, v, w);
    if (symmetrize) emit(v, u, w);
  };

  std::vector<HugeArray<Count>> counts(parts);
  std::vector<uint64_t> loops(parts, 0);
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (size_t p = 0; p < parts; ++p) {
    HugeArray<Count>& c = counts[p];
    c.Resize(n);
    std::memset(c.data(), 0, n * sizeof(Count));
    uint64_t self = 0;
    ranges.ForEach(p, [&](const Edge& e, Weight w) {
      self += e.source == e.target;
      expand(e, w, [&](VertexId u, VertexId, Weight) { ++c[u]; });
    });
    loops[p] = self;
  }
  for (uint64_t l : loops) report.self_loops += l;

  // Per-part cursors relative to the vertex's first slot, and the vertex degrees.
  csr.offsets.Resize(n + 1);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (uint64_t v = 0; v < n; ++v) {
    uint64_t running = 0;
    for (size_t p = 0; p < parts; ++p) {
      Count d = counts[p][v];
      counts[p][v] = static_cast<Count>(running);
      running += d;
    }
    csr.offsets[v] = running;
  }
  csr.offsets[n] = 0;
  const uint64_t m = ExclusiveScan(csr.offsets.data(), n + 1, threads);

  csr.targets.Resize(m);
  if (csr.weighted) csr.weights.Resize(m);
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (size_t p = 0; p < parts; ++p) {
    HugeArray<Count>& c = counts[p];
    VertexId* targets = csr.targets.data();
    Weight* weights = csr.weights.data();
    const EdgeIndex* offsets = csr.offsets.data();
    const bool weighted = csr.weighted;
    ranges.ForEach(p, [&](const Edge& e, Weight w) {
      expand(e, w, [&](VertexId u, VertexId v, Weight wt) {
        EdgeIndex pos = offsets[u] + c[u]++;
        targets[pos] = v;
        if (weighted) weights[pos] = wt;
      });
    });
  }
  if (drop_loops) report.dropped_self_loops = report.self_loops;
}

// Calls f(u, i, is_duplicate) for every entry i of every out-list, with per-thread marks.
template <class F>
void ScanDuplicates(const Csr& csr, int threads, F&& f) {
  const uint64_t n = csr.num_vertices;
#pragma omp parallel num_threads(threads)
  {
    HugeArray<VertexId> mark(n);
    std::fill(mark.begin(), mark.end(), kNoVertex);
#pragma omp for schedule(dynamic, 4096)
    for (uint64_t u = 0; u < n; ++u) {
      for (EdgeIndex i = csr.offsets[u]; i < csr.offsets[u + 1]; ++i) {
        VertexId v = csr.targets[i];
        bool dup = mark[v] == u;
        mark[v] = static_cast<VertexId>(u);
        f(static_cast<VertexId>(u), i, dup);
      }
    }
  }
}

Csr DropDuplicates(Csr in, int threads, uint64_t* dropped) {
  const uint64_t n = in.num_vertices;
  Csr out;
  out.num_vertices = n;
  out.weighted = in.weighted;
  out.offsets.Resize(n + 1);
  std::memset(out.offsets.data(), 0, (n + 1) * sizeof(EdgeIndex));
  // First pass: kept degree per vertex (each vertex is handled by one thread).
  ScanDuplicates(in, threads, [&](VertexId u, EdgeIndex, bool dup) { out.offsets[u] += !dup; });
  const uint64_t m = ExclusiveScan(out.offsets.data(), n + 1, threads);
  *dropped = in.NumEdges() - m;
  out.targets.Resize(m);
  if (out.weighted) out.weights.Resize(m);
  HugeArray<EdgeIndex> cursor(n);
  std::memcpy(cursor.data(), out.offsets.data(), n * sizeof(EdgeIndex));
  ScanDuplicates(in, threads, [&](VertexId u, EdgeIndex i, bool dup) {
    if (dup) return;
    EdgeIndex pos = cursor[u]++;
    out.targets[pos] = in.targets[i];
    if (out.weighted) out.weights[pos] = in.weights[i];
  });
  return out;
}

}  // namespace

Csr BuildCsr(const EdgeList& edges, const CsrOptions& options, CsrReport* report_out) {
  const int threads = ThreadCount(options.threads);
  CsrReport report;
  report.input_edges = edges.NumEdges();
  Csr csr;
  csr.num_vertices = edges.num_vertices;
  csr.weighted = edges.weighted;
  // Per-part counters are 32-bit unless a part could hold 2^32 entries.
  const uint64_t per_part = report.input_edges * (options.symmetrize ? 2 : 1) / threads + 1;
  if (per_part < (uint64_t{1} << 32)) {
    Build<uint32_t>(edges, options, threads, csr, report);
  } else {
    Build<uint64_t>(edges, options, threads, csr, report);
  }
  if (options.duplicates == DuplicatePolicy::kDrop) {
    csr = DropDuplicates(std::move(csr), threads, &report.dropped_duplicates);
    report.duplicates = report.dropped_duplicates;
    report.duplicates_counted = true;
  } else if (options.count_duplicates) {
    report.duplicates = CountDuplicates(csr, threads);
    report.duplicates_counted = true;
  }
  if (report_out != nullptr) *report_out = report;
  return csr;
}

uint64_t CountDuplicates(const Csr& csr, int threads) {
  threads = ThreadCount(threads);
  std::vector<uint64_t> per_thread(static_cast<size_t>(threads) * 8, 0);  // padded
  ScanDuplicates(csr, threads, [&](VertexId, EdgeIndex, bool dup) {
    per_thread[static_cast<size_t>(omp_get_thread_num()) * 8] += dup;
  });
  uint64_t total = 0;
  for (uint64_t c : per_thread) total += c;
  return total;
}

}  // namespace needle
