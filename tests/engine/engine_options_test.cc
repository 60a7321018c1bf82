// What EngineOptions promise: one default for the iteration limit — none: a run goes to
// convergence, as `needle run` does — an engine that cannot be built on a temporary shard set
// (it keeps a reference), and direct runs that use the buffers they register with io_uring.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "apps/programs/connected_components.h"
#include "apps/programs/pagerank.h"
#include "apps/programs/shortest_paths.h"
#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"

namespace needle {
namespace {

using CC = apps::ConnectedComponents;
static_assert(!std::is_constructible_v<Engine<CC>, ShardSet&&, CC, EngineOptions>,
              "an Engine must not bind to a temporary ShardSet");
static_assert(std::is_constructible_v<Engine<CC>, const ShardSet&, CC, EngineOptions>);

class EngineOptionsTest : public WithTempDir<> {};

TEST_F(EngineOptionsTest, DefaultRunsToConvergence) {
  EXPECT_EQ(EngineOptions{}.max_iterations, kNoIterationLimit);
  std::string text;
  for (int i = 0; i + 1 < 300; ++i) text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  WriteFile((dir() / "chain.el").string(), text);
  const ShardSet set = ShardInto((dir() / "chain.el").string(), (dir() / "set").string(), 1, true);
  EngineOptions options;
  options.max_inner_passes = 0;  // a label moves one hop per iteration, 299 hops
  Engine<CC> engine(set, CC{}, options);
  const RunSummary summary = engine.Run();
  EXPECT_TRUE(summary.converged);
  EXPECT_GT(summary.iterations, 200u);  // more than the old default of 100
  EXPECT_EQ(summary.iteration_limit, kNoIterationLimit);
  for (uint32_t label : engine.Values()) ASSERT_EQ(label, 0u);
}

// The sharder's plan is the engine's: a set cut by the budget alone fits that budget in the
// static windows transport, vertex values on disk, for every built-in program within the
// default costs (PageRank is the widest), weighted or not, direct or buffered.
TEST_F(EngineOptionsTest, SetsCutForABudgetRunWithinIt) {
  for (const bool weighted : {false, true}) {
    RmatOptions r;
    r.scale = 12;
    r.weighted = weighted;
    const std::string input = (dir() / (weighted ? "g.wel" : "g.el")).string();
    WriteEdgeListText(GenerateRmat(r), input);
    for (const uint64_t extra : {uint64_t{800} << 10, uint64_t{2} << 20}) {
      ShardOptions o;
      o.memory_bytes = testing::FixedFor(1) + extra;
      o.out_dir = (dir() / ("set" + std::to_string(weighted) + std::to_string(extra))).string();
      const ShardReport report = ShardGraph(input, o);
      SCOPED_TRACE(report.plan.rule);
      ASSERT_GT(report.manifest.num_intervals(), 1u);
      const ShardSet set = ShardSet::Open(o.out_dir);
      // The bound of the set's own cut is the plan's (what needle run's reuse asks).
      EXPECT_EQ(set.EngineBytes(o.memory_bytes), report.plan.engine_bytes);
      for (const bool direct : {true, false}) {
        EngineOptions options;
        options.memory_bytes = o.memory_bytes;
        options.transport = TransportChoice::kStatic;
        options.values_in_memory = false;
        options.io.direct = direct;
        const uint64_t pagerank =
            Engine<apps::PageRank>(set, apps::PageRank{}, options).memory_plan().Total();
        EXPECT_LE(pagerank, report.plan.engine_bytes);
        EXPECT_LE(Engine<CC>(set, CC{}, options).memory_plan().Total(), pagerank);
        apps::ShortestPaths<1> paths;
        paths.sources = {0};
        EXPECT_LE(Engine<apps::ShortestPaths<1>>(set, paths, options).memory_plan().Total(),
                  report.plan.engine_bytes);
      }
    }
  }
}

TEST_F(EngineOptionsTest, DirectRunsUseTheBuffersTheyRegister) {
  if (std::getenv("NEEDLE_TEST_NO_URING") != nullptr) GTEST_SKIP() << "io_uring refused here";
  const std::string input = (dir() / "g.el").string();
  WriteFile(input, "0 1\n1 2\n2 0\n2 3\n3 4\n4 1\n");
  const ShardSet set = ShardInto(input, (dir() / "set").string(), 2);
  {
    IoOptions io;
    io.kind = IoKind::kUring;
    io.direct = true;
    std::unique_ptr<IoBackend> probe = IoBackend::Create(io);
    if (!probe->Open(set.AdjacencyPath(0), FileKind::kAdjacency, false).direct()) {
      GTEST_SKIP() << "this file system refuses O_DIRECT: no direct transfers to count";
    }
  }
  for (bool registered : {true, false}) {
    EngineOptions options;
    options.io.kind = IoKind::kUring;
    options.io.direct = true;
    options.io.register_buffers = registered;
    options.transport = TransportChoice::kStatic;  // the transport that reads per turn
    Engine<apps::PageRank> engine(set, apps::PageRank{}, options);
    if (registered && !engine.buffers_registered()) {
      GTEST_SKIP() << "the kernel refused to register the buffers (RLIMIT_MEMLOCK)";
    }
    EXPECT_EQ(engine.buffers_registered(), registered);
    const RunSummary summary = engine.Run();
    if (registered) {
      EXPECT_GT(summary.fixed_buffer_requests, 0u);
    } else {
      EXPECT_EQ(summary.fixed_buffer_requests, 0u);
    }
  }
}

}  // namespace
}  // namespace needle
