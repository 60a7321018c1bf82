// --mode auto: whether building dynamic shards pays, from ATC'16's I/O cost model (§5, Eq.
// 1–3) fed with what the run has measured so far.
//
// Eq. 1: a regular iteration moves about 3|E|/b blocks on the static shards and 3|AE|/b on
// dynamic ones; Eq. 2: a shadow iteration adds 2|AE_LS|/b + |AE_i|/b to a static one; Eq. 3:
// dynamic shards pay when the iterations between shadows save more than the shadow adds.
// Here in bytes, each term measured or derived from measurements:
//   S      what the iteration just read from the static shards moved (reads and writes, without
//          its build), split into edge traffic (shard targets, messages, weights, scatter
//          index) and fixed traffic (vertex values, degrees, window index)
//   D      a regular iteration on the new set: the fixed traffic + S's edge traffic per loaded
//          edge × A, where A (the new set's edges) is what the iteration gave a message to
//   B      the build: reading the static set once more and writing A edges (measured from the
//          last build when there was one)
//   F      the flush the delayed scatters will need: one more iteration over the whole static
//          set (the most one static iteration has moved in this run)
//   R      the iterations the set will serve: while activity (edges given a message) decays
//          geometrically, the iterations until it falls to a thousandth of the edges, where
//          the run is as good as over (the static shards then skip most windows too: the last
//          iterations save little) — 0 while it is not decaying; and no more than the last
//          set served before its scatters had to be flushed (a set holds the out-edges of the
//          vertices that sent: where the next ones to change are others, it serves little) and,
//          before any set, than the overlap predicts: when a share w of an iteration's senders
//          had sent in the one before, a sender goes on sending for w / (1 − w) iterations;
//          and no more than the iterations run so far (two early points say little of a
//          decay: CC's activity hardly falls, then collapses)
// and build when R × (S − D) > B + F. Later work (HUS-Graph) found loading only active edges
// pays only when few are active; R and S − D are where that shows.
#pragma once

#include <cstdint>
#include <string>

#include "io/io_backend.h"

namespace needle {

// What an iteration on the static shards measured: both models' inputs.
struct IterationMeasure {
  IoCounters iteration_io;  // the static iteration just run, without any build's I/O
  uint64_t edges_loaded = 0;
  uint64_t activity = 0;           // edges given a message in it (a new set's edges)
  uint64_t previous_activity = 0;  // in the iteration before
  uint64_t num_edges = 0;          // of the graph
  uint32_t iteration = 0;          // the iteration just run (0-based)
};

struct AutoInputs : IterationMeasure {
  uint64_t full_static_bytes = 0;  // the most one static iteration has moved so far
  uint64_t static_set_bytes = 0;   // the static shard set's files (what a build reads)
  uint64_t edge_write_bytes = 0;   // what a build writes per edge kept (estimate)
  // The last build, when there was one: what it read and wrote, and the edges it kept.
  uint64_t last_build_read = 0, last_build_written = 0, last_build_edges = 0;
  uint32_t last_served = 0;  // regular iterations the last set served before a shadow
  double overlap = 1;        // the share of this iteration's senders that sent in the last
                             // (1: not measured, no bound)
};

struct BuildEstimate {
  double static_bytes = 0;   // S
  double dynamic_bytes = 0;  // D
  double build_bytes = 0;    // B
  double flush_bytes = 0;    // F
  double iterations = 0;     // R
  bool Pays() const { return iterations * (static_bytes - dynamic_bytes) > build_bytes + flush_bytes; }
  std::string Describe() const;  // "R × (S − D) = ... MB against B + F = ... MB"
};

BuildEstimate EstimateBuild(const AutoInputs& in);

// --push auto (engine.h, "Push turns"): whether the next iteration's turns should push. In the
// terms above, for an iteration just run on the static windows:
//   S  what it moved; its edge traffic (targets, messages, weights) per loaded edge, and its
//      fixed traffic (vertex values, degrees, window and scatter indexes: push turns read
//      those as well). After a pull iteration, what plain turns would move instead: its bytes
//      plus the messages of its pulled windows, written and read
//   P  a push iteration: the fixed traffic; the messages to the interval's own vertices, which
//      still go through window (p, p) (a share `own` of the edges), at S's cost per edge; and
//      4 bytes of out-adjacency per message to another interval
//   B  building the out-adjacency once: reading every target and scatter index, writing every
//      target (0 once built)
//   R  one iteration while activity decays (the build must pay back in the first iteration
//      it serves, at today's savings: where the static windows skip what carries nothing, S
//      falls with activity and S − P with it), none while it does not; one once the
//      out-adjacency is built
// and push when R × (S − P) > B.
struct PushInputs : IterationMeasure {
  double own = 0;            // share of the edges in windows (p, p)
  uint64_t build_bytes = 0;  // B (0: built)
  uint64_t pulled_message_bytes = 0;  // the messages of the windows pull turns marked
};

struct PushEstimate {
  double static_bytes = 0;  // S
  double push_bytes = 0;    // P
  double build_bytes = 0;   // B
  double iterations = 0;    // R
  bool Pays() const { return iterations * (static_bytes - push_bytes) > build_bytes; }
  std::string Describe() const;  // "R × (S − P) = ... MB against B = ... MB"
};

PushEstimate EstimatePush(const PushInputs& in);

}  // namespace needle
