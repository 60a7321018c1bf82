// needle shard/run --order bfs (shards/vertex_order.h) from the command line: a set numbered
// breadth-first gives the answers of a set in input order, in input ids — CC's labels and MSSP's
// distances identical (text and .npy), --sources in input ids, PageRank within --verify's
// bound — and on a graph whose ids do not follow its edges it takes fewer iterations; the
// dynamic modes run on such a set.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "run_cli_fixture.h"

namespace needle {
namespace {

using testing::ReadFile;
using testing::ShellQuote;

// A 60 x 40 grid whose ids are shuffled, so that neighbours rarely share an interval.
std::string ShuffledGrid() {
  constexpr uint32_t kW = 60, kH = 40;
  std::vector<uint32_t> id(kW * kH);
  std::iota(id.begin(), id.end(), 0);
  std::shuffle(id.begin(), id.end(), std::mt19937(11));
  std::string text;
  for (uint32_t y = 0; y < kH; ++y) {
    for (uint32_t x = 0; x < kW; ++x) {
      const uint32_t v = id[y * kW + x];
      if (x + 1 < kW) text += std::to_string(v) + " " + std::to_string(id[y * kW + x + 1]) + "\n";
      if (y + 1 < kH) text += std::to_string(v) + " " + std::to_string(id[(y + 1) * kW + x]) + "\n";
    }
  }
  return text;
}

int Iterations(const std::string& out) {
  std::string n = NumberBefore(out, " iterations (converged)");
  if (n.empty()) n = NumberBefore(out, " iteration (converged)");
  return n.empty() ? -1 : std::stoi(n);
}

TEST_F(RunCliTest, BreadthFirstOrderGivesTheSameAnswersInInputIdsInFewerIterations) {
  const std::string input = Graph("grid.el", ShuffledGrid());
  const std::string common = " --memory 64M --intervals 8 --transport static";
  // CC: identical labels (the least input id of each component), fewer iterations.
  Result in =
      Needle("run cc " + ShellQuote(input) + common + " --out " + Path("cc-input.tsv") + " --top 2");
  ASSERT_EQ(in.status, 0) << in.err;
  Result bfs = Needle("run cc " + ShellQuote(input) + common +
                      " --order bfs --out " + Path("cc-bfs.tsv") + " --top 2 --verify");
  ASSERT_EQ(bfs.status, 0) << bfs.err;
  EXPECT_NE(bfs.out.find("grid.el.sym.bfs.shards (8 intervals)"), std::string::npos) << bfs.out;
  EXPECT_NE(bfs.out.find("verified: cc agrees"), std::string::npos) << bfs.out;
  EXPECT_EQ(ReadFile(Path("cc-bfs.tsv")), ReadFile(Path("cc-input.tsv")));
  EXPECT_EQ(bfs.out.substr(bfs.out.find("1 component")), in.out.substr(in.out.find("1 component")));
  const int input_iterations = Iterations(in.out), bfs_iterations = Iterations(bfs.out);
  ASSERT_GT(bfs_iterations, 0) << bfs.out;
  EXPECT_LE(bfs_iterations, 3) << bfs.out;
  EXPECT_GT(input_iterations, 2 * bfs_iterations) << in.out;
  // MSSP from sources given in input ids: identical distances, text and .npy.
  for (const char* out : {"tsv", "npy"}) {
    SCOPED_TRACE(out);
    const std::string paths = " --symmetrize --sources 5,1717,42" + common;
    in = Needle("run mssp " + ShellQuote(input) + paths + " --out " + Path("d-input.") + out);
    ASSERT_EQ(in.status, 0) << in.err;
    bfs = Needle("run mssp " + ShellQuote(input) + paths + " --order bfs --verify --out " +
                 Path("d-bfs.") + out);
    ASSERT_EQ(bfs.status, 0) << bfs.err;
    EXPECT_NE(bfs.out.find("verified: mssp agrees"), std::string::npos) << bfs.out;
    EXPECT_EQ(ReadFile(Path(std::string("d-bfs.") + out)),
              ReadFile(Path(std::string("d-input.") + out)));
  }
  // PageRank: within the oracle's bound, in input ids.
  bfs = Needle("run pagerank " + ShellQuote(input) + common + " --order bfs --verify --out " +
               Path("r.tsv"));
  ASSERT_EQ(bfs.status, 0) << bfs.err;
  EXPECT_NE(bfs.out.find("verified: pagerank agrees"), std::string::npos) << bfs.out;
  EXPECT_EQ(ReadValues(Path("r.tsv")).size(), 2400u);
}

// A dynamic shard set built from a set numbered breadth-first carries its order.bin (it once
// failed: "manifest: does not list order.bin"); the answers are static's.
TEST_F(RunCliTest, DynamicModesRunOnABreadthFirstSet) {
  const std::string input = Graph("grid.el", ShuffledGrid());
  const std::string common = " --memory 64M --intervals 4 --order bfs --transport static";
  const std::string forced = " --shadow-below 0.99 --delay-buffer 1 --inner-passes 0";
  for (const std::string app : {"cc", "mssp --symmetrize --sources 5,1717", "pagerank"}) {
    const std::string run = "run " + app + " " + ShellQuote(input) + common;
    Result r = Needle(run + " --mode static --out " + Path("static.tsv"));
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* mode : {"ads", "ods"}) {
      SCOPED_TRACE(app + ", " + mode);
      r = Needle(run + " --mode " + mode + forced + " --verify --out " + Path("dynamic.tsv"));
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_NE(r.out.find("agrees"), std::string::npos) << r.out;
      const std::string sets = NumberBefore(r.out, " dynamic shard set");
      ASSERT_FALSE(sets.empty()) << r.out;
      EXPECT_GT(std::stoi(sets), 0) << r.out;
      if (app != "pagerank") {
        EXPECT_EQ(ReadFile(Path("dynamic.tsv")), ReadFile(Path("static.tsv")));
      }
    }
  }
}

TEST_F(RunCliTest, OrderIsRefusedWhenItCannotApply) {
  const std::string input = Graph("grid.el", ShuffledGrid());
  Result r = Needle("run cc " + ShellQuote(input) + " --memory 64M --order random");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--order must be input or bfs, not 'random'"), std::string::npos) << r.err;
  r = Needle("shard " + ShellQuote(input) + " --memory 64M --order dfs");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--order must be input or bfs"), std::string::npos) << r.err;
  r = Needle("shard " + ShellQuote(input) + " --memory 64M --order bfs");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("ordered 2400 vertices breadth-first"), std::string::npos) << r.out;
  r = Needle("info " + ShellQuote(input + ".bfs.shards"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("vertex order:    bfs (breadth-first"), std::string::npos) << r.out;
  r = Needle("run pagerank " + ShellQuote(input + ".bfs.shards") + " --memory 64M --order bfs");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("is a shard set"), std::string::npos) << r.err;
  // The set runs as it is, in input ids.
  r = Needle("run pagerank " + ShellQuote(input + ".bfs.shards") + " --memory 64M --verify");
  EXPECT_EQ(r.status, 0) << r.err;
  // needle compare passes the order (and the interval count) to the runs that shard GRAPH.
  r = Needle("compare cc " + ShellQuote(input) +
             " --order bfs --intervals 4 --memory 64M --modes static,ods");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("agrees"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::is_directory(input + ".sym.bfs.shards"));
}

}  // namespace
}  // namespace needle
