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

// --push auto: an iteration like R-MAT 22's last dense ones (every window read, few messages)
// and one like cnr-2000's (messages inside their intervals, the windows skipping the rest).
PushInputs Spread() {
  PushInputs in;
  in.iteration_io.read[Kind(FileKind::kAdjacency)] = 270'000'000;
  in.iteration_io.read[Kind(FileKind::kValues)] = 266'000'000;
  in.iteration_io.written[Kind(FileKind::kValues)] = 266'000'000;
  in.iteration_io.read[Kind(FileKind::kScatterIndex)] = 45'000'000;
  in.iteration_io.read[Kind(FileKind::kVertices)] = 68'000'000;
  in.iteration_io.written[Kind(FileKind::kVertices)] = 68'000'000;
  in.edges_loaded = 66'000'000;
  in.activity = 6'700'000;
  in.previous_activity = 56'000'000;
  in.num_edges = 67'000'000;
  in.own = 1.0 / 75;
  in.build_bytes = 8 * 67'000'000 + 45'000'000;
  in.iteration = 11;
  return in;
}

TEST(AutoModeTest, PushPaysWhereFewMessagesSpreadOverEveryWindow) {
  const PushEstimate e = EstimatePush(Spread());
  EXPECT_DOUBLE_EQ(e.static_bytes, 983e6);
  // fixed (vertex values, scatter index) + own share at S's cost per edge + 4 B a message
  const double per_edge = 802e6 / 66e6;
  EXPECT_NEAR(e.push_bytes, 181e6 + 6.7e6 / 75 * per_edge + 6.7e6 * 74 / 75 * 4, 1);
  EXPECT_DOUBLE_EQ(e.build_bytes, 581e6);
  EXPECT_DOUBLE_EQ(e.iterations, 1.0);  // paid back in the first pushed iteration, or not made
  EXPECT_TRUE(e.Pays()) << e.Describe();
}

TEST(AutoModeTest, PushDoesNotPayWhereMessagesStayInTheirIntervals) {
  // cnr-2000 at tolerance 1e-4, iteration 9: the windows read little, nearly all of it in
  // windows (p, p), which push turns would still read.
  PushInputs in;
  in.iteration_io.read[Kind(FileKind::kAdjacency)] = 4'000'000;
  in.iteration_io.read[Kind(FileKind::kValues)] = 3'800'000;
  in.iteration_io.written[Kind(FileKind::kValues)] = 900'000;
  in.edges_loaded = 420'000;
  in.activity = 285'000;
  in.previous_activity = 495'000;
  in.num_edges = 3'200'000;
  in.own = 0.97;
  in.build_bytes = 26'400'000;
  in.iteration = 9;
  const PushEstimate e = EstimatePush(in);
  EXPECT_DOUBLE_EQ(e.iterations, 1.0);
  EXPECT_FALSE(e.Pays()) << e.Describe();
  in.build_bytes = 0;  // already built, it saves a little each iteration
  EXPECT_TRUE(EstimatePush(in).Pays()) << EstimatePush(in).Describe();
}

// R-MAT 22's iteration 11 when it pulls: the windows between intervals are neither written
// nor read, but plain turns, which run if it does not push, would move their messages.
TEST(AutoModeTest, PushIsWeighedAgainstPlainTurnsAfterAPull) {
  PushInputs in = Spread();
  in.iteration_io.read[Kind(FileKind::kValues)] = 4'000'000;
  in.iteration_io.written[Kind(FileKind::kValues)] = 4'000'000;
  in.iteration_io.read[Kind(FileKind::kScatterIndex)] = 90'000'000;  // and the columns
  EXPECT_FALSE(EstimatePush(in).Pays()) << EstimatePush(in).Describe();
  in.pulled_message_bytes = 4 * 65'000'000;
  const PushEstimate e = EstimatePush(in);
  EXPECT_DOUBLE_EQ(e.static_bytes, 270e6 + 8e6 + 90e6 + 136e6 + 520e6);
  EXPECT_TRUE(e.Pays()) << e.Describe();
}

TEST(AutoModeTest, PushWaitsForActivityToDecay) {
  PushInputs in = Spread();
  in.previous_activity = in.activity;  // not decaying: R = 0
  EXPECT_FALSE(EstimatePush(in).Pays());
  in.build_bytes = 0;  // built already: one iteration's savings are enough
  EXPECT_DOUBLE_EQ(EstimatePush(in).iterations, 1.0);
  EXPECT_TRUE(EstimatePush(in).Pays());
}

}  // namespace
}  // namespace needle
