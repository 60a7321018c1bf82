#include "loaders/webgraph_reader.h"

#include <algorithm>
#include <vector>

#include "base/error.h"
#include "loaders/bvgraph.h"

namespace needle {
namespace {

using std::to_string;

// A forward read this many edges ahead of the cursor decodes through; further, it jumps.
constexpr uint64_t kJumpEdges = uint64_t{1} << 16;
constexpr uint64_t kSampleNodes = 1024;

class WebGraphReader final : public GraphReader {
 public:
  WebGraphReader(const std::string& path, BvGraph graph)
      : GraphReader(path, GraphFormat::kWebGraph, /*weighted=*/false),
        graph_(std::move(graph)),
        cursor_(graph_) {
    set_content_hash(WebGraphContentHash(graph_.paths(), graph_.graph_view()));
  }
  ~WebGraphReader() override { Close(); }  // before the members the reader thread uses go

  std::optional<uint64_t> num_vertices() const override { return graph_.num_nodes(); }
  std::optional<uint64_t> num_edges() const override { return graph_.num_arcs(); }

 protected:
  uint64_t Fill(uint64_t first, uint64_t count, const EdgeBuffers& out) override {
    const uint64_t m = graph_.num_arcs();
    if (first >= m) return 0;
    count = std::min(count, m - first);
    const bool behind = has_list_ ? first < list_first_ : first < next_edge_;
    const bool far = graph_.random_access() && first >= next_edge_ + kJumpEdges;
    if (behind || far) Reposition(first);
    uint64_t written = 0;
    while (written < count) {
      const uint64_t pos = first + written;
      if (has_list_ && pos < list_first_ + list_.size()) {
        const uint64_t from = pos - list_first_;
        const uint64_t n = std::min<uint64_t>(list_.size() - from, count - written);
        std::copy_n(list_.data() + from, n, out.targets.data() + written);
        std::fill_n(out.sources.data() + written, n, static_cast<VertexId>(list_node_));
        written += n;
        continue;
      }
      if (cursor_.done()) {
        // Only when the lists hold fewer successors than `arcs` says.
        throw Error(graph_.paths().graph, "the lists hold " + to_string(next_edge_) +
                                              " successors, but the properties say arcs=" +
                                              to_string(m));
      }
      list_node_ = cursor_.node();
      list_ = cursor_.Next();
      list_first_ = next_edge_;
      has_list_ = true;
      if (list_.size() > m - next_edge_) {
        throw Error(graph_.paths().graph, "the lists hold more than arcs=" + to_string(m) +
                                              " successors (by node " + to_string(list_node_) + ")");
      }
      next_edge_ += list_.size();
      if (cursor_.done() && next_edge_ != m) {
        throw Error(graph_.paths().graph, "the lists hold " + to_string(next_edge_) +
                                              " successors, but the properties say arcs=" +
                                              to_string(m));
      }
    }
    return written;
  }

 private:
  // Puts the cursor before the node whose list holds edge e.
  void Reposition(uint64_t e) {
    has_list_ = false;
    if (!graph_.random_access()) {
      cursor_ = BvCursor(graph_);
      next_edge_ = 0;
      return;
    }
    if (sample_.empty()) BuildSample();
    const uint64_t k =
        static_cast<uint64_t>(std::upper_bound(sample_.begin(), sample_.end(), e) - sample_.begin()) - 1;
    uint64_t v = k * kSampleNodes;
    uint64_t start = sample_[k];
    for (;;) {  // e < arcs = the sum of all outdegrees, so some node holds it
      const uint64_t d = graph_.Outdegree(v);
      if (e < start + d) break;
      start += d;
      ++v;
    }
    cursor_.Seek(v);
    next_edge_ = start;
  }

  // The first edge of every kSampleNodes-th node; the outdegrees must sum to arcs.
  void BuildSample() {
    const uint64_t n = graph_.num_nodes();
    std::vector<uint64_t> sample;
    sample.reserve(n / kSampleNodes + 1);
    uint64_t edges = 0;
    for (uint64_t v = 0; v < n; ++v) {
      if (v % kSampleNodes == 0) sample.push_back(edges);
      edges += graph_.Outdegree(v);
    }
    if (edges != graph_.num_arcs()) {
      throw Error(graph_.paths().graph, "the outdegrees sum to " + to_string(edges) +
                                            ", but the properties say arcs=" +
                                            to_string(graph_.num_arcs()));
    }
    sample_ = std::move(sample);
  }

  BvGraph graph_;
  BvCursor cursor_;
  uint64_t next_edge_ = 0;  // first edge of cursor_.node()
  bool has_list_ = false;
  uint64_t list_node_ = 0;
  uint64_t list_first_ = 0;
  std::span<const VertexId> list_;
  std::vector<uint64_t> sample_;
};

}  // namespace

std::unique_ptr<GraphReader> OpenWebGraphReader(const std::string& path,
                                                const GraphReaderOptions& options) {
  CheckWebGraphWeights(path, options.read.weights);
  return std::make_unique<WebGraphReader>(path, BvGraph::Open(path));
}

}  // namespace needle
