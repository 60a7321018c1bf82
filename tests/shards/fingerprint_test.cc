// The input fingerprint (shards/manifest.h): a shard set is reused only for the input it was
// built from. A same-size edit anywhere in the file with its mtime set back is noticed (the
// change time moved, and the content hash differs); a file whose times changed but whose
// bytes did not is still the same input.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "loaders/content_hash.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"
#include "tests/shards/shard_test_util.h"

namespace needle {
namespace {

class FingerprintTest : public testing::WithTempDir<> {
 protected:
  void SetUp() override {
    WithTempDir::SetUp();
    // A weighted path, long enough that its last lines lie well past the first 64 KiB.
    for (int i = 0; i < 20000; ++i)
      text_ += std::to_string(i) + " " + std::to_string(i + 1) + " 5\n";
    ASSERT_GT(text_.size(), 3u * 65536);
    testing::WriteFile(File("g.wel"), text_);
    options_.memory_bytes = 80 << 20;
    options_.out_dir = File("set");
  }
  timespec Mtime() {
    struct stat st {};
    stat(File("g.wel").c_str(), &st);
    return st.st_mtim;
  }
  void SetMtime(timespec t) {
    const timespec times[2] = {t, t};
    ASSERT_EQ(utimensat(AT_FDCWD, File("g.wel").c_str(), times, 0), 0);
  }
  std::string text_;
  ShardOptions options_;
};

TEST_F(FingerprintTest, ManifestRecordsTheWholeContentHash) {
  ShardGraph(File("g.wel"), options_);
  const Manifest m = ReadManifest(File("set"));
  EXPECT_EQ(m.input.content_hash, FileContentHash(File("g.wel"), GraphFormat::kAuto));
  EXPECT_EQ(m.input.size, text_.size());
}

TEST_F(FingerprintTest, SameSizeEditPastTheHeadWithMtimeRestoredIsRebuilt) {
  ShardGraph(File("g.wel"), options_);
  const timespec mtime = Mtime();
  std::string edited = text_;
  edited[edited.size() - 2] = '7';  // the last edge's weight: 5 -> 7, same size
  testing::WriteFile(File("g.wel"), edited);
  SetMtime(mtime);
  const ShardReport report = ShardGraph(File("g.wel"), options_);
  EXPECT_FALSE(report.reused);
  EXPECT_NE(report.rebuild_reason.find("content changed"), std::string::npos)
      << report.rebuild_reason;
}

TEST_F(FingerprintTest, TimesChangedContentNotIsReused) {
  ShardGraph(File("g.wel"), options_);
  const timespec mtime = Mtime();
  testing::WriteFile(File("g.wel"), text_);  // the same bytes again: new mtime and ctime
  EXPECT_TRUE(ShardGraph(File("g.wel"), options_).reused);
  SetMtime(mtime);  // and back
  EXPECT_TRUE(ShardGraph(File("g.wel"), options_).reused);
}

}  // namespace
}  // namespace needle
