// RunSummary::Add: a run's totals are the sums of its iterations' figures, in every kind of
// run (sweeps, page grain with sparse turns, push and pull turns, dynamic shards), so that
// `needle run --stats` and `needle compare` agree with the per-iteration lines they print.
#include <gtest/gtest.h>

#include <vector>

#include "apps/programs/pagerank.h"
#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"

namespace needle {
namespace {

class RunStatsTest : public WithTempDir<::testing::TestWithParam<Mode>> {};

TEST_P(RunStatsTest, SummaryTotalsAreTheSumsOfItsIterations) {
  const std::string input = WriteRmatText(File("g.el"), 9);
  const ShardSet set = ShardInto(input, File("set"), 4);
  EngineRun run;
  run.Use(GetParam());
  RunSummary summary;
  std::vector<IterationStats> stats;
  RunProgram(set, apps::PageRank{}, run, &summary, &stats);
  ASSERT_EQ(stats.size(), summary.iterations);
  IterationStats sum;
  for (const IterationStats& s : stats) {
    sum.io_wait_seconds += s.io_wait_seconds;
    sum.compute_seconds += s.compute_seconds;
    sum.gather_cpu_seconds += s.gather_cpu_seconds;
    sum.write_back_seconds += s.write_back_seconds;
    sum.edges_loaded += s.edges_loaded;
    sum.edges_changed += s.edges_changed;
    sum.edges_used += s.edges_used;
    sum.edges_skipped += s.edges_skipped;
    sum.inner_passes += s.inner_passes;
    sum.intervals_ordered += s.intervals_ordered;
    sum.intervals_sparse += s.intervals_sparse;
    sum.intervals_pushed += s.intervals_pushed;
    sum.edges_pushed += s.edges_pushed;
    sum.push_fallbacks += s.push_fallbacks;
    sum.intervals_pulled += s.intervals_pulled;
    sum.intervals_by_target += s.intervals_by_target;
    sum.intervals_own_runs += s.intervals_own_runs;
  }
  EXPECT_GT(sum.edges_loaded, 0u);
  EXPECT_DOUBLE_EQ(summary.io_wait_seconds, sum.io_wait_seconds);
  EXPECT_DOUBLE_EQ(summary.compute_seconds, sum.compute_seconds);
  EXPECT_DOUBLE_EQ(summary.gather_cpu_seconds, sum.gather_cpu_seconds);
  EXPECT_DOUBLE_EQ(summary.write_back_seconds, sum.write_back_seconds);
  EXPECT_EQ(summary.edges_loaded, sum.edges_loaded);
  EXPECT_EQ(summary.edges_changed, sum.edges_changed);
  EXPECT_EQ(summary.edges_used, sum.edges_used);
  EXPECT_EQ(summary.edges_skipped, sum.edges_skipped);
  EXPECT_EQ(summary.inner_passes, sum.inner_passes);
  EXPECT_EQ(summary.intervals_ordered, sum.intervals_ordered);
  EXPECT_EQ(summary.intervals_sparse, sum.intervals_sparse);
  EXPECT_EQ(summary.intervals_pushed, sum.intervals_pushed);
  EXPECT_EQ(summary.edges_pushed, sum.edges_pushed);
  EXPECT_EQ(summary.push_fallbacks, sum.push_fallbacks);
  EXPECT_EQ(summary.intervals_pulled, sum.intervals_pulled);
  EXPECT_EQ(summary.intervals_by_target, sum.intervals_by_target);
  EXPECT_EQ(summary.intervals_own_runs, sum.intervals_own_runs);
  if (GetParam() == Mode::kStaticPush) {
    EXPECT_GT(summary.intervals_pushed, 0u);
  }
  if (GetParam() == Mode::kStaticPull) {
    EXPECT_GT(summary.intervals_pulled, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, RunStatsTest,
                         ::testing::Values(Mode::kStaticAsync, Mode::kStaticPages,
                                           Mode::kStaticPush, Mode::kStaticPull, Mode::kOds,
                                           Mode::kAutoPages),
                         [](const ::testing::TestParamInfo<Mode>& mode) {
                           return ModeName(mode.param);
                         });

}  // namespace
}  // namespace needle
