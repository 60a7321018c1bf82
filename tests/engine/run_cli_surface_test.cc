// The command line's surface around a run: --quiet and --verbose, the progress measure in
// --stats, the flat JSON lines, --direct/--buffered with one meaning on shard and run, and
// the per-user cache a shard set goes to when the graph's directory is not writable.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "engine_test_util.h"
#include "run_cli_fixture.h"

namespace needle {
namespace {

using testing::ShellQuote;

constexpr const char* kGraph = "0 1\n1 2\n2 0\n2 3\n3 4\n5 6\n6 5\n7 7\n4 1\n";

TEST_F(RunCliTest, QuietPrintsOnlyWhatWasAskedForAndVerboseTheRules) {
  const std::string input = Graph("g.txt", kGraph);
  Result r = Needle("run pagerank " + ShellQuote(input) + " --memory 64M -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  r = Needle("run pagerank " + ShellQuote(input) + " --memory 64M --quiet --top 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("top 2 vertices by rank:\n", 0), 0u) << r.out;
  EXPECT_EQ(r.err, "");
  // Not converging is said even under --quiet.
  r = Needle("run pagerank " + ShellQuote(input) + " --memory 64M -q --iters 1");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("NOT CONVERGED"), std::string::npos) << r.err;

  // Default: the outcome, not the rules behind it.
  std::filesystem::remove_all(input + ".shards");
  r = Needle("run pagerank " + ShellQuote(input) + " --memory 64M");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("sharded "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(converged)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("the fewest whose cost fits"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("memory plan:"), std::string::npos) << r.out;
  std::filesystem::remove_all(input + ".shards");
  r = Needle("run pagerank " + ShellQuote(input) + " --memory 64M -v");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("the fewest whose cost fits"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory plan:"), std::string::npos) << r.out;
  r = Needle("shard " + ShellQuote(input) + " --memory 64M --force --verbose");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("the fewest whose cost fits"), std::string::npos) << r.out;
  r = Needle("shard " + ShellQuote(input) + " --memory 64M --force -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out + r.err, "");

  r = Needle("run pagerank " + ShellQuote(input) + " -q -v");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--quiet and --verbose exclude each other"), std::string::npos) << r.err;
  r = Needle("generate rmat --scale 4 -q -o " + ShellQuote(Path("r.el")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out + r.err, "");
  EXPECT_TRUE(std::filesystem::exists(Path("r.el")));
}

// Every line of --stats is one flat JSON object: no value is itself an object, so that
// pandas.read_json(lines=True) gives one column per figure. PageRank's iterations carry the
// largest relative change of a rank, falling as the run converges.
TEST_F(RunCliTest, StatsLinesAreFlatAndCarryTheConvergenceMeasure) {
  const std::string input = Graph("g.txt", kGraph);
  const Result r = Needle("run pagerank " + ShellQuote(input) +
                          " --memory 64M --tolerance 1e-6 --stats " + ShellQuote(Path("s.jsonl")));
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(testing::ReadFile(Path("s.jsonl")));
  std::string line;
  std::vector<double> changes;
  while (std::getline(lines, line)) {
    ASSERT_EQ(line.front(), '{');
    EXPECT_EQ(line.find('{', 1), std::string::npos) << "nested object in " << line;
    EXPECT_EQ(line.find('['), std::string::npos) << "array in " << line;
    for (const char* key : {"\"bytes_read\":", "\"bytes_written\":", "\"bytes_read_adjacency\":",
                            "\"bytes_written_values\":"}) {
      EXPECT_NE(line.find(key), std::string::npos) << key << " missing in " << line;
    }
    const size_t at = line.find("\"largest_change\":");
    if (line.find("\"type\":\"iteration\"") != std::string::npos) {
      ASSERT_NE(at, std::string::npos) << line;
      changes.push_back(std::stod(line.substr(at + 17)));
    } else {
      EXPECT_NE(line.find("\"converged\":true"), std::string::npos) << line;
    }
  }
  ASSERT_GT(changes.size(), 3u);
  // Iteration 0 moves every rank from 0.15 by a share of it; the last ones by little.
  EXPECT_GT(changes.front(), 0.1);
  EXPECT_LT(changes.back(), 1e-4);
  EXPECT_GT(changes.back(), 0);
}

TEST_F(RunCliTest, DirectAndBufferedMeanTheSameOnShardAndRun) {
  const std::string input = Graph("g.txt", kGraph);
  for (const char* command : {"shard ", "run cc "}) {
    const Result r = Needle(command + ShellQuote(input) + " --direct --buffered");
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_NE(r.err.find("--direct and --buffered exclude each other"), std::string::npos)
        << r.err;
  }
  const Result shard_help = Needle("shard --help");
  const Result run_help = Needle("run --help");
  for (const char* text : {"O_DIRECT for every shard, message and value file",
                           "default: shard files are written with O_DIRECT"}) {
    EXPECT_NE(OneLine(shard_help.out).find(text), std::string::npos) << text << shard_help.out;
    EXPECT_NE(OneLine(run_help.out).find(text), std::string::npos) << text << run_help.out;
  }
  // The run's own files: O_DIRECT with --direct, the page cache by default (the summary says).
  for (const bool direct : {false, true}) {
    const std::string stats = Path(direct ? "d.jsonl" : "b.jsonl");
    const Result r = Needle("run pagerank " + ShellQuote(input) + " --memory 64M --transport " +
                            "static --stats " + ShellQuote(stats) + (direct ? " --direct" : ""));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string text = testing::ReadFile(stats);
    EXPECT_NE(text.find(std::string("\"direct\":") + (direct ? "true" : "false")),
              std::string::npos)
        << text;
  }
}

// A graph in a directory this user cannot write: the shard sets go to the per-user cache
// (NEEDLE_CACHE_DIR here), in a folder of the graph's directory, and a second run finds them.
// Root may write anywhere, so as root the command runs as nobody (setpriv).
TEST_F(RunCliTest, AnUnwritableGraphDirectoryShardsIntoTheCache) {
  std::string as_user;
  if (geteuid() == 0) {
    ASSERT_EQ(testing::RunCommand("command -v setpriv > /dev/null"), 0)
        << "running as root, the test needs setpriv (util-linux: scripts/install-deps.sh) to "
           "make a directory unwritable";
    // OMP_TOOL_VERBOSE_INIT (set by scripts/tsan.sh) names a log file of root's that libomp
    // would fail to open as nobody.
    as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups env -u OMP_TOOL_VERBOSE_INIT ";
  }
  namespace fs = std::filesystem;
  const fs::path in = dir() / "in", cache = dir() / "cache";
  fs::create_directories(in);
  fs::create_directories(cache);
  WriteFile((in / "g.txt").string(), kGraph);
  fs::permissions(dir(), fs::perms::all, fs::perm_options::add);
  fs::permissions(in, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                          fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(cache, fs::perms::all);
  const std::string command = "NEEDLE_CACHE_DIR=" + ShellQuote(cache.string()) + " " + as_user +
                              ShellQuote(NEEDLE_BINARY) + " run cc " +
                              ShellQuote((in / "g.txt").string()) + " --memory 64M";
  Result r = testing::RunCaptured(command, dir().string());
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("is not writable: shard sets go to " + cache.string()), std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(in / "g.txt.sym.shards"));
  int sets = 0;
  for (const auto& entry : fs::recursive_directory_iterator(cache)) {
    sets += entry.path().filename() == "g.txt.sym.shards";
  }
  EXPECT_EQ(sets, 1);
  r = testing::RunCaptured(command, dir().string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("reusing the shard set in " + cache.string()), std::string::npos) << r.out;
  fs::permissions(in, fs::perms::owner_all);
}

// needle shard GRAPH --out DIR, then needle run GRAPH: the run finds DIR (needle remembers
// where it put sets away from their graph) instead of sharding a second time; a set that does
// not match (cc needs a symmetrized one) is passed over.
TEST_F(RunCliTest, RunFindsTheSetShardPutWhereItWasTold) {
  const std::string input = Graph("web.txt", kGraph);
  const std::string set = Path("elsewhere/web.shards");
  std::filesystem::create_directories(Path("elsewhere"));
  Result r = Needle("shard " + ShellQuote(input) + " --memory 64M -q --out " + ShellQuote(set));
  ASSERT_EQ(r.status, 0) << r.err;
  r = Needle("run pagerank " + ShellQuote(input) + " --memory 64M");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("reusing the shard set in " + set), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(input + ".shards"));
  r = Needle("run cc " + ShellQuote(input) + " --memory 64M");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(input + ".sym.shards"));
  // A remembered set that is gone is passed over.
  std::filesystem::remove_all(set);
  r = Needle("run pagerank " + ShellQuote(input) + " --memory 64M");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(input + ".shards"));
}

// A run that will use dynamic shards shards GRAPH with room for them (a byte per vertex, the
// delay buffer, build buffers): the set records the smaller budget it was planned for, a
// static run of the full budget reuses it, and every mode runs on it within --memory.
TEST_F(RunCliTest, DynamicModesShardWithRoomForTheirBuffers) {
  const std::string graph = Path("g.csr");
  ASSERT_EQ(Needle("generate rmat --scale 17 --edge-factor 4 -q -o " + ShellQuote(graph)).status,
            0);
  const std::string common = " --memory 48M --transport static --tolerance 1e-2";
  Result r = Needle("run pagerank " + ShellQuote(graph) + common + " --mode ods -v");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("kept for dynamic shards' flags and buffers"), std::string::npos) << r.out;
  const std::string manifest = testing::ReadFile(graph + ".shards/manifest");
  EXPECT_EQ(manifest.find("memory 50331648\n"), std::string::npos) << "planned for all of it";
  r = Needle("run pagerank " + ShellQuote(graph) + common);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("reusing the shard set"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sharded "), std::string::npos) << r.out;
  r = Needle("compare pagerank " + ShellQuote(graph) + " --memory 48M --tolerance 1e-2 " +
             "--modes static,ods,auto");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("ods "), std::string::npos) << r.out;
  // Too little room: said before the set is written, naming what dynamic shards need.
  r = Needle("run pagerank " + ShellQuote(graph) + " --memory 26M --mode ods --shards-dir " +
             ShellQuote(Path("small")));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("dynamic shards need for 131072 vertices"), std::string::npos) << r.err;
}

// An option the app or the mode ignores is said in a note (not refused: compare passes one
// set of options to every mode); options left at their defaults, or that apply, are not.
TEST_F(RunCliTest, OptionsTheRunIgnoresAreSaid) {
  const std::string input = ShellQuote(Graph("g.txt", "0 1\n1 2\n2 0\n2 3\n3 4\n4 1\n"));
  const std::string shadow = "note: --shadow-below has no effect with --mode static";
  const std::string whole = "note: --whole-shards has no effect with --mode static";
  Result r = Needle("run pagerank " + input +
                    " --mode static --shadow-below 0.1 --whole-shards never -o /dev/null");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(shadow), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(whole), std::string::npos) << r.out;
  r = Needle("run pagerank " + input + " --mode static --shad 0.1 -o /dev/null");  // a prefix
  EXPECT_NE(r.out.find(shadow), std::string::npos) << r.out;
  r = Needle("run pagerank " + input + " --mode ods --shadow-below 0.1 -o /dev/null");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("has no effect"), std::string::npos) << r.out;
  r = Needle("run pagerank " + input + " --mode ads --push-below 0.5 -o /dev/null");
  EXPECT_NE(r.out.find("note: --push-below has no effect with --mode ads"), std::string::npos)
      << r.out;
  r = Needle("run cc " + input + " --tolerance 0.1 -o /dev/null");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("note: --tolerance has no effect on cc"), std::string::npos) << r.out;
  r = Needle("run cc " + input + " --mode static -o /dev/null");  // defaults: nothing said
  EXPECT_EQ(r.out.find("has no effect"), std::string::npos) << r.out;
  // Given a shard set: what only reading or sharding a graph file uses is refused, or said.
  const std::string set = ShellQuote(Path("g.txt.sym.shards"));
  r = Needle("run cc " + set + " --format snap -o /dev/null");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--format says how to read a graph file"), std::string::npos) << r.err;
  r = Needle("run cc " + set + " --shards-dir " + ShellQuote(Path("sets")) + " -o /dev/null");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("is a shard set itself"), std::string::npos) << r.err;
  r = Needle("run cc " + set + " --room-for-dynamic -o /dev/null");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("note: --room-for-dynamic has no effect on a shard set"),
            std::string::npos)
      << r.out;
  // compare says once what none of its runs uses.
  r = Needle("compare pagerank " + input + " --modes static,auto --shadow-below 0.2");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("note: --shadow-below has no effect in any of --modes static,auto"),
            std::string::npos)
      << r.err;
  r = Needle("compare pagerank " + input + " --modes static,ods --shadow-below 0.2");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("has no effect"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace needle

