// OutputFile (io/output_file.h): what an output path names is written, never destroyed —
// a regular file is replaced only when the output is complete, a symlink stays a symlink, a
// FIFO or device is written in place, a directory or an unwritable place fails at once, and
// temporaries are locked while they live so that only dead writers' leftovers are removed.
#include "io/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "base/file_lock.h"
#include "tests/test_util.h"

namespace needle {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::ThrowsError;
using testing::WriteFile;

class OutputFileTest : public testing::WithTempDir<> {
 protected:
  // Names in the directory other than `keep`.
  std::vector<std::string> Others(const std::vector<std::string>& keep) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir())) {
      const std::string name = e.path().filename().string();
      if (std::find(keep.begin(), keep.end(), name) == keep.end()) out.push_back(name);
    }
    return out;
  }
};

TEST_F(OutputFileTest, RegularFileIsReplacedOnlyWhenCommitted) {
  WriteFile(File("out.txt"), "old\n");
  chmod(File("out.txt").c_str(), 0640);
  {
    OutputFile out(File("out.txt"));
    EXPECT_TRUE(out.replaces());
    out.Write("new\n");
    out.Flush();
    EXPECT_EQ(ReadFile(File("out.txt")), "old\n");  // untouched until committed
    out.Commit();
  }
  EXPECT_EQ(ReadFile(File("out.txt")), "new\n");
  struct stat st {};
  ASSERT_EQ(stat(File("out.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u) << "the replaced file's mode is kept";
  EXPECT_TRUE(Others({"out.txt"}).empty());
}

TEST_F(OutputFileTest, UncommittedOutputLeavesNothing) {
  WriteFile(File("out.txt"), "old\n");
  {
    OutputFile out(File("out.txt"));
    out.Write("partial");
  }
  {
    OutputFile fresh(File("fresh.txt"));
    fresh.Write("partial");
  }
  EXPECT_EQ(ReadFile(File("out.txt")), "old\n");
  EXPECT_FALSE(fs::exists(File("fresh.txt")));
  EXPECT_TRUE(Others({"out.txt"}).empty());
}

TEST_F(OutputFileTest, SymlinkStaysALinkAndItsTargetIsWritten) {
  fs::create_directory(File("real"));
  WriteFile(File("real/target.txt"), "old\n");
  fs::create_symlink("real/target.txt", File("link.txt"));
  fs::create_symlink("real/missing.txt", File("dangling.txt"));
  for (const char* name : {"link.txt", "dangling.txt"}) {
    OutputFile out(File(name));
    out.Write(std::string("via ") + name + "\n");
    out.Commit();
  }
  EXPECT_TRUE(fs::is_symlink(File("link.txt")));
  EXPECT_TRUE(fs::is_symlink(File("dangling.txt")));
  EXPECT_EQ(ReadFile(File("real/target.txt")), "via link.txt\n");
  EXPECT_EQ(ReadFile(File("real/missing.txt")), "via dangling.txt\n");
  EXPECT_TRUE(Others({"real", "link.txt", "dangling.txt"}).empty());
}

TEST_F(OutputFileTest, FifoIsWrittenInPlaceNotReplaced) {
  ASSERT_EQ(mkfifo(File("pipe").c_str(), 0600), 0);
  // The reading end first, without blocking, so that nothing here can hang.
  const int reader = ::open(File("pipe").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  {
    OutputFile out(File("pipe"));
    EXPECT_FALSE(out.replaces());
    out.Write("through the pipe\n");
    out.Commit();
  }
  char got[64] = {};
  EXPECT_EQ(::read(reader, got, sizeof(got)), 17);
  ::close(reader);
  EXPECT_EQ(std::string(got), "through the pipe\n");
  struct stat st {};
  ASSERT_EQ(lstat(File("pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  EXPECT_TRUE(Others({"pipe"}).empty());
}

TEST_F(OutputFileTest, DeviceIsWrittenInPlace) {
  struct stat before {};
  ASSERT_EQ(stat("/dev/null", &before), 0);
  {
    OutputFile out("/dev/null");
    EXPECT_FALSE(out.replaces());
    out.Write("nothing\n");
    out.Commit();
  }
  struct stat after {};
  ASSERT_EQ(stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  EXPECT_EQ(after.st_ino, before.st_ino);
}

TEST_F(OutputFileTest, DescriptorNamesWriteTheOpenDescriptor) {
  // /dev/fd/N of a descriptor open on a regular file writes through that descriptor, at its
  // offset, instead of replacing the file behind it — if the process started with it.
  const int fd = ::open(File("captured.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  RecordInheritedDescriptors();  // as main() does first thing: fd counts as inherited
  const int later = ::open(File("later.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(later, 0);
  EXPECT_TRUE(ThrowsError([&] { OutputFile out("/dev/fd/" + std::to_string(later)); },
                          "/dev/fd/" + std::to_string(later), "", "not started with"));
  ::close(later);
  ASSERT_EQ(::write(fd, "before\n", 7), 7);
  {
    OutputFile out("/dev/fd/" + std::to_string(fd));
    EXPECT_FALSE(out.replaces());
    out.Write("after\n");
    out.Commit();
  }
  ::close(fd);
  EXPECT_EQ(ReadFile(File("captured.txt")), "before\nafter\n");
  EXPECT_TRUE(Others({"captured.txt", "later.txt"}).empty());
}

TEST_F(OutputFileTest, UnwritableOutputsFailAtOnce) {
  EXPECT_TRUE(
      ThrowsError([&] { OutputFile out(dir().string()); }, dir().string(), "", "is a directory"));
  EXPECT_TRUE(ThrowsError([&] { OutputFile out(File("no/such/dir/out.txt")); },
                          File("no/such/dir/out.txt"), "", ""));
  EXPECT_TRUE(ThrowsError([&] { OutputFile out(""); }, "", "", "file name"));
}

TEST_F(OutputFileTest, OnlyUnlockedLeftoversAreRemoved) {
  WriteFile(File("out.txt.needle-tmp-dead00"), "left by a killed writer");
  WriteFile(File("out.txt.needle-tmp-alive0"), "being written");
  WriteFile(File("out.txt.needle-tmp-notours"), "not of the shape (7 characters)");
  WriteFile(File("out.txt.tmp-backup"), "the user's own");
  std::optional<FileLock> alive =
      FileLock::Open(File("out.txt.needle-tmp-alive0"), FileLock::Mode::kExclusive, false);
  ASSERT_TRUE(alive);
  OutputFile out(File("out.txt"));
  EXPECT_FALSE(fs::exists(File("out.txt.needle-tmp-dead00")));
  EXPECT_TRUE(fs::exists(File("out.txt.needle-tmp-alive0")));
  EXPECT_TRUE(fs::exists(File("out.txt.needle-tmp-notours")));
  EXPECT_TRUE(fs::exists(File("out.txt.tmp-backup")));
}

TEST_F(OutputFileTest, PositionalWritesNeedARegularFile) {
  OutputFile out("/dev/null");
  const char bytes[4] = {};
  EXPECT_THROW(out.WriteAt(bytes, 4, 0), Error);
  OutputFile file(File("out.bin"));
  file.Resize(8);
  file.WriteAt(bytes, 4, 4);
  file.Commit();
  EXPECT_EQ(fs::file_size(File("out.bin")), 8u);
}

}  // namespace
}  // namespace needle
