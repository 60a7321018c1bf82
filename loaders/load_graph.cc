#include "loaders/load_graph.h"

#include <chrono>
#include <cstring>

#include "base/error.h"
#include "base/unique_fd.h"
#include "loaders/csr_file.h"

namespace needle {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool IsDefault(const CsrOptions& o) {
  return !o.transpose && !o.symmetrize && o.self_loops == SelfLoopPolicy::kKeep &&
         o.duplicates == DuplicatePolicy::kKeep;
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
  auto start = std::chrono::steady_clock::now();
  if (IsCsrInput(path, options.read.format)) {
    CsrFile file = CsrFile::Open(path);
    Csr csr = file.Load(options.read.threads);
    r.format = GraphFormat::kCsr;
    r.description =
        std::string("csr v") + std::to_string(kCsrVersion) + (csr.weighted ? " (weighted)" : "");
    r.file_bytes = file.file_size();
    r.read_seconds = SecondsSince(start);
    if (options.read.weights == WeightMode::kWeighted && !csr.weighted) {
      throw Error(path, "weights were asked for, but this .csr file has none");
    }
    if (options.read.weights == WeightMode::kUnweighted && csr.weighted) {
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
