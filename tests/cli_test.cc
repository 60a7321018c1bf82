// The `needle` command line, run as a separate process: help, info, convert and generate do
// what they say; bad input gives a non-zero exit status and one actionable line on stderr;
// a failed convert leaves nothing behind.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "loaders/csr_file.h"
#include "loaders/load_graph.h"
#include "tests/test_util.h"

#ifndef NEEDLE_BINARY
#error "NEEDLE_BINARY must name the needle executable (see tests/CMakeLists.txt)"
#endif

namespace needle {
namespace {

using testing::ShellQuote;

using Result = testing::CommandResult;

size_t LineCount(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n + (!s.empty() && s.back() != '\n' ? 1 : 0);
}

class CliTest : public testing::WithTempDir<> {
 protected:
  // Runs `needle ARGS` (ARGS already shell-quoted where needed).
  Result Needle(const std::string& args) {
    return testing::RunCaptured(ShellQuote(NEEDLE_BINARY) + " " + args, dir().string());
  }

  // `needle info` output as key -> value ("vertices" -> "6").
  std::map<std::string, std::string> Info(const std::string& path, const std::string& extra = "") {
    Result r = Needle("info " + ShellQuote(path) + (extra.empty() ? "" : " " + extra));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    std::map<std::string, std::string> info;
    std::istringstream lines(r.out);
    std::string line;
    while (std::getline(lines, line)) {
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      size_t value = line.find_first_not_of(' ', colon + 1);
      info[line.substr(0, colon)] = value == std::string::npos ? "" : line.substr(value);
    }
    for (const char* key : {"vertices", "edges", "self-loops", "duplicates", "max out-degree",
                            "max in-degree", "average degree", "format"}) {
      EXPECT_EQ(info.count(key), 1u) << "no '" << key << ":' line in:\n" << r.out;
    }
    return info;
  }

  std::string Copy(const std::string& data_name) {
    const std::string path = File(data_name);
    std::filesystem::copy_file(testing::TestDataPath(data_name), path);
    return path;
  }

  // Files in the temporary directory whose name starts with `prefix`.
  std::vector<std::string> FilesStartingWith(const std::string& prefix) {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(dir())) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(prefix, 0) == 0) found.push_back(name);
    }
    return found;
  }
};

TEST_F(CliTest, Help) {
  Result r = Needle("--help");
  EXPECT_EQ(r.status, 0);
  for (const char* command : {"generate", "convert", "info"}) {
    EXPECT_NE(r.out.find(command), std::string::npos) << r.out;
  }
  Result generate = Needle("generate --help");
  EXPECT_EQ(generate.status, 0) << generate.err;
  for (const char* option :
       {"--scale", "--edge-factor", "--seed", "--weighted", "--sorted", "-o [ --out ]"}) {
    EXPECT_NE(generate.out.find(option), std::string::npos) << generate.out;
  }
  Result convert = Needle("convert --help");
  EXPECT_EQ(convert.status, 0) << convert.err;
  for (const char* option : {"--transpose", "--symmetrize", "--drop-self-loops",
                             "--drop-duplicates", "--format", "-o [ --out ]"}) {
    EXPECT_NE(convert.out.find(option), std::string::npos) << convert.out;
  }
  Result info = Needle("info --help");
  EXPECT_EQ(info.status, 0) << info.err;
  EXPECT_NE(info.out.find("--format"), std::string::npos) << info.out;
}

TEST_F(CliTest, UsageErrorsAreNonZero) {
  Result none = Needle("");
  EXPECT_NE(none.status, 0);
  EXPECT_FALSE(none.err.empty());
  Result unknown = Needle("frobnicate");
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.err.find("frobnicate"), std::string::npos) << unknown.err;
  Result bad_option = Needle("info " + ShellQuote(Copy("tiny.el")) + " --no-such-option");
  EXPECT_NE(bad_option.status, 0);
  EXPECT_EQ(LineCount(bad_option.err), 1u) << bad_option.err;
  Result bad_format = Needle("info " + ShellQuote(File("tiny.el")) + " --format graphml");
  EXPECT_NE(bad_format.status, 0);
  EXPECT_NE(bad_format.err.find("graphml"), std::string::npos) << bad_format.err;
  Result no_output = Needle("convert " + ShellQuote(File("tiny.el")));
  EXPECT_NE(no_output.status, 0);
  const std::string x = File("x.el");
  for (const char* bad : {"--scale 0", "--scale 40", "--scale 8 --edge-factor abc"}) {
    SCOPED_TRACE(bad);
    Result r = Needle(std::string("generate rmat ") + bad + " -o " + ShellQuote(x));
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(LineCount(r.err), 1u) << r.err;
    EXPECT_FALSE(std::filesystem::exists(x));
  }
  Result unknown_kind = Needle("generate kronecker --scale 4 -o " + ShellQuote(x));
  EXPECT_NE(unknown_kind.status, 0);
  EXPECT_NE(unknown_kind.err.find("kronecker"), std::string::npos) << unknown_kind.err;
  // A positional argument left out is named as typed, with the usage.
  Result no_kind = Needle("generate --scale 10 -o " + ShellQuote(x));
  EXPECT_EQ(no_kind.status, 2);
  EXPECT_NE(no_kind.err.find("missing KIND (argument 1): usage: needle generate rmat"),
            std::string::npos)
      << no_kind.err;
  EXPECT_EQ(no_kind.err.find("--kind"), std::string::npos) << no_kind.err;
  Result no_input = Needle("convert -o " + ShellQuote(x));
  EXPECT_NE(no_input.err.find("missing INPUT (argument 1)"), std::string::npos) << no_input.err;
  EXPECT_NE(no_output.err.find("no output: give -o OUT"), std::string::npos) << no_output.err;
}

TEST_F(CliTest, EveryCommandWritesWithOAndOut) {
  // -o and --out on every command that writes (--output kept for generate and convert).
  for (const char* flag : {"-o", "--out", "--output"}) {
    SCOPED_TRACE(flag);
    const std::string g = File(std::string("g") + flag + ".el");
    Result r = Needle(std::string("generate rmat --scale 4 ") + flag + " " + ShellQuote(g));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string csr = File(std::string("g") + flag + ".csr");
    r = Needle("convert " + ShellQuote(g) + " " + flag + " " + ShellQuote(csr));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(std::filesystem::exists(csr));
  }
  const std::string g = File("g-o.el");
  for (const char* flag : {"-o", "--out"}) {
    SCOPED_TRACE(flag);
    const std::string set = File(std::string("s") + flag);
    Result r = Needle("shard " + ShellQuote(g) + " --memory 64M " + flag + " " + ShellQuote(set));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(std::filesystem::exists(set + "/manifest"));
    const std::string ranks = File(std::string("r") + flag + ".tsv");
    r = Needle("run pagerank " + ShellQuote(set) + " --memory 64M " + flag + " " +
               ShellQuote(ranks));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(std::filesystem::exists(ranks));
  }
  // --direct and --buffered on both shard and run, one or the other.
  for (const char* command : {"shard", "run pagerank"}) {
    SCOPED_TRACE(command);
    for (const char* io : {"--direct", "--buffered"}) {
      Result r = Needle(std::string(command) + " " + ShellQuote(g) + " --memory 64M --force " +
                        io + " -o " + ShellQuote(File("io-out")));
      if (std::string(command) == "run pagerank") {
        r = Needle(std::string(command) + " " + ShellQuote(File("s-o")) + " --memory 64M " +
                   io + " -o " + ShellQuote(File("io.tsv")));
      }
      EXPECT_EQ(r.status, 0) << io << ": " << r.err;
    }
    Result both = Needle(std::string(command) + " " + ShellQuote(File("s-o")) +
                         " --memory 64M --direct --buffered");
    EXPECT_EQ(both.status, 2);
    EXPECT_NE(both.err.find("--direct and --buffered exclude each other"), std::string::npos)
        << both.err;
  }
}

// `needle info` on every hand-drawn file of the same graph prints the same numbers.
TEST_F(CliTest, InfoOnEveryTinyFormat) {
  for (const char* name : {"tiny.txt", "tiny.el", "tiny.wel", "tiny_crlf.wel", "tiny.mtx",
                           "tiny_pattern.mtx", "tiny.gr", "tiny_tw.gr"}) {
    SCOPED_TRACE(name);
    const std::string path = Copy(name);
    for (const std::string& p : {path, testing::Compress(path, "gzip")}) {
      auto info = Info(p);
      EXPECT_EQ(info["vertices"], "6");
      EXPECT_EQ(info["edges"], "9");
      EXPECT_EQ(info["self-loops"], "1");
      EXPECT_EQ(info["duplicates"], "1");
      EXPECT_EQ(info["max out-degree"], "3");
      EXPECT_EQ(info["max in-degree"], "2");
      EXPECT_DOUBLE_EQ(std::stod(info["average degree"]), 1.5);
    }
  }
  EXPECT_NE(Info(File("tiny.mtx"))["format"].find("mtx"), std::string::npos);
  EXPECT_NE(Info(File("tiny.gr.gz"))["format"].find("gzip"), std::string::npos);
}

TEST_F(CliTest, InfoWithExplicitFormat) {
  const std::string path = File("graph.data");
  std::filesystem::copy_file(testing::TestDataPath("tiny_tw.gr"), path);
  auto info = Info(path, "--format gr");
  EXPECT_EQ(info["vertices"], "6");
  EXPECT_EQ(info["edges"], "9");
}

TEST_F(CliTest, ConvertThenInfoAgrees) {
  for (const char* name : {"tiny.txt", "tiny.mtx", "tiny_tw.gr"}) {
    SCOPED_TRACE(name);
    const std::string input = Copy(name);
    const std::string out = File(std::string(name) + ".csr");
    Result r = Needle("convert " + ShellQuote(input) + " -o " + ShellQuote(out));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    auto text_info = Info(input);
    auto csr_info = Info(out);
    for (const char* key : {"vertices", "edges", "self-loops", "duplicates", "max out-degree",
                            "max in-degree", "average degree"}) {
      EXPECT_EQ(csr_info[key], text_info[key]) << key;
    }
    EXPECT_NE(csr_info["format"].find("csr"), std::string::npos) << csr_info["format"];
    // The file holds exactly the graph the library loads from the text.
    EXPECT_TRUE(testing::CsrEquals(CsrFile::Open(out).Load(), LoadGraph(input, LoadOptions{})));
    EXPECT_TRUE(FilesStartingWith(std::string(name) + ".csr.tmp").empty());
  }
}

TEST_F(CliTest, ConvertOptions) {
  const std::string input = Copy("tiny.wel");
  struct Case {
    const char* flags;
    const char* edges;
    const char* self_loops;
    const char* duplicates;
    const char* max_out;
    const char* max_in;
    bool transpose, symmetrize, drop_loops, drop_duplicates;
  };
  const Case cases[] = {
      {"--transpose", "9", "1", "1", "2", "3", true, false, false, false},
      {"--symmetrize", "17", "1", "4", "5", "5", false, true, false, false},
      {"--drop-self-loops", "8", "0", "1", "3", "2", false, false, true, false},
      {"--drop-duplicates", "8", "1", "0", "2", "2", false, false, false, true},
      {"--symmetrize --drop-self-loops --drop-duplicates", "12", "0", "0", "3", "3", false, true,
       true, true},
  };
  int i = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.flags);
    const std::string out = File("out" + std::to_string(i++) + ".csr");
    Result r = Needle("convert " + ShellQuote(input) + " -o " + ShellQuote(out) + " " + c.flags);
    ASSERT_EQ(r.status, 0) << r.err;
    auto info = Info(out);
    EXPECT_EQ(info["vertices"], "6");
    EXPECT_EQ(info["edges"], c.edges);
    EXPECT_EQ(info["self-loops"], c.self_loops);
    EXPECT_EQ(info["duplicates"], c.duplicates);
    EXPECT_EQ(info["max out-degree"], c.max_out);
    EXPECT_EQ(info["max in-degree"], c.max_in);
    LoadOptions options;
    options.csr.transpose = c.transpose;
    options.csr.symmetrize = c.symmetrize;
    options.csr.self_loops = c.drop_loops ? SelfLoopPolicy::kDrop : SelfLoopPolicy::kKeep;
    options.csr.duplicates = c.drop_duplicates ? DuplicatePolicy::kDrop : DuplicatePolicy::kKeep;
    EXPECT_TRUE(testing::CsrEquals(CsrFile::Open(out).Load(), LoadGraph(input, options)));
  }
}

TEST_F(CliTest, ConvertToTextEdgeList) {
  const std::string input = Copy("tiny.mtx");
  const std::string out = File("out.wel");
  Result r = Needle("convert " + ShellQuote(input) + " -o " + ShellQuote(out));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(testing::CsrEquals(LoadGraph(out, LoadOptions{}), LoadGraph(input, LoadOptions{})));
}

// --- Bad input ------------------------------------------------------------------------------

TEST_F(CliTest, BadInputGivesOneLineWithPathAndLine) {
  const std::string path = File("bad.el");
  testing::WriteFile(path, "# header\n0 1\n1 x\n2 0\n");
  for (const std::string& command : {std::string("info"), std::string("convert")}) {
    SCOPED_TRACE(command);
    const std::string args = command + " " + ShellQuote(path) +
                             (command == "convert" ? " -o " + ShellQuote(File("out.csr")) : "");
    Result r = Needle(args);
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(LineCount(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(path + ":3:"), std::string::npos) << r.err;
  }
  const std::string missing = File("missing.el");
  const std::string empty = File("empty.el");
  testing::WriteFile(empty, "");
  for (const std::string& p : {missing, empty}) {
    Result r = Needle("info " + ShellQuote(p));
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(LineCount(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(p), std::string::npos) << r.err;
  }
  // An output directory that does not exist.
  const std::string nowhere = File("no_such_dir/out.csr");
  Result r = Needle("convert " + ShellQuote(Copy("tiny.el")) + " -o " + ShellQuote(nowhere));
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(LineCount(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(nowhere), std::string::npos) << r.err;
}

TEST_F(CliTest, FailedConvertLeavesNothingBehind) {
  const std::string bad = File("bad.gr");
  testing::WriteFile(bad, "p sp 3 2\na 1 2 1\na 2 4 1\n");  // id 4 beyond the 3 declared
  const std::string out = File("OUT.csr");
  Result r = Needle("convert " + ShellQuote(bad) + " -o " + ShellQuote(out));
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(LineCount(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(bad + ":3:"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_TRUE(FilesStartingWith("OUT").empty());

  // A failed convert over an existing output leaves the old file as it was.
  ASSERT_EQ(Needle("convert " + ShellQuote(Copy("tiny.txt")) + " -o " + ShellQuote(out)).status, 0);
  const std::string before = testing::ReadFile(out);
  EXPECT_NE(Needle("convert " + ShellQuote(bad) + " -o " + ShellQuote(out)).status, 0);
  EXPECT_EQ(testing::ReadFile(out), before);
  EXPECT_EQ(FilesStartingWith("OUT"), std::vector<std::string>{"OUT.csr"});

  // Truncated gzip input: the error comes late, after the output would have been started.
  std::string text;
  for (int i = 0; i < 50000; ++i) text += std::to_string(i) + " " + std::to_string(i / 2) + "\n";
  const std::string big = File("big.el");
  testing::WriteFile(big, text);
  const std::string gz = testing::Compress(big, "gzip");
  testing::Truncate(gz, std::filesystem::file_size(gz) / 2);
  const std::string out2 = File("OUT2.csr");
  Result truncated = Needle("convert " + ShellQuote(gz) + " -o " + ShellQuote(out2));
  EXPECT_NE(truncated.status, 0);
  EXPECT_EQ(LineCount(truncated.err), 1u) << truncated.err;
  EXPECT_NE(truncated.err.find(gz), std::string::npos) << truncated.err;
  EXPECT_TRUE(FilesStartingWith("OUT2").empty());
}

// Outputs are written, never destroyed: "-" is stdout, a symlink stays a symlink, a FIFO or a
// device is written in place, /dev/stdout writes the descriptor; an output that cannot be
// written fails before the input is read.
TEST_F(CliTest, ConvertOutputsAreWrittenNotReplaced) {
  const std::string input = Copy("tiny.txt");
  ASSERT_EQ(
      Needle("convert " + ShellQuote(input) + " -o " + ShellQuote(File("expected.el"))).status, 0);
  const std::string expected = testing::ReadFile(File("expected.el"));

  Result r = Needle("convert " + ShellQuote(input) + " -o -");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, expected);  // the data alone: the summary went to stderr
  EXPECT_NE(r.err.find("-> -"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(File("-"))) << "wrote a file named '-'";

  std::filesystem::create_directory(File("real"));
  std::filesystem::create_symlink("real/target.el", File("link.el"));
  r = Needle("convert " + ShellQuote(input) + " -o " + ShellQuote(File("link.el")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(File("link.el"))) << "the symlink was replaced";
  EXPECT_EQ(testing::ReadFile(File("real/target.el")), expected);

  ASSERT_EQ(mkfifo(File("pipe").c_str(), 0600), 0);
  r = Needle("convert " + ShellQuote(input) + " -o " + ShellQuote(File("pipe")) +
             " & timeout 60 cat " + ShellQuote(File("pipe")) + " > " +
             ShellQuote(File("from_pipe.el")) + "; wait");
  EXPECT_EQ(testing::ReadFile(File("from_pipe.el")), expected);
  EXPECT_EQ(std::filesystem::status(File("pipe")).type(), std::filesystem::file_type::fifo);

  const std::filesystem::file_status null_before = std::filesystem::status("/dev/null");
  r = Needle("convert " + ShellQuote(input) + " -o /dev/null");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(std::filesystem::status("/dev/null").type(), null_before.type());
  EXPECT_TRUE(std::filesystem::is_symlink("/dev/stdout"));
  r = Needle("convert " + ShellQuote(input) + " -o /dev/stdout");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, expected);
  EXPECT_TRUE(std::filesystem::is_symlink("/dev/stdout")) << "/dev/stdout was replaced";

  // A binary .csr to a pipe comes out byte for byte as written to a file.
  ASSERT_EQ(Needle("convert " + ShellQuote(input) + " -o " + ShellQuote(File("file.csr"))).status,
            0);
  ASSERT_EQ(mkfifo(File("pipe.csr").c_str(), 0600), 0);
  r = Needle("convert " + ShellQuote(input) + " -o " + ShellQuote(File("pipe.csr")) +
             " & timeout 60 cat " + ShellQuote(File("pipe.csr")) + " > " +
             ShellQuote(File("from_pipe.csr")) + "; wait");
  EXPECT_EQ(testing::ReadFile(File("from_pipe.csr")), testing::ReadFile(File("file.csr")));

  // A directory, or a directory that is not there, fails before the input is read: the input
  // here is malformed, and its error must not be the one reported.
  const std::string bad = File("bad.el");
  testing::WriteFile(bad, "0 x\n");
  r = Needle("convert " + ShellQuote(bad) + " -o " + ShellQuote(dir().string()));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  r = Needle("convert " + ShellQuote(bad) + " -o " + ShellQuote(File("no/such/x.csr")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no/such/x.csr"), std::string::npos) << r.err;
}

// --- generate ---------------------------------------------------------------------------------

TEST_F(CliTest, GenerateIsReproducible) {
  const std::string a = File("a.el");
  const std::string b = File("b.el");
  const std::string args = "generate rmat --scale 8 --edge-factor 4 --seed 3 -o ";
  Result ra = Needle(args + ShellQuote(a));
  ASSERT_EQ(ra.status, 0) << ra.err;
  Result rb = Needle(args + ShellQuote(b));
  ASSERT_EQ(rb.status, 0) << rb.err;
  const std::string text = testing::ReadFile(a);
  EXPECT_EQ(testing::ReadFile(b), text);
  // Thread count does not change the graph.
  const std::string c = File("c.el");
  ASSERT_EQ(Needle(args + ShellQuote(c) + " --threads 1").status, 0);
  const std::string d = File("d.el");
  ASSERT_EQ(Needle(args + ShellQuote(d) + " --threads 3").status, 0);
  EXPECT_EQ(testing::ReadFile(c), text);
  EXPECT_EQ(testing::ReadFile(d), text);
  // Another seed, another graph.
  const std::string e = File("e.el");
  ASSERT_EQ(Needle("generate rmat --scale 8 --edge-factor 4 --seed 4 -o " + ShellQuote(e)).status,
            0);
  EXPECT_NE(testing::ReadFile(e), text);

  auto info = Info(a);
  EXPECT_EQ(info["edges"], "1024");
  EXPECT_LE(std::stoull(info["vertices"]), 256u);
}

TEST_F(CliTest, GenerateCsrSortedAndWeighted) {
  const std::string el = File("g.el");
  const std::string sorted = File("g_sorted.el");
  const std::string csr = File("g.csr");
  const std::string weighted = File("g.wel");
  const std::string args = "generate rmat --scale 9 --edge-factor 3 --seed 5 ";
  ASSERT_EQ(Needle(args + "-o " + ShellQuote(el)).status, 0);
  ASSERT_EQ(Needle(args + "--sorted -o " + ShellQuote(sorted)).status, 0);
  ASSERT_EQ(Needle(args + "-o " + ShellQuote(csr)).status, 0);
  ASSERT_EQ(Needle(args + "--weighted -o " + ShellQuote(weighted)).status, 0);

  auto csr_info = Info(csr);
  EXPECT_EQ(csr_info["vertices"], "512");
  EXPECT_EQ(csr_info["edges"], "1536");

  // The same graph in every form: the .csr is the CSR of the generated edge list.
  Csr from_text = LoadGraph(el, LoadOptions{});
  Csr from_csr = CsrFile::Open(csr).Load();
  EXPECT_EQ(from_csr.num_vertices, 512u);
  EXPECT_TRUE(testing::SequencesEqual("targets", testing::ToPlain(from_csr).targets,
                                      testing::ToPlain(from_text).targets));
  // --sorted: edges by source, and the same CSR.
  EdgeList sorted_edges = ReadTextGraph(sorted, ReadOptions{});
  testing::PlainEdges s = testing::ToPlain(sorted_edges);
  EXPECT_TRUE(std::is_sorted(s.edges.begin(), s.edges.end(),
                             [](const Edge& x, const Edge& y) { return x.source < y.source; }));
  EXPECT_TRUE(testing::CsrEquals(LoadGraph(sorted, LoadOptions{}), from_text));
  // --weighted: integer weights in [1, 255].
  Csr w = LoadGraph(weighted, LoadOptions{});
  ASSERT_TRUE(w.weighted);
  EXPECT_EQ(w.NumEdges(), 1536u);
  for (Weight x : w.weights) {
    ASSERT_GE(x, 1);
    ASSERT_LE(x, 255);
    ASSERT_EQ(x, static_cast<Weight>(static_cast<int>(x)));
  }
}

}  // namespace
}  // namespace needle
