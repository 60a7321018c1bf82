// Intervals: how the vertex ids are split so that one interval's work fits --memory.
//
// The rule (printed by `needle shard`) is the engine's own memory plan (engine/memory_plan.h)
// for the static windows transport, bounded from above before the shards exist. Working on
// interval p the engine holds two interval buffers (p's and the next one's, being read) and
// two scatter buffers (p's out-messages, and the previous interval's, being written), each
// sized for the largest interval, plus one set of per-vertex arrays. Per interval that is
//
//   cost(p) = 2 × (a × in_edges(p) + b × out_edges(p) + c × vertices(p))
//
// with a = in_edge (+ 4 on a weighted set: the weight), b = out_edge + 3 (the packed source
// run of the edge in the scatter index, at most 2 + 1/64 bytes an edge) and c = vertex +
// ceil(P / 64) (a window's run offsets, at most 1 byte per 127 ids). Besides the intervals the
// engine holds fixed bytes that grow with the number of intervals P:
//
//   fixed(P) = kReservedBytes + tables(P) + padding(P)
//
// (the tables of windows, and the 4 KiB alignment of every window and buffer for O_DIRECT).
// Intervals are cut in id order, greedily: one ends where the next vertex would take it over
// a capacity, at most usable = --memory − fixed(P). That gives the fewest intervals any cut
// can; the capacity used is the smallest that still gives that many, so the intervals are as
// even as contiguous cuts allow. Last, the engine's bound — each buffer sized for its own
// largest interval, 2 × (a × max in + b × max out + c × max vertices) + fixed(P) — is checked
// against --memory, and the capacity lowered until it holds.
//
// The defaults (IntervalCosts{}) are PageRank's, the widest of the built-in single-value
// programs; a program whose values are wider plans with IntervalCostsFor(its widths).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace needle {

// What a process holds whatever it processes: code, libraries, the I/O ring or pread
// threads, thread stacks, allocator arenas (measured at 5.5–5.9 MB; docs/shards.md).
inline constexpr uint64_t kReservedBytes = uint64_t{24} << 20;
inline constexpr uint64_t kInEdgeBytes = 8;
inline constexpr uint64_t kOutEdgeBytes = 4;
inline constexpr uint64_t kVertexBytes = 39;
inline constexpr uint64_t kWeightBytes = 4;           // per in-edge of a weighted set
inline constexpr uint64_t kRunBytesPerOutEdge = 3;    // run_codec.h: ≤ 2 + 1/64 an edge
// A vertex whose interval alone would cost more than the capacity is streamed: it is an
// interval of its own, and its edges' messages (and weights) go through one buffer of this
// size in pieces instead of the interval buffers (engine/static_windows.h).
inline constexpr uint64_t kStreamBufferBytes = uint64_t{1} << 20;

// The engine's tables for P intervals: the window index, the edge value and scatter index
// offsets (32 B a window), the window flags (1 B) and per-interval state (4 KiB).
inline uint64_t EngineTableBytes(uint64_t p) { return p * (p + 1) * 32 + p * p + p * 4096; }
// The 4 KiB alignment of the engine's buffers (O_DIRECT): every window of the two interval
// and the two scatter buffers, the offsets heading each scatter index, and each array.
inline uint64_t BufferPaddingBytes(uint64_t p) { return p * ((16 << 10) + 24) + (96 << 10); }
// kReservedBytes + tables + padding: what the engine holds besides the intervals' buffers.
inline uint64_t EngineFixedBytes(uint64_t p) {
  return kReservedBytes + EngineTableBytes(p) + BufferPaddingBytes(p);
}
// Throws std::invalid_argument, naming the least budget, when `memory_bytes` cannot hold even
// the fixed bytes of one interval: no graph can be sharded or run under it.
void CheckFixedBytes(uint64_t memory_bytes);

// What dynamic shards add to a run's memory plan when the vertex values are on disk
// (engine/engine.h): a flag byte per vertex, the delay buffer's slice of the largest interval
// and its staging copy (each padded for alignment), and the builder's two write buffers.
inline constexpr uint64_t kDynamicBuildBytes = uint64_t{8} << 20;  // 2 × WriteBuffers::kBytes
inline uint64_t DynamicShardBytes(uint64_t num_vertices, uint64_t largest_interval,
                                  uint64_t message_bytes) {
  return num_vertices + 2 * (largest_interval * message_bytes + 8192) + kDynamicBuildBytes;
}

// `bytes` in MiB for messages: "12 MiB", "0.1 MiB" — rounded up to a tenth, so that an amount
// that is needed is never shown as less (or as 0) than it is.
std::string FormatMiB(uint64_t bytes);

// Bytes the engine holds per in-edge, per out-edge and per vertex of an interval, before what
// the set's format adds (a weight, a run, run offsets: see cost(p) above).
struct IntervalCosts {
  uint64_t in_edge = kInEdgeBytes;
  uint64_t out_edge = kOutEdgeBytes;
  uint64_t vertex = kVertexBytes;
  friend bool operator==(const IntervalCosts&, const IntervalCosts&) = default;
  bool is_default() const { return *this == IntervalCosts{}; }
  // "8 B/in-edge + 4 B/out-edge + 39 B/vertex"
  std::string ToString() const;
};

// A program's value widths in bytes (engine/program.h's WidthsOf<Program>() fills it from the
// types): what one interval costs depends on them.
struct ValueWidths {
  uint64_t edge = 4;         // EdgeValue: one message per edge
  uint64_t accumulator = 8;  // what gather folds into
  uint64_t vertex = 16;      // VertexValue
  uint64_t priority = 0;     // the ordered schedule's key (engine/program.h); 0: none
};

// What the ordered schedule holds per vertex for a priority key of `priority_bytes`
// (engine/vertex_heap.h): a place (4) and two slots of key and offset, a queue's and a heap's
// (8 for a key of up to 4 bytes; else at most the key and offset rounded up to 16, which holds
// for keys aligned to 16 or less; the engine checks it against what VertexHeap allocates).
constexpr uint64_t OrderedBytesPerVertex(uint64_t priority_bytes) {
  const uint64_t slot = priority_bytes <= 4 ? 8 : (priority_bytes + 4 + 15) / 16 * 16;
  return 4 + 2 * slot;
}

// The one cost model, used by `needle shard` (default widths), `needle run` (each app's
// widths) and library users: the bytes per in-edge, out-edge and vertex the engine holds for
// a program of these widths, or the defaults where those are larger (so that every program
// within them shares the default set). An in-edge holds its target and message (4 + edge); an
// out-edge its message; a vertex its two degrees in each interval buffer (8, doubled), and once
// its accumulator, message, flag, sweep offset and senders (17 B), with a priority (the ordered
// schedule) OrderedBytesPerVertex(priority) (20 for a 4-byte key), and its value twice (the
// interval's, and the next interval's read ahead, when values live on disk):
// vertex = 8 + ceil((accumulator + edge + 17 + [ordered] + 2 × vertex) / 2).
IntervalCosts IntervalCostsFor(const ValueWidths& widths);

// What the planner is told besides the degrees and --memory.
struct PlanContext {
  bool weighted = false;     // the set stores weights: every in-edge also holds one
  uint64_t floor_bytes = 0;  // the least --memory the caller needs anyway (named in errors)
  uint32_t intervals = 0;    // cut into this many (fewer only where ids run out); 0: fewest
  // Room kept beside the plan (for dynamic shards): what the caller took off its --memory to
  // plan for `memory_bytes`, and the most it may take (errors name --memory with the first
  // and advise budgets with the second added).
  uint64_t kept_now = 0;
  uint64_t kept_most = 0;
  // "; with 12.1 MiB kept for dynamic shards" where room is kept, else empty.
  std::string KeptNote() const;
};

struct IntervalPlan {
  std::vector<uint32_t> bounds;  // P + 1 vertex ids: interval p is [bounds[p], bounds[p+1])
  IntervalCosts charged;         // a, b and c of cost(p) as used: the format's bytes added
  uint64_t usable_bytes = 0;     // the capacity an interval's cost had to stay within
  uint64_t max_cost = 0;         // the largest interval's cost
  uint64_t engine_bytes = 0;     // the engine's bound, at most --memory
  std::string rule;              // one line describing the computation
  uint32_t num_intervals() const { return static_cast<uint32_t>(bounds.size() - 1); }
};

// Plans with cost(p) above. Throws std::invalid_argument when --memory cannot hold the fixed
// bytes, when one vertex alone does not fit (naming the vertex, its degrees and the smallest
// --memory that works, at least context.floor_bytes), or when context.intervals intervals do
// not fit (naming the --memory they need).
IntervalPlan PlanIntervals(std::span<const uint32_t> out_degree,
                           std::span<const uint32_t> in_degree, uint64_t memory_bytes,
                           const IntervalCosts& costs = {}, const PlanContext& context = {});

// The same rule over units of 2^unit_shift consecutive ids (n ids in all; the last unit may be
// shorter), given each unit's summed out- and in-degrees: cuts fall on unit boundaries, and a
// unit's cost is exactly the sum of its vertices' costs. With unit_shift 0 this is
// PlanIntervals. Returns nullopt when a unit of more than one id alone does not fit (the
// caller then plans per vertex); throws like PlanIntervals otherwise.
std::optional<IntervalPlan> PlanIntervalsByUnits(std::span<const uint64_t> unit_out,
                                                 std::span<const uint64_t> unit_in, int unit_shift,
                                                 uint64_t n, uint64_t memory_bytes,
                                                 const IntervalCosts& costs = {},
                                                 const PlanContext& context = {});

// The engine's bound for a run of a set already cut at `bounds` (P + 1 ids), interval p
// holding out_edges[p] out-edges and in_edges[p] in-edges, under `memory_bytes`: each buffer
// sized for its largest interval plus the fixed bytes, with one-vertex intervals streamed,
// costliest first, until it fits (as the engine plans). At most `memory_bytes` means the set
// runs within that budget, whatever budget it was planned for.
uint64_t EngineBytesOfCut(std::span<const uint32_t> bounds,
                          std::span<const uint64_t> out_edges,
                          std::span<const uint64_t> in_edges, uint64_t memory_bytes,
                          const IntervalCosts& costs = {}, bool weighted = false);

}  // namespace needle
