// GraphReader: the block API (after ParaGrapher §4). Open any graph file, then ask for any
// range of edges — blocking into the caller's buffers, or non-blocking with a callback per
// block in buffers the library owns and reuses — or, for .csr files, any range of vertices'
// out-lists. Memory is bounded by the buffers (and, for text, one parsed chunk), never by the
// graph, so readers of graphs larger than memory (the sharder) use it.
//
// Edge order: a .csr file's CSR order (by source); a text file's input order, Matrix Market
// symmetric entries expanded to (u, v), (v, u) in place; a WebGraph BVGraph's order (by
// source, successors ascending; loaders/webgraph_reader.h).
//
// Cost: on .csr files every range costs what it reads (plus the checksum chunks it touches).
// Text files can only be read forward: a read that starts at or after the previous one's end
// continues the stream; one that starts before it re-reads the file from its beginning.
//
// Threads: ReadEdgesAsync runs on one reader thread, started on first use and stopped by
// Close() (or the destructor); callbacks run on it, in order. No thread is left afterwards.
// Blocking and async reads may be mixed; they are serialised.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "base/types.h"
#include "loaders/format.h"
#include "loaders/text_reader.h"

namespace needle {

struct EdgeBlock {
  uint64_t first_edge = 0;  // position of sources[0] in the graph's edge order
  std::span<const VertexId> sources;
  std::span<const VertexId> targets;
  std::span<const Weight> weights;  // empty when the graph is unweighted
  size_t size() const { return targets.size(); }
};

// Caller-owned storage for blocking reads: capacity is targets.size(); sources must be as
// large; weights as large when the graph is weighted (else may be empty).
struct EdgeBuffers {
  std::span<VertexId> sources;
  std::span<VertexId> targets;
  std::span<Weight> weights;
};

struct GraphReaderOptions {
  ReadOptions read;                          // format, weights, parsing threads for text
  uint64_t block_edges = uint64_t{1} << 20;  // edges per block of an async read
  int buffers = 4;  // library-owned blocks that may be out at once (async memory bound)
};

class BlockPool;

// A block in a library-owned buffer. Release() (or destruction) hands the buffer back to the
// reader for reuse; the spans are invalid afterwards. Move-only; may be released from any
// thread, also after the reader was closed.
class BlockLease {
 public:
  BlockLease() = default;
  BlockLease(std::shared_ptr<BlockPool> pool, int slot, EdgeBlock block);
  ~BlockLease() { Release(); }
  BlockLease(BlockLease&& other) noexcept;
  BlockLease& operator=(BlockLease&& other) noexcept;
  BlockLease(const BlockLease&) = delete;
  BlockLease& operator=(const BlockLease&) = delete;

  const EdgeBlock& block() const { return block_; }
  void Release();

 private:
  std::shared_ptr<BlockPool> pool_;
  int slot_ = -1;
  EdgeBlock block_;
};

class GraphReader {
 public:
  // Opens `path` (any supported format) and reads its header. Throws Error.
  static std::unique_ptr<GraphReader> Open(const std::string& path,
                                           const GraphReaderOptions& options = {});
  virtual ~GraphReader();

  const std::string& path() const { return path_; }
  GraphFormat format() const { return format_; }
  bool weighted() const { return weighted_; }
  // Known from the start for .csr, Matrix Market and DIMACS; for edge lists after the first
  // read that reached the end of the graph.
  virtual std::optional<uint64_t> num_vertices() const = 0;
  virtual std::optional<uint64_t> num_edges() const = 0;
  // The share of the input file consumed so far (0 to 1; 0 when the reader cannot say): with
  // the edges read, an estimate of num_edges() before it is known (progress, ETA). Call it
  // between blocking reads, not while an async read runs.
  virtual double fraction_read() const { return 0; }
  // A fingerprint of the input file, equal to FileContentHash(path, format requested) from
  // loaders/content_hash.h: for a .csr its header_hash (known at once; it covers the header
  // and the chunk table, so every byte of every section); for a text file XXH3-64 of all its
  // bytes (compressed bytes for gzip/xz), known once a read has reached the end of the graph,
  // nullopt before; for a BVGraph XXH3-64 of X.graph then X.properties, known at once. May be
  // called from any thread.
  std::optional<uint64_t> content_hash() const;

  // Reads edges [first, first + n) with n ≤ out.targets.size() into `out`; the block is shorter
  // than asked only at the end of the graph (empty from there on). Throws Error.
  EdgeBlock ReadEdges(uint64_t first, const EdgeBuffers& out);

  // .csr only: offsets of vertices [first, first + out.size()) — the out-list of vertex v is
  // edges [offsets[v], offsets[v + 1]), which ReadEdges then reads. Throws Error otherwise.
  // The offsets are checked as CsrFile::Load checks them (non-decreasing, at most num_edges,
  // also against the offset that follows the range), with the byte offset of a bad one.
  virtual void ReadVertexOffsets(uint64_t first, std::span<EdgeIndex> out);

  // Delivers edges [first, last) — last clipped to the end of the graph — in blocks of at most
  // block_edges, in order, to on_block on the reader thread. Returns at once. At most `buffers`
  // leases are out at a time: the reader waits for a release before reading on. Several calls
  // queue up and run one after another.
  void ReadEdgesAsync(uint64_t first, uint64_t last, std::function<void(BlockLease)> on_block);

  // Waits until every queued async read has been delivered; rethrows the first error one met
  // (an error ends that read and drops the reads queued after it). Deliveries wait for leases
  // to come back, so the caller must release them (from any thread) for Wait() to return.
  void Wait();
  // Cancels the async reads not yet delivered, stops the reader thread and joins it.
  // Idempotent; the destructor calls it. Leases still out stay valid until released.
  void Close();

 protected:
  GraphReader(std::string path, GraphFormat format, bool weighted);
  // Fills out with up to `count` edges from `first`; returns how many it wrote.
  virtual uint64_t Fill(uint64_t first, uint64_t count, const EdgeBuffers& out) = 0;
  void set_content_hash(uint64_t hash);

 private:
  struct Async;
  void RunAsync();
  std::mutex fill_mutex_;  // Fill() keeps per-reader state (stream position, caches)
  std::string path_;
  GraphFormat format_;
  bool weighted_;
  std::unique_ptr<Async> async_;
  GraphReaderOptions options_;
  std::atomic<uint64_t> content_hash_{0};  // set on the reader thread, read from any
  std::atomic<bool> has_content_hash_{false};
};

}  // namespace needle
