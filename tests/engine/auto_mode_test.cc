// --mode auto's cost model (engine/auto_mode.h): when building dynamic shards pays, from
// figures of the kind a run measures.
#include "engine/auto_mode.h"

#include <gtest/gtest.h>

namespace needle {
namespace {

constexpr size_t Kind(FileKind k) { return static_cast<size_t>(k); }

// An iteration that read 100 MB of shard targets and messages for 10 M edges, and 10 MB of
// vertex values; activity falling by half an iteration; senders mostly the same.
AutoInputs Decaying() {
  AutoInputs in;
  in.iteration_io.read[Kind(FileKind::kAdjacency)] = 60'000'000;
  in.iteration_io.written[Kind(FileKind::kValues)] = 40'000'000;
  in.iteration_io.read[Kind(FileKind::kVertices)] = 10'000'000;
  in.edges_loaded = 10'000'000;
  in.num_edges = 10'000'000;
  in.activity = 1'000'000;
  in.previous_activity = 2'000'000;
  in.full_static_bytes = 110'000'000;
  in.static_set_bytes = 80'000'000;
  in.edge_write_bytes = 10;
  in.overlap = 0.95;
  in.iteration = 20;
  return in;
}

TEST(AutoModeTest, FewActiveEdgesDecayingPay) {
  const BuildEstimate e = EstimateBuild(Decaying());
  EXPECT_DOUBLE_EQ(e.static_bytes, 110e6);
  EXPECT_DOUBLE_EQ(e.dynamic_bytes, 10e6 + 10.0 * 1e6);  // fixed + 10 B an edge × 1 M edges
  EXPECT_DOUBLE_EQ(e.build_bytes, 80e6 + 10e6);           // read the set, write 1 M edges
  EXPECT_DOUBLE_EQ(e.flush_bytes, 110e6);
  // 1 M edges halving per iteration reach 10 M / 1000 in log2(100) iterations.
  EXPECT_NEAR(e.iterations, 6.64, 0.01);
  EXPECT_TRUE(e.Pays()) << e.Describe();
}

TEST(AutoModeTest, ActivityNotFallingOrMostEdgesActiveDoNotPay) {
  AutoInputs in = Decaying();
  in.previous_activity = in.activity;  // not decaying: R = 0
  EXPECT_EQ(EstimateBuild(in).iterations, 0);
  EXPECT_FALSE(EstimateBuild(in).Pays());
  in = Decaying();
  in.activity = 9'000'000;  // nearly every edge active: the set saves little
  in.previous_activity = 18'000'000;
  EXPECT_FALSE(EstimateBuild(in).Pays()) << EstimateBuild(in).Describe();
}

TEST(AutoModeTest, WhatTheRunLearnedBoundsTheIterations) {
  AutoInputs in = Decaying();
  in.overlap = 0.5;  // a sender sends again for one iteration on average
  EXPECT_DOUBLE_EQ(EstimateBuild(in).iterations, 1.0);
  EXPECT_FALSE(EstimateBuild(in).Pays());
  in = Decaying();
  in.iteration = 1;  // two iterations so far say little: at most two more
  EXPECT_DOUBLE_EQ(EstimateBuild(in).iterations, 2.0);
  in = Decaying();
  in.last_build_edges = 1'000'000;  // the last set served one iteration before its flush
  in.last_build_read = 80'000'000;
  in.last_build_written = 12'000'000;
  in.last_served = 1;
  const BuildEstimate e = EstimateBuild(in);
  EXPECT_DOUBLE_EQ(e.iterations, 1.0);
  EXPECT_DOUBLE_EQ(e.build_bytes, 92e6);  // measured: read 80 MB, wrote 12 MB for as many edges
  EXPECT_FALSE(e.Pays());
}

}  // namespace
}  // namespace needle
