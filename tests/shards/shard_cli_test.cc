// `needle shard` and `needle info DIR`, run as separate processes: the interval rule and a
// summary on a fresh run, "reusing" on a second one, the shard set described and validated,
// damage reported naming the file, and bad input or budgets as one actionable stderr line and a
// non-zero exit status, with nothing left behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"
#include "tests/shards/shard_test_util.h"

#ifndef NEEDLE_BINARY
#error "NEEDLE_BINARY must name the needle executable (see tests/CMakeLists.txt)"
#endif

namespace needle {
namespace {

namespace fs = std::filesystem;
using testing::ShellQuote;

using Result = testing::CommandResult;

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// `key: value` lines of `needle info` as a map.
std::map<std::string, std::string> Fields(const std::string& out) {
  std::map<std::string, std::string> fields;
  for (const std::string& line : Lines(out)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t value = line.find_first_not_of(' ', colon + 1);
    fields[line.substr(0, colon)] = value == std::string::npos ? "" : line.substr(value);
  }
  return fields;
}

class ShardCliTest : public testing::WithTempDir<> {
 protected:
  Result Needle(const std::string& args) {
    return testing::RunCaptured(ShellQuote(NEEDLE_BINARY) + " " + args, dir().string());
  }
  // The tiny graph of tests/data (6 vertices, 9 edges), copied here.
  std::string Tiny() {
    const std::string path = File("tiny.txt");
    if (!fs::exists(path)) fs::copy_file(testing::TestDataPath("tiny.txt"), path);
    return path;
  }
  // An R-MAT graph of scale 12 (4096 vertices at most, 65536 edges) as a text edge list.
  std::string Rmat12(testing::OracleGraph* oracle) {
    RmatOptions r;
    r.scale = 12;
    const EdgeList list = GenerateRmat(r);
    *oracle = testing::OracleFromEdgeListFile(list);
    WriteEdgeListText(list, File("rmat12.el"));
    return File("rmat12.el");
  }
};

TEST_F(ShardCliTest, ShardPrintsTheRuleAndASummaryThenReuses) {
  const std::string g = Tiny();
  const std::string set = File("set");
  Result r = Needle("shard " + ShellQuote(g) + " --memory 80M --verbose --out " + ShellQuote(set));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // With --verbose, the rule comes first; a summary line follows (other lines, e.g. timings, may too).
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_GE(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0].rfind("intervals: 1, the fewest", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("usable"), std::string::npos) << lines[0];
  EXPECT_NE(r.out.find("\nsharded " + g + " -> " + set + ": 6 vertices, 9 edges, 1 interval,"),
            std::string::npos)
      << r.out;
  EXPECT_NO_THROW(ShardSet::Open(set));

  const auto stamps = testing::StampsOf(set);
  r = Needle("shard " + ShellQuote(g) + " --memory 80M --out " + ShellQuote(set));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("reusing"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sharded "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("intervals: "), std::string::npos) << r.out;
  EXPECT_EQ(testing::StampsOf(set), stamps);

  r = Needle("shard " + ShellQuote(g) + " --memory 80M --out " + ShellQuote(set) + " --force");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("sharded "), std::string::npos) << r.out;
}

TEST_F(ShardCliTest, DefaultOutputDirectoryIsNextToTheInput) {
  const std::string g = Tiny();
  const Result r = Needle("shard " + ShellQuote(g) + " --memory 80M");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NO_THROW(ShardSet::Open(g + ".shards"));
}

TEST_F(ShardCliTest, BufferedWritesTheSameSetAsTheDefaultDirectWrites) {
  testing::OracleGraph oracle;
  const std::string g = Rmat12(&oracle);
  const uint64_t usable = testing::CostsOf(oracle).total / 4;
  const std::string common = "shard " + ShellQuote(g) + " --memory " +
                             std::to_string(testing::MemoryFor(oracle, usable)) + " --intervals " +
                             std::to_string(testing::IntervalsFor(oracle, usable));
  Result r = Needle(common + " --out " + ShellQuote(File("direct")));
  ASSERT_EQ(r.status, 0) << r.err;
  r = Needle(common + " --buffered --out " + ShellQuote(File("buffered")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(testing::SameFiles(File("direct"), File("buffered")));
  testing::CheckShardSet(File("buffered"), oracle, false);
}

TEST_F(ShardCliTest, InfoDescribesAValidSet) {
  testing::OracleGraph oracle;
  const std::string g = Rmat12(&oracle);
  const testing::CostSummary cost = testing::CostsOf(oracle);
  const uint64_t memory = testing::MemoryFor(oracle, cost.total / 4);
  const std::string set = File("set");
  Result r = Needle("shard " + ShellQuote(g) + " --memory " + std::to_string(memory) +
                    " --intervals " + std::to_string(testing::IntervalsFor(oracle, cost.total / 4)) +
                    " -v --out " + ShellQuote(set));
  ASSERT_EQ(r.status, 0) << r.err;
  const uint32_t intervals = ShardSet::Open(set).num_intervals();
  EXPECT_GE(intervals, 4u);
  EXPECT_EQ(Lines(r.out)[0].rfind("intervals: " + std::to_string(intervals) + " as asked", 0),
            0u)
      << r.out;

  r = Needle("info " + ShellQuote(set));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto fields = Fields(r.out);
  EXPECT_EQ(fields.at("vertices"), std::to_string(oracle.num_vertices)) << r.out;
  EXPECT_EQ(fields.at("edges"), std::to_string(oracle.edges.size())) << r.out;
  EXPECT_EQ(fields.at("intervals").rfind(std::to_string(intervals), 0), 0u) << r.out;
  EXPECT_EQ(fields.at("weighted"), "no") << r.out;
  EXPECT_EQ(fields.at("valid").rfind("yes", 0), 0u) << r.out;
}

TEST_F(ShardCliTest, SymmetrizeWritesTheSymSetAndInfoSaysSo) {
  const std::string g = Tiny();
  Result r = Needle("shard " + ShellQuote(g) + " --memory 80M --symmetrize");
  ASSERT_EQ(r.status, 0) << r.err;
  // 9 edges, one a self-loop: 9 + 8 reverses.
  EXPECT_NE(("\n" + r.out).find("\nsymmetrized: 9 input edges -> 17 edges"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nsharded " + g + " -> " + g +
                       ".sym.shards: 6 vertices, 17 edges (symmetrized), 1 interval,"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(g + ".shards"));
  EXPECT_TRUE(ShardSet::Open(g + ".sym.shards").manifest().choices.symmetrize);

  r = Needle("info " + ShellQuote(g + ".sym.shards"));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  auto fields = Fields(r.out);
  EXPECT_EQ(fields["symmetrized"].rfind("yes", 0), 0u) << r.out;
  EXPECT_NE(fields["options"].find("--symmetrize"), std::string::npos) << r.out;
  EXPECT_EQ(fields["edges"], "17") << r.out;

  r = Needle("shard " + ShellQuote(g) + " --memory 80M --symmetrize");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("reusing"), std::string::npos) << r.out;

  r = Needle("shard " + ShellQuote(g) + " --memory 80M --out " + ShellQuote(g + ".sym.shards"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("symmetrize differs: it was built with --symmetrize"), std::string::npos)
      << r.out;
  r = Needle("info " + ShellQuote(g + ".sym.shards"));
  fields = Fields(r.out);
  EXPECT_EQ(fields["symmetrized"], "no") << r.out;
  EXPECT_EQ(fields["options"].find("--symmetrize"), std::string::npos) << r.out;
  EXPECT_EQ(fields["edges"], "9") << r.out;
}

TEST_F(ShardCliTest, InfoShowsTheIntervalCosts) {
  const std::string g = Tiny();
  ASSERT_EQ(Needle("shard " + ShellQuote(g) + " --memory 80M").status, 0);
  Result r = Needle("info " + ShellQuote(g + ".shards"));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(Fields(r.out)["interval costs"], "8 B/in-edge + 4 B/out-edge + 39 B/vertex (default)")
      << r.out;
  EXPECT_EQ(Fields(r.out)["symmetrized"], "no") << r.out;

  // No flag sets them: the engine does, through ShardOptions.
  ShardOptions o;
  o.memory_bytes = uint64_t{80} << 20;
  o.out_dir = File("costly");
  o.costs = IntervalCosts{32, 24, 8};
  ShardGraph(g, o);
  r = Needle("info " + ShellQuote(File("costly")));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(Fields(r.out)["interval costs"],
            "32 B/in-edge + 24 B/out-edge + 8 B/vertex (program-specific)")
      << r.out;
}

class DamagedSetCliTest : public ShardCliTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(DamagedSetCliTest, InfoFailsNamingTheFile) {
  const std::string set = File("set");
  ASSERT_EQ(Needle("shard " + ShellQuote(Tiny()) + " --memory 80M --out " + ShellQuote(set)).status,
            0);
  testing::FlipByte(set + "/" + GetParam(), 100);
  const Result r = Needle("info " + ShellQuote(set));
  EXPECT_NE(r.status, 0);
  EXPECT_NE((r.out + r.err).find(set + "/" + GetParam()), std::string::npos) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("valid:           yes"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Files, DamagedSetCliTest,
                         ::testing::Values("shard-0000.adj", "shard-0000.val", "windows.idx",
                                           "scatter-0000.idx", "degrees.bin", "manifest"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param;
                           for (char& c : name) {
                             if (c == '-' || c == '.') c = '_';
                           }
                           return name;
                         });

TEST_F(ShardCliTest, BadInputIsOneStderrLineWithPathAndLine) {
  const std::string g = File("bad.el");
  testing::WriteFile(g, "0 1\n1 2\n2 x\n3 0\n");
  const Result r = Needle("shard " + ShellQuote(g) + " --memory 80M");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out.find("sharded"), std::string::npos) << r.out;
  ASSERT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find(g + ":3:"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(g + ".shards"));
  EXPECT_TRUE(testing::Leftovers(g + ".shards").empty());
}

TEST_F(ShardCliTest, MissingInputIsOneStderrLineNamingIt) {
  const std::string g = File("absent.el");
  const Result r = Needle("shard " + ShellQuote(g) + " --memory 80M");
  EXPECT_EQ(r.status, 1);
  ASSERT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find(g), std::string::npos) << r.err;
}

// --intervals N cuts into N intervals; a count out of range, or N that do not fit --memory, is
// one stderr line and leaves nothing behind.
TEST_F(ShardCliTest, IntervalsAskedAreCutOrRefused) {
  testing::OracleGraph oracle;
  const std::string g = Rmat12(&oracle);
  Result r = Needle("shard " + ShellQuote(g) + " --intervals 5 --memory 200M --out " +
                    ShellQuote(File("five")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ShardSet::Open(File("five")).num_intervals(), 5u);
  testing::CheckShardSet(File("five"), oracle, true);
  for (const char* bad : {"-1", "65537", "x"}) {
    r = Needle("shard " + ShellQuote(g) + " --intervals " + bad + " --out " +
               ShellQuote(File("bad")));
    EXPECT_EQ(r.status, 2) << bad;
    ASSERT_EQ(Lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("--intervals"), std::string::npos) << r.err;
  }
  // 4,000 intervals take about 80 MiB of fixed bytes alone.
  r = Needle("shard " + ShellQuote(g) + " --intervals 4000 --memory 40M --out " +
             ShellQuote(File("bad")));
  EXPECT_NE(r.status, 0);
  ASSERT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("--intervals 4000 does not fit --memory 40 MiB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("give --memory"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(File("bad")));
  EXPECT_TRUE(testing::Leftovers(File("bad")).empty());
}

// "1.23 MB" (HumanBytes) or "30.4 MiB" (BinaryBytes) → bytes.
double ParseHumanBytes(const std::string& text) {
  std::istringstream in(text);
  double value = 0;
  std::string unit;
  in >> value >> unit;
  const std::map<std::string, double> scale = {{"B", 1},          {"KB", 1e3},
                                               {"MB", 1e6},       {"GB", 1e9},
                                               {"KiB", 1 << 10},  {"MiB", 1 << 20},
                                               {"GiB", 1 << 30}};
  EXPECT_EQ(scale.count(unit), 1u) << text;
  return scale.count(unit) ? value * scale.at(unit) : 0;
}

// Whether this build carries a sanitizer, whose shadow memory and quarantine count in the
// process's RSS but are not the sharder's.
constexpr bool kInstrumented =
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

// The budget holds for a graph whose vertices alone take a good part of it (4 M vertices: 32
// MiB of degree arrays in 64 MiB); sharding held those arrays beside an interval's edges and
// peaked at 71 MB. The sharder reports its own peak RSS. The plain suite (CI runs it first)
// holds the peak to the budget; an instrumented build checks the rest of the run and report.
TEST_F(ShardCliTest, ManyVerticesShardWithinTheBudget) {
  const std::string g = File("r22.csr");
  Result r = Needle("generate rmat --scale 22 --edge-factor 4 -o " + ShellQuote(g));
  ASSERT_EQ(r.status, 0) << r.err;
  r = Needle("shard " + ShellQuote(g) + " --memory 64M --out " + ShellQuote(File("set")));
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t at = r.out.find("peak RSS ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const size_t of = r.out.find(" of --memory ", at);
  ASSERT_NE(of, std::string::npos) << r.out;
  const double peak = ParseHumanBytes(r.out.substr(at + 9, of - at - 9));
  const double budget = ParseHumanBytes(r.out.substr(of + 13));
  EXPECT_NEAR(budget, 64 << 20, 1e4) << r.out;  // printed to 10 kB
  EXPECT_GT(peak, 0) << r.out;
  if (!kInstrumented) {
    EXPECT_LE(peak, budget) << r.out;
  }
}

// A budget that cannot work is refused before the input is read: the header's 8,000,000
// vertices need 61 MiB of degree arrays and the reserve, more than 64M; the edge line after the
// header is malformed, so an error about it would mean the input was read first.
TEST_F(ShardCliTest, BudgetTooSmallForTheHeadersVerticesIsRefusedBeforeReading) {
  const std::string g = File("big.mtx");
  testing::WriteFile(g, "%%MatrixMarket matrix coordinate pattern general\n"
                        "8000000 8000000 1\nx y\n");
  const Result r = Needle("shard " + ShellQuote(g) + " --memory 64M");
  EXPECT_NE(r.status, 0);
  ASSERT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("cannot hold the degree arrays of 8000000 vertices"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("give more than"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(g + ".shards"));
  EXPECT_TRUE(testing::Leftovers(g + ".shards").empty());
}

TEST_F(ShardCliTest, TooSmallMemoryIsOneStderrLineMentioningMemory) {
  const std::string g = Tiny();
  const Result r = Needle("shard " + ShellQuote(g) + " --memory 24M");
  EXPECT_NE(r.status, 0);
  ASSERT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("--memory"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(g + ".shards"));
  EXPECT_TRUE(testing::Leftovers(g + ".shards").empty());
}

}  // namespace
}  // namespace needle
