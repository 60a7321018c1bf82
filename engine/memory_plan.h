// MemoryPlan: what a run allocates, checked against --memory before anything is read.
//
// With the static windows transport (static_windows.h):
//   2 × interval buffers   (memory shard targets, messages and weights; window runs; degrees)
//   2 × scatter buffers    (the out-edge messages of an interval, being written back)
// with the resident transport (resident_shards.h), instead:
//   shard data             (every interval's buffers, each sized for its interval)
// and for both
//   gather buffers         (with several threads: the route's buffer, engine/routed_gather.h,
//                          or the split's arrays, engine/split_gather.h)
//   per-vertex arrays      (accumulator, message, flag, sweep offsets and senders, the
//                          interval's values)
//   index tables           (window index, edge value file offsets)
//   kReservedBytes         (code, I/O ring, thread stacks, allocator slack: shards/intervals.h)
// and, when the remaining budget holds them, all vertex values in memory (else they are read
// and written interval by interval from a file in the run's work directory), and then, with
// the static windows, every vertex's degrees (IntervalIo::HoldDegrees; else each turn reads
// its interval's) — where only the dynamic shard builds' room (`build_bytes`, part of the
// dynamic modes' bytes) holds them, there until the first build — and then, likewise, every
// interval's scatter index (IntervalIo::HoldRuns; else each turn reads its interval's).
// A dynamic shard mode whose buffers leave no room for the vertex values (share_values) keeps
// them in memory all the same until its first build, in the builds' room and what the budget
// has left (`values_shared`, ahead of the degrees and scatter indexes), and then moves them to
// disk: the iterations before the first build run as static ones do.
//
// The dynamic shard modes (static windows) add the delay buffer (a message per vertex), a flag
// byte per vertex and the dynamic shard builder's write buffers (shards/hashing_writer.h; the
// builder's window buffers use what the transport frees while it runs).
//
// TransportChoice::kAuto picks the resident transport when the shard data fits together with
// everything else (vertex values in memory where allowed), else the static windows.
//
// Streamed intervals (static windows): when the buffers sized for every interval are over the
// budget, intervals of one vertex are streamed, the costliest first, until the rest fit — such
// an interval is not held in the buffers but read and written in pieces through one buffer of
// StreamBufferBytes() (interval_io.h). So any set runs whose per-vertex arrays and
// many-vertex intervals fit, whatever its hubs' degrees.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/transport.h"
#include "shards/intervals.h"

namespace needle {

class ShardSet;
class IntervalIo;

struct MemoryPlan {
  uint64_t budget = 0;
  TransportChoice transport = TransportChoice::kStatic;  // kStatic or kResident
  uint64_t interval_buffers = 0;  // both (static windows)
  uint64_t scatter_buffers = 0;   // both (static windows)
  uint64_t shard_data = 0;        // the whole shard set (resident)
  uint64_t vertex_arrays = 0;
  uint64_t tables = 0;
  uint64_t resident_values = 0;  // 0 when vertex values go through a file
  bool resident = false;         // vertex values in memory
  bool values_shared = false;    // in memory (resident) only until the first dynamic shard
                                 // build, in its room and the budget's headroom; then on disk
                                 // (Total() counts the on-disk layout)
  std::vector<uint8_t> streamed;  // per interval: streamed (static windows; empty: none)
  uint32_t num_streamed = 0;
  uint64_t stream_buffer = 0;     // StreamBufferBytes() when an interval is streamed
  uint64_t dynamic = 0;           // dynamic shards (static windows): delay buffer, flags, builds
  uint64_t gather = 0;            // the route's buffer or the split's arrays (engine.h)
  uint64_t chunks = 0;            // the page grain's chunk marks (engine/window_chunks.h)
  uint64_t degrees = 0;           // every vertex's degrees held in memory (static windows;
                                  // 0: each turn reads its interval's)
  bool degrees_shared = false;    // held in the room of the dynamic shard builds, until the
                                  // first build (then each turn reads its interval's)
  uint64_t runs = 0;              // every interval's scatter index held in memory (static
                                  // windows; 0: each turn reads its interval's)
  bool runs_shared = false;       // held in the builds' room (with the degrees, if they are)
  // Push turns (engine.h): the out-adjacency build, then its reads, the turn's messages to
  // other intervals and the message logs, in what the rest of the plan leaves of the budget.
  uint64_t push = 0;
  // Pull turns (engine.h): every vertex's message and a turn's source runs. Never allocated
  // while push turns' are (an iteration between them drains what the other left).
  uint64_t pull = 0;
  uint64_t Total() const {
    return interval_buffers + scatter_buffers + shard_data + vertex_arrays + tables +
           (values_shared ? 0 : resident_values) + stream_buffer + dynamic + gather + chunks +
           std::max(push, pull) + Held() + kReservedBytes;
  }
  // What Total() holds only because the budget had room left (degrees, scatter indexes).
  uint64_t Held() const { return (degrees_shared ? 0 : degrees) + (runs_shared ? 0 : runs); }
  std::string Describe() const;  // one line
};

// Throws std::invalid_argument, with the figures, when the largest interval does not fit (or,
// for TransportChoice::kResident, the whole set).
// per_vertex_width: the accumulator and outgoing message of one vertex (and the ordered
// schedule's priority key: engine.h).
// allow_resident: keep all vertex values in memory when they fit.
// stream_all: stream every interval of one vertex (static windows), needed or not.
// dynamic_bytes: what the dynamic shard modes add to a static windows plan (engine.h).
// gather_bytes: the routed gather's buffer or the split gather's arrays, when the run uses one
// (engine/routed_gather.h, engine/split_gather.h).
// chunk_bytes: the chunk marks of static windows at page grain (engine/window_chunks.h).
// build_bytes: the part of dynamic_bytes that only dynamic shard builds use.
// share_values: where the vertex values are not held for good (allow_resident false), hold
// them until the first build when the budget and the builds' room have room for them.
// Tells `io` which intervals are streamed (IntervalIo::SetStreamed).
MemoryPlan PlanMemory(const ShardSet& set, IntervalIo& io, size_t per_vertex_width,
                      size_t vertex_width, uint64_t budget, bool allow_resident = true,
                      TransportChoice transport = TransportChoice::kAuto,
                      bool stream_all = false, uint64_t dynamic_bytes = 0,
                      uint64_t gather_bytes = 0, uint64_t chunk_bytes = 0,
                      uint64_t build_bytes = 0, bool share_values = false);

}  // namespace needle
