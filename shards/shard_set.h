// ShardSet: an opened, checked shard set directory.
//
// Open() refuses a set whose manifest is missing, corrupt or of another format version
// (ShardFormatError), or any of whose files is missing, of the wrong size, of another version
// than the manifest's, or (when verifying) fails its digest — naming the file. Whether or not
// digests are verified, it checks the structure the engine relies on — the manifest's
// (Manifest::Parse), every shard header against its file's size, the window
// index (always against its digest, too: it is read whole) against the shards, and the scatter
// indexes' offsets against the window index — so that a damaged or crafted set is refused
// with the file and byte instead of read out of bounds; what only the data can tell (the runs
// of a window) the engine checks as it decodes them (run_codec.h). The window index is held in
// memory; the shard files are read by the engine through the I/O backends.
//
// An open ShardSet holds a shared lock on its manifest (set_lock.h): a sharder does not
// replace the set while it is open, and Open() fails while a sharder is replacing it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/file_lock.h"
#include "base/types.h"
#include "shards/manifest.h"
#include "shards/shard_layout.h"

namespace needle {

class ShardSet {
 public:
  // verify_digests: read every file and check its XXH3 against the manifest.
  static ShardSet Open(const std::string& dir, bool verify_digests = true);

  const std::string& dir() const { return dir_; }
  const Manifest& manifest() const { return manifest_; }
  uint32_t num_intervals() const { return manifest_.num_intervals(); }
  uint32_t interval_begin(uint32_t p) const { return manifest_.bounds[p]; }
  uint32_t interval_end(uint32_t p) const { return manifest_.bounds[p + 1]; }
  // The vertices of the largest interval.
  uint32_t largest_interval() const {
    uint32_t largest = 0;
    for (uint32_t p = 0; p < num_intervals(); ++p) {
      largest = std::max(largest, interval_end(p) - interval_begin(p));
    }
    return largest;
  }

  // Whether the set holds input weights: an unweighted set has no value files (every weight
  // is 1, and nothing is read for it).
  bool weighted() const { return manifest_.weighted; }
  std::string AdjacencyPath(uint32_t shard) const;
  std::string ValuesPath(uint32_t shard) const;  // the input weights (weighted sets only)
  std::string DegreesPath() const;
  std::string ScatterIndexPath(uint32_t interval) const;
  const ShardFileHeader& header(uint32_t shard) const { return headers_[shard]; }
  // The window of interval q in shard p; Window(p, num_intervals()) holds p's totals.
  const WindowEntry& Window(uint32_t shard, uint32_t interval) const {
    return windows_[static_cast<size_t>(shard) * (num_intervals() + 1) + interval];
  }
  // Where window (shard, interval)'s packed runs start in the interval's scatter index;
  // ScatterOffset(num_intervals(), interval) is where they end.
  uint64_t ScatterOffset(uint32_t shard, uint32_t interval) const {
    return scatter_offsets_[static_cast<size_t>(interval) * (num_intervals() + 1) + shard];
  }
  // Whether the set numbers its vertices in another order than the input's (--order bfs,
  // vertex_order.h); InputIds() then maps them back.
  bool reordered() const { return manifest_.choices.order != "input"; }
  // Per vertex of the set, its input id, from order.bin: always checked against its digest
  // and for being a permutation of the vertices (Error naming the file and the first bad
  // entry). Empty for a set in input order.
  std::vector<VertexId> InputIds() const;
  // Bytes on disk of the files whose names end in `suffix` (".adj", ".val", ".idx", ".bin").
  uint64_t BytesOf(const std::string& suffix) const;
  // The engine's bound for this set's intervals under `memory_bytes` (EngineBytesOfCut,
  // intervals.h, with the window index's edge counts and the costs the set was planned with):
  // at most `memory_bytes` means the set runs within it, whatever budget it was planned for.
  uint64_t EngineBytes(uint64_t memory_bytes) const;

 private:
  std::string dir_;
  FileLock lock_;  // shared, on dir_/manifest
  Manifest manifest_;
  std::vector<ShardFileHeader> headers_;
  std::vector<WindowEntry> windows_;
  std::vector<uint64_t> scatter_offsets_;  // per interval: the P + 1 offsets of its index
};

// For cold-cache benchmarks: fsyncs every file of the shard set in `dir` and drops it from the
// page cache (EvictFromPageCache on each file the manifest lists). Throws Error.
void EvictShardSet(const std::string& dir);

}  // namespace needle
