// WriteEdgeListText and WriteCsrAsEdgeListText (see edge_list_writer.h).
//
// The edges go out in batches of kBatchEdges so that the formatted text held at once stays
// bounded (about kBatchEdges · kMaxLineBytes of reserved, mostly untouched, address space).
// Each batch is cut into one contiguous range per thread; every range is formatted into its
// own buffer, the buffers' lengths give each one its file offset, and all are written with
// pwrite at those offsets (in order, one after another, to a device or a pipe). The bytes of
// the file therefore do not depend on the thread count.
//
// Weights are printed so that the reader gets the same float back: integral values as plain
// integers (the common case, and the cheapest to parse), others as std::to_chars' shortest
// round-trip form. NaN and infinities have no form the text reader accepts, so they are
// refused rather than written into a file that cannot be read back.
#include "loaders/edge_list_writer.h"

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/huge_array.h"
#include "base/parallel.h"
#include "base/unique_fd.h"
#include "io/output_file.h"

namespace needle {
namespace {

constexpr uint64_t kBatchEdges = uint64_t{8} << 20;
// Two 10-digit ids, a weight (at most 17 characters: "-9007199254740991" or
// "-1.1754944e-38"), two tabs and a newline, rounded up.
constexpr size_t kMaxLineBytes = 48;
constexpr uint64_t kNoEdge = UINT64_MAX;

inline char* FormatWeight(char* p, Weight w) {
  // 2^53: every float of smaller magnitude that is integral fits an int64 exactly, and
  // printing it whole is exact. -0 keeps its sign through to_chars.
  constexpr Weight kIntegralLimit = 9007199254740992.0f;
  if (std::fabs(w) < kIntegralLimit && std::trunc(w) == w && !(w == 0 && std::signbit(w))) {
    return std::to_chars(p, p + kMaxLineBytes, static_cast<int64_t>(w)).ptr;
  }
  return std::to_chars(p, p + kMaxLineBytes, w).ptr;
}

// Formats one thread's range of a batch. Returns the end of the text; sets *bad_edge to the
// index of the first edge whose weight is not finite (the text is then incomplete).
template <class ForRange>
char* FormatRange(const ForRange& for_range, bool weighted, uint64_t begin, uint64_t end, char* out,
                  uint64_t* bad_edge) {
  char* p = out;
  uint64_t index = begin;
  *bad_edge = kNoEdge;
  for_range(begin, end, [&](VertexId u, VertexId v, Weight w) {
    p = std::to_chars(p, p + 10, u).ptr;
    *p++ = '\t';
    p = std::to_chars(p, p + 10, v).ptr;
    if (weighted) {
      if (!std::isfinite(w) && *bad_edge == kNoEdge) *bad_edge = index;
      *p++ = '\t';
      p = FormatWeight(p, w);
    }
    *p++ = '\n';
    ++index;
  });
  return p;
}

std::string CommentLines(const std::string& comment) {
  std::string text;
  if (comment.empty()) return text;
  size_t start = 0;
  while (true) {
    size_t nl = comment.find('\n', start);
    text += "# ";
    text.append(comment, start, nl == std::string::npos ? std::string::npos : nl - start);
    text += '\n';
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return text;
}

// Writes `total` edges, which for_range(begin, end, f) produces in order as f(u, v, w).
template <class ForRange>
void WriteText(OutputFile& out, const std::string& comment, int threads, uint64_t total,
               bool weighted, const ForRange& for_range, const WriteProgress& progress) {
  threads = ThreadCount(threads);
  const uint64_t parts = static_cast<uint64_t>(threads);
  const std::string& path = out.path();
  uint64_t offset = 0;
  const std::string header = CommentLines(comment);
  if (out.replaces()) {
    out.WriteAt(header.data(), header.size(), offset);
  } else {
    out.Write(header);
  }
  offset += header.size();

  std::vector<HugeArray<char>> text(parts);
  std::vector<uint64_t> lengths(parts);
  std::vector<uint64_t> bad_edges(parts);
  for (uint64_t batch = 0; batch < total; batch += kBatchEdges) {
    const uint64_t batch_end = std::min(total, batch + kBatchEdges);
    const uint64_t batch_size = batch_end - batch;
    ParallelFor(parts, threads, [&](uint64_t t) {
      const uint64_t begin = batch + batch_size * t / parts;
      const uint64_t end = batch + batch_size * (t + 1) / parts;
      text[t].Reserve((end - begin) * kMaxLineBytes);
      char* stop = FormatRange(for_range, weighted, begin, end, text[t].data(), &bad_edges[t]);
      lengths[t] = static_cast<uint64_t>(stop - text[t].data());
    });
    for (uint64_t bad : bad_edges) {
      if (bad != kNoEdge) {
        throw Error(path,
                    "edge " + std::to_string(bad) +
                        " has a weight that is not finite, which a text edge list cannot hold");
      }
    }
    std::vector<uint64_t> positions(parts);
    for (uint64_t t = 0; t < parts; ++t) {
      positions[t] = offset;
      offset += lengths[t];
    }
    if (out.replaces()) {
      ParallelFor(parts, threads,
                  [&](uint64_t t) { out.WriteAt(text[t].data(), lengths[t], positions[t]); });
    } else {  // a device or a pipe: in order
      for (uint64_t t = 0; t < parts; ++t) out.Write(text[t].data(), lengths[t]);
    }
    if (progress) progress(batch_end, total);
  }
}

}  // namespace

void WriteEdgeListText(const EdgeList& edges, OutputFile& out, const std::string& comment,
                       int threads, const WriteProgress& progress) {
  const std::vector<uint64_t> starts = edges.SegmentStarts();
  const uint64_t total = starts.back();
  auto for_range = [&](uint64_t begin, uint64_t end, auto&& f) {
    edges.ForEachRun(starts, begin, end, [&](const Edge* e, const Weight* w, uint64_t count) {
      for (uint64_t i = 0; i < count; ++i) f(e[i].source, e[i].target, w ? w[i] : Weight{1});
    });
  };
  WriteText(out, comment, threads, total, edges.weighted, for_range, progress);
}

void WriteCsrAsEdgeListText(const Csr& csr, OutputFile& out, const std::string& comment,
                            int threads, const WriteProgress& progress) {
  const EdgeIndex* offsets = csr.offsets.data();
  const uint64_t n = csr.num_vertices;
  auto for_range = [&](uint64_t begin, uint64_t end, auto&& f) {
    if (begin >= end) return;
    // The vertex whose out-list holds edge `begin`: the last u with offsets[u] <= begin
    // (empty out-lists before it share its offset and are skipped this way).
    uint64_t u =
        static_cast<uint64_t>(std::upper_bound(offsets, offsets + n + 1, begin) - offsets - 1);
    for (; u < n && offsets[u] < end; ++u) {
      const uint64_t lo = std::max(offsets[u], begin);
      const uint64_t hi = std::min(offsets[u + 1], end);
      const VertexId source = static_cast<VertexId>(u);
      if (csr.weighted) {
        for (uint64_t e = lo; e < hi; ++e) f(source, csr.targets[e], csr.weights[e]);
      } else {
        for (uint64_t e = lo; e < hi; ++e) f(source, csr.targets[e], Weight{1});
      }
    }
  };
  WriteText(out, comment, threads, csr.NumEdges(), csr.weighted, for_range, progress);
}

void WriteEdgeListText(const EdgeList& edges, const std::string& path, const std::string& comment,
                       int threads) {
  OutputFile out(path);
  WriteEdgeListText(edges, out, comment, threads);
  out.Commit();
}

void WriteCsrAsEdgeListText(const Csr& csr, const std::string& path, const std::string& comment,
                            int threads) {
  OutputFile out(path);
  WriteCsrAsEdgeListText(csr, out, comment, threads);
  out.Commit();
}

}  // namespace needle
