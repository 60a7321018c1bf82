// `needle run` tells the truth about its result: a run goes to convergence unless the user caps
// it, a capped run that did not converge says so (exit status 3, stderr, the first line of
// --out, the stats summary), options are read as parsed (an abbreviation of --sources is
// --sources), and numbers that are not what an option takes are refused naming the value.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/oracles/oracles.h"
#include "engine_test_util.h"

namespace needle {
namespace {

namespace fs = std::filesystem;
using testing::ShellQuote;
using Result = testing::CommandResult;

class RunTrustTest : public WithTempDir<> {
 protected:
  Result Needle(const std::string& args) {
    return testing::RunCaptured(ShellQuote(NEEDLE_BINARY) + " " + args, dir().string());
  }
  std::string Path(const std::string& name) { return (dir() / name).string(); }
  // A path 0 - 1 - ... - (n-1): its labels travel one hop per iteration.
  std::string Chain(uint32_t n) {
    std::string text;
    for (uint32_t i = 0; i + 1 < n; ++i)
      text += std::to_string(i) + "\t" + std::to_string(i + 1) + "\n";
    const std::string path = Path("chain" + std::to_string(n) + ".el");
    WriteFile(path, text);
    return path;
  }
  // What sits next to `graph` under its name: GRAPH.shards, GRAPH.sym.shards, GRAPH.mssp-K...
  std::vector<std::string> ShardSetsOf(const std::string& graph) {
    std::vector<std::string> found;
    const std::string stem = fs::path(graph).filename().string() + ".";
    for (const auto& e : fs::directory_iterator(fs::path(graph).parent_path())) {
      if (e.path().filename().string().rfind(stem, 0) == 0) found.push_back(e.path().string());
    }
    return found;
  }
  // The lines of a file; of an --out file (`values`), without its header line "vertex\t...".
  std::vector<std::string> Lines(const std::string& path, bool values = true) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      if (values && line.rfind("vertex\t", 0) == 0) continue;
      lines.push_back(line);
    }
    return lines;
  }
};

TEST_F(RunTrustTest, RunsGoToConvergenceByDefault) {
  // Longer than the old default cap of 1000 iterations (one pass per turn: a label moves one
  // hop per iteration).
  const std::string chain = Chain(1500);
  const Result r = Needle("run cc " + ShellQuote(chain) + " --memory 80M --inner-passes 0 --out " +
                          ShellQuote(Path("cc.tsv")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("(converged)"), std::string::npos) << r.out;
  const std::vector<std::string> lines = Lines(Path("cc.tsv"));
  ASSERT_EQ(lines.size(), 1500u);
  const std::vector<uint32_t> expected = oracle::ConnectedComponents(LoadCsr(chain));
  for (uint32_t v = 0; v < 1500; ++v) {
    ASSERT_EQ(lines[v], std::to_string(v) + "\t" + std::to_string(expected[v])) << "vertex " << v;
  }
}

TEST_F(RunTrustTest, CappedRunThatDidNotConvergeSaysSoEverywhere) {
  const std::string chain = Chain(300);
  const Result r = Needle("run cc " + ShellQuote(chain) +
                          " --memory 80M --inner-passes 0 --iters 10 --out " +
                          ShellQuote(Path("cc.tsv")) + " --stats " + ShellQuote(Path("s.jsonl")));
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("NOT CONVERGED"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--iters 10"), std::string::npos) << r.err;
  const std::vector<std::string> lines = Lines(Path("cc.tsv"));
  ASSERT_EQ(lines.size(), 301u);
  EXPECT_EQ(lines[0].rfind("# needle run cc: NOT CONVERGED", 0), 0u) << lines[0];
  const std::vector<std::string> stats = Lines(Path("s.jsonl"), false);
  ASSERT_EQ(stats.size(), 11u);
  EXPECT_NE(stats.back().find("\"converged\":false"), std::string::npos) << stats.back();
  EXPECT_NE(stats.back().find("\"iteration_limit\":10"), std::string::npos) << stats.back();

  // A cap the run does not reach changes nothing: converged, exit 0, no marker.
  const Result enough = Needle("run cc " + ShellQuote(chain) +
                               " --memory 80M --inner-passes 0 --iters 1000 --out " +
                               ShellQuote(Path("cc2.tsv")));
  EXPECT_EQ(enough.status, 0) << enough.err;
  EXPECT_EQ(Lines(Path("cc2.tsv")).front(), "0\t0");
}

TEST_F(RunTrustTest, AbbreviatedSourcesOptionIsSources) {
  const std::string graph = Path("g.wel");
  WriteFile(graph, "0 1 1\n1 2 2\n2 3 3\n3 0 4\n7 2 1\n5 6 1\n");
  for (const char* spelling : {"--source 7", "--sources 7", "--sou=7"}) {
    const Result r = Needle("run mssp " + ShellQuote(graph) + " --memory 80M " + spelling +
                            " --out " + ShellQuote(Path("d.tsv")));
    ASSERT_EQ(r.status, 0) << spelling << ": " << r.err;
    EXPECT_NE(r.out.find("mssp: 1 source: 7"), std::string::npos) << spelling << ": " << r.out;
    const std::vector<std::vector<double>> expected =
        oracle::ShortestPaths(LoadCsr(graph), std::vector<VertexId>{7});
    const std::vector<std::string> lines = Lines(Path("d.tsv"));
    ASSERT_EQ(lines.size(), expected[0].size());
    EXPECT_EQ(lines[2], "2\t1") << spelling;
    EXPECT_EQ(lines[0], "0\t8") << spelling;  // 7 -> 2 -> 3 -> 0: 1 + 3 + 4
    EXPECT_EQ(lines[7], "7\t0") << spelling;
  }
}

TEST_F(RunTrustTest, NumbersOutsideWhatAnOptionTakesAreRefused) {
  const std::string graph = Path("g.el");
  WriteFile(graph, "0 1\n1 2\n");
  struct Case {
    std::string args;
    std::string value;
  };
  const std::vector<Case> cases{
      {"run pagerank G --memory nan", "nan"},
      {"run pagerank G --memory 1e30", "1e30"},
      {"run pagerank G --memory inf", "inf"},
      {"run pagerank G --memory 0.5", "0.5"},
      {"run pagerank G --memory -1G", "-1G"},
      {"run pagerank G --memory 5X", "5X"},
      {"run pagerank G --memory 99999999T", "99999999T"},
      {"run cc G --iters -1", "-1"},
      {"run cc G --iters 1.5", "1.5"},
      {"run cc G --iters 4294967296", "4294967296"},
      {"run cc G --top -1", "-1"},
      {"run mssp G --num-sources -1", "-1"},
      {"run pagerank G --tolerance nan", "nan"},
      {"run pagerank G --tolerance -1", "-1"},
      {"run pagerank G --tolerance inf", "inf"},
      {"run cc G --threads -1", "-1"},
      {"shard G --memory nan", "nan"},
      {"info G --threads x", "x"},
      {"generate rmat --scale -1 -o x.el", "-1"},
      {"generate rmat --scale 4 --seed -1 -o x.el", "-1"},
      {"generate rmat --scale 4 --edge-factor 0x10 -o x.el", "0x10"},
  };
  for (const Case& c : cases) {
    std::string args = c.args;
    const size_t g = args.find(" G ");
    if (g != std::string::npos) args.replace(g, 3, " " + ShellQuote(graph) + " ");
    const Result r = Needle(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(c.value), std::string::npos) << args << ": " << r.err;
    EXPECT_NE(r.err.find("expected"), std::string::npos) << args << ": " << r.err;
    EXPECT_TRUE(ShardSetsOf(graph).empty()) << args << " sharded before refusing";
  }
  // And the good spellings still work.
  EXPECT_EQ(Needle("run pagerank " + ShellQuote(graph) + " --memory 0.25G --tolerance 1e-3").status,
            0);
}

// A tolerance a float PageRank cannot settle at would make a run without a cap go on forever;
// outputs that would overwrite the input or each other are refused before anything starts.
TEST_F(RunTrustTest, RefusesWhatCouldNeverEndOrWouldOverwrite) {
  const std::string graph = Path("g.el");
  WriteFile(graph, "0 1\n1 2\n2 0\n");
  for (const char* tolerance : {"0", "1e-9", "2"}) {
    const Result r = Needle("run pagerank " + ShellQuote(graph) + " --tolerance " + tolerance);
    EXPECT_EQ(r.status, 2) << tolerance << ": " << r.err;
    EXPECT_NE(r.err.find("--tolerance must be from 1e-6 to 1"), std::string::npos) << r.err;
  }
  Result r = Needle("run pagerank " + ShellQuote(graph) + " --out " + ShellQuote(graph));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("is the input"), std::string::npos) << r.err;
  EXPECT_EQ(testing::ReadFile(graph), "0 1\n1 2\n2 0\n");
  r = Needle("run pagerank " + ShellQuote(graph) + " --out " + ShellQuote(Path("x")) + " --stats " +
             ShellQuote(Path("x")));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("same file"), std::string::npos) << r.err;
  // Options that only matter when sharding are checked when the input is a shard set, too.
  ASSERT_EQ(Needle("shard " + ShellQuote(graph) + " --memory 80M").status, 0);
  r = Needle("run pagerank " + ShellQuote(graph + ".shards") + " --threads 5000");
  EXPECT_EQ(r.status, 2) << r.err;
  r = Needle("run pagerank " + ShellQuote(graph + ".shards") + " --format bogus");
  EXPECT_EQ(r.status, 2) << r.err;
  // A budget no set can have is refused before the set next to the graph is looked at: no
  // "rebuilding" it, and it stays as it was.
  const std::string manifest = testing::ReadFile(graph + ".shards/manifest");
  r = Needle("run pagerank " + ShellQuote(graph) + " --memory 1K");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--memory must be more than"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("rebuilding"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("rebuilding"), std::string::npos) << r.err;
  EXPECT_EQ(testing::ReadFile(graph + ".shards/manifest"), manifest);
}

// Every command's outputs are checked before any work against its input, the shard sets and
// each other (apps/cli/output_paths.h): relative names that do not exist yet included.
TEST_F(RunTrustTest, OutputsNeverReplaceAnInputASetsFileOrEachOther) {
  const std::string text = "0 1\n1 2\n2 0\n3 4\n";
  WriteFile(Path("g.el"), text);
  // In the scratch directory, so that relative names are what they are.
  auto in_dir = [&](const std::string& args) {
    return testing::RunCaptured("cd " + ShellQuote(dir().string()) + " && " +
                                    ShellQuote(NEEDLE_BINARY) + " " + args,
                                dir().string());
  };
  const Result first = in_dir("run cc g.el --memory 80M -q -o o.tsv");
  ASSERT_EQ(first.status, 0) << first.err;
  const std::string manifest = testing::ReadFile(Path("g.el.sym.shards/manifest"));
  struct Case {
    const char* args;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {"run cc g.el --memory 80M -o ./x.tsv --stats x.tsv",
            "--out and --stats name the same file"},
           {"run cc g.el --memory 80M -o g.el.sym.shards/manifest", "lies in the shard set"},
           {"run cc g.el.sym.shards --memory 80M -o g.el.sym.shards/labels.tsv",
            "lies in the input"},
           {"convert g.el -o ./g.el", "is the input"},
           {"generate rmat --scale 4 -o g.el.sym.shards/r.csr", "lies in the shard set"},
           {"compare cc g.el --memory 80M --csv g.el", "is the input"},
           {"compare cc g.el --memory 80M --csv same.out --json ./same.out",
            "--json and --csv name the same file"},
           {"shard g.el -o -", "a shard set is a directory"},
       }) {
    const Result r = in_dir(c.args);
    EXPECT_EQ(r.status, 2) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ": " << r.err;
  }
  EXPECT_EQ(testing::ReadFile(Path("g.el")), text);
  EXPECT_EQ(testing::ReadFile(Path("g.el.sym.shards/manifest")), manifest);
  EXPECT_FALSE(std::filesystem::exists(Path("x.tsv")));
  EXPECT_FALSE(std::filesystem::exists(Path("same.out")));
  EXPECT_FALSE(std::filesystem::exists(Path("-")));
  EXPECT_EQ(in_dir("run cc g.el --memory 80M -q -o o.tsv").status, 0);  // the set still serves
  // A file under /dev is a file all the same (/dev/shm is a tmpfs).
  const std::string shm = "/dev/shm/needle-trust-" + std::to_string(::getpid()) + ".el";
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec)) {
    WriteFile(shm, text);
    const Result r = in_dir("convert " + shm + " -o " + shm);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("is the input"), std::string::npos) << r.err;
    EXPECT_EQ(testing::ReadFile(shm), text);
    std::filesystem::remove(shm, ec);
  }
}

// --weights no drops a .csr's weights as it does a text file's (mssp then counts hops), and a
// shard set, which holds what it was sharded with, refuses a --weights that it is not.
TEST_F(RunTrustTest, WeightsNoDropsACsrsWeightsAndASetRefusesWhatItIsNot) {
  const std::string text = Path("g.wel"), csr = Path("g.csr"), set = Path("S.shards");
  WriteFile(text, "0\t1\t5\n1\t2\t7\n");
  ASSERT_EQ(Needle("convert " + ShellQuote(text) + " -o " + ShellQuote(csr) + " -q").status, 0);
  const std::string hops = "vertex\td_0\n0\t0\n1\t1\n2\t2\n";
  for (const std::string& input : {text, csr}) {
    const Result r = Needle("run mssp " + ShellQuote(input) +
                            " --sources 0 --memory 80M --weights no -q -o -");
    EXPECT_EQ(r.status, 0) << input << ": " << r.err;
    EXPECT_EQ(r.out, hops) << input;
  }
  ASSERT_EQ(Needle("shard " + ShellQuote(text) + " -o " + ShellQuote(set) + " -q").status, 0);
  Result r = Needle("run mssp " + ShellQuote(set) + " --sources 0 --weights no -q -o -");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--weights no: " + set + " is weighted"), std::string::npos) << r.err;
  const std::string plain = Path("u.csr");
  WriteFile(Path("u.el"), "0 1\n1 2\n");
  ASSERT_EQ(Needle("convert " + ShellQuote(Path("u.el")) + " -o " + ShellQuote(plain) + " -q")
                .status,
            0);
  r = Needle("run mssp " + ShellQuote(plain) + " --sources 0 --weights yes -q -o -");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("--weights yes"), std::string::npos) << r.err;
}

// A device, FIFO or socket as the graph is refused at once: it would be read more than once
// and at offsets (a FIFO without a writer would make the open wait; /dev/zero never ends).
TEST_F(RunTrustTest, AGraphThatIsNotARegularFileIsRefused) {
  const std::string fifo = Path("pipe.el");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& input : {std::string("/dev/zero"), fifo}) {
    for (const std::string& command :
         {"run cc " + ShellQuote(input) + " -o " + ShellQuote(Path("o.tsv")),
          "info " + ShellQuote(input), "shard " + ShellQuote(input) + " -o " + ShellQuote(Path("s")),
          "convert " + ShellQuote(input) + " -o " + ShellQuote(Path("x.csr"))}) {
      const Result r = testing::RunCaptured(
          "timeout 60 " + ShellQuote(NEEDLE_BINARY) + " " + command, dir().string());
      EXPECT_EQ(r.status, 1) << command << ": " << r.err;
      EXPECT_NE(r.err.find(input + ": is not a regular file"), std::string::npos)
          << command << ": " << r.err;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(Path("o.tsv")));
  EXPECT_FALSE(std::filesystem::exists(Path("x.csr")));
}

// What a command prints on standard output must get there: a write that fails is status 1.
// (Standard output open for reading only: every write fails, as on a full disk.)
TEST_F(RunTrustTest, AFailedWriteToStandardOutputIsAnError) {
  const std::string graph = Path("g.el");
  WriteFile(graph, "0 1\n1 2\n2 0\n3 4\n");
  const std::vector<std::string> commands = {
      "info " + ShellQuote(graph), "--version",
      "run pagerank " + ShellQuote(graph) + " --memory 80M -q --top 3 -o " +
          ShellQuote(Path("ranks.tsv")),
      "compare cc " + ShellQuote(graph) + " --memory 80M"};
  for (const std::string& args : commands) {
    // (the redirection inside the parentheses is the one stdout gets)
    const Result r = testing::RunCaptured(
        "( " + ShellQuote(NEEDLE_BINARY) + " " + args + " 1< /dev/null )", dir().string());
    EXPECT_EQ(r.status, 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find("standard output: write failed"), std::string::npos) << args << r.err;
  }
}

// A run holds its set's files open, about 3 per interval: a soft limit on open files below
// that is raised to the hard one; a hard limit below it refuses the run saying what to do.
TEST_F(RunTrustTest, ManyIntervalsRunUnderALowSoftLimitOnOpenFiles) {
  const std::string graph = Chain(400);
  ASSERT_EQ(Needle("shard " + ShellQuote(graph) + " --memory 64M --intervals 40").status, 0);
  const std::string run = ShellQuote(NEEDLE_BINARY) + " run pagerank " +
                          ShellQuote(graph + ".shards") +
                          " --memory 64M --transport static --mode static -o " +
                          ShellQuote(Path("ranks.tsv"));
  Result r = testing::RunCaptured("ulimit -S -n 48 && " + run, dir().string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(Lines(Path("ranks.tsv")).size(), 400u);
  // Soft and hard: refused before the run opens its files, with the numbers; no output left.
  std::filesystem::remove(Path("ranks.tsv"));
  r = testing::RunCaptured("ulimit -n 48 && " + run, dir().string());
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("a run over its 40 intervals holds about 136 files open at once, and "
                       "this process may hold 48"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ulimit -n"), std::string::npos) << r.err;
  for (const auto& e : std::filesystem::directory_iterator(dir())) {
    EXPECT_EQ(e.path().filename().string().find("ranks.tsv"), std::string::npos) << e.path();
  }
}

// --out - carries only the values (messages go to stderr); an --out or --stats that cannot be
// written fails before anything is sharded or run.
TEST_F(RunTrustTest, OutputsAreCheckedBeforeTheWorkAndStdoutCarriesOnlyData) {
  const std::string graph = Path("g.el");
  WriteFile(graph, "0 1\n1 2\n2 0\n3 3\n");
  Result r = Needle("run cc " + ShellQuote(graph) + " --memory 80M --top 1 --out -");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "vertex\tlabel\n0\t0\n1\t0\n2\t0\n3\t3\n");
  EXPECT_NE(r.err.find("converged"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(Path("-")));

  r = Needle("run cc " + ShellQuote(graph) + " --memory 80M --stats - --out " +
             ShellQuote(Path("cc.tsv")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"type\":\"iteration\"", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("{\"type\":\"summary\""), std::string::npos) << r.out;

  for (const std::string& bad : {"--out " + ShellQuote(dir().string()),
                                 "--stats " + ShellQuote(Path("no/such/dir/s.jsonl"))}) {
    for (const auto& e : fs::directory_iterator(dir())) {
      if (e.is_directory()) fs::remove_all(e.path());  // the sets the runs above made
    }
    r = Needle("run pagerank " + ShellQuote(graph) + " --memory 80M " + bad);
    EXPECT_EQ(r.status, 1) << bad << ": " << r.err;
    EXPECT_TRUE(ShardSetsOf(graph).empty()) << bad << ": sharded before failing";
  }
}

}  // namespace
}  // namespace needle
