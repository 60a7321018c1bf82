// --memory against the machine: the cgroup limit and MemAvailable are read from trees that
// mimic /proc and /sys/fs/cgroup (v1, v2, hybrid, a cgroup namespace, nothing at all), and
// the command line takes its default from them and refuses a budget above the limit.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "base/memory_limit.h"
#include "engine_test_util.h"
#include "run_cli_fixture.h"

namespace needle {
namespace {

using testing::ShellQuote;

constexpr uint64_t kMiB = uint64_t{1} << 20;

class MemoryLimitTest : public RunCliTest {
 protected:
  // A file under the fake root, with its directories.
  void Put(const std::string& relative, const std::string& text) {
    const std::filesystem::path path = dir() / "root" / relative;
    std::filesystem::create_directories(path.parent_path());
    WriteFile(path.string(), text);
  }
  std::string Root() { return (dir() / "root").string(); }
  void MemInfo(uint64_t available_kib) {
    Put("proc/meminfo", "MemTotal:       99999999 kB\nMemFree:        1 kB\nMemAvailable:   " +
                            std::to_string(available_kib) + " kB\nHugePages_Total:       0\n");
  }
  // A cgroup v2 mount at /sys/fs/cgroup and this process in /user/job.
  void V2(const std::string& user_max, const std::string& job_max) {
    Put("proc/self/mountinfo",
        "22 1 0:20 / /sys rw,nosuid - sysfs sysfs rw\n"
        "30 22 0:26 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n");
    Put("proc/self/cgroup", "0::/user/job\n");
    Put("sys/fs/cgroup/user/memory.max", user_max + "\n");
    Put("sys/fs/cgroup/user/job/memory.max", job_max + "\n");
  }
};

TEST_F(MemoryLimitTest, V2TakesTheSmallestLimitAlongThePath) {
  V2(std::to_string(300 * kMiB), "max");
  MemInfo(8 * 1024 * 1024);
  const MemoryLimits limits = ReadMemoryLimits(Root());
  ASSERT_TRUE(limits.cgroup_limit.has_value());
  EXPECT_EQ(*limits.cgroup_limit, 300 * kMiB);
  EXPECT_EQ(limits.cgroup_file, "/sys/fs/cgroup/user/memory.max");
  ASSERT_TRUE(limits.available.has_value());
  EXPECT_EQ(*limits.available, uint64_t{8} << 30);
  EXPECT_EQ(UsableMemory(limits), 300 * kMiB);

  V2("max", std::to_string(256 * kMiB));
  EXPECT_EQ(ReadMemoryLimits(Root()).cgroup_limit.value_or(0), 256 * kMiB);
  V2("max", "max");
  EXPECT_FALSE(ReadMemoryLimits(Root()).cgroup_limit.has_value());
}

TEST_F(MemoryLimitTest, V1AndHybridUseTheMemoryHierarchy) {
  // Hybrid: a unified hierarchy without the memory controller, and a v1 memory hierarchy.
  Put("proc/self/mountinfo",
      "30 22 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
      "31 22 0:27 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
      "32 22 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n");
  Put("proc/self/cgroup", "4:memory:/batch/a1\n3:cpu:/\n0::/\n");
  Put("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  Put("sys/fs/cgroup/memory/batch/memory.limit_in_bytes", "9223372036854771712\n");
  Put("sys/fs/cgroup/memory/batch/a1/memory.limit_in_bytes", std::to_string(512 * kMiB) + "\n");
  const MemoryLimits limits = ReadMemoryLimits(Root());
  EXPECT_EQ(limits.cgroup_limit.value_or(0), 512 * kMiB);
  EXPECT_EQ(limits.cgroup_file, "/sys/fs/cgroup/memory/batch/a1/memory.limit_in_bytes");
  EXPECT_FALSE(limits.available.has_value());  // no /proc/meminfo here
}

TEST_F(MemoryLimitTest, ACgroupNamespaceShowsItsOwnCgroupAtTheMountPoint) {
  // The mount's root is this container's cgroup: /proc/self/cgroup names it from the host's
  // view (or as "/" inside a namespace); either way the limit is at the mount point.
  Put("proc/self/mountinfo",
      "30 22 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  Put("sys/fs/cgroup/memory.max", std::to_string(64 * kMiB) + "\n");
  for (const char* own : {"0::/docker/abc\n", "0::/\n", "0::/elsewhere\n"}) {
    Put("proc/self/cgroup", own);
    EXPECT_EQ(ReadMemoryLimits(Root()).cgroup_limit.value_or(0), 64 * kMiB) << own;
  }
}

TEST_F(MemoryLimitTest, NothingReadableMeansNoLimit) {
  std::filesystem::create_directories(Root());
  const MemoryLimits limits = ReadMemoryLimits(Root());
  EXPECT_FALSE(limits.cgroup_limit.has_value());
  EXPECT_FALSE(limits.available.has_value());
  EXPECT_EQ(UsableMemory(limits), 0u);
  // Garbage in the files: no limit rather than a wrong one.
  V2("lots", "12abc");
  EXPECT_FALSE(ReadMemoryLimits(Root()).cgroup_limit.has_value());
}

TEST_F(MemoryLimitTest, TheCommandLineDefaultsToThreeQuartersOfTheLimitAndRefusesMore) {
  V2(std::to_string(256 * kMiB), "max");
  MemInfo(8 * 1024 * 1024);
  const std::string env = "NEEDLE_SYSTEM_ROOT=" + ShellQuote(Root()) + " ";
  const std::string graph = ShellQuote(Graph("g.txt", "0 1\n1 2\n2 0\n"));

  Result r = testing::RunCaptured(env + ShellQuote(NEEDLE_BINARY) + " run --help", dir().string());
  EXPECT_NE(OneLine(r.out).find("3/4 of the cgroup's memory limit, here 192 MiB"),
            std::string::npos)
      << r.out;

  r = testing::RunCaptured(env + ShellQuote(NEEDLE_BINARY) + " run pagerank " + graph +
                               " --memory 1G",
                           dir().string());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--memory 1 GiB is above this process's memory limit, 256 MiB "
                       "(/sys/fs/cgroup/user/memory.max)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("give at most --memory 192M"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(Path("g.txt.shards")));  // refused before any work
  r = testing::RunCaptured(env + ShellQuote(NEEDLE_BINARY) + " shard " + graph + " --memory 1G",
                           dir().string());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_FALSE(std::filesystem::exists(Path("g.txt.shards")));

  r = testing::RunCaptured(env + ShellQuote(NEEDLE_BINARY) + " run pagerank " + graph,
                           dir().string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("of --memory 192 MiB"), std::string::npos) << r.out;
}

TEST_F(MemoryLimitTest, ABudgetAboveTheAvailableMemoryIsWarnedAbout) {
  std::filesystem::create_directories(Root());
  MemInfo(100 * 1024);  // 100 MiB available, no cgroup
  const std::string graph = ShellQuote(Graph("g.txt", "0 1\n1 2\n2 0\n"));
  const Result r = testing::RunCaptured("NEEDLE_SYSTEM_ROOT=" + ShellQuote(Root()) + " " +
                                            ShellQuote(NEEDLE_BINARY) + " run pagerank " +
                                            graph + " --memory 150M",
                                        dir().string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning: --memory 150 MiB is more than the 100 MiB this machine has "
                       "available now"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace needle
