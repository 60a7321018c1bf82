// What EngineOptions promise: one default for the iteration limit — none: a run goes to
// convergence, as `needle run` does — an engine that cannot be built on a temporary shard set
// (it keeps a reference), and direct runs that use the buffers they register with io_uring.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "apps/programs/connected_components.h"
#include "apps/programs/pagerank.h"
#include "engine_test_util.h"

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
