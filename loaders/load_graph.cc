#include "loaders/load_graph.h"

#include <chrono>
#include <cstring>

#include "base/error.h"
#include "base/parallel.h"
#include "base/unique_fd.h"
#include "loaders/bvgraph.h"
#include "loaders/csr_file.h"
#include "loaders/webgraph_input.h"

namespace needle {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool IsDefault(const CsrOptions& o) {
  return !o.transpose && !o.symmetrize && o.self_loops == SelfLoopPolicy::kKeep &&
         o.duplicates == DuplicatePolicy::kKeep;
}

// A BVGraph decoded straight into a CSR (in parallel with X.offsets). Lists are strictly
// increasing, so there are no duplicates to count; self-loops are counted in one pass.
Csr LoadWebGraph(const std::string& path, const LoadOptions& options, LoadReport& r) {
  CheckWebGraphWeights(path, options.read.weights);
  auto start = std::chrono::steady_clock::now();
  const BvGraph graph = BvGraph::Open(path);
  // One thread decodes faster in one pass than in ranges (no outdegree pre-pass).
  Csr csr = graph.Decode(
      BvDecodeOptions{options.read.threads, ThreadCount(options.read.threads) > 1});
  r.read_seconds = SecondsSince(start);
  const WebGraphProperties& p = graph.properties();
  r.format = GraphFormat::kWebGraph;
  r.description = "webgraph BVGraph (window " + std::to_string(p.window_size) +
                  ", maxrefcount " +
                  (p.max_ref_count == UINT32_MAX ? std::string("unbounded")
                                                 : std::to_string(p.max_ref_count)) +
                  ", " +
                  (graph.has_offsets() ? std::string(graph.random_access()
                                                         ? "with .offsets: parallel decode"
                                                         : "with .offsets, chains too long "
                                                           "for parallel decode")
                                       : std::string("no .offsets: sequential decode")) +
                  ")";
  r.file_bytes = graph.graph_bytes();
  if (IsDefault(options.csr)) {
    uint64_t loops = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : loops)
    for (uint64_t u = 0; u < csr.num_vertices; ++u) {
      for (VertexId v : csr.Neighbors(static_cast<VertexId>(u))) loops += v == u;
    }
    r.csr.input_edges = csr.NumEdges();
    r.csr.self_loops = loops;
    r.csr.duplicates_counted = options.csr.count_duplicates;  // none: lists strictly increase
    return csr;
  }
  start = std::chrono::steady_clock::now();
  EdgeList edges = EdgeListFromCsr(csr);
  csr = Csr();
  CsrOptions csr_options = options.csr;
  if (csr_options.threads == 0) csr_options.threads = options.read.threads;
  csr = BuildCsr(edges, csr_options, &r.csr);
  r.build_seconds = SecondsSince(start);
  return csr;
}

}  // namespace

EdgeList EdgeListFromCsr(const Csr& csr) {
  EdgeList list;
  list.num_vertices = csr.num_vertices;
  list.weighted = csr.weighted;
  list.buffers.resize(1);
  EdgeBuffer& b = list.buffers[0];
  const uint64_t m = csr.NumEdges();
  b.edges.Resize(m);
  if (csr.weighted) {
    b.weights.Resize(m);
    std::copy_n(csr.weights.data(), m, b.weights.data());
  }
#pragma omp parallel for schedule(dynamic, 4096)
  for (uint64_t u = 0; u < csr.num_vertices; ++u) {
    for (EdgeIndex i = csr.offsets[u]; i < csr.offsets[u + 1]; ++i) {
      b.edges[i] = Edge{static_cast<VertexId>(u), csr.targets[i]};
    }
  }
  if (m > 0) list.segments.push_back(EdgeSegment{0, 0, m});
  return list;
}

Csr LoadGraph(const std::string& path, const LoadOptions& options, LoadReport* report) {
  LoadReport r;
  if (IsWebGraphInput(path, options.read.format)) {  // first: X itself need not exist
    Csr csr = LoadWebGraph(path, options, r);
    if (report != nullptr) *report = std::move(r);
    return csr;
  }
  auto start = std::chrono::steady_clock::now();
  if (IsCsrInput(path, options.read.format)) {
    CsrFile file = CsrFile::Open(path);
    Csr csr = file.Load(options.read.threads);
    r.format = GraphFormat::kCsr;
    r.description =
        std::string("csr v") + std::to_string(kCsrVersion) + (csr.weighted ? " (weighted)" : "");
    r.file_bytes = file.file_size();
    r.read_seconds = SecondsSince(start);
    if (!KeepsCsrWeights(path, csr.weighted, options.read.weights) && csr.weighted) {
      csr.weighted = false;
      csr.weights = HugeArray<Weight>();
    }
    if (IsDefault(options.csr) && !options.csr.count_duplicates) {
      r.csr.input_edges = csr.NumEdges();
      if (report != nullptr) *report = std::move(r);
      return csr;
    }
    start = std::chrono::steady_clock::now();
    EdgeList edges = EdgeListFromCsr(csr);
    csr = BuildCsr(edges, options.csr, &r.csr);
    r.build_seconds = SecondsSince(start);
    if (report != nullptr) *report = std::move(r);
    return csr;
  }
  TextGraphInfo info;
  EdgeList edges = ReadTextGraph(path, options.read, &info);
  r.read_seconds = SecondsSince(start);
  r.format = info.layout.format;
  r.compression = info.compression;
  r.description = info.layout.description;
  r.text_bytes = info.text_bytes;
  {
    UniqueFd fd = OpenForReading(path);
    r.file_bytes = FileSize(fd.get(), path);
  }
  start = std::chrono::steady_clock::now();
  CsrOptions csr_options = options.csr;
  if (csr_options.threads == 0) csr_options.threads = options.read.threads;
  Csr csr = BuildCsr(edges, csr_options, &r.csr);
  r.build_seconds = SecondsSince(start);
  if (report != nullptr) *report = std::move(r);
  return csr;
}

}  // namespace needle
