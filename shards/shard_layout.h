// The on-disk layout of a shard set (docs/shards.md has the full description).
//
// A shard set is a directory:
//   manifest          text, written and renamed into place last; lists everything below
//   shard-PPPP.adj    shard p's adjacency: the edges whose target is in interval p, sorted
//                     by (source, target), as source runs plus targets (below)
//   shard-PPPP.val    shard p's initial edge values, float32 per edge in the same order
//                     (the input's weights, 1 when unweighted)
//   windows.idx       for every shard p and interval q: the first run and the first edge
//                     of p whose source lies in q — the window of q in shard p
//   scatter-PPPP.idx  interval p's scatter index: the runs of window (q, p) of every shard q,
//                     packed (run_codec.h), behind a header of P + 1 uint64 byte offsets
//                     (window (q, p) starts at offset q; offset P is the end)
//   degrees.bin       out-degrees then in-degrees, uint32 per vertex
//
// Adjacency file: a 4 KiB header, then the runs section, then the targets section, each
// starting on a 4 KiB boundary (so any window can be read with O_DIRECT). A run is
// (source, count): `count` consecutive edges of the targets section leave `source`.
// Gather reads a shard's targets; scatter only needs the runs of a window, about 8 bytes per
// distinct source instead of 4 bytes per edge — and reads them from the scatter index, about 2
// bytes a run, one file per interval. Every file is padded to 4 KiB.
#pragma once

#include <cstdint>
#include <string>

namespace needle {

inline constexpr char kShardMagic[8] = {'N', 'E', 'E', 'D', 'L', 'A', 'D', 'J'};
// 2: the header records the interval's vertex range.
inline constexpr uint32_t kShardFormatVersion = 2;
inline constexpr uint64_t kShardAlignment = 4096;
inline constexpr const char* kManifestName = "manifest";
inline constexpr const char* kWindowsName = "windows.idx";
inline constexpr const char* kDegreesName = "degrees.bin";

struct SourceRun {
  uint32_t source;
  uint32_t count;
};

struct ShardFileHeader {
  char magic[8];
  uint32_t version;
  uint32_t shard;
  uint64_t num_runs;
  uint64_t num_edges;
  uint64_t runs_pos;      // byte offset of the runs section
  uint64_t targets_pos;   // byte offset of the targets section
  uint32_t first_vertex;  // the shard's interval, [first_vertex, end_vertex): its targets' range
  uint32_t end_vertex;
  uint64_t reserved;
};
static_assert(sizeof(ShardFileHeader) == 64);

// One entry per (shard, interval) in windows.idx, shard-major, plus a closing entry per
// shard (interval = num_intervals) holding the shard's totals.
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
