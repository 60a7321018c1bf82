// The sharder's output directory: it replaces only what is (or was being made into) a shard
// set, never a directory of someone else's files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/error.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"

namespace needle {
namespace {

namespace fs = std::filesystem;

class ShardTargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("needle_target_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    input_ = (dir_ / "g.el").string();
    std::ofstream(input_) << "0 1\n1 2\n2 0\n";
    options_.memory_bytes = uint64_t{80} << 20;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string input_;
  ShardOptions options_;
};

TEST_F(ShardTargetTest, RefusesToReplaceADirectoryOfOtherFiles) {
  const fs::path target = dir_ / "mine";
  fs::create_directories(target);
  std::ofstream(target / "notes.txt") << "keep me\n";
  options_.out_dir = target.string();
  try {
    ShardGraph(input_, options_);
    FAIL() << "expected the sharder to refuse " << target;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a shard set"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(target / "notes.txt"));
  EXPECT_FALSE(fs::exists(target / "manifest"));
}

// A directory that looks like a set (a shard file, or a whole set) but also holds someone's
// files is not rebuilt: rebuilding replaces the directory whole. What needle itself leaves in
// a set (a run's stale work directory, a temporary) does not stop it.
TEST_F(ShardTargetTest, RefusesToRebuildADirectoryThatAlsoHoldsOtherFiles) {
  const fs::path target = dir_ / "mixed";
  fs::create_directories(target / "sub");
  std::ofstream(target / "shard-0000.adj") << "";
  std::ofstream(target / "thesis.txt") << "keep me\n";
  std::ofstream(target / "sub" / "data.csv") << "1,2\n";
  options_.out_dir = target.string();
  auto refused = [&](const std::string& files) {
    try {
      ShardGraph(input_, options_);
      ADD_FAILURE() << "expected the sharder to refuse " << target;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("not a shard set's: " + files), std::string::npos)
          << e.what();
    }
  };
  refused("sub, thesis.txt");
  EXPECT_TRUE(fs::exists(target / "thesis.txt"));
  EXPECT_TRUE(fs::exists(target / "sub" / "data.csv"));
  EXPECT_FALSE(fs::exists(target / "manifest"));

  const fs::path set = dir_ / "set";  // a whole set, and a note put in it
  options_.out_dir = set.string();
  ShardGraph(input_, options_);
  std::ofstream(set / "NOTES.txt") << "mine\n";
  EXPECT_TRUE(ShardGraph(input_, options_).reused);  // reusing it removes nothing
  options_.force = true;
  refused("NOTES.txt");
  EXPECT_TRUE(fs::exists(set / "NOTES.txt"));
  EXPECT_NO_THROW(ShardSet::Open(set.string()));
  fs::remove(set / "NOTES.txt");
  fs::create_directories(set / ".needle-run-Ab12Cd");  // what a killed run left
  std::ofstream(set / "manifest.needle-tmp-Xy34Zw") << "";
  const ShardReport rebuilt = ShardGraph(input_, options_);
  EXPECT_FALSE(rebuilt.reused);
  EXPECT_EQ(rebuilt.manifest.num_edges, 3u);
}

TEST_F(ShardTargetTest, RefusesAFileInPlaceOfTheDirectory) {
  const fs::path target = dir_ / "plain-file";
  std::ofstream(target) << "x";
  options_.out_dir = target.string();
  EXPECT_THROW(ShardGraph(input_, options_), Error);
  EXPECT_TRUE(fs::is_regular_file(target));
}

TEST_F(ShardTargetTest, FillsAnEmptyDirectory) {
  const fs::path target = dir_ / "empty";
  fs::create_directories(target);
  options_.out_dir = target.string();
  const ShardReport report = ShardGraph(input_, options_);
  EXPECT_FALSE(report.reused);
  EXPECT_TRUE(fs::exists(target / "manifest"));
  EXPECT_EQ(report.manifest.num_edges, 3u);
}

}  // namespace
}  // namespace needle

namespace needle {
namespace {

TEST_F(ShardTargetTest, EvictingASetKeepsItValidAndRefusesANonSet) {
  options_.out_dir = (dir_ / "set").string();
  ShardGraph(input_, options_);
  EvictShardSet(options_.out_dir);
  EXPECT_NO_THROW(ShardSet::Open(options_.out_dir));
  EXPECT_THROW(EvictShardSet((dir_ / "nothing-here").string()), Error);
}

}  // namespace
}  // namespace needle
