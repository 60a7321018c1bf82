// Sharders and readers of one shard set, at the same time (shards/set_lock.h): a set that is
// open is not rebuilt under its reader, a second sharder waits for the first and reuses what it
// built, and only leftovers that no live process holds are removed — never another process's
// staging directory, whatever its pid says.
#include "shards/set_lock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "shards/shard_set.h"
#include "shards/sharder.h"
#include "tests/shards/shard_cases.h"

namespace needle {
namespace {

namespace fs = std::filesystem;
using testing::ThrowsError;

class SetLockTest : public testing::WithTempDir<> {
 protected:
  void SetUp() override {
    WithTempDir::SetUp();
    input_ = testing::Rmat(dir().string(), 8, false, 8, 3);
    options_.memory_bytes = 80 << 20;
    options_.out_dir = File("set");
  }
  testing::Input input_;
  ShardOptions options_;
};

TEST_F(SetLockTest, OpenSetIsNotRebuiltUnderItsReader) {
  ShardGraph(input_.path, options_);
  const auto before = testing::StampsOf(File("set"));
  const ShardSet reading = ShardSet::Open(File("set"));
  ShardOptions force = options_;
  force.force = true;
  EXPECT_TRUE(ThrowsError([&] { ShardGraph(input_.path, force); }, File("set"), "", "in use"));
  EXPECT_EQ(testing::StampsOf(File("set")), before) << "the set in use was touched";
  EXPECT_TRUE(testing::Leftovers(File("set")).empty());
}

TEST_F(SetLockTest, SecondSharderWaitsForTheFirstAndReusesItsSet) {
  ShardGraph(input_.path, options_);
  std::mutex mutex;
  std::vector<std::string> lines;
  ShardOptions second = options_;
  second.log = [&](const std::string& line) {
    std::lock_guard lock(mutex);
    lines.push_back(line);
  };
  std::future<ShardReport> done;  // destroyed after the lock below is released
  // A sharder at work holds the set's directory exclusively; another one waits for it.
  std::optional<FileLock> first = LockSetForSharding(File("set"));
  done = std::async(std::launch::async, [&] { return ShardGraph(input_.path, second); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool waiting = false;
  while (!waiting && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::lock_guard lock(mutex);
    waiting = !lines.empty() && lines[0].find("waiting") != std::string::npos;
  }
  EXPECT_TRUE(waiting) << "the second sharder did not say it waits";
  EXPECT_EQ(done.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout)
      << "the second sharder did not wait";
  first.reset();
  EXPECT_TRUE(done.get().reused);
}

TEST_F(SetLockTest, SetBeingReplacedCannotBeOpened) {
  ShardGraph(input_.path, options_);
  std::optional<FileLock> replacing = LockSetForReplacing(File("set"));
  ASSERT_TRUE(replacing && replacing->held());
  EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(File("set")); }, File("set"), "", "rebuilt"));
  replacing.reset();
  EXPECT_NO_THROW(ShardSet::Open(File("set")));
}

// Two sharders of a set that neither can reuse, at once: one rebuilds it, the other waits and
// reuses that; neither fails, and the set is whole.
TEST_F(SetLockTest, TwoShardersOfAStaleSetTakeTurns) {
  ShardGraph(input_.path, options_);
  ShardOptions other = options_;
  for (int round = 0; round < 3; ++round) {
    other.memory_bytes += 4096;  // what the set there was not built for
    auto a = std::async(std::launch::async, [&] { return ShardGraph(input_.path, other); });
    auto b = std::async(std::launch::async, [&] { return ShardGraph(input_.path, other); });
    const ShardReport ra = a.get(), rb = b.get();
    EXPECT_NE(ra.reused, rb.reused) << "round " << round;
    EXPECT_NO_THROW(ShardSet::Open(File("set")));
    EXPECT_TRUE(testing::Leftovers(File("set")).empty());
  }
}

TEST_F(SetLockTest, LiveStagingDirectoriesAreKeptAndDeadOnesRemoved) {
  ShardGraph(input_.path, options_);
  fs::create_directory(File("set.needle-tmp-alive0"));
  fs::create_directory(File("set.needle-tmp-dead00"));
  fs::create_directory(File("set.needle-old-dead00"));
  std::optional<FileLock> alive =
      FileLock::Open(File("set.needle-tmp-alive0"), FileLock::Mode::kExclusive, false);
  ASSERT_TRUE(alive);
  ShardOptions force = options_;
  force.force = true;
  ShardGraph(input_.path, force);
  EXPECT_TRUE(fs::exists(File("set.needle-tmp-alive0")))
      << "another sharder's directory was removed";
  EXPECT_FALSE(fs::exists(File("set.needle-tmp-dead00")));
  EXPECT_FALSE(fs::exists(File("set.needle-old-dead00")));
  alive.reset();
  ShardGraph(input_.path, options_);  // reused: leftovers go whether or not it rebuilds
  EXPECT_FALSE(fs::exists(File("set.needle-tmp-alive0")));
}

TEST_F(SetLockTest, FailedFirstShardingLeavesNoDirectory) {
  testing::WriteFile(File("bad.el"), "0 1\n1 x\n");
  ShardOptions o = options_;
  o.out_dir = File("bad.shards");
  EXPECT_THROW(ShardGraph(File("bad.el"), o), Error);
  EXPECT_FALSE(fs::exists(File("bad.shards")));
  EXPECT_TRUE(testing::Leftovers(File("bad.shards")).empty());
}

}  // namespace
}  // namespace needle
