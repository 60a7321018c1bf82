// Statistics of a run: one record per iteration and a final summary, written as JSON lines
// (--stats FILE) — one object per line, "type" telling which.
#pragma once

#include <cstdint>
#include <string>

#include "engine/engine_options.h"
#include "io/io_backend.h"

namespace needle {

struct IterationStats {
  uint32_t iteration = 0;
  double seconds = 0;             // wall time of the iteration
  double io_wait_seconds = 0;     // blocked on reads of shards, windows and vertex values
  double compute_seconds = 0;     // gather, apply, scatter
  // CPU time of the dense passes' gathers (starting the accumulators and folding the in-edges'
  // messages), summed over the threads: gather_cpu_seconds / edges_loaded is the gather's CPU
  // per edge, which --gather changes.
  double gather_cpu_seconds = 0;
  double write_back_seconds = 0;  // blocked on writes of edge and vertex values
  IoCounters io;                  // bytes read and written during the iteration, by file kind
  uint64_t edges_loaded = 0;      // in-edges of the intervals computed
  // Page grain (EngineOptions::page_windows): in-edges of windows with messages that were not
  // gathered, their chunks holding none (edges_loaded counts only those gathered; their targets
  // may still have been read: every target of (p, p) with inner passes).
  uint64_t edges_skipped = 0;
  uint64_t edges_changed = 0;     // out-edges given a message other than identity()
  // loaded in-edges that carried a message (edges_used / edges_loaded: the edge utilisation;
  // edges_used is what an ideal dynamic shard would have held)
  uint64_t edges_used = 0;
  uint64_t active_vertices = 0;   // vertices computed
  uint64_t changed_vertices = 0;  // vertices whose change was scattered
  // The largest change() of a vertex in the iteration (ReportsChange programs; 0 otherwise).
  double largest_change = 0;
  uint32_t intervals_computed = 0;
  uint32_t intervals_cleared = 0;  // not computed, but their old messages overwritten
  uint64_t inner_passes = 0;       // extra passes of intervals over their own messages
  uint32_t inner_passes_max = 0;   // the most one interval took
  uint32_t intervals_ordered = 0;  // computed by the ordered schedule (engine.h)
  uint32_t intervals_sparse = 0;   // page grain: turns that read (p, p)'s targets run by run
  // Push turns (EngineOptions::push): turns that put their messages into the logs, the
  // messages they put there (also in edges_changed), and turns that would have but found the
  // logs full and filled the windows.
  uint32_t intervals_pushed = 0;
  uint64_t edges_pushed = 0;
  uint32_t push_fallbacks = 0;
  uint32_t intervals_pulled = 0;  // turns that kept their messages to others in the array
  uint32_t intervals_by_target = 0;  // turns that took their pulled messages by target
  uint32_t intervals_own_runs = 0;  // push and pull turns that read only window (p, p)'s runs of
                                    // their scatter index
  // Dynamic shards (EngineOptions::mode ads, ods):
  bool shadow = false;            // a shadow iteration: the static shards, the delay buffer flushed
  uint64_t dynamic_edges = 0;     // edges of the dynamic shards read (0: the static shards were)
  uint32_t whole_shards = 0;      // shards of the dynamic set read kept whole (WholeShardRule)
  uint64_t delayed_vertices = 0;  // vertices whose scatter waits in the delay buffer, at the end
  uint64_t delayed = 0;           // scatters put into the delay buffer this iteration
  IoCounters shard_build_io;      // of io: what building dynamic shards and moving messages took
  uint64_t dynamic_disk_bytes = 0;  // the dynamic shard set's files at the end of the iteration
};

struct RunSummary {
  std::string program;
  std::string command;     // the command line that ran it (set by the caller; may be empty)
  std::string parameters;  // the program's parameters, "name=value ..." (set by the caller)
  int threads = 0;         // OpenMP threads the engine used
  std::string io_backend;  // "io_uring" or "pread"
  bool direct = false;     // O_DIRECT in use for the shard files
  std::string transport;   // "static" or "resident" (TransportName)
  bool page_windows = false;  // static windows at page grain (EngineOptions::page_windows)
  std::string shard_set;   // the shard set's directory
  uint32_t iterations = 0;
  bool converged = false;        // false: stopped by the iteration limit first
  uint32_t iteration_limit = 0;  // EngineOptions::max_iterations (kNoIterationLimit: none)
  double seconds = 0;
  double io_wait_seconds = 0;
  double compute_seconds = 0;
  double gather_cpu_seconds = 0;
  double write_back_seconds = 0;
  IoCounters io;
  uint64_t edges_loaded = 0;
  uint64_t edges_skipped = 0;  // page grain (IterationStats::edges_skipped)
  uint64_t edges_changed = 0;
  uint64_t edges_used = 0;
  uint64_t inner_passes = 0;      // all iterations' IterationStats::inner_passes
  uint64_t intervals_ordered = 0;  // all iterations' IterationStats::intervals_ordered
  uint64_t intervals_sparse = 0;   // all iterations' IterationStats::intervals_sparse
  uint64_t intervals_pushed = 0;   // all iterations' IterationStats::intervals_pushed
  uint64_t edges_pushed = 0;       // all iterations' IterationStats::edges_pushed
  uint64_t push_fallbacks = 0;     // all iterations' IterationStats::push_fallbacks
  uint64_t intervals_pulled = 0;   // all iterations' IterationStats::intervals_pulled
  uint64_t intervals_by_target = 0;  // all iterations' IterationStats::intervals_by_target
  uint64_t intervals_own_runs = 0;  // all iterations' IterationStats::intervals_own_runs
  uint64_t out_adjacency_bytes = 0;  // the out-adjacency file push turns read (0: none built)
  uint64_t in_adjacency_bytes = 0;   // the in-adjacency file pull turns read (0: none built)
  uint32_t max_inner_passes = 0;  // EngineOptions::max_inner_passes
  uint64_t num_vertices = 0;
  uint64_t num_edges = 0;
  uint32_t num_intervals = 0;
  uint32_t intervals_streamed = 0;  // one-vertex intervals read and written in pieces (engine.h)
  std::string mode = "static";      // ShardModeName of the mode that ran
  uint32_t shadow_iterations = 0;
  uint32_t dynamic_builds = 0;      // dynamic shard sets written
  uint32_t whole_shards = 0;        // shards kept whole over those sets (WholeShardRule)
  uint64_t delayed = 0;             // scatters put into the delay buffer
  uint64_t delayed_max = 0;         // the most vertices it held at once
  uint64_t delay_buffer_max_bytes = 0;  // delayed_max × (4 + message width): the buffer's peak
  uint64_t dynamic_disk_peak = 0;   // the most bytes dynamic shard files took at once (a
                                    // build writes the new set before the old one goes)
  uint64_t shadow_bytes_read = 0;   // bytes read and written in shadow iterations (with the
  uint64_t shadow_bytes_written = 0;  // builds that follow them)
  uint64_t memory_budget = 0;
  uint64_t memory_planned = 0;  // buffers and resident values the engine allocated
  bool vertex_values_resident = false;
  uint64_t peak_rss_bytes = 0;
  uint64_t fixed_buffer_requests = 0;  // direct transfers through registered buffers (io_uring)

  // Adds an iteration's times and counts (edges, passes, the kinds of turns) to the run's.
  void Add(const IterationStats& s);
};

std::string ToJson(const IterationStats& s);  // one line, no newline
std::string ToJson(const RunSummary& s);

// Peak resident set size of this process so far (getrusage), in bytes.
uint64_t PeakRssBytes();

// CPU time the calling thread has used, in seconds.
double ThreadCpuSeconds();

}  // namespace needle
