// A run that fails part-way: a shard file cut short after the set was opened. The engine must
// report the file and the byte, wait for its in-flight I/O before freeing buffers (ASan checks
// that), and leave no work directory behind. A budget too small is refused before any I/O.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "apps/programs/pagerank.h"
#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/error.h"
#include "loaders/rmat.h"

namespace needle {
namespace {

class EngineErrorsTest : public WithTempDir<::testing::TestWithParam<IoKind>> {
 protected:
  std::string MakeShards() {
    RmatOptions rmat;
    rmat.scale = 10;
    rmat.edge_factor = 8;
    const std::string input = (dir() / "g.txt").string();
    WriteEdgeListText(GenerateRmat(rmat), input);
    ShardInto(input, (dir() / "g.shards").string(), 4);
    return (dir() / "g.shards").string();
  }
  bool WorkDirsLeft(const std::string& shards) {
    for (const auto& e : std::filesystem::directory_iterator(shards)) {
      if (e.path().filename().string().rfind(".run-", 0) == 0) return true;
    }
    return false;
  }
};

TEST_P(EngineErrorsTest, TruncatedShardFileFailsTheRunCleanly) {
  const std::string shards = MakeShards();
  const ShardSet set = ShardSet::Open(shards, /*verify_digests=*/false);
  ASSERT_GT(set.num_intervals(), 2u);
  const std::string victim = set.AdjacencyPath(2);
  std::filesystem::resize_file(victim, 4096);  // the header only
  EngineRun run;
  run.io = GetParam() == IoKind::kUring ? UringOrSkipNote() : IoKind::kPread;
  try {
    RunProgram(set, apps::PageRank{}, run);
    FAIL() << "the run did not fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), victim) << e.what();
    EXPECT_NE(std::string(e.what()).find("end of file"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(WorkDirsLeft(shards));
}

TEST_P(EngineErrorsTest, BudgetTooSmallIsRefusedWithTheFigures) {
  const std::string shards = MakeShards();
  const ShardSet set = ShardSet::Open(shards);
  EngineRun run;
  run.io = GetParam() == IoKind::kUring ? UringOrSkipNote() : IoKind::kPread;
  run.memory = 8 * kMiB;
  try {
    RunProgram(set, apps::PageRank{}, run);
    FAIL() << "the run was not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("too small"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("MiB"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(WorkDirsLeft(shards));
}

INSTANTIATE_TEST_SUITE_P(Backends, EngineErrorsTest,
                         ::testing::Values(IoKind::kPread, IoKind::kUring),
                         [](const auto& param) { return std::string(IoKindName(param.param)); });

}  // namespace
}  // namespace needle
