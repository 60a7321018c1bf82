// HashingWriter with and without a SyncBatch: the same bytes and digest either way, a batch
// that fills syncs what it holds before taking more, and a file that cannot be synced (a pipe)
// fails the batch naming it.
#include "shards/hashing_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "test_util.h"

namespace needle {
namespace {

using ::needle::testing::ReadFile;
using ::needle::testing::WithTempDir;

class HashingWriterTest : public WithTempDir<> {
 protected:
  // Writes `text` to `name` and finishes it (into `batch`, if given): its digest.
  uint64_t Write(const std::string& name, const std::string& text, SyncBatch* batch) {
    HashingWriter w(*io_, File(name), FileKind::kOther);
    w.Write(text.data(), text.size());
    return w.Finish(batch);
  }
  std::unique_ptr<IoBackend> io_ = IoBackend::Create(IoOptions{});
};

TEST_F(HashingWriterTest, BatchedFilesMatchSyncedOnesAndTheirDigests) {
  SyncBatch batch;
  const size_t count = SyncBatch::kMaxFiles + 3;  // one sync when full, one at the end
  std::vector<uint64_t> digests;
  for (size_t i = 0; i < count; ++i) {
    const std::string text = "file " + std::to_string(i) + std::string(i * 37, 'x');
    const std::string number = std::to_string(i);
    digests.push_back(Write(std::string("b").append(number), text, &batch));
    EXPECT_LE(batch.size(), SyncBatch::kMaxFiles);
    EXPECT_EQ(digests.back(), Write(std::string("s").append(number), text, nullptr)) << i;
  }
  EXPECT_EQ(batch.size(), 3u);
  batch.Sync();
  EXPECT_EQ(batch.size(), 0u);
  for (size_t i = 0; i < count; ++i) {
    const std::string number = std::to_string(i);
    const std::string b = File(std::string("b").append(number));
    const std::string s = File(std::string("s").append(number));
    EXPECT_EQ(ReadFile(b), ReadFile(s)) << i;
    EXPECT_EQ(ReadFile(b).size() % 4096, 0u) << i;  // padded as Finish() pads
    EXPECT_EQ(FileDigest(b), digests[i]) << i;
  }
  batch.Sync();  // nothing held: nothing to do
}

TEST_F(HashingWriterTest, AFileThatCannotBeSyncedFailsTheBatchNamingIt) {
  SyncBatch batch;
  Write("a", "first", &batch);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  UniqueFd read_end(fds[0]);
  batch.Add(UniqueFd(fds[1]), "the-pipe");  // fsync on a pipe fails (EINVAL)
  Write("c", "third", &batch);
  try {
    batch.Sync();
    FAIL() << "a pipe was synced";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the-pipe"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot fsync"), std::string::npos) << e.what();
  }
  EXPECT_EQ(batch.size(), 0u);  // closed, every one
  EXPECT_EQ(ReadFile(File("c")).substr(0, 5), "third");
}

}  // namespace
}  // namespace needle
