// The sharder: a graph file of any size → a shard set (shard_layout.h) within --memory.
//
// Pass 1 streams the input once through the block API. Each block's edges go, grouped by
// target, to one temporary bucket file (bucket_log.h), and their ends are counted in 65,536
// units of consecutive ids. The interval plan follows from the units' degree sums and the
// budget (intervals.h; cuts on unit boundaries, or per vertex from exact degrees when one unit
// alone is over the budget). Pass 2 gathers one interval's edges at a time from the bucket
// file, sorts them by (source, target, weight) in parallel, and writes the shard's adjacency
// file (and, weighted, its value file), its part of the window index and of the scatter
// indexes, and its exact degrees. Only then the manifest.
//
// Everything is written into a temporary sibling directory (DIR.needle-tmp-XXXXXX), every file
// is fsynced, the manifest is written last, and the directory is renamed into place (an older
// set at DIR is moved aside and removed). A killed sharder leaves at most a temporary
// directory, which no reader trusts and the next run removes; an error or SIGINT/SIGTERM
// removes it at once. Sharders of one set take turns, and a set that runs are reading is not
// replaced (set_lock.h).
//
// With `symmetrize`, every input edge u->v is sharded as u->v and v->u (a self-loop u->u
// once), both with its weight: the degrees, intervals, shards, windows, degrees.bin and the
// manifest's edge count all describe that symmetrized graph. It is a sharding choice, like
// the budget, the interval costs and the vertex order: recorded in the manifest and compared
// on reuse. With order "bfs" (vertex_order.h) a pass over the input before pass 1 numbers the
// vertices; pass 1 renumbers every edge as it reads it, and order.bin maps the set's ids back.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/io_backend.h"
#include "loaders/text_reader.h"
#include "shards/intervals.h"
#include "shards/manifest.h"
#include "shards/shard_set.h"
#include "shards/vertex_order.h"

namespace needle {

struct ShardOptions {
  uint64_t memory_bytes = uint64_t{1} << 30;
  ReadOptions read;                  // format, weights, threads of the input reader
  std::string format_name = "auto";  // as given on the command line (recorded)
  std::string weights_name = "auto";
  std::string out_dir;      // default: DefaultShardDir(GRAPH, symmetrize, order)
  bool symmetrize = false;  // shard every edge u->v also as v->u (a self-loop once)
  // The vertices' numbering in the set (vertex_order.h): "input" or "bfs".
  std::string order = kInputOrder;
  IntervalCosts costs;      // per-edge and per-vertex bytes the intervals are planned with
  // Cut into this many intervals (GraphChi's nshards; fewer only when the ids do not allow
  // that many cuts), refused when they do not fit --memory; 0: the fewest that fit.
  uint32_t intervals = 0;
  bool force = false;       // rebuild even when a matching set exists
  // Return the set open in ShardReport::set, locked for reading from the moment it was decided
  // on (no other sharder can replace it before the caller runs on it); the lock lasts as long
  // as that ShardSet.
  bool keep_open = false;
  // Also reuse a set that matches but was planned for another --memory, where its intervals
  // fit this budget: always for a smaller one (they are more, smaller ones than a fresh plan
  // would make), for a larger one where the engine's bound for them is within this budget
  // (EngineBytesOfCut: fewer, larger ones). `needle run` does, whose default --memory moves
  // with what is available; `needle shard`, asked to plan for a budget, does not.
  bool reuse_other_budget = false;
  int threads = 0;  // 0: OpenMP default
  // Backend for writing the shard files, O_DIRECT by default where the file system allows it:
  // they are written once and fsynced, so the page cache would only add a copy of each byte.
  IoOptions io{.direct = true};
  // Room for dynamic shards (0: none): the width of the program's messages. The intervals are
  // planned for --memory less DynamicShardBytes (intervals.h) of the plan's own largest
  // interval, and the set records that budget (so a run of the full --memory reuses it too:
  // reuse_other_budget).
  uint64_t dynamic_message_bytes = 0;
  // Other shard sets of this input to reuse, in order, before building at out_dir: the first
  // that matches the input and these options (as the set at out_dir would have to) is
  // returned instead. A candidate that is missing, not a set or does not match is passed over.
  std::vector<std::string> reuse_from;
  // Messages (reuse decisions, fallbacks); may be empty.
  std::function<void(const std::string&)> log;
  // The rule the intervals were cut by, in full (needle shard --verbose); may be empty.
  std::function<void(const std::string&)> detail;
  // Progress callback: phase (1..3), units done, units total. May be empty.
  std::function<void(int, uint64_t, uint64_t)> progress;
};

struct ShardReport {
  std::string dir;
  // With ShardOptions::keep_open, the set, open: its readers' lock is held from the moment the
  // sharder decided on it, so that no other sharder replaces it before the caller runs on it
  // (shards/set_lock.h).
  std::optional<ShardSet> set;
  bool reused = false;
  // Why an existing set was not reused (empty if none existed); for a set of another format
  // version, "shard set DIR is format version V; this needle reads format version W".
  std::string rebuild_reason;
  Manifest manifest;
  IntervalPlan plan;
  uint64_t bytes_written = 0;  // shard set files
  std::string io_backend;      // "io_uring" or "pread"
  IoCounters io_counters;      // bytes the backend wrote, per file kind
  double seconds = 0;
  double read_seconds = 0;   // pass 1: read the input, write the bucket file, count
  double write_seconds = 0;  // plan, pass 2: gather, sort, write the shard files
};

// Shards `input` unless a valid set built from it with the same choices already exists.
// Throws Error for bad input or I/O failure (nothing half-written stays behind) and
// std::invalid_argument when the budget cannot work.
ShardReport ShardGraph(const std::string& input, const ShardOptions& options);

// The default output directory for `input`: "<input>.shards", "<input>.sym.shards" for its
// symmetrized set, "<input>.bfs.shards" or "<input>.sym.bfs.shards" in breadth-first order (so
// that they can live side by side).
std::string DefaultShardDir(const std::string& input, bool symmetrize = false,
                            const std::string& order = kInputOrder);

}  // namespace needle
