// A run that fails part-way: a shard file cut short after the set was opened, or damage that
// keeps every checksum and structure intact but not the data (a scatter index's runs, a
// shard's targets). The engine must report the file and the byte, wait for its in-flight I/O
// before freeing buffers (ASan checks that), and leave no work directory behind — and remove
// only the work directories no one holds. A budget too small is refused before any I/O.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "apps/programs/connected_components.h"
#include "apps/programs/pagerank.h"
#include "base/error.h"
#include "base/file_lock.h"
#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"
#include "shards/run_codec.h"
#include "shards/shard_set.h"

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
  // Runs PageRank on the set in `shards` and expects an Error naming `path`, at `byte` (when
  // it is not Error::kNoPosition), saying `phrase`; and no working directory left.
  // PageRank, or with `split` connected components gathering with --gather split at 2 threads.
  void ExpectRunFails(const std::string& shards, const std::string& path, uint64_t byte,
                      const std::string& phrase, bool split = false) {
    const ShardSet set = ShardSet::Open(shards);  // its structure is intact
    EngineRun run;
    run.io = GetParam() == IoKind::kUring ? UringOrSkipNote() : IoKind::kPread;
    if (split) {
      run.threads = 2;
      run.gather = GatherChoice::kSplit;
    }
    try {
      if (split) {
        RunProgram(set, apps::ConnectedComponents{}, run);
      } else {
        RunProgram(set, apps::PageRank{}, run);
      }
      ADD_FAILURE() << "the run did not fail";
    } catch (const Error& e) {
      EXPECT_EQ(e.path(), path) << e.what();
      if (byte != Error::kNoPosition) {
        EXPECT_EQ(e.byte_offset(), byte) << e.what();
      }
      EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
    }
    EXPECT_FALSE(WorkDirsLeft(shards));
  }
  bool WorkDirsLeft(const std::string& shards) {
    for (const auto& e : std::filesystem::directory_iterator(shards)) {
      if (e.path().filename().string().rfind(".needle-run-", 0) == 0) return true;
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
    const std::string what = e.what();
    EXPECT_NE(what.find("too small"), std::string::npos) << what;
    // The smallest --memory that works, rounded up to a tenth of a MiB: it does work.
    const size_t at = what.find("give --memory ");
    ASSERT_NE(at, std::string::npos) << what;
    const double mib = std::stod(what.substr(at + 14));
    run.memory = static_cast<uint64_t>(mib * kMiB);
    EXPECT_GT(run.memory, 8 * kMiB);
    EXPECT_NO_THROW(RunProgram(set, apps::PageRank{}, run)) << what;
  }
  EXPECT_FALSE(WorkDirsLeft(shards));
}

// Rewrites the manifest's digest of `name` to match the file now, so that damage gets past
// the checksums and the structure checks are what must catch it.
void Redigest(const std::string& shards, const std::string& name) {
  const std::string bytes = testing::ReadFile(shards + "/" + name);
  std::string body = testing::ManifestBody(testing::ReadFile(shards + "/manifest"));
  const size_t line = body.find("file " + name + " ");
  ASSERT_NE(line, std::string::npos);
  const size_t digest = body.find('\n', line) - 16;
  body.replace(digest, 16, testing::Hex16(XXH3_64bits(bytes.data(), bytes.size())));
  testing::WriteFile(shards + "/manifest", testing::WithManifestHash(body));
}

// Overwrites `bytes.size()` bytes of `path` at `at`.
void Overwrite(const std::string& path, uint64_t at, const std::string& bytes) {
  std::string data = testing::ReadFile(path);
  ASSERT_LE(at + bytes.size(), data.size());
  data.replace(at, bytes.size(), bytes);
  testing::WriteFile(path, data);
}

uint64_t Load64(const std::string& path, uint64_t at) {
  const std::string data = testing::ReadFile(path);
  uint64_t v = 0;
  std::memcpy(&v, data.data() + at, 8);
  return v;
}

// A window's runs that do not decode (a varint that never ends) stop the run with the scatter
// index and the byte, before anything is read or written out of bounds.
TEST_P(EngineErrorsTest, DamagedScatterIndexFailsTheRunNamingTheByte) {
  const std::string shards = MakeShards();
  const std::string name = testing::ShardName(1, ".idx", "scatter");
  const std::string path = shards + "/" + name;
  const uint64_t first = Load64(path, 0);  // where window (0, 1)'s runs start
  ASSERT_GT(Load64(path, 8), first + 6) << "window (0, 1) has too few runs for the test";
  Overwrite(path, first, std::string(6, '\x80'));
  Redigest(shards, name);
  ExpectRunFails(shards, path, first, "damaged");
}

// An in-edge whose target lies outside its shard's interval stops the run naming the byte
// (it used to be skipped: a silently different answer).
TEST_P(EngineErrorsTest, TargetOutsideItsIntervalFailsTheRunNamingTheByte) {
  const std::string shards = MakeShards();
  const std::string path = shards + "/" + testing::ShardName(1, ".adj");
  const uint64_t runs = Load64(path, 16);
  const uint64_t targets_pos = Load64(path, 40);
  ASSERT_GT(runs, 0u);
  const uint32_t outside = 0;  // vertex 0 is in interval 0
  Overwrite(path, targets_pos, std::string(reinterpret_cast<const char*>(&outside), 4));
  Redigest(shards, testing::ShardName(1, ".adj"));
  ExpectRunFails(shards, path, targets_pos, "outside interval 1");
  ExpectRunFails(shards, path, targets_pos, "outside interval 1", /*split=*/true);
}

// Targets out of order inside one source's run of window (p, p) stop the run naming the byte:
// the sweeps find a thread's part of a run by search, which such a run would mislead.
TEST_P(EngineErrorsTest, TargetsOutOfOrderInARunFailTheRunNamingTheByte) {
  const std::string shards = MakeShards();
  const std::string path = shards + "/" + testing::ShardName(1, ".adj");
  const uint64_t targets_pos = Load64(path, 40);
  uint64_t at = 0;  // the first edge of a run of window (1, 1) whose first two targets differ
  {
    const ShardSet set = ShardSet::Open(shards);
    const std::string index = testing::ReadFile(set.ScatterIndexPath(1));
    const std::string adjacency = testing::ReadFile(path);
    auto target = [&](uint64_t edge) {
      uint32_t t = 0;
      std::memcpy(&t, adjacency.data() + targets_pos + 4 * edge, 4);
      return t;
    };
    const WindowEntry &first = set.Window(1, 1), &last = set.Window(1, 2);
    const auto* runs = reinterpret_cast<const uint8_t*>(index.data());
    uint64_t edge = first.first_edge;
    const RunDecodeStatus status = DecodeRuns(
        runs + set.ScatterOffset(1, 1), runs + set.ScatterOffset(2, 1),
        last.first_run - first.first_run, set.interval_begin(1), set.interval_end(1),
        last.first_edge - first.first_edge, [&](uint32_t, uint64_t count) {
          if (at == 0 && count >= 2 && target(edge) < target(edge + 1)) at = edge;
          edge += count;
        });
    ASSERT_TRUE(status.ok());
    ASSERT_GT(at, 0u) << "window (1, 1) has no run of two targets";
    const uint32_t swapped[2] = {target(at + 1), target(at)};
    Overwrite(path, targets_pos + 4 * at, std::string(reinterpret_cast<const char*>(swapped), 8));
  }
  Redigest(shards, testing::ShardName(1, ".adj"));
  ExpectRunFails(shards, path, targets_pos + 4 * (at + 1), "out of order");
}

// Only working directories no process holds are removed: not another live run's, however it
// looks from here (a process of another container is not visible), and nothing that is not
// named like one.
TEST_P(EngineErrorsTest, AnotherRunsWorkDirectoryIsKeptAndDeadOnesRemoved) {
  const std::string shards = MakeShards();
  std::filesystem::create_directory(shards + "/.needle-run-alive0");
  std::filesystem::create_directory(shards + "/.needle-run-dead00");   // no one holds it
  std::filesystem::create_directory(shards + "/.needle-run-notours");  // not a name needle makes
  std::optional<FileLock> alive =
      FileLock::Open(shards + "/.needle-run-alive0", FileLock::Mode::kExclusive, false);
  ASSERT_TRUE(alive);
  const ShardSet set = ShardSet::Open(shards);
  EngineRun run;
  run.io = GetParam() == IoKind::kUring ? UringOrSkipNote() : IoKind::kPread;
  RunProgram(set, apps::PageRank{}, run);
  EXPECT_TRUE(std::filesystem::exists(shards + "/.needle-run-alive0"));
  EXPECT_FALSE(std::filesystem::exists(shards + "/.needle-run-dead00"));
  EXPECT_TRUE(std::filesystem::exists(shards + "/.needle-run-notours"));
}

INSTANTIATE_TEST_SUITE_P(Backends, EngineErrorsTest,
                         ::testing::Values(IoKind::kPread, IoKind::kUring),
                         [](const auto& param) { return std::string(IoKindName(param.param)); });

}  // namespace
}  // namespace needle
