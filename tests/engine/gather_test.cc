// The routed gather (engine/routed_gather.h) folds every target's messages in shard order, as
// the scan does: the same values bit for bit at any thread count, in every transport and
// shard mode, for accumulation (PageRank) and selection programs (CC, MSSP). The split gather
// (engine/split_gather.h), for selection programs aggregated by min (CC, MSSP), gives the same
// values too; PageRank refuses it. Both helpers' buffers are in the memory plan, and auto
// scans where the budget cannot hold them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "apps/programs/connected_components.h"
#include "apps/programs/pagerank.h"
#include "apps/programs/shortest_paths.h"
#include "engine/split_gather.h"
#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"

namespace needle {
namespace {

class GatherTest : public WithTempDir<::testing::Test> {
 protected:
  // R-MAT scale 16 (16 sweep blocks of targets), weighted: two rounds of routing at 8 threads.
  std::string Graph() {
    RmatOptions options;
    options.scale = 16;
    options.edge_factor = 4;
    options.weighted = true;
    const std::string path = dir().string() + "/rmat.txt";
    WriteEdgeListText(GenerateRmat(options), path);
    return path;
  }

  // The memory plan of `Program` on `set` (vertex values on disk, so that only the buffers move
  // the total).
  template <class Program>
  static MemoryPlan PlanOf(const ShardSet& set, int threads, GatherChoice gather, uint64_t memory,
                           TransportChoice transport = TransportChoice::kStatic) {
    EngineRun run;
    run.threads = threads;
    run.gather = gather;
    run.memory = memory;
    run.transport = transport;
    run.values_in_memory = false;
    return Engine<Program>(set, Program{}, OptionsFor(run)).memory_plan();
  }

  // Runs `program` with the scan at 1 thread, then with the scan, the route and (where the
  // program allows it) the split at 2, 3 and 8 threads; every run's values must equal the
  // first's exactly.
  template <class Program, class Values>
  void ExpectSameValues(const ShardSet& set, const Program& program, Mode mode, Values values) {
    EngineRun run;
    run.Use(mode);
    run.threads = 1;
    run.gather = GatherChoice::kScan;
    RunSummary first;
    const auto reference = values(RunProgram(set, program, run, &first));
    std::vector<GatherChoice> gathers = {GatherChoice::kScan, GatherChoice::kRoute};
    if (SplitsGather<Program>()) gathers.push_back(GatherChoice::kSplit);
    for (int threads : {2, 3, 8}) {
      for (GatherChoice gather : gathers) {
        SCOPED_TRACE(ModeName(mode) + ", " + std::to_string(threads) + " threads, " +
                     std::string(GatherName(gather)));
        run.threads = threads;
        run.gather = gather;
        RunSummary summary;
        EXPECT_EQ(values(RunProgram(set, program, run, &summary)), reference);
        EXPECT_TRUE(summary.converged);
        EXPECT_EQ(summary.edges_used, first.edges_used);  // the same messages found
      }
    }
  }
};

TEST_F(GatherTest, PageRankRanksAreTheSameBitForBit) {
  const std::string input = Graph();
  for (uint32_t parts : {1u, 5u}) {
    SCOPED_TRACE(std::to_string(parts) + " intervals");
    const ShardSet set = ShardInto(input, dir().string() + "/pr" + std::to_string(parts), parts);
    apps::PageRank program;
    program.tolerance = 1e-3f;
    for (Mode mode : {Mode::kStaticSync, Mode::kResidentAsync, Mode::kOds}) {
      ExpectSameValues(set, program, mode, [](const auto& values) {
        std::vector<double> ranks;
        for (const auto& v : values) ranks.push_back(v.rank);
        return ranks;
      });
    }
  }
}

TEST_F(GatherTest, ComponentsAndDistancesAreTheSame) {
  const std::string input = Graph();
  const ShardSet set = ShardInto(input, dir().string() + "/sym", 4, /*symmetrize=*/true);
  for (Mode mode : {Mode::kStaticSync, Mode::kStaticAsync, Mode::kAds}) {
    ExpectSameValues(set, apps::ConnectedComponents{}, mode, [](const auto& values) {
      std::vector<uint32_t> labels;
      for (const auto& v : values) labels.push_back(v);
      return labels;
    });
    apps::ShortestPaths<4> mssp;
    mssp.sources = {0, 17, 4000, 65000};
    ExpectSameValues(set, mssp, mode, [](const auto& values) {
      std::vector<float> distances;
      for (const auto& v : values) distances.insert(distances.end(), v.begin(), v.end());
      return distances;
    });
  }
}

TEST_F(GatherTest, TheMemoryPlanCountsTheRouteAndAutoScansWhereItDoesNotFit) {
  const ShardSet set = ShardInto(Graph(), dir().string() + "/plan", 5);
  auto plan = [&](GatherChoice gather, uint64_t memory) {
    return PlanOf<apps::PageRank>(set, 8, gather, memory);
  };
  const MemoryPlan scan = plan(GatherChoice::kScan, 256 * kMiB);
  const MemoryPlan route = plan(GatherChoice::kAuto, 256 * kMiB);  // 8 threads: routes
  EXPECT_EQ(scan.gather, 0u);
  EXPECT_GT(route.gather, 0u);
  EXPECT_EQ(route.Total(), scan.Total() + route.gather);
  EXPECT_NE(route.Describe().find("gather buffers"), std::string::npos) << route.Describe();
  // A budget that holds everything but the route: auto scans, route is refused with the figure.
  EXPECT_EQ(plan(GatherChoice::kAuto, scan.Total()).gather, 0u);
  try {
    plan(GatherChoice::kRoute, scan.Total());
    ADD_FAILURE() << "--gather route ran without room for its buffer";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("gather buffers"), std::string::npos) << e.what();
  }
}

static_assert(SplitsGather<apps::ConnectedComponents>());
static_assert(SplitsGather<apps::ShortestPaths<4>>());
static_assert(!SplitsGather<apps::PageRank>());  // float sums depend on their order

TEST_F(GatherTest, TheSplitIsRefusedForAProgramWhoseSumsDependOnTheirOrder) {
  const ShardSet set = ShardInto(Graph(), dir().string() + "/pr", 2);
  EngineOptions options;
  options.threads = 2;
  options.gather = GatherChoice::kSplit;
  try {
    Engine<apps::PageRank> engine(set, apps::PageRank{}, options);
    ADD_FAILURE() << "--gather split ran PageRank";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--gather split needs"), std::string::npos) << e.what();
  }
}

TEST_F(GatherTest, TheMemoryPlanCountsTheSplitAndAutoScansWhereItWouldCostMemory) {
  const ShardSet set = ShardInto(Graph(), dir().string() + "/plan", 5, /*symmetrize=*/true);
  auto plan = [&](GatherChoice gather, uint64_t memory, TransportChoice transport) {
    return PlanOf<apps::ConnectedComponents>(set, 2, gather, memory, transport);
  };
  const uint64_t largest = set.largest_interval();
  const TransportChoice kStatic = TransportChoice::kStatic;
  const MemoryPlan scan = plan(GatherChoice::kScan, 256 * kMiB, kStatic);
  const MemoryPlan split = plan(GatherChoice::kAuto, 256 * kMiB, kStatic);  // 2 threads: splits
  EXPECT_EQ(scan.gather, 0u);
  EXPECT_EQ(split.gather, largest * (sizeof(uint32_t) + 1));  // one more thread's labels, flags
  EXPECT_EQ(split.Total(), scan.Total() + split.gather);
  EXPECT_NE(split.Describe().find("gather buffers"), std::string::npos) << split.Describe();
  // A budget that holds everything but the split: auto scans, split is refused with the figure.
  // (Without the degrees and scatter indexes the plan holds only where the budget has room.)
  EXPECT_GT(scan.degrees, 0u);
  const uint64_t scan_needs = scan.Total() - scan.Held();
  EXPECT_EQ(plan(GatherChoice::kAuto, scan_needs, kStatic).gather, 0u);
  EXPECT_EQ(plan(GatherChoice::kAuto, scan_needs, kStatic).degrees, 0u);
  try {
    plan(GatherChoice::kSplit, scan_needs, kStatic);
    ADD_FAILURE() << "--gather split ran without room for its arrays";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("gather buffers"), std::string::npos) << e.what();
  }
  // Nor does auto give up holding the set in memory for it.
  const TransportChoice kAuto = TransportChoice::kAuto;
  const MemoryPlan resident = plan(GatherChoice::kScan, 256 * kMiB, kAuto);
  ASSERT_EQ(resident.transport, TransportChoice::kResident);
  const MemoryPlan tight = plan(GatherChoice::kAuto, resident.Total(), kAuto);
  EXPECT_EQ(tight.transport, TransportChoice::kResident);
  EXPECT_EQ(tight.gather, 0u);
  EXPECT_GT(plan(GatherChoice::kAuto, resident.Total() + split.gather, kAuto).gather, 0u);
}

// From 8 threads auto may split a pass and route the others: both buffers are counted, and a
// budget that holds only the route's keeps the route.
TEST_F(GatherTest, FromEightThreadsAutoCountsTheSplitAndTheRouteAndDropsTheSplitFirst) {
  const ShardSet set = ShardInto(Graph(), dir().string() + "/eight", 5, /*symmetrize=*/true);
  auto plan = [&](GatherChoice gather, uint64_t memory) {
    return PlanOf<apps::ConnectedComponents>(set, 8, gather, memory);
  };
  const MemoryPlan scan = plan(GatherChoice::kScan, 256 * kMiB);
  const MemoryPlan route = plan(GatherChoice::kRoute, 256 * kMiB);
  const MemoryPlan split = plan(GatherChoice::kSplit, 256 * kMiB);
  const MemoryPlan both = plan(GatherChoice::kAuto, 256 * kMiB);
  EXPECT_GT(route.gather, 0u);
  EXPECT_GT(split.gather, 0u);
  EXPECT_EQ(both.gather, route.gather + split.gather);
  // (Budgets without what the plan holds only where it has room left: MemoryPlan::Held.)
  EXPECT_EQ(plan(GatherChoice::kAuto, route.Total() - route.Held()).gather, route.gather);
  EXPECT_EQ(plan(GatherChoice::kAuto, scan.Total() - scan.Held()).gather, 0u);
}

}  // namespace
}  // namespace needle
