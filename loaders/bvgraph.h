// BvGraph: a WebGraph BVGraph (Boldi–Vigna compressed graph; the LAW and Software Heritage
// format) decoded natively, into a CSR (Decode) or one successor list at a time (BvCursor).
//
// The .graph file is one big-endian bit stream; node x's record is, in order:
//   outdegree d; if d > 0 and windowsize > 0, a reference r ≤ windowsize (0: none);
//   if r > 0, a block count and blocks over the list of node x − r (the first block as is,
//   later ones minus 1; even-numbered blocks are copied, odd ones skipped, and what follows
//   the last block is copied iff the count is even);
//   if successors remain and minintervallength > 0, a γ interval count and intervals (first
//   left x + nat2int(γ), later ones previous end + γ + 1; lengths γ + minintervallength);
//   the remaining successors as residuals (first x + nat2int(code), later previous + code + 1).
// The list is the merge of the three sorted parts. Codings come from the properties
// (loaders/webgraph_properties.h).
//
// Checks, all turned into a needle::Error naming the .graph (or .offsets) file, the byte and
// bit offset, the node and what was expected: every read stays inside the file; outdegrees at
// most the node count and summing to `arcs`; references within the window and not before
// node 0; reference chains at most maxrefcount long; blocks within the referenced list;
// successors below the node count and strictly increasing (a successor copied, interval-coded
// and residual at once is refused); the stream ends where the last node ends (up to the byte
// padding) and, with .offsets, every node starts where .offsets says.
//
// Parallel decoding needs X.offsets (n + 1 γ-coded gaps of bit offsets; read once at Open,
// 8 bytes per node in memory). Decode first reads every outdegree at its offset, so the CSR
// offsets are known, then decodes ranges of nodes of about equal bit length in parallel
// straight into the CSR. A range starting at node v rebuilds the windowsize lists before v by
// random access: each is decoded at its offset, recursively through its reference chain,
// which maxrefcount bounds (so a range costs at most windowsize · (maxrefcount + 1) extra
// lists). Graphs without .offsets, or with maxrefcount above kMaxRandomAccessChain, are
// decoded in one sequential pass.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/types.h"
#include "io/mapped_file.h"
#include "loaders/bit_reader.h"
#include "loaders/csr.h"
#include "loaders/webgraph_input.h"
#include "loaders/webgraph_properties.h"

namespace needle {

struct BvDecodeOptions {
  int threads = 0;        // ThreadCount() (base/parallel.h)
  bool parallel = true;  // ranges of nodes when .offsets allow; false: one sequential pass
};

class BvGraph {
 public:
  // Reference chains longer than this are not followed by random access (its recursion);
  // such graphs decode sequentially.
  static constexpr uint32_t kMaxRandomAccessChain = 256;

  // Opens the BVGraph that `path` names (X, X.graph or X.properties): parses the properties,
  // maps X.graph, and reads and checks X.offsets when it exists. Throws Error.
  static BvGraph Open(const std::string& path);

  const WebGraphPaths& paths() const { return paths_; }
  const WebGraphProperties& properties() const { return properties_; }
  uint64_t num_nodes() const { return properties_.nodes; }
  uint64_t num_arcs() const { return properties_.arcs; }
  uint64_t graph_bytes() const { return graph_.size(); }
  std::string_view graph_view() const { return graph_.view(); }  // X.graph, mapped
  bool has_offsets() const { return !bit_offsets_.empty(); }
  // Whether any node can be decoded on its own: .offsets present, chains short enough.
  bool random_access() const {
    return has_offsets() && properties_.max_ref_count <= kMaxRandomAccessChain;
  }

  // The whole graph as a CSR (successors ascending). Throws Error.
  Csr Decode(const BvDecodeOptions& options = {}) const;

  // Random access (random_access() only): node v's first bit, and its outdegree.
  uint64_t BitOffset(uint64_t v) const { return bit_offsets_[v]; }
  uint64_t Outdegree(uint64_t v) const;

  // The one place a corrupt stream becomes an Error: the file, byte, bit, node and problem.
  [[noreturn]] void Corrupt(const CorruptBits& e, uint64_t node) const;

 private:
  friend class BvCursor;
  struct Levels;
  BvGraph() = default;
  void ReadOffsets();
  // Decodes node v by random access into levels.lists[depth]; returns its chain length.
  uint32_t DecodeAt(uint64_t v, uint32_t depth, Levels& levels) const;
  // Checks the bit where the last node ended against the file's size and .offsets.
  void CheckEnd(uint64_t end_bit) const;
  void CheckStart(uint64_t node, uint64_t bit) const;
  const uint8_t* bytes() const { return reinterpret_cast<const uint8_t*>(graph_.data()); }

  WebGraphPaths paths_;
  WebGraphProperties properties_;
  MappedFile graph_;
  std::vector<uint64_t> bit_offsets_;  // n + 1 entries when X.offsets exists, else empty
};

// One successor list after another, from node 0 or (random access) from any node. The window
// holds the last windowsize lists, each in a buffer reused for the node windowsize + 1 later.
class BvCursor {
 public:
  explicit BvCursor(const BvGraph& graph);
  ~BvCursor();
  BvCursor(BvCursor&&) noexcept;
  BvCursor& operator=(BvCursor&&) noexcept;

  // Positions the cursor before node v (v ≤ nodes); needs graph.random_access().
  void Seek(uint64_t v);
  // The node Next() decodes.
  uint64_t node() const { return node_; }
  bool done() const { return node_ >= graph_->num_nodes(); }
  // Decodes node(), advances, and returns its successors: valid until the next call, or
  // windowsize calls later for the last lists the window keeps. Throws Error.
  std::span<const VertexId> Next();

 private:
  struct Window;
  const BvGraph* graph_;
  BitReader in_;
  uint64_t node_ = 0;
  std::unique_ptr<Window> window_;
};

}  // namespace needle
