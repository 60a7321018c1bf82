// Transport: how messages travel between intervals. The engine (engine.h) keeps the schedule
// and the per-vertex gather, apply and scatter; a transport owns what a turn loads, where the
// messages an interval sends are put, patching and clearing, and the I/O that costs.
//
// The messages on the edges of shard p are laid out window by window, window (p, r) holding
// those of its edges whose source lies in interval r, at WindowOffset(p, r) in p's message
// array (EdgeValueFiles' layout). A window either carries messages (Carries(p, r): every edge
// of it holds a message or identity) or holds nothing that may be read.
//
// One turn of interval p, as the engine drives it:
//   const IntervalData& in = BeginCompute(p, next);   // p's in-edges and their messages
//   StartPrefetch();                                  // next's reads, after p's own
//   ... gather from the windows (p, r) that Carries(), apply ...
//   OutWindow(q) for every q: write window (q, p)'s messages (every edge)
//   EndCompute(carries);  // carries[q]: window (q, p) now holds a message other than identity
// or, for an interval that is not computed but whose out-edges still carry old messages,
//   Clear(p);
// A streamed interval (Streamed(p): one vertex whose edges the buffers do not hold; static
// windows only) has its turn in pieces instead:
//   const IntervalData& in = BeginStreamed(p);        // p's degrees only
//   StreamIn(r, fold) for every r that Carries(p, r)  // window (p, r)'s messages, in pieces
//   EndStreamed(message, carries);  // window (q, p) := message where carries[q], else cleared
//
// Exactly once: a message written into window (q, p) during p's turn is read by q's next turn
// and by no other; the window is overwritten (or cleared) at p's next turn, which the schedule
// puts after q's. docs/engine.md states this for each transport.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "engine/engine_options.h"
#include "engine/interval_io.h"

namespace needle {

// Edges [first, last) of a shard.
struct EdgeRange {
  uint64_t first, last;
};

class Transport {
 public:
  explicit Transport(uint32_t num_intervals)
      : n_(num_intervals), carries_(static_cast<size_t>(num_intervals) * num_intervals, 0) {}
  virtual ~Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  virtual TransportChoice kind() const = 0;  // kStatic or kResident

  // Interval p's out- and in-degrees, before the first iteration (valid until the next call).
  virtual const IntervalData& Degrees(uint32_t p) = 0;
  // The run begins: no window carries messages; interval `first` is computed first.
  virtual void Start(uint32_t first) = 0;
  // Interval p's turn: its in-edges (targets, weights), the messages of the windows that carry
  // them, the runs of its out-edges and its degrees. `next`: the interval expected after p
  // (kNoInterval: none), whose reads may start now.
  virtual const IntervalData& BeginCompute(uint32_t p, uint32_t next) = 0;
  // Issues the reads of `next` once the turn's own synchronous reads (LoadOwnWindow, pulled
  // messages) are done, so that those do not queue behind them; EndCompute issues them if
  // the engine has not.
  virtual void StartPrefetch() {}
  // Makes the targets (and weights) of window (p, p) available in the IntervalData of p's
  // turn, for passes over the messages p sends itself (their messages are in OutWindow(p)).
  virtual void LoadOwnWindow() = 0;
  // Page grain, a turn whose messages are few against window (p, p): the turn holds only the
  // targets of (p, p) under its marked chunks, and passes over p's own messages ask for their
  // senders' runs with LoadOwnRuns instead of LoadOwnWindow: the runs of window (p, p) of
  // `sources` (offsets in p, ascending), edges [own_start[u], own_start[u + 1]) of the window.
  virtual bool OwnTargetsSparse() const { return false; }
  virtual void LoadOwnRuns(std::span<const uint32_t> /*sources*/,
                           const uint64_t* /*own_start*/) {}
  // In such a turn: whether edges [from, to) of window (p, p) have their targets held.
  virtual bool OwnEdgesHeld(uint64_t /*from*/, uint64_t /*to*/) const { return false; }
  // Pull turns (engine.h; static windows only): pulled (shard-major like carries(); the
  // engine's, nullptr: none) marks the windows whose messages the engine puts in place itself
  // at their interval's turn, from its array of every vertex's message. A load reads their
  // targets and weights but no message; PulledMessages(r) is where window (p, r)'s messages
  // go during p's turn.
  virtual void SetPulled(const std::vector<uint8_t>* /*pulled*/) {}
  virtual std::byte* PulledMessages(uint32_t /*r*/) { return nullptr; }
  // Push and pull turns (static windows only) send to other intervals from memory, through
  // window (p, p) alone: own_only[p] set (the engine's vector; nullptr: none) lets a load of
  // p read only that window's runs of p's scatter index (IntervalData::all_runs false).
  // LoadAllRuns reads the rest for the current turn, when it needs them after all.
  virtual void SetOwnRunsOnly(const std::vector<uint8_t>* /*own_only*/) {}
  // Pull turns from the in-adjacency (in_adjacency.h; static windows only): in[p] set (the
  // engine's vector; nullptr: none) has a load of p with no other window carrying messages
  // read its targets from the in-adjacency (IntervalData::in_sources).
  virtual void SetInSources(const std::vector<uint8_t>* /*in*/) {}
  // The turn's load read its targets from the in-adjacency, and the turn needs the shard's:
  // reads them all (and waits).
  virtual void UseShardTargets() {}
  virtual void LoadAllRuns() {}
  // Where window (q, p)'s messages go during p's turn.
  virtual std::byte* OutWindow(uint32_t q) = 0;
  // Ends p's turn. carries[q]: window (q, p) holds a message; nullptr: no window does (the
  // windows were not written).
  virtual void EndCompute(const uint8_t* carries) = 0;
  // p is not computed this iteration, but its out-edges carry messages of an earlier turn
  // that have been consumed: they must not be read again.
  virtual void Clear(uint32_t p) = 0;
  // Waits for every transfer in flight (the end of a run, or a run that threw).
  virtual void Finish() = 0;
  // Like Start, for a run that goes on: the windows with carries[window] (shard-major, P × P)
  // hold messages in the transport's edge value files already (the dynamic shard modes switch
  // transports between iterations). Static windows only: the default throws.
  virtual void Resume(uint32_t first, std::vector<uint8_t> carries);
  // Per window, shard-major: whether it carries messages.
  const std::vector<uint8_t>& carries() const { return carries_; }

  // Streamed intervals (see above); a transport that streams none keeps these defaults.
  virtual bool Streamed(uint32_t /*p*/) const { return false; }
  virtual const IntervalData& BeginStreamed(uint32_t p);
  virtual void StreamIn(uint32_t r, const IntervalIo::PieceFold& fold);
  // message: one edge's bytes, written on every edge of the windows (q, p) with carries[q];
  // the windows that carried messages before and not now are cleared.
  virtual void EndStreamed(const std::byte* message, const uint8_t* carries);

  // Page grain (static windows with EngineOptions::page_windows): during p's turn, the edges
  // of window (p, r) that were read, in order — the others of a carrying window hold nothing
  // and must not be gathered. Chunked() false: every edge of a window that Carries().
  virtual bool Chunked() const { return false; }
  virtual std::span<const EdgeRange> Segments(uint32_t /*r*/) const { return {}; }

  // Byte offset of window (p, r)'s messages in p's message array (r = P: its size).
  virtual uint64_t WindowOffset(uint32_t p, uint32_t r) const = 0;
  bool Carries(uint32_t p, uint32_t r) const { return carries_[Index(p, r)] != 0; }

 protected:
  size_t Index(uint32_t p, uint32_t r) const { return static_cast<size_t>(p) * n_ + r; }
  uint32_t n_;
  // Per window, shard-major: window (p, r) carries messages.
  std::vector<uint8_t> carries_;
};

}  // namespace needle
