// `needle run --verify`: each app's answer recomputed by its serial oracle on the input graph
// and compared; a difference, an input that changed since sharding and a run that did not
// converge each end with their own exit status and message, never with "verified".
#include <gtest/gtest.h>

#include <string>

#include "run_cli_fixture.h"

namespace needle {
namespace {

using testing::ShellQuote;

bool Has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

constexpr const char* kWeighted =
    "0 1 2.5\n1 2 0.5\n2 0 1\n2 3 4\n3 4 0.25\n5 6 1\n6 5 2\n7 7 3\n4 1 1.5\n0 4 9\n";

TEST_F(RunCliTest, EveryAppAgreesWithItsOracle) {
  const std::string input = Graph("g.wel", kWeighted);
  for (const std::string app : {"pagerank", "cc", "mssp"}) {
    const std::string extra = app == "mssp" ? " --num-sources 3" : "";
    const Result r =
        Needle("run " + app + " " + ShellQuote(input) + " --verify --memory 128M" + extra);
    ASSERT_EQ(r.status, 0) << app << ": " << r.err;
    EXPECT_TRUE(Has(r.out, "verified: " + app + " agrees with")) << r.out;
  }
  // A shard set directory is verified against the graph it was built from.
  const Result r = Needle("run pagerank " + ShellQuote(input + ".shards") + " --verify");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "verified: pagerank agrees with")) << r.out;
  EXPECT_TRUE(Has(r.out, input)) << "names the graph it read:\n" << r.out;
}

// Float distances past 2^24 cannot take a +1 step (the sum rounds back to 2^24), so on a
// chain of unit edges behind one heavy edge the engine's float answers fall behind
// Dijkstra's double sums by more than the 1e-4 the check allows: --verify must say so, and the
// --out file must not look like an answer.
TEST_F(RunCliTest, AnswerThatDiffersFromTheOracleFails) {
  std::string chain = "0\t1\t16777216\n";
  for (int i = 1; i <= 3000; ++i) {
    chain += std::to_string(i) + "\t" + std::to_string(i + 1) + "\t1\n";
  }
  const std::string input = Graph("chain.wel", chain);
  const Result r = Needle("run mssp " + ShellQuote(input) + " --verify --out " +
                          ShellQuote(Path("d.txt")) + " --memory 128M");
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_TRUE(Has(r.err, "--verify: mssp differs from Dijkstra")) << r.err;
  EXPECT_TRUE(Has(r.err, "source 0: vertex ")) << r.err;
  EXPECT_FALSE(Has(r.out, "verified")) << r.out;
  const std::string out = testing::ReadFile(Path("d.txt"));
  EXPECT_EQ(out.rfind("# needle: --verify: mssp differs", 0), 0u) << out.substr(0, 200);
}

TEST_F(RunCliTest, InputChangedSinceShardingIsRefusedBeforeTheRun) {
  const std::string input = Graph("g.txt", "0 1\n1 2\n2 0\n");
  ASSERT_EQ(Needle("shard " + ShellQuote(input) + " --memory 128M").status, 0);
  WriteFile(input, "0 1\n1 2\n2 0\n2 1\n");
  const Result r = Needle("run pagerank " + ShellQuote(input + ".shards") + " --verify");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(Has(r.err, "not the graph")) << r.err;
  EXPECT_TRUE(Has(r.err, "g.txt")) << r.err;
  EXPECT_FALSE(Has(r.out, "iterations")) << "ran before failing:\n" << r.out;
}

TEST_F(RunCliTest, RunThatDidNotConvergeIsNotVerified) {
  std::string path;  // 0 → 1 → ... → 199: one hop per iteration without inner passes
  for (int i = 0; i < 199; ++i) path += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  const std::string input = Graph("path.txt", path);
  const Result r = Needle("run cc " + ShellQuote(input) +
                          " --verify --iters 2 --inner-passes 0 --transport static --memory 128M");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_TRUE(Has(r.err, "--verify: not checked, the run did not converge")) << r.err;
  EXPECT_FALSE(Has(r.out, "verified")) << r.out;
}

// The check's memory is known before the run: a compressed input alone takes the loader's
// 64 MiB text buffer, so 100,000 edges of it do not fit a 65 MiB budget that the run fits.
TEST_F(RunCliTest, CheckThatDoesNotFitTheBudgetIsRefusedBeforeTheRun) {
  std::string edges;
  for (uint32_t i = 0; i < 100000; ++i) {
    edges += std::to_string(i % 10000) + " " + std::to_string((i * 7919 + 1) % 10000) + "\n";
  }
  const std::string input = Graph("g.txt", edges);
  ASSERT_EQ(testing::RunCaptured("gzip " + ShellQuote(input), dir().string()).status, 0);
  Result r = Needle("run cc " + ShellQuote(input + ".gz") + " --memory 65M --verify");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "--verify holds the graph and the oracle's answer in memory: about "))
      << r.err;
  EXPECT_TRUE(Has(r.err, "more than --memory")) << r.err;
  EXPECT_FALSE(Has(r.out, "iterations")) << "ran before failing:\n" << r.out;
  r = Needle("run cc " + ShellQuote(input + ".gz") + " --memory 65M");
  EXPECT_EQ(r.status, 0) << "the run alone fits:\n" << r.err;
}

TEST_F(RunCliTest, HelpListsTheAppTable) {
  Result r = Needle("run --help");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* app : {"pagerank", "cc", "mssp"}) {
    EXPECT_TRUE(Has(r.out, std::string("\n  ") + app + " ")) << r.out;
  }
  EXPECT_TRUE(Has(r.out, "--verify")) << r.out;
  r = Needle("run bfs " + ShellQuote(Graph("g.txt", "0 1\n")));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(Has(r.err, "unknown app 'bfs' (pagerank, cc, mssp)")) << r.err;
}

}  // namespace
}  // namespace needle
