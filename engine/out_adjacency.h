// OutAdjacency: every vertex's out-edges grouped by source, for push turns (docs/engine.md,
// "Push turns"). The static shards spread a vertex's out-edges over every shard, one run per
// window; a turn with few senders that needs their out-edges reads them here instead, in one
// range per run of senders.
//
// One file, out.adj in the run's work directory: for each interval p in turn, the targets of
// the out-edges of p's vertices, vertex by vertex, each vertex's in ascending order, 4 bytes a
// target (padded to 4 KiB). Vertex u of p has its edges at first_edge(p) + the out-degrees of
// p's vertices before u.
//
// Built once from the shard set, interval by interval: p's scatter index says which source
// owns each edge of window (q, p), whose targets shard q's adjacency file holds. A block of
// p's vertices whose out-edges fit half the buffer is read from every window, put in place
// and written at once; a vertex larger than that alone is copied window by window. Each thread
// decodes and places a part of the windows, its edges of a vertex after the parts' before it.
// Where the buffer holds every interval's edges in a third of what the scatter indexes and
// counts leave, the build reads ahead: interval p + 1's index and windows are read, and p's
// block written, while p's edges are counted and placed.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/interval_io.h"
#include "io/io_backend.h"
#include "shards/shard_set.h"

namespace needle {

class OutAdjacency {
 public:
  // The smallest buffer Build takes for `set` on `threads` threads (ThreadCount): its largest
  // scatter index, a 4-byte edge count per vertex of the largest interval for each part of the
  // windows the threads take (BuildParts), and two halves, each with three alignment units per
  // shard (for aligned covers) and 64 KiB of edges.
  static uint64_t BuildBufferBytes(const ShardSet& set, const IntervalIo& files, int threads);
  // The parts an interval's windows are cut into, one a thread: shards [k n / parts,
  // (k + 1) n / parts) for part k.
  static uint32_t BuildParts(const ShardSet& set, int threads);

  // Writes `path` from `set` (its files as `files` opened them) through `buffer` (at least
  // BuildBufferBytes), decoding and placing on `threads` threads (the file is the same at any
  // count), then opens it for reading as `io`'s options say (O_DIRECT with --direct). Throws
  // Error: a damaged scatter index (named, with the byte), or a failed transfer;
  // std::invalid_argument for a buffer under BuildBufferBytes.
  static OutAdjacency Build(IoBackend& io, const ShardSet& set, const IntervalIo& files,
                            const std::string& path, AlignedBuffer& buffer, int threads);

  // Index, in the file, of the first out-edge of interval p's first vertex.
  uint64_t first_edge(uint32_t p) const { return first_[p]; }
  uint64_t disk_bytes() const { return AlignUp(first_.back() * 4); }
  // Whether the build read each interval while placing the one before (see the top).
  bool built_ahead() const { return built_ahead_; }

  // Reads the out-edges of `senders` (offsets in interval p, ascending; out_degrees: of p's
  // `count` vertices) through `buffer`, in batches of requests (ranges less than 4 KiB apart
  // read as one), and calls f(u, targets, n) for each sender in order — a sender whose edges
  // do not fit the buffer in several calls, its edges in order. Throws Error.
  using Visit = std::function<void(uint32_t u, const uint32_t* targets, uint64_t n)>;
  void ReadSenders(uint32_t p, std::span<const uint32_t> senders, const uint32_t* out_degrees,
                   uint32_t count, AlignedBuffer& buffer, const Visit& f);

 private:
  OutAdjacency(IoBackend& io, IoFile file, std::vector<uint64_t> first, bool built_ahead)
      : io_(&io), file_(std::move(file)), first_(std::move(first)), built_ahead_(built_ahead) {}

  IoBackend* io_;
  IoFile file_;
  std::vector<uint64_t> first_;  // per interval, and the total at the end
  bool built_ahead_ = false;
  std::vector<uint64_t> start_;  // ReadSenders: per vertex of p, its first edge in p's part
  std::vector<IoRequest> requests_;
};

}  // namespace needle
