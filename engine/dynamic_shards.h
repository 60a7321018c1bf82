// Dynamic shards (ATC'16 §3): a shard set holding only the edges that still carry new values.
//
// A vertex that changes sends on all its out-edges, so the edges that carried a message over
// some iterations are all the out-edges of the vertices that sent in them: a dynamic shard set
// is the static set filtered by source, a source either present with all its out-edges or
// absent with none. It is itself a shard set in the static format (shard_layout.h) — the same
// intervals, windows in the same (source, target) order, its own scatter indexes and window
// index, the static degrees — so the engine reads and writes it with the same transports, and
// its files are counted as FileKind::kDynamic. Where each edge sits in the static shard is what
// the runs say: every run of a dynamic window is a whole run of the static window, so walking
// both windows' runs side by side maps one onto the other in one sequential pass.
//
// WriteDynamicSet writes one (temporary names are not needed: it lives in a run's work
// directory, and its manifest, written last, is what makes it a set); MoveMessages carries a
// run's pending messages from one set's edge value files into another's — from the static set
// into a dynamic one (every sender present), from a dynamic set into a smaller one, or back
// into the static set at a shadow iteration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "base/types.h"
#include "engine/edge_value_files.h"
#include "engine/window_chunks.h"
#include "io/io_backend.h"
#include "shards/shard_set.h"

namespace needle {

// The sources a dynamic set keeps: u where flags[u] & mask (a flag byte a vertex).
struct KeptSources {
  std::span<const uint8_t> flags;
  uint8_t mask = 1;
  bool operator()(VertexId u) const { return (flags[u] & mask) != 0; }
};

// Shards kept whole (the choice per interval): shard q of a new set may hold every edge of
// `from`'s shard q instead of the kept sources' alone, where reading the edges of the sources
// left out costs less over the set's life than writing the kept ones. Such a shard's files are
// `from`'s, hard-linked where the file system allows (written again where it does not): its
// build writes nothing. rule(q, kept, edges): whether shard q is whole, given the edges the
// kept sources have in it and all of its edges in `from`. Every source keep() leaves out is
// still absent as the delay buffer counts it (a vertex's out-edges all present or all
// missing): its edges in a whole shard carry no message of it until the next shadow
// iteration (docs/engine.md, "Shards kept whole").
using WholeShardRule = std::function<bool(uint32_t shard, uint64_t kept, uint64_t edges)>;

struct DynamicSetWritten {
  uint64_t edges = 0;  // the set's
  // Per shard: 0 the kept sources' edges, 1 whole (written), 2 whole (linked from `from`).
  std::vector<uint8_t> whole;
  uint32_t WholeCount() const;
};

// Writes into `dir` (a new, empty directory) the shard set of those edges of `from` whose
// source u has keep(u) — every edge in the shards `whole` chooses (empty: none) — with
// `from`'s intervals and degrees. Reads `from` through `io` (its files counted as
// FileKind::kDynamic when from_dynamic) and writes FileKind::kDynamic files; decodes and
// filters the runs on `threads` threads (ThreadCount), the set the same at any count, and an
// interval without a kept source is not read. Throws Error (where several windows are
// damaged, the first in the order of the files).
DynamicSetWritten WriteDynamicSet(IoBackend& io, const ShardSet& from, bool from_dynamic,
                                  const KeptSources& keep, const std::string& dir,
                                  int threads = 1, const WholeShardRule& whole = {});

// For every window (q, r) of `from` that carries messages (from_carries, shard-major P × P),
// writes window (q, r) of `to` into `to_values`: an edge whose source has a run in both
// windows gets its message in `from`, any other identity. Only windows that end up carrying a
// message are written. from_marks: `from`'s windows are at page grain, and only their marked
// chunks hold messages (the rest is read as identity). Returns to's carries (shard-major
// P × P). Throws Error when a source's run differs between the sets (a damaged dynamic shard).
std::vector<uint8_t> MoveMessages(IoBackend& io, const ShardSet& from, bool from_dynamic,
                                  const EdgeValueFiles& from_values,
                                  const std::vector<uint8_t>& from_carries, const ShardSet& to,
                                  bool to_dynamic, const EdgeValueFiles& to_values,
                                  const std::vector<std::byte>& identity,
                                  const WindowChunks* from_marks = nullptr);

}  // namespace needle
