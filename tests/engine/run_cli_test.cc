// `needle run` end to end: the output file, the statistics, --top, reuse of a shard set, and
// the errors (each with exit status and no output file left behind). Values are checked
// against the serial oracles, independently of the engine tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "apps/oracles/oracles.h"
#include "base/version.h"
#include "engine_test_util.h"
#include "run_cli_fixture.h"

namespace needle {
namespace {

using testing::ShellQuote;

constexpr const char* kGraph = "0 1\n1 2\n2 0\n2 3\n3 4\n5 6\n6 5\n7 7\n4 1\n";

TEST_F(RunCliTest, PageRankWritesValuesStatsAndTop) {
  const std::string input = Graph("g.txt", kGraph);
  const Result r = Needle("run pagerank " + ShellQuote(input) + " --tolerance 1e-6 --out " +
                          ShellQuote(Path("pr.txt")) + " --stats " + ShellQuote(Path("s.jsonl")) +
                          " --top 2 --memory 128M");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("converged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("top 2 vertices by rank"), std::string::npos) << r.out;
  const auto rows = ReadValues(Path("pr.txt"));
  const std::vector<double> expected = oracle::PageRank(LoadCsr(input));
  ASSERT_EQ(rows.size(), expected.size());
  std::vector<double> actual;
  for (const auto& row : rows) actual.push_back(row.at(0));
  EXPECT_EQ(oracle::CompareValues(expected, actual, 1e-4, 1e-5), "");

  const std::string stats = testing::ReadFile(Path("s.jsonl"));
  std::istringstream lines(stats);
  std::string line;
  int iterations = 0, summaries = 0;
  while (std::getline(lines, line)) {
    ASSERT_EQ(line.front(), '{');
    ASSERT_EQ(line.back(), '}');
    if (line.find("\"type\":\"iteration\"") != std::string::npos) {
      EXPECT_NE(line.find("\"iteration\":" + std::to_string(iterations)), std::string::npos);
      for (const char* key :
           {"io_wait_seconds", "compute_seconds", "write_back_seconds", "bytes_read",
            "bytes_written", "edges_loaded", "edges_used", "edges_changed", "active_vertices"}) {
        EXPECT_NE(line.find(key), std::string::npos) << key << " missing in " << line;
      }
      ++iterations;
    } else {
      EXPECT_NE(line.find("\"type\":\"summary\""), std::string::npos) << line;
      EXPECT_NE(line.find("\"converged\":true"), std::string::npos) << line;
      EXPECT_NE(line.find("\"iterations\":" + std::to_string(iterations)), std::string::npos);
      EXPECT_NE(line.find("\"peak_rss_bytes\""), std::string::npos);
      EXPECT_NE(line.find("\"version\":\"" + std::string(Version()) + "\""), std::string::npos)
          << line;
      // What ran: the command line, the app's parameters, the threads.
      EXPECT_NE(line.find("\"command\":\"needle run pagerank "), std::string::npos) << line;
      EXPECT_NE(line.find("\"parameters\":\"tolerance=1e-06 damping=0.85\""),
                std::string::npos)
          << line;
      EXPECT_NE(line.find("\"threads\":"), std::string::npos) << line;
      ++summaries;
    }
  }
  EXPECT_GT(iterations, 1);
  EXPECT_EQ(summaries, 1);
}

// numpy's .npy (format 1.0): the header dict and the values after it.
struct Npy {
  std::string dict;
  std::string data;
};
Npy ReadNpy(const std::string& path) {
  const std::string bytes = testing::ReadFile(path);
  EXPECT_GE(bytes.size(), 10u);
  if (bytes.size() < 10) return {};
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t length = static_cast<uint8_t>(bytes[8]) | static_cast<uint8_t>(bytes[9]) << 8;
  EXPECT_EQ((10 + length) % 64, 0u) << "the data starts 64-byte aligned";
  EXPECT_EQ(bytes[10 + length - 1], '\n');
  return {bytes.substr(10, length), bytes.substr(10 + length)};
}

TEST_F(RunCliTest, NpyOutputIsNumpysFormatWithTheSameValues) {
  const std::string input = Graph("g.txt", kGraph);
  ASSERT_EQ(Needle("run pagerank " + ShellQuote(input) + " --memory 128M -o " +
                   ShellQuote(Path("r.npy")))
                .status,
            0);
  ASSERT_EQ(Needle("run pagerank " + ShellQuote(input) + " --memory 128M -o " +
                   ShellQuote(Path("r.tsv")))
                .status,
            0);
  Npy npy = ReadNpy(Path("r.npy"));
  EXPECT_EQ(npy.dict.rfind("{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }", 0), 0u)
      << npy.dict;
  const auto rows = ReadValues(Path("r.tsv"));
  ASSERT_EQ(npy.data.size(), rows.size() * sizeof(double));
  for (size_t v = 0; v < rows.size(); ++v) {
    double rank;
    std::memcpy(&rank, npy.data.data() + v * sizeof(double), sizeof rank);
    EXPECT_NEAR(rank, rows[v].at(0), 1e-8 * rows[v].at(0)) << "vertex " << v;
  }
  // mssp: one row per vertex, a column per source (inf for unreachable); cc: uint32 labels.
  ASSERT_EQ(Needle("run mssp " + ShellQuote(input) + " --sources 0,5 --memory 128M -o " +
                   ShellQuote(Path("d.npy")))
                .status,
            0);
  npy = ReadNpy(Path("d.npy"));
  EXPECT_EQ(npy.dict.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (8, 2), }", 0), 0u)
      << npy.dict;
  ASSERT_EQ(npy.data.size(), 8 * 2 * sizeof(float));
  float d[2];
  std::memcpy(d, npy.data.data() + 4 * 2 * sizeof(float), sizeof d);  // vertex 4
  EXPECT_EQ(d[0], 4.0f);  // 0 -> 1 -> 2 -> 3 -> 4
  EXPECT_TRUE(std::isinf(d[1]));
  ASSERT_EQ(Needle("run cc " + ShellQuote(input) + " --memory 128M -o " + ShellQuote(Path("c.npy")))
                .status,
            0);
  npy = ReadNpy(Path("c.npy"));
  EXPECT_EQ(npy.dict.rfind("{'descr': '<u4', 'fortran_order': False, 'shape': (8,), }", 0), 0u)
      << npy.dict;
  ASSERT_EQ(npy.data.size(), 8 * sizeof(uint32_t));
  uint32_t label;
  std::memcpy(&label, npy.data.data() + 6 * sizeof(uint32_t), sizeof label);
  EXPECT_EQ(label, 5u);
  // Values that are not the answer are not written as an array (nothing would say so).
  const Result r = Needle("run pagerank " + ShellQuote(input) + " --memory 128M --iters 1 -o " +
                          ShellQuote(Path("bad.npy")));
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("bad.npy not written: the values are not the answer"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(Path("bad.npy")));
}

TEST_F(RunCliTest, HelpTeachesWithExamplesAndTheRules) {
  Result r = Needle("run --help");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* part : {"examples:\n  needle run pagerank", "memory: --memory bounds",
                           "--shards-dir says where", "output: -o writes a header line",
                           "pagerank: r(v) = 0.15 + 0.85"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  }
  r = Needle("shard --help");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("examples:\n  needle shard"), std::string::npos) << r.out;
}

TEST_F(RunCliTest, VersionIsPrinted) {
  for (const char* flag : {"--version", "version"}) {
    const Result r = Needle(flag);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "needle " + std::string(Version()) + "\n");
  }
  EXPECT_EQ(std::count(Version().begin(), Version().end(), '.'), 2) << Version();
}

TEST_F(RunCliTest, ShardsDirHoldsTheSetsThatShardAndRunShare) {
  const std::string input = Graph("g.txt", kGraph);
  const std::string sets = Path("sets");
  Result r = Needle("shard " + ShellQuote(input) + " --memory 128M --shards-dir " +
                    ShellQuote(sets));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(sets + "/g.txt.shards/manifest"));
  // run finds that set there (no second sharding), and writes the ones it makes there too.
  r = Needle("run pagerank " + ShellQuote(input) + " --memory 128M --shards-dir " +
             ShellQuote(sets));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("reusing"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sharded"), std::string::npos) << r.out;
  r = Needle("run cc " + ShellQuote(input) + " --memory 128M --shards-dir " + ShellQuote(sets));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(sets + "/g.txt.sym.shards/manifest"));
  r = Needle("run mssp " + ShellQuote(input) + " --num-sources 4 --memory 128M --shards-dir " +
             ShellQuote(sets));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(sets + "/g.txt.mssp-4.shards/manifest"));
  // Nothing was written next to the graph.
  for (const char* suffix : {".shards", ".sym.shards", ".mssp-4.shards"}) {
    EXPECT_FALSE(std::filesystem::exists(input + suffix)) << suffix;
  }
  r = Needle("shard " + ShellQuote(input) + " --shards-dir " + ShellQuote(sets) + " --out " +
             ShellQuote(Path("x")));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("give --out or --shards-dir, not both"), std::string::npos) << r.err;
  r = Needle("run cc " + ShellQuote(input) + " --shards-dir " + ShellQuote(input));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("is not a directory"), std::string::npos) << r.err;
}

TEST_F(RunCliTest, SymmetrizeFollowsEveryEdgeBothWaysForEveryApp) {
  // A path 0 -> 1 -> 2 listed once per edge: from source 2, nothing is reachable directed;
  // with --symmetrize, 1 at 1 hop and 0 at 2.
  const std::string input = Graph("path.txt", "0 1\n1 2\n");
  Result r = Needle("run mssp " + ShellQuote(input) + " --sources 2 --memory 128M --out " +
                    ShellQuote(Path("directed.txt")));
  ASSERT_EQ(r.status, 0) << r.err;
  r = Needle("run mssp " + ShellQuote(input) + " --sources 2 --symmetrize --memory 128M --out " +
             ShellQuote(Path("sym.txt")));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto directed = ReadValues(Path("directed.txt"));
  const auto sym = ReadValues(Path("sym.txt"));
  EXPECT_EQ(testing::ReadFile(Path("sym.txt")).rfind("vertex\td_2\n0\t", 0), 0u);
  ASSERT_EQ(sym.size(), 3u);
  EXPECT_TRUE(std::isinf(directed[0].at(0)));
  EXPECT_EQ(sym[0].at(0), 2);
  EXPECT_EQ(sym[1].at(0), 1);
  EXPECT_EQ(sym[2].at(0), 0);
  EXPECT_TRUE(std::filesystem::exists(input + ".sym.shards/manifest"));
  // PageRank on the symmetrized set given as a directory: a note says what it is.
  r = Needle("run pagerank " + ShellQuote(input + ".sym.shards") + " --memory 128M --out " +
             ShellQuote(Path("pr.txt")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("is symmetrized: pagerank follows every edge both ways"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(testing::ReadFile(Path("pr.txt")).rfind("vertex\trank\n0\t", 0), 0u);
  // --symmetrize on a set that is not: refused, naming the way out.
  r = Needle("run pagerank " + ShellQuote(input + ".shards") + " --symmetrize --memory 128M");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("is not symmetrized"), std::string::npos) << r.err;
}

TEST_F(RunCliTest, ComponentsAndShortestPathsMatchOracles) {
  const std::string input = Graph("g.txt", kGraph);
  Result r = Needle("run cc " + ShellQuote(input) + " --out " + ShellQuote(Path("cc.txt")) +
                    " --top 3 --memory 128M");
  ASSERT_EQ(r.status, 0) << r.err;
  // {0..4}, {5, 6}, {7}: the count, the singletons, the largest and the sizes by powers of two.
  EXPECT_NE(r.out.find("3 components (1 of one vertex); the 3 largest"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  0\t5 vertices\n  5\t2 vertices\n  7\t1 vertex\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("component sizes: 1: 1 2-3: 1 4-7: 1\n"), std::string::npos) << r.out;
  // One iteration, one interval: singular; memory sizes in binary units.
  EXPECT_NE(r.out.find(" 1 interval; peak RSS "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" MiB of --memory 128 MiB"), std::string::npos) << r.out;
  std::vector<uint32_t> labels;
  for (const auto& row : ReadValues(Path("cc.txt")))
    labels.push_back(static_cast<uint32_t>(row.at(0)));
  EXPECT_EQ(labels, oracle::ConnectedComponents(LoadCsr(input)));

  r = Needle("run mssp " + ShellQuote(input) + " --sources 0,5 --out " + ShellQuote(Path("d.txt")) +
             " --top 2 --memory 128M");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = ReadValues(Path("d.txt"));
  const std::vector<VertexId> sources{0, 5};
  const auto expected = oracle::ShortestPaths(LoadCsr(input), sources);
  ASSERT_EQ(rows.size(), expected[0].size());
  for (size_t v = 0; v < rows.size(); ++v) {
    ASSERT_EQ(rows[v].size(), 2u);
    EXPECT_EQ(rows[v][0], expected[0][v]) << "vertex " << v;
    EXPECT_EQ(rows[v][1], expected[1][v]) << "vertex " << v;
  }
}

TEST_F(RunCliTest, TransportAndInnerPassesAreChosenAndReported) {
  const std::string input = Graph("g.txt", kGraph);
  const std::vector<uint32_t> expected = oracle::ConnectedComponents(LoadCsr(input));
  // auto picks resident on a set this small; each choice gives the oracle's labels and says
  // which transport ran in the log line and in the stats summary.
  for (const std::string transport : {"auto", "static", "resident"}) {
    for (const std::string passes : {"0", "3"}) {
      SCOPED_TRACE(transport + " " + passes);
      const std::string stats = Path("s-" + transport + passes + ".jsonl");
      const Result r = Needle("run cc " + ShellQuote(input) + " --memory 128M --transport " +
                              transport + " --inner-passes " + passes + " --stats " +
                              ShellQuote(stats) + " --out " + ShellQuote(Path("cc.txt")));
      ASSERT_EQ(r.status, 0) << r.err;
      const std::string ran = transport == "static" ? "static" : "resident";
      EXPECT_NE(r.out.find("transport " + ran), std::string::npos) << r.out;
      std::ifstream in(stats);
      std::string line, summary;
      while (std::getline(in, line)) summary = line;
      EXPECT_NE(summary.find("\"transport\":\"" + ran + "\""), std::string::npos) << summary;
      EXPECT_NE(summary.find("\"max_inner_passes\":" + passes), std::string::npos) << summary;
      // The scatter indexes are read (once, resident; every turn, static) and counted as their
      // own file kind.
      const std::string key = "\"bytes_read_scatter_index\":";
      const size_t at = summary.find(key);
      ASSERT_NE(at, std::string::npos) << summary;
      EXPECT_GT(std::stoull(summary.substr(at + key.size())), 0u) << summary;
      std::vector<uint32_t> labels;
      for (const auto& row : ReadValues(Path("cc.txt")))
        labels.push_back(static_cast<uint32_t>(row.at(0)));
      EXPECT_EQ(labels, expected);
    }
  }
  // Page grain: the static transport says so, and the labels are the oracle's.
  const std::string stats = Path("s-pages.jsonl");
  Result r = Needle("run cc " + ShellQuote(input) + " --memory 128M --transport static " +
                    "--windows pages --stats " + ShellQuote(stats) + " --out " +
                    ShellQuote(Path("cc.txt")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("transport static at page grain"), std::string::npos) << r.out;
  {
    std::ifstream in(stats);
    std::string line, summary;
    while (std::getline(in, line)) summary = line;
    EXPECT_NE(summary.find("\"windows\":\"pages\""), std::string::npos) << summary;
    EXPECT_NE(summary.find("\"edges_skipped\":"), std::string::npos) << summary;
    std::vector<uint32_t> labels;
    for (const auto& row : ReadValues(Path("cc.txt"))) {
      labels.push_back(static_cast<uint32_t>(row.at(0)));
    }
    EXPECT_EQ(labels, expected);
  }
  // The dynamic modes read the static shards at page grain too: by default in mode auto, when
  // asked in the others; `--windows whole` turns it off.
  for (const auto& [options, pages] : std::vector<std::pair<std::string, bool>>{
           {"--mode auto", true},
           {"--mode auto --windows whole", false},
           {"--mode ods --windows pages", true},
           {"--mode ods", false}}) {
    SCOPED_TRACE(options);
    r = Needle("run cc " + ShellQuote(input) + " --memory 128M --transport static " + options +
               " --out " + ShellQuote(Path("cc.txt")));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find("at page grain") != std::string::npos, pages) << r.out;
    std::vector<uint32_t> labels;
    for (const auto& row : ReadValues(Path("cc.txt"))) {
      labels.push_back(static_cast<uint32_t>(row.at(0)));
    }
    EXPECT_EQ(labels, expected);
  }
  // Where nothing is read from disk, page grain asked for says it is not used; auto, the
  // default mode, which reads at page grain where windows are read, says it with -v only.
  r = Needle("run cc " + ShellQuote(input) +
             " --memory 128M --transport resident --mode static --windows pages");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("page grain not used"), std::string::npos) << r.out << r.err;
  r = Needle("run cc " + ShellQuote(input) + " --memory 128M");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ((r.out + r.err).find("not used"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("transport resident"), std::string::npos) << r.out;
  r = Needle("run cc " + ShellQuote(input) + " --memory 128M -v");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("page grain not used"), std::string::npos) << r.out << r.err;
  r = Needle("run cc " + ShellQuote(input) + " --transport sometimes");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--transport must be auto, static or resident"), std::string::npos)
      << r.err;
  r = Needle("run cc " + ShellQuote(input) + " --inner-passes -1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--inner-passes"), std::string::npos) << r.err;
}

TEST_F(RunCliTest, PushTurnsGiveTheStaticAnswerAndSayWhatTheyDid) {
  const std::string input = Graph("g.txt", kGraph);
  const std::vector<uint32_t> expected = oracle::ConnectedComponents(LoadCsr(input));
  ShardSymmetrized(input);
  for (const std::string options :
       {"--push always", "--mode static --windows pages --push always"}) {
    SCOPED_TRACE(options);
    const auto [out, summary] = RunSymmetrizedCc(options, expected);
    EXPECT_NE(out.find("push turns: out-adjacency of "), std::string::npos) << out;
    EXPECT_GT(SummaryNumber(summary, "edges_pushed"), 0u) << summary;
    EXPECT_NE(summary.find("\"out_adjacency_bytes\":4096"), std::string::npos) << summary;
  }
  // Asked for where it cannot apply, it says why and the run goes on.
  ExpectTurnsUnused("push", "ods");
}

// Pull turns, alone, by default (the first iterations of CC send on every edge) and beside
// push turns: the oracle's labels, the turns counted; where they cannot apply, the reason.
TEST_F(RunCliTest, PullTurnsGiveTheStaticAnswerAndSayWhatTheyDid) {
  const std::string input = Graph("g.txt", kGraph);
  const std::vector<uint32_t> expected = oracle::ConnectedComponents(LoadCsr(input));
  ShardSymmetrized(input);
  for (const std::string options :
       {"--pull always --push never", "", "--mode static --windows pages --push always"}) {
    SCOPED_TRACE(options);
    const auto [out, summary] = RunSymmetrizedCc(options, expected);
    EXPECT_NE(out.find("pull turns: "), std::string::npos) << out;
    // --push always pushes in every iteration: no turn pulls.
    const bool pulls = options.find("--push always") == std::string::npos;
    EXPECT_EQ(SummaryNumber(summary, "intervals_pulled") > 0, pulls) << summary;
  }
  ExpectTurnsUnused("pull", "ads");
}

// PageRank on an R-MAT graph pulls while nearly every edge carries a message, then pushes:
// the push decided after the last pull iteration (weighed against the plain turns that would
// run instead, not against the pull iteration's bytes) comes after the one plain iteration
// that consumes the pulled messages, and is not weighed again there. The ranks are static's.
TEST_F(RunCliTest, PushTurnsFollowPullTurnsAfterOnePlainIteration) {
  const std::string csr = Path("r14.csr"), shards = Path("r14.shards");
  Result r = Needle("generate rmat --scale 14 -o " + ShellQuote(csr));
  ASSERT_EQ(r.status, 0) << r.err;
  r = Needle("shard " + ShellQuote(csr) + " --intervals 8 --out " + ShellQuote(shards));
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::vector<double>> ranks;
  for (const std::string options : {"--mode static --windows whole", ""}) {
    r = Needle("run pagerank " + ShellQuote(shards) + " --transport static --memory 64M " +
               "--tolerance 1e-2 " + options + " --stats " + ShellQuote(Path("s.jsonl")) +
               " --out " + ShellQuote(Path("pr.txt")));
    ASSERT_EQ(r.status, 0) << r.err;
    ranks.emplace_back();
    for (const auto& row : ReadValues(Path("pr.txt"))) ranks.back().push_back(row.at(0));
  }
  std::istringstream lines(testing::ReadFile(Path("s.jsonl")));
  std::string line;
  int iteration = 0, last_pulled = -1, first_pushed = -1;
  while (std::getline(lines, line)) {
    if (line.find("\"type\":\"iteration\"") == std::string::npos) continue;
    if (SummaryNumber(line, "intervals_pulled") > 0) last_pulled = iteration;
    if (SummaryNumber(line, "intervals_pushed") > 0 && first_pushed < 0) first_pushed = iteration;
    ++iteration;
  }
  EXPECT_GE(last_pulled, 1);
  EXPECT_EQ(first_pushed, last_pulled + 2);
  EXPECT_EQ(oracle::CompareValues(ranks[0], ranks[1], 0.1, 1e-6), "");
}

TEST_F(RunCliTest, DynamicShardModesGiveTheStaticAnswerAndSayWhatTheyDid) {
  const std::string input = Graph("g.txt", kGraph);
  const std::vector<uint32_t> expected = oracle::ConnectedComponents(LoadCsr(input));
  ShardSymmetrized(input);
  for (const std::string mode : {"ads", "ods", "auto"}) {
    SCOPED_TRACE(mode);
    const std::string stats = Path("s-" + mode + ".jsonl");
    // --shadow-below 1: the first shadow iteration comes as soon as an iteration leaves an
    // edge without a message.
    const Result r = Needle("run cc " + ShellQuote(Path("g.sym.shards")) +
                            " --transport static --inner-passes 0 --mode " + mode +
                            " --shadow-below 1 --delay-buffer 1 --stats " + ShellQuote(stats) +
                            " --out " + ShellQuote(Path("cc.txt")));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("mode " + mode + ": "), std::string::npos) << r.out;
    std::ifstream in(stats);
    std::string line, summary;
    while (std::getline(in, line)) summary = line;
    EXPECT_NE(summary.find("\"mode\":\"" + mode + "\""), std::string::npos) << summary;
    std::vector<uint32_t> labels;
    for (const auto& row : ReadValues(Path("cc.txt")))
      labels.push_back(static_cast<uint32_t>(row.at(0)));
    EXPECT_EQ(labels, expected);
  }
  // Every shard kept whole: the same labels, and the run says how many shards it kept whole.
  // (A ring numbered out of order: its labels take several iterations, so sets are built.)
  {
    std::string ring;
    for (uint32_t u = 0; u < 64; ++u) {
      ring += std::to_string(u * 37 % 64) + " " + std::to_string((u + 1) * 37 % 64) + "\n";
    }
    const std::string path = Graph("ring.txt", ring);
    const std::string shards = Path("ring.sym.shards");
    Result r = Needle("shard " + ShellQuote(path) + " --symmetrize --intervals 3 --out " +
                      ShellQuote(shards));
    ASSERT_EQ(r.status, 0) << r.err;
    r = Needle("run cc " + ShellQuote(shards) +
               " --transport static --inner-passes 0 --mode ods --whole-shards always "
               "--shadow-below 1 --delay-buffer 1 --stats " +
               ShellQuote(Path("s-whole.jsonl")) + " --out " + ShellQuote(Path("cc.txt")));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("shards kept whole)"), std::string::npos) << r.out;
    std::ifstream in(Path("s-whole.jsonl"));
    std::string line, summary;
    while (std::getline(in, line)) summary = line;
    EXPECT_GT(SummaryNumber(summary, "whole_shards"), 0) << summary;
    std::vector<uint32_t> labels;
    for (const auto& row : ReadValues(Path("cc.txt")))
      labels.push_back(static_cast<uint32_t>(row.at(0)));
    EXPECT_EQ(labels, oracle::ConnectedComponents(LoadCsr(path)));
  }
  // Resident, nothing is read from disk to save: the run says so and runs static.
  Result r = Needle("run cc " + ShellQuote(input) + " --mode ods --memory 128M");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("mode ods not used: the shard set is held in memory"), std::string::npos)
      << r.out;
  // auto where the budget holds the static run but not the dynamic shards' buffers: static,
  // saying why with -v (ods is refused with the figure it needs).
  r = Needle("run cc " + ShellQuote(Path("g.sym.shards")) +
             " --transport static --mode auto --memory 27M -v");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("mode auto: static shards only, since --memory cannot hold its buffers"),
            std::string::npos)
      << r.out;
  r = Needle("run cc " + ShellQuote(Path("g.sym.shards")) +
             " --transport static --mode ods --memory 27M");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("give --memory"), std::string::npos) << r.err;
  // Usage errors: exit status 2, saying what was expected.
  const std::pair<const char*, const char*> misuses[] = {
      {" --mode dynamic", "--mode must be static, ads, ods or auto"},
      {" --gather bogus", "--gather must be auto, scan, route or split"},
      {" --windows halves", "--windows is whole, pages or auto"},
      {" --mode ods --shadow-below 1.5", "--shadow-below must lie between 0 and 1"},
      {" --push sometimes", "--push must be never, auto or always"},
      {" --pull often", "--pull must be never, auto or always"},
      {" --whole-shards half", "--whole-shards must be never, auto or always"},
      {" --push-below 2", "--push-below must lie between 0 and 1"},
  };
  for (const auto& [options, says] : misuses) {
    r = Needle("run cc " + ShellQuote(input) + options);
    EXPECT_EQ(r.status, 2) << options;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
  // PageRank's sums depend on their order: no split gather, said before any sharding.
  r = Needle("run pagerank " + ShellQuote(input) + " --gather split --shards-dir " +
             ShellQuote(Path("none")));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--gather split is for cc and mssp"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(Path("none")));
}

TEST_F(RunCliTest, CompareRunsEveryModeAndChecksTheAnswers) {
  const std::string input = Graph("g.txt", kGraph);
  for (const std::string app : {"pagerank", "cc"}) {
    SCOPED_TRACE(app);
    const std::string csv = Path(app + ".csv");
    const Result r = Needle("compare " + app + " " + ShellQuote(input) +
                            " --memory 128M --shadow-below 1 --delay-buffer 1 --csv " +
                            ShellQuote(csv));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("static"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("reference"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("pages"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("push"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("pull"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ads"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ods"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("DIFFERS"), std::string::npos) << r.out;
    std::ifstream in(csv);
    std::string header, line;
    std::getline(in, header);
    EXPECT_EQ(header.rfind("mode,iteration,shadow,", 0), 0u) << header;
    int rows = 0;
    bool ods = false, pages = false;
    while (std::getline(in, line)) {
      ++rows;
      ods = ods || line.rfind("ods,", 0) == 0;
      pages = pages || line.rfind("pages,", 0) == 0;
    }
    EXPECT_GE(rows, 5);  // at least an iteration per mode
    EXPECT_TRUE(ods);
    EXPECT_TRUE(pages);
  }
  // --plot draws one line per mode, shadow iterations ringed, in a file that stands alone.
  const std::string svg = Path("modes.svg");
  Result r = Needle("compare pagerank " + ShellQuote(input) +
                    " --memory 128M --shadow-below 1 --delay-buffer 1 --plot " + ShellQuote(svg));
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* column : {"util", "x ideal", "delay KB", "disk MB"}) {
    EXPECT_NE(r.out.find(column), std::string::npos) << column << "\n" << r.out;
  }
  std::ifstream plot(svg);
  const std::string picture((std::istreambuf_iterator<char>(plot)), std::istreambuf_iterator<char>());
  EXPECT_EQ(picture.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << picture;
  EXPECT_NE(picture.find("</svg>"), std::string::npos);
  size_t lines = 0;
  for (size_t at = picture.find("<polyline"); at != std::string::npos;
       at = picture.find("<polyline", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 14u);  // bytes and seconds for static, pages, push, pull, ads, ods, auto
  EXPECT_NE(picture.find("<circle"), std::string::npos);  // the shadow iterations
  for (const char* mode :
       {">static<", ">pages<", ">push<", ">pull<", ">ads<", ">ods<", ">auto<", ">shadow<"}) {
    EXPECT_NE(picture.find(mode), std::string::npos) << mode;
  }
  r = Needle("compare cc " + ShellQuote(input) + " --csv - --plot -");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("only one of --json, --csv and --plot"), std::string::npos) << r.err;
  // CSV on standard output: the table moves to stderr.
  r = Needle("compare cc " + ShellQuote(input) + " --memory 128M --csv -");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("mode,iteration,shadow,", 0), 0u) << r.out;
  EXPECT_NE(r.err.find("reference"), std::string::npos) << r.err;
  r = Needle("compare cc " + ShellQuote(input) + " --modes ads,ods");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--modes must start with static"), std::string::npos) << r.err;
  // A run that fails says why and fails the comparison.
  r = Needle("compare cc " + ShellQuote(input) + " --memory 1K");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("the static run failed"), std::string::npos) << r.err;
}

TEST_F(RunCliTest, RunsOnAShardSetAndReusesIt) {
  const std::string input = Graph("g.txt", kGraph);
  ASSERT_EQ(Needle("shard " + ShellQuote(input) + " --memory 128M").status, 0);
  Result r = Needle("run pagerank " + ShellQuote(input + ".shards") + " --memory 128M");
  EXPECT_EQ(r.status, 0) << r.err;
  r = Needle("run pagerank " + ShellQuote(input) + " --memory 128M");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("reusing"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sharded"), std::string::npos) << r.out;
  // A larger budget reuses the set planned for the smaller one, saying so; so does a smaller
  // one that the set's intervals fit (sharding_choices_test.cc has one they do not).
  r = Needle("run pagerank " + ShellQuote(input) + " --memory 256M");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("planned for --memory 128 MiB"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sharded"), std::string::npos) << r.out;
  r = Needle("run pagerank " + ShellQuote(input) + " --memory 100M");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("could make more, smaller ones"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sharded"), std::string::npos) << r.out;
}

// --intervals N cuts the graph as the run shards it (recorded, so a set cut otherwise is not
// reused), and is refused for a shard set directory, which is cut already.
TEST_F(RunCliTest, IntervalsAskedCutTheGraphTheRunShards) {
  const std::string input = Graph("g.txt", kGraph);
  const std::vector<uint32_t> expected = oracle::ConnectedComponents(LoadCsr(input));
  for (const std::string n : {"3", "2"}) {
    const Result r = Needle("run cc " + ShellQuote(input) + " --memory 128M --intervals " + n +
                            " --out " + ShellQuote(Path("cc.txt")));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("(" + n + " intervals)"), std::string::npos) << r.out;
    EXPECT_EQ(ShardSet::Open(input + ".sym.shards").num_intervals(), std::stoul(n));
    std::vector<uint32_t> labels;
    for (const auto& row : ReadValues(Path("cc.txt"))) {
      labels.push_back(static_cast<uint32_t>(row.at(0)));
    }
    EXPECT_EQ(labels, expected);
  }
  const Result r = Needle("run cc " + ShellQuote(input + ".sym.shards") + " --intervals 3");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--intervals cuts a graph file"), std::string::npos) << r.err;
}

// With room kept for dynamic shards, a budget too small is refused naming the --memory given
// and a figure that works (it once named the budget less the room, and advised too little).
TEST_F(RunCliTest, BudgetAdviceWithRoomForDynamicShardsWorks) {
  const std::string input = Graph("iso.txt", "0 1\n1 2\n99999 99998\n");
  const std::string run = "run mssp --num-sources 4 " + ShellQuote(input) +
                          " --mode ads --intervals 1 --room-for-dynamic --shards-dir " +
                          ShellQuote(Path("sets"));
  Result r = Needle(run + " --memory 38.5M");
  ASSERT_NE(r.status, 0);
  EXPECT_NE(r.err.find("does not fit --memory 38.5 MiB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kept for dynamic shards"), std::string::npos) << r.err;
  const std::string advised = NumberBefore(r.err, " MiB or more");
  ASSERT_FALSE(advised.empty()) << r.err;
  ASSERT_NE(r.err.find("give --memory " + advised + " MiB or more"), std::string::npos) << r.err;
  r = Needle(run + " --memory " + advised + "M");
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(RunCliTest, ErrorsExitNonZeroAndLeaveNoOutput) {
  const std::string input = Graph("g.txt", kGraph);
  Result r = Needle("run bfs " + ShellQuote(input));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown app 'bfs'"), std::string::npos) << r.err;

  for (const char* bad : {"0,", "1,,2", "+3", " 3", "x"}) {
    r = Needle("run mssp " + ShellQuote(input) + " --sources " + ShellQuote(bad));
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("is not a vertex id"), std::string::npos) << bad << ": " << r.err;
  }
  r = Needle("run mssp " + ShellQuote(input) + " --sources 5,5");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("5 is given twice"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(input + ".mssp-2.shards")) << "sharded before the check";
  // Ids beyond the graph are known only once it is read.
  r = Needle("run mssp " + ShellQuote(input) + " --sources 0,99");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("99 is not a vertex id below 8"), std::string::npos) << r.err;

  // An --out that cannot be created fails before the run, naming it.
  r = Needle("run pagerank " + ShellQuote(input) + " --out " + ShellQuote(Path("no/such/dir/x")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no/such/dir/x"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("iterations"), std::string::npos) << "ran before failing:\n" << r.out;

  const std::string negative = Graph("neg.txt", "0 1 2.5\n1 2 -1\n");
  r = Needle("run mssp " + ShellQuote(negative) + " --out " + ShellQuote(Path("n.txt")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("edge weight -1 is negative"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("neg.txt"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(Path("n.txt")));

  // Distances past the float range would read as unreachable: the run says so (exit 5), marks
  // the text it writes and writes no array. Weights that keep every sum in range pass.
  const std::string far = Graph("far.txt", "0 1 3e38\n1 2 3e38\n");
  r = Needle("run mssp " + ShellQuote(far) + " --sources 0 --out " + ShellQuote(Path("f.tsv")));
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_NE(r.err.find("values out of range: vertex 1 is at distance 3e+38"), std::string::npos)
      << r.err;
  EXPECT_EQ(testing::ReadFile(Path("f.tsv")).rfind("# needle: mssp: values out of range", 0), 0u);
  r = Needle("run mssp " + ShellQuote(far) + " --sources 0 --out " + ShellQuote(Path("f.npy")));
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_FALSE(std::filesystem::exists(Path("f.npy")));
  const std::string near = Graph("near.txt", "0 1 1e37\n1 2 1e37\n");
  r = Needle("run mssp " + ShellQuote(near) + " --sources 0 --verify --out " +
             ShellQuote(Path("f.tsv")));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(testing::ReadFile(Path("f.tsv")).find("\n2\t1.99999999e+37\n"), std::string::npos)
      << testing::ReadFile(Path("f.tsv"));

  ASSERT_EQ(Needle("shard " + ShellQuote(input) + " --memory 128M").status, 0);
  r = Needle("run cc " + ShellQuote(input + ".shards"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("not symmetrized"), std::string::npos) << r.err;

  // A damaged shard file is refused before anything runs, naming the file.
  {
    std::fstream f(input + ".shards/shard-0000.adj",
                   std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);
    f.put('\x7f');
  }
  r = Needle("run pagerank " + ShellQuote(input + ".shards") + " --out " +
             ShellQuote(Path("p.txt")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("shard-0000.adj"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(Path("p.txt")));

  r = Needle("run pagerank " + ShellQuote(Path("missing.txt")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("missing.txt"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace needle
