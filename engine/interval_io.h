// IntervalIo: the reads and writes of one interval's turn in Parallel Sliding Windows, through
// an IoBackend so that the next interval's reads can be in flight while this one computes.
//
// For interval p it reads
//   - the memory shard: shard p's targets (the in-edges of p's vertices, by source), their
//     messages from the run's edge value files, and their input weights when the program
//     uses them and the set has them (an unweighted set has no value files: every weight is
//     1, and nothing is read for it);
//   - the window of p in every shard q: only its source runs (the out-edges of p's vertices
//     are overwritten, never read), packed, all in one read of p's scatter index;
//   - the out- and in-degrees of p's vertices;
// and it writes p's out-edge messages back, window by window. Windows known to carry no message
// are neither read nor rewritten (the engine keeps a flag per window). Transfers on direct files
// are aligned to the file's alignment() (covers of unaligned ranges are read whole).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/edge_value_files.h"
#include "engine/window_chunks.h"
#include "io/io_backend.h"
#include "shards/intervals.h"
#include "shards/shard_layout.h"
#include "shards/shard_set.h"

namespace needle {

inline constexpr uint32_t kNoInterval = ~uint32_t{0};

// What a load reads of a window, or a write-back writes (StartLoad's `wanted`, StartWriteBack's
// `write`, IntervalData::loaded): nothing, all of it, its marked chunks (window_chunks.h), or
// (loads) every target and weight with the messages of its marked chunks only, or none of its
// messages (they will come from a scatter buffer).
inline constexpr uint8_t kWholeWindow = 1;
inline constexpr uint8_t kWindowChunks = 2;
inline constexpr uint8_t kChunkMessages = 3;
inline constexpr uint8_t kTargetsOnly = 4;
// Whether a load that read `loaded` of a window holds all of its targets and weights.
inline bool AllTargets(uint8_t loaded) {
  return loaded == kWholeWindow || loaded == kChunkMessages || loaded == kTargetsOnly;
}

// The buffer a streamed interval's pieces go through, for messages `width` bytes wide:
// kStreamBufferBytes (shards/intervals.h), or more for a width whose pieces need more.
inline uint64_t StreamBufferBytes(uint64_t width) {
  return std::max<uint64_t>(kStreamBufferBytes,
                            2 * std::lcm<uint64_t>(width, kDirectAlignment) + 4 * kDirectAlignment);
}

// One interval's inputs. Buffers are sized once for the largest interval and reused.
struct IntervalData {
  uint32_t interval = kNoInterval;
  bool in_flight = false;
  IoBackend::Ticket ticket = 0;
  AlignedBuffer targets;        // uint32 per in-edge
  AlignedBuffer values;         // shard p's edge value file, windows padded as in EdgeValueFiles
  AlignedBuffer weights;        // float per in-edge (only when the program uses weights and
                                // the set is weighted; else empty, and Weights() null)
  AlignedBuffer runs;           // p's scatter index: window (q, p)'s packed runs (run_codec.h) for
                                // every shard q, behind their offsets
  bool all_runs = true;         // runs holds every window's; false: only window (p, p)'s
  std::vector<size_t> runs_at;  // per q: byte index of window (q, p)'s first run in `runs`;
                                // runs_at[P]: the end of the last window's runs
  std::vector<uint8_t> loaded;  // per r: what was read of window (p, r)'s targets, messages and
                                // weights: 0, kWholeWindow, kWindowChunks or kChunkMessages
  AlignedBuffer degrees;        // aligned covers of the out- and in-degrees of p
  size_t out_degrees_at = 0, in_degrees_at = 0;
  bool in_sources = false;      // targets read from the in-adjacency (in_adjacency.h): window
                                // (p, p)'s targets, the other windows' places their sources
                                // by target

  const uint32_t* Targets() const { return reinterpret_cast<const uint32_t*>(targets.data()); }
  // The in-edges' weights, or nullptr when every weight is 1 (none were read).
  const float* Weights() const { return reinterpret_cast<const float*>(weights.data()); }
  // Window (q, p)'s packed runs: [RunBytes(q), RunBytes(q + 1)).
  const uint8_t* RunBytes(uint32_t q) const {
    return reinterpret_cast<const uint8_t*>(runs.data() + runs_at[q]);
  }
  const uint32_t* OutDegrees() const {
    return reinterpret_cast<const uint32_t*>(degrees.data() + out_degrees_at);
  }
  const uint32_t* InDegrees() const {
    return reinterpret_cast<const uint32_t*>(degrees.data() + in_degrees_at);
  }
};

// Out-edge messages of one interval, laid out window by window like the edge value files:
// window (q, p) at Offset(q), padded to 4 KiB.
struct ScatterBuffer {
  uint32_t interval = kNoInterval;
  bool in_flight = false;
  IoBackend::Ticket ticket = 0;
  AlignedBuffer bytes;
  std::vector<uint64_t> offsets;  // P + 1 entries for the current interval
};

class IntervalIo {
 public:
  // Opens the shard files; `weights`: the program uses the input weights (read only when the
  // set is weighted); `dynamic`: a dynamic shard set (dynamic_shards.h), its files counted as
  // FileKind::kDynamic; `in_degrees` false: the program reads no in-degree (UsesInDegree,
  // program.h): only out-degrees are read or held, and InDegrees() are all 0. Throws Error.
  IntervalIo(IoBackend& io, const ShardSet& set, const EdgeValueFiles& values, bool weights,
             bool dynamic = false, bool in_degrees = true);

  // Bytes of one IntervalData (each buffer sized for the interval that needs it most: exactly
  // what Allocate() allocates) / of one ScatterBuffer.
  uint64_t IntervalDataBytes() const;
  uint64_t ScatterBytes() const;
  // Bytes of one IntervalData sized for interval p alone (Allocate(data, p)); their sum over
  // the intervals is what holding the whole shard set in memory costs.
  uint64_t IntervalDataBytes(uint32_t p) const;
  // Bytes of interval p's out-edge messages (a ScatterBuffer sized for p alone).
  uint64_t ScatterBytes(uint32_t p) const;
  // Streamed intervals (streamed[p] != 0, one vertex each) are not held in the buffers:
  // IntervalDataBytes(), ScatterBytes() and Allocate() leave them out. Call before Allocate().
  void SetStreamed(std::vector<uint8_t> streamed) { streamed_ = std::move(streamed); }
  bool Streamed(uint32_t p) const { return !streamed_.empty() && streamed_[p] != 0; }

  // A streamed interval's transfers, through `buffer` (kStreamBufferBytes, shards/intervals.h),
  // each waited for before it returns. ReadWindowInPieces hands window (p, r)'s messages (and
  // weights, or nullptr) to fold(messages, weights, count) in pieces, in edge order.
  // WriteWindowRepeated fills window (q, p) with `message` (one edge's `width` bytes) on every
  // edge.
  using PieceFold = std::function<void(const std::byte* messages, const float* weights,
                                       uint64_t count)>;
  void ReadWindowInPieces(uint32_t p, uint32_t r, AlignedBuffer& buffer, const PieceFold& fold);
  void WriteWindowRepeated(uint32_t q, uint32_t p, const std::byte* message, AlignedBuffer& buffer);
  // Waits for the reads in flight on `data`.
  void Drain(IntervalData& data);
  void Allocate(IntervalData& data) const;  // for any interval
  void Allocate(IntervalData& data, uint32_t p) const;  // for interval p only
  void Allocate(ScatterBuffer& scatter) const;

  // `wanted[r]`: window (p, r) of the memory shard carries messages — only those windows'
  // targets, messages and weights are read (consecutive ones in one request); kWindowChunks:
  // only its marked chunks (SetChunks) and the targets and weights under them; kChunkMessages:
  // all its targets and weights, its marked chunks' messages; kTargetsOnly: all its targets
  // and weights, no message. windows_only:
  // add those windows to a load of p that is already complete (no runs, no degrees).
  // messages false: the windows' targets and weights only (their messages start empty).
  // all_runs false: of p's scatter index, only window (p, p)'s runs (at their place in
  // data.runs; the others' bytes are not read), for turns that send through nothing else.
  // in_sources (a load that is not windows_only, when SetInSources gave a file): every target
  // comes from the in-adjacency instead of the shard (IntervalData::in_sources), as do those of
  // later reads into the same load.
  void StartLoad(uint32_t p, IntervalData& data, const uint8_t* wanted, bool windows_only = false,
                 bool messages = true, bool all_runs = true, bool in_sources = false);
  // The in-adjacency (in_adjacency.h) that loads with in_sources read: `file`, shard p's
  // section at byte sections[p], its cross sources `width` bytes each (in_section.h). Not for
  // a program that reads weights. nullptr: none.
  void SetInSources(const IoFile* file, std::vector<uint64_t> sections, uint32_t width) {
    in_file_ = file;
    in_sections_ = std::move(sections);
    in_width_ = width;
  }
  // Reads the whole of shard p's targets from the shard into a load that read them from the
  // in-adjacency (for a turn that cannot use them), and waits.
  void ReadShardTargets(IntervalData& data);
  // Reads the rest of the scatter index of a load that read only window (p, p)'s runs, and
  // waits (nothing when it holds them all).
  void ReadAllRuns(IntervalData& data);
  // Reads the targets (and weights) of shard p's edges [first, last) for each range of
  // `ranges` (ascending) into data, at their places, and waits. Ranges that touch or overlap
  // are read in one request.
  void ReadTargets(uint32_t p, IntervalData& data,
                   const std::vector<std::pair<uint64_t, uint64_t>>& ranges);
  // Reads the whole degrees file once and serves every later load's degrees from memory
  // (DegreesBytes(): what that holds). Waits. Throws Error.
  uint64_t DegreesBytes() const;
  void HoldDegrees();
  void ReleaseDegrees() { held_degrees_ = AlignedBuffer(); }
  // Reads every interval's scatter index once and serves every later load's runs from memory
  // (RunsBytes(): what that holds; streamed intervals' are left out, they read their own).
  // Waits. Throws Error.
  uint64_t RunsBytes() const;
  void HoldRuns();
  void ReleaseRuns() {
    held_runs_ = AlignedBuffer();
    held_runs_at_.clear();
  }
  // Pull turns (pull_columns.h): the runs of window (q, r) for the r with wanted[r], from the
  // scatter index of each such r, into buffer[0, size) (aligned to kDirectAlignment): from
  // r = `from` on, as many windows as it holds (at least one: size holds the largest window's
  // runs and 3 alignment units), in one batch. at[r]: where window (q, r)'s runs will begin,
  // counted from buffer - origin. Returns the first r not in the batch (num_intervals(): none
  // is left) and the ticket to wait for before the runs are read. Scatter indexes held in
  // memory (HoldRuns) are copied at once. ColumnBytes(): what the windows of the largest column
  // take at once. Throws Error.
  struct ColumnBatch {
    uint32_t next;
    IoBackend::Ticket ticket;
  };
  uint64_t ColumnBytes() const;
  ColumnBatch StartColumn(uint32_t q, const uint8_t* wanted, uint32_t from, std::byte* buffer,
                          uint64_t size, uint64_t origin, std::vector<uint64_t>& at);
  // Reads only the degrees of p into data (and waits).
  void LoadDegrees(uint32_t p, IntervalData& data);
  void FinishLoad(IntervalData& data);
  // Lays out `scatter` for interval p (fills offsets); the caller then fills the windows.
  void Prepare(uint32_t p, ScatterBuffer& scatter) const;
  // Writes window (q, p) for every q with write[q] set: kWindowChunks, its marked chunks only.
  void StartWriteBack(ScatterBuffer& scatter, const std::vector<uint8_t>& write);
  // The chunk marks kWindowChunks reads and writes follow (kept by the caller).
  void SetChunks(const WindowChunks* chunks) { chunks_ = chunks; }
  const WindowChunks* chunks() const { return chunks_; }
  void FinishWriteBack(ScatterBuffer& scatter);

  IoBackend& backend() { return *io_; }
  const EdgeValueFiles& values() const { return *values_; }
  // The set's files as opened here (reads of them must follow their alignment()).
  const IoFile& adjacency(uint32_t p) const { return adjacency_[p]; }
  const IoFile& scatter_index(uint32_t p) const { return scatter_[p]; }
  uint64_t scatter_index_bytes(uint32_t p) const { return scatter_bytes_[p]; }

  struct Cover {
    uint64_t offset;
    uint64_t length;
    size_t skip;  // bytes from the cover's start to the range's start
  };
  // The range [begin, end) widened to `unit` (a file's alignment()).
  static Cover CoverOf(uint64_t begin, uint64_t end, uint64_t unit);

 private:
  // Per kind of request (targets, weights, messages), the index in requests_ of the last one
  // pushed, or SIZE_MAX.
  static constexpr int kTargetsTail = 0, kWeightsTail = 1, kMessagesTail = 2;
  struct Tails {
    size_t last[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    size_t& operator[](int kind) { return last[kind]; }
  };
  // Appends a request to requests_, or widens the last one of the same kind when the new range
  // touches or overlaps it.
  void PushJoined(Tails& tail, int kind, const IoFile* file, uint64_t offset, std::byte* buffer,
                  uint64_t length);
  // Requests for the targets (and weights) of shard p's edges [first, last), aligned covers.
  void PushTargets(uint32_t p, IntervalData& data, uint64_t first, uint64_t last, Tails& tail);
  // Each IntervalData buffer's size: the largest any interval needs of it.
  struct BufferSizes {
    uint64_t targets = 0, values = 0, runs = 0, degrees = 0;
  };
  BufferSizes Sizes() const;          // the largest over the intervals
  BufferSizes Sizes(uint32_t p) const;  // interval p's
  void Allocate(IntervalData& data, const BufferSizes& sizes) const;
  uint64_t Bytes(const BufferSizes& sizes) const;
  void AddDegreeRequests(uint32_t p, IntervalData& data);
  uint64_t HeldDegreesLength() const;  // what HoldDegrees reads of the degrees file
  // f(first, last, m0, m1) for every run of marked chunks of window (p, r): its edges
  // [first, last) of shard p and their messages' bytes [m0, m1) of p's edge value file (the
  // last chunk's up to the window's padded end).
  template <class F>
  void ChunkRanges(uint32_t p, uint32_t r, F&& f) const {
    const uint64_t e0 = set_->Window(p, r).first_edge, e1 = set_->Window(p, r + 1).first_edge;
    const uint64_t base = values_->WindowOffset(p, r), end = values_->WindowOffset(p, r + 1);
    const uint64_t width = values_->width();
    chunks_->ForEachRun(p, r, [&](uint64_t first, uint64_t last) {
      f(first, last, base + (first - e0) * width, last == e1 ? end : base + (last - e0) * width);
    });
  }

  IoBackend* io_;
  const ShardSet* set_;
  const EdgeValueFiles* values_;
  bool use_weights_;
  bool in_degrees_;
  std::vector<IoFile> adjacency_;
  std::vector<IoFile> weights_;
  std::vector<IoFile> scatter_;          // the scatter indexes
  std::vector<uint64_t> scatter_bytes_;  // their sizes
  std::vector<uint64_t> out_bytes_;      // per interval: ScatterBytes(p)
  IoFile degrees_;
  AlignedBuffer held_degrees_;  // the degrees file, when HoldDegrees() was called
  AlignedBuffer held_runs_;     // the scatter indexes, when HoldRuns() was called,
  std::vector<uint64_t> held_runs_at_;  // each at its offset (UINT64_MAX: not held)
  std::vector<IoRequest> requests_;
  std::vector<uint8_t> streamed_;  // per interval, or empty: none
  const WindowChunks* chunks_ = nullptr;
  const IoFile* in_file_ = nullptr;  // SetInSources'
  std::vector<uint64_t> in_sections_;
  uint32_t in_width_ = 4;
};

}  // namespace needle
