// StaticWindows: the transport of Parallel Sliding Windows over the static shards. Every turn
// of interval p reads p's memory shard (the windows that carry messages: their targets,
// messages and weights), p's scatter index and degrees, and writes the messages p sends into
// window (q, p) of every shard q's edge value file — through two interval buffers (the next
// interval's reads are in flight while p computes) and two scatter buffers (p's write-back is
// in flight while the next interval computes).
//
// Exactly once: window (q, p) is written at p's turn and read at q's next turn. A read of q
// issued while p's write-back was still in flight is patched from p's scatter buffer (older
// buffer first), and a scatter buffer is not reused before its write-back completes and every
// interval loaded meanwhile has been patched from it. A window that carries no message is
// neither read nor rewritten; one whose messages were consumed is overwritten with identity()
// by its source interval's next turn, or by Clear() when that interval is not computed.
//
// At page grain (`chunks`, the marks of `set`'s windows; window_chunks.h) a turn writes only
// the chunks of its out-windows that hold a message, and a load reads only those chunks of
// the windows it wants (and the targets under them; all of (p, p)'s targets when the turn will
// pass over p's own messages): window (q, p)'s marks are replaced at p's turn and read by q's
// next, and a chunk left unmarked is never read, so quiet windows need no clearing. The window the
// computing interval may fill is still read whole (its messages come from the scatter buffer).
// Windows into a streamed interval are written whole.
//
// Streamed intervals (IntervalIo::Streamed: one vertex whose edges the buffers were not sized
// for) are read and written in pieces through one buffer of kStreamBufferBytes, synchronously:
// their turn first waits for every transfer in flight and drops what was prefetched (it is
// read again when its turn comes), so the files hold every message written before it, and
// nothing read before it can miss what it writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "engine/edge_value_files.h"
#include "engine/interval_io.h"
#include "engine/run_stats.h"
#include "engine/transport.h"
#include "engine/window_chunks.h"
#include "shards/shard_set.h"

namespace needle {

class StaticWindows final : public Transport {
 public:
  // identity: the bytes of the program's identity() message (one edge's worth). Reads and
  // writes go through `io`; waits are added to stats.io_wait_seconds / write_back_seconds.
  StaticWindows(const ShardSet& set, IntervalIo& io, const EdgeValueFiles& edges,
                std::vector<std::byte> identity, IterationStats& stats,
                WindowChunks* chunks = nullptr, bool own_targets = false,
                double sparse_share = kDefaultSparseOwnShare,
                uint64_t sparse_min_edges = kDefaultSparseOwnMinEdges);
  ~StaticWindows() override;

  TransportChoice kind() const override { return TransportChoice::kStatic; }
  const IntervalData& Degrees(uint32_t p) override;
  void Start(uint32_t first) override;
  const IntervalData& BeginCompute(uint32_t p, uint32_t next) override;
  void StartPrefetch() override;
  void LoadOwnWindow() override;
  bool OwnTargetsSparse() const override;
  void LoadOwnRuns(std::span<const uint32_t> sources, const uint64_t* own_start) override;
  bool OwnEdgesHeld(uint64_t from, uint64_t to) const override;
  std::byte* OutWindow(uint32_t q) override { return out_->bytes.data() + out_->offsets[q]; }
  void SetPulled(const std::vector<uint8_t>* pulled) override { pulled_ = pulled; }
  void SetOwnRunsOnly(const std::vector<uint8_t>* own_only) override { own_only_ = own_only; }
  void SetInSources(const std::vector<uint8_t>* in) override { in_ = in; }
  void UseShardTargets() override;
  void LoadAllRuns() override;
  std::byte* PulledMessages(uint32_t r) override {
    return current_->values.data() + edges_->WindowOffset(current_->interval, r);
  }
  void EndCompute(const uint8_t* carries) override;
  void Clear(uint32_t p) override;
  void Finish() override;
  void Resume(uint32_t first, std::vector<uint8_t> carries) override;
  bool Chunked() const override { return chunks_ != nullptr; }
  std::span<const EdgeRange> Segments(uint32_t r) const override {
    return {segments_.data() + segments_at_[r], segments_at_[r + 1] - segments_at_[r]};
  }
  uint64_t WindowOffset(uint32_t p, uint32_t r) const override {
    return edges_->WindowOffset(p, r);
  }
  bool Streamed(uint32_t p) const override { return io_->Streamed(p); }
  const IntervalData& BeginStreamed(uint32_t p) override;
  void StreamIn(uint32_t r, const IntervalIo::PieceFold& fold) override;
  void EndStreamed(const std::byte* message, const uint8_t* carries) override;

  // The I/O buffers, for registering them with the ring.
  std::vector<AlignedBuffer*> Buffers();

 private:
  IntervalData& Acquire(uint32_t p);
  void LoadMissing(IntervalData& data);
  void Patch(IntervalData& data);
  ScatterBuffer& BeginTurn(uint32_t p, uint32_t prefetch);
  // Fills out_'s windows with identity() and writes back those that carried messages.
  void WriteQuiet();
  // The windows of memory shard q a load should read: those with messages, and the one the
  // interval computing now (`current`) may be about to fill.
  const uint8_t* Wanted(uint32_t q, uint32_t current);
  // Waits for every read and write in flight and forgets what was prefetched (streamed turns).
  void Quiesce();
  // What a load of interval q reads of window (q, r) when it carries: its chunks at page grain
  // (with every target of (q, q) when the turn's passes over its own messages will need them),
  // else all of it.
  bool Pulled(uint32_t q, uint32_t r) const {
    return pulled_ != nullptr && (*pulled_)[Index(q, r)] != 0;
  }
  // Whether a load of q reads all of q's scatter index (SetOwnRunsOnly).
  bool AllRuns(uint32_t q) const { return own_only_ == nullptr || (*own_only_)[q] == 0; }
  uint8_t Grain(uint32_t q, uint32_t r) const {
    if (!chunks_) return kWholeWindow;
    return q == r && own_targets_ && !Sparse(q) ? kChunkMessages : kWindowChunks;
  }
  // Page grain: whether the marked chunks of q's windows hold fewer edges than sparse_share_
  // × those of window (q, q), and (q, q) has sparse_min_edges_ or more, so that a turn of q
  // reads (q, q)'s targets only where its passes need them (OwnTargetsSparse).
  bool Sparse(uint32_t q) const;
  // Page grain: the segments of data's interval, from the marks.
  void FindSegments(const IntervalData& data);

  const ShardSet* set_;
  IntervalIo* io_;
  const EdgeValueFiles* edges_;
  std::vector<std::byte> identity_;
  IterationStats* stats_;

  IntervalData data_[2];
  ScatterBuffer scatter_[2];
  uint64_t sequence_[2] = {0, 0};  // which scatter buffer was written last
  uint64_t turns_ = 0;
  IntervalData* current_ = nullptr;  // the interval computing now
  ScatterBuffer* out_ = nullptr;     // its scatter buffer
  uint32_t prefetch_ = kNoInterval;  // the interval whose reads StartPrefetch issues
  std::vector<uint8_t> wanted_;      // scratch: the windows a load asks for
  std::vector<uint8_t> write_;       // scratch: the windows a write-back writes
  const std::vector<uint8_t>* pulled_ = nullptr;  // SetPulled's
  const std::vector<uint8_t>* own_only_ = nullptr;  // SetOwnRunsOnly's
  const std::vector<uint8_t>* in_ = nullptr;        // SetInSources'
  bool wanted_in_ = false;  // the load Wanted() asked for reads the in-adjacency
  AlignedBuffer stream_;             // streamed intervals' pieces (empty when none is)
  uint32_t streaming_ = kNoInterval;  // the streamed interval whose turn it is
  // Page grain: the chunk marks (the caller's: they outlive the transport, for whatever moves
  // the messages on), one chunk of identity() to compare with, and the current turn's segments
  // (Segments(r): [segments_at_[r], segments_at_[r + 1])).
  WindowChunks* chunks_ = nullptr;
  bool own_targets_ = false;  // a turn reads all of window (p, p)'s targets (LoadOwnWindow)
  double sparse_share_;
  uint64_t sparse_min_edges_;
  std::vector<std::byte> pattern_;
  std::vector<EdgeRange> segments_;
  std::vector<size_t> segments_at_;
  // A sparse turn (OwnTargetsSparse): which chunks of window (p, p) have their targets in the
  // turn's IntervalData, and the ranges LoadOwnRuns reads (scratch, at most kOwnReads at once).
  static constexpr size_t kOwnReads = 4096;
  bool sparse_ = false;
  std::vector<uint64_t> own_present_;
  std::vector<std::pair<uint64_t, uint64_t>> own_reads_;
};

}  // namespace needle
