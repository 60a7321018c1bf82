// Interrupting needle (apps/cli/signals.h): SIGINT and SIGTERM in the middle of a run, a
// sharding or a conversion end it with status 130 or 143 and leave nothing of what it was
// writing — no output temporaries, no working directory, no half-built shard set — while what
// existed before (a shard set it was reading) stays valid. What a SIGKILL leaves, the next
// run removes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"

extern char** environ;

namespace needle {
namespace {

namespace fs = std::filesystem;
using testing::ShellQuote;

class InterruptTest : public WithTempDir<> {
 protected:
  std::string Path(const std::string& name) { return (dir() / name).string(); }

  // Starts `needle ARGS` with stdout and stderr to files; returns its pid.
  pid_t Start(const std::vector<std::string>& args) {
    std::vector<std::string> argv{NEEDLE_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> raw;
    for (std::string& a : argv) raw.push_back(a.data());
    raw.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, Path("stdout.txt").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, Path("stderr.txt").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, NEEDLE_BINARY, &actions, nullptr, raw.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    return pid;
  }
  // Waits (up to a minute) until `ready` holds; false if the process ended first.
  bool WaitUntil(pid_t pid, const std::function<bool()>& ready) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (std::chrono::steady_clock::now() < deadline) {
      if (ready()) return true;
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        ADD_FAILURE() << "needle ended (status " << status << ") before the signal:\n"
                      << testing::ReadFile(Path("stderr.txt"));
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ADD_FAILURE() << "timed out";
    return false;
  }
  // Exit status after `signal`, or -1 when it did not exit normally.
  int Signal(pid_t pid, int signal) {
    kill(pid, signal);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // Entries of `where` whose name starts with `prefix`.
  std::vector<std::string> Named(const std::string& where, const std::string& prefix) {
    std::vector<std::string> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(where, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(prefix, 0) == 0) found.push_back(name);
    }
    return found;
  }
  // A path long enough that cc runs for many seconds (a label moves one hop per iteration).
  std::string Chain() {
    std::string text;
    for (uint32_t i = 0; i + 1 < 20000; ++i)
      text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
    WriteFile(Path("chain.el"), text);
    return Path("chain.el");
  }
  // An R-MAT graph big enough that sharding or converting it takes a while.
  std::string Big() {
    RmatOptions r;
    r.scale = 18;
    WriteEdgeListText(GenerateRmat(r), Path("big.el"));
    return Path("big.el");
  }
};

TEST_F(InterruptTest, SignalsDuringARunLeaveNothingOfIt) {
  const std::string chain = Chain();
  const std::string set = chain + ".sym.shards";
  for (const int signal : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(strsignal(signal));
    const pid_t pid = Start({"run", "cc", chain, "--memory", "80M", "--inner-passes", "0",
                             "--out", Path("cc.tsv"), "--stats", Path("s.jsonl")});
    if (!WaitUntil(pid, [&] { return !Named(set, ".needle-run-").empty(); })) return;
    EXPECT_EQ(Signal(pid, signal), 128 + signal);
    EXPECT_NE(testing::ReadFile(Path("stderr.txt")).find("interrupted"), std::string::npos);
    EXPECT_TRUE(Named(dir().string(), "cc.tsv").empty());
    EXPECT_TRUE(Named(dir().string(), "s.jsonl").empty());
    EXPECT_TRUE(Named(set, ".needle-run-").empty());
    EXPECT_NO_THROW(ShardSet::Open(set));
  }
}

TEST_F(InterruptTest, WhatAKilledRunLeftIsRemovedByTheNext) {
  const std::string chain = Chain();
  const std::string set = chain + ".sym.shards";
  const pid_t pid = Start(
      {"run", "cc", chain, "--memory", "80M", "--inner-passes", "0", "--out", Path("cc.tsv")});
  if (!WaitUntil(pid, [&] { return !Named(set, ".needle-run-").empty(); })) return;
  EXPECT_EQ(Signal(pid, SIGKILL), -1);
  EXPECT_FALSE(Named(set, ".needle-run-").empty());
  EXPECT_FALSE(Named(dir().string(), "cc.tsv.needle-tmp-").empty());
  const testing::CommandResult r =
      testing::RunCaptured(ShellQuote(NEEDLE_BINARY) + " run cc " + ShellQuote(chain) +
                               " --memory 80M --inner-passes 0 --iters 3 --out " +
                               ShellQuote(Path("cc.tsv")),
                           dir().string());
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_TRUE(Named(set, ".needle-run-").empty());
  EXPECT_EQ(Named(dir().string(), "cc.tsv"), std::vector<std::string>{"cc.tsv"});
}

TEST_F(InterruptTest, SignalDuringShardingLeavesNoSet) {
  const std::string big = Big();
  const pid_t pid = Start({"shard", big, "--memory", "100M", "--out", Path("big.shards")});
  if (!WaitUntil(pid, [&] { return !Named(dir().string(), "big.shards.needle-tmp-").empty(); }))
    return;
  EXPECT_EQ(Signal(pid, SIGINT), 130);
  EXPECT_TRUE(Named(dir().string(), "big.shards").empty());
}

TEST_F(InterruptTest, SignalDuringConversionLeavesNoOutput) {
  const std::string big = Big();
  const pid_t pid = Start({"convert", big, "-o", Path("big.csr")});
  if (!WaitUntil(pid, [&] { return !Named(dir().string(), "big.csr.needle-tmp-").empty(); }))
    return;
  EXPECT_EQ(Signal(pid, SIGTERM), 143);
  EXPECT_TRUE(Named(dir().string(), "big.csr").empty());
}

}  // namespace
}  // namespace needle
