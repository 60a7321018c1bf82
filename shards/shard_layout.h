// The on-disk layout of a shard set (docs/shards.md has the full description).
//
// A shard set is a directory:
//   manifest          text, written and renamed into place last; lists everything below
//   shard-PPPP.adj    shard p's adjacency: the targets of the edges whose target is in
//                     interval p, sorted by (source, target), behind a header (below)
//   shard-PPPP.val    a weighted set only: shard p's input weights, float32 per edge in the
//                     same order (an unweighted set has none: every weight is 1)
//   windows.idx       for every shard p and interval q: the first run and the first edge
//                     of p whose source lies in q — the window of q in shard p
//   scatter-PPPP.idx  interval p's scatter index: the source runs of window (q, p) of every
//                     shard q, packed (run_codec.h), behind a header of P + 1 uint64 byte
//                     offsets (window (q, p) starts at offset q; offset P is the end)
//   degrees.bin       out-degrees then in-degrees, uint32 per vertex
//   order.bin         a set sharded with --order bfs only: the input id of every vertex of
//                     the set, uint32 in the set's order (vertex_order.h)
//
// Adjacency file: a 4 KiB header, then the targets section, 4 bytes per edge, from byte 4096
// (so any window can be read with O_DIRECT). A run is (source, count): `count` consecutive
// edges of a shard leave `source`. Which source owns which edges is written once, in the
// scatter indexes (about 2 bytes a run): scatter reads the runs of a window from there and
// gather reads only targets, so the shard files do not repeat them. Every file is padded to
// 4 KiB.
//
// One format version covers the set: the manifest's first line and the adjacency headers
// carry kShardFormatVersion, and a set whose manifest says another is rebuilt by the sharder
// and refused, saying how to rebuild it, when given by its directory.
#pragma once

#include <cstdint>
#include <string>

namespace needle {

inline constexpr char kShardMagic[8] = {'N', 'E', 'E', 'D', 'L', 'A', 'D', 'J'};
// The set's format version.
// 2: the scatter index files (scatter-PPPP.idx) joined the set.
// 3: the input fingerprint holds the inode's change time and a hash of the whole input.
// 4: no source runs in the adjacency files (the scatter indexes hold them), no value files in
//    an unweighted set, and one version for the set: the adjacency headers said 2 until now.
inline constexpr uint32_t kShardFormatVersion = 4;
inline constexpr uint64_t kShardAlignment = 4096;
inline constexpr const char* kManifestName = "manifest";
inline constexpr const char* kWindowsName = "windows.idx";
inline constexpr const char* kDegreesName = "degrees.bin";
inline constexpr const char* kOrderName = "order.bin";

// A run of a shard's edges that leave one source, as the scatter index packs it.
struct SourceRun {
  uint32_t source;
  uint32_t count;
};

// The adjacency file's header (byte offsets as in format 3, so the fields that stayed kept
// their places).
struct ShardFileHeader {
  char magic[8];
  uint32_t version;  // kShardFormatVersion: the manifest's
  uint32_t shard;
  uint64_t num_runs;  // the shard's source runs (held by the scatter indexes)
  uint64_t num_edges;
  uint64_t reserved;      // 0 (the runs section's offset up to format 3)
  uint64_t targets_pos;   // byte offset of the targets section: kShardAlignment
  uint32_t first_vertex;  // the shard's interval, [first_vertex, end_vertex): its targets' range
  uint32_t end_vertex;
  uint64_t reserved_end;  // 0
};
static_assert(sizeof(ShardFileHeader) == 64);

// One entry per (shard, interval) in windows.idx, shard-major, plus a closing entry per
// shard (interval = num_intervals) holding the shard's totals. The runs between two entries
// are what the window's packed runs in the scatter index must decode to.
struct WindowEntry {
  uint64_t first_run;
  uint64_t first_edge;
};

std::string ShardFileName(uint32_t shard, const char* suffix);  // "shard-0003.adj"
std::string ScatterIndexName(uint32_t interval);                // "scatter-0003.idx"
// The same numbering for other per-shard files: NumberedFileName("edges", 3, ".val").
std::string NumberedFileName(const char* prefix, uint32_t number, const char* suffix);

inline uint64_t ShardAlignUp(uint64_t x) {
  return (x + kShardAlignment - 1) / kShardAlignment * kShardAlignment;
}

}  // namespace needle
