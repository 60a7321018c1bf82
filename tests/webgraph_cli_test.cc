// The `needle` command line on WebGraph BVGraph inputs, run as a separate process: info names
// the format and the counts, convert gives the same .csr as converting the text edge list, and
// run shards a BVGraph (into a temporary --shards-dir; never beside the shared datasets) and
// checks PageRank against the serial oracle (--verify).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "loaders/load_graph.h"
#include "tests/test_util.h"

#ifndef NEEDLE_BINARY
#error "NEEDLE_BINARY must name the needle executable (see tests/CMakeLists.txt)"
#endif

namespace needle {
namespace {

using testing::ShellQuote;

class WebGraphCliTest : public testing::WithTempDir<> {
 protected:
  testing::CommandResult Needle(const std::string& args) {
    return testing::RunCaptured(ShellQuote(NEEDLE_BINARY) + " " + args, dir().string());
  }
  static std::string Cnr() { return testing::DatasetPath("cnr-2000/cnr-2000"); }
  static std::string Uk() { return testing::DatasetPath("uk-2007-05-100k/uk-2007-05-100k"); }
};

TEST_F(WebGraphCliTest, InfoNamesTheFormatAndCounts) {
  for (const std::string& input : {Cnr() + ".graph", Cnr(), Cnr() + ".properties"}) {
    testing::CommandResult r = Needle("info " + ShellQuote(input));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("webgraph BVGraph"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("with .offsets"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("325557"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("3216152"), std::string::npos) << r.out;
  }
  testing::CommandResult uk = Needle("info " + ShellQuote(Uk() + ".graph") + " --format webgraph");
  ASSERT_EQ(uk.status, 0) << uk.err;
  EXPECT_NE(uk.out.find("no .offsets"), std::string::npos) << uk.out;
  EXPECT_NE(uk.out.find("3050615"), std::string::npos) << uk.out;
}

TEST_F(WebGraphCliTest, ConvertEqualsConvertingTheTextFile) {
  const std::string from_bv = File("bv.csr"), from_text = File("text.csr");
  testing::CommandResult a = Needle("convert " + ShellQuote(Cnr() + ".graph") + " -o " +
                                    ShellQuote(from_bv));
  ASSERT_EQ(a.status, 0) << a.err;
  testing::CommandResult b = Needle("convert " + ShellQuote(Cnr() + ".txt.gz") + " -o " +
                                    ShellQuote(from_text));
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_TRUE(testing::CsrEquals(LoadGraph(from_bv, LoadOptions{}),
                                 LoadGraph(from_text, LoadOptions{})));
  EXPECT_NE(a.out.find("87442 self-loops"), std::string::npos) << a.out;
}

TEST_F(WebGraphCliTest, BadInputIsOneLine) {
  const std::string base = File("bad");
  testing::WriteFile(base + ".graph", std::string(8, '\0'));
  testing::WriteFile(base + ".properties",
                     "graphclass=it.unimi.dsi.webgraph.BVGraph\nnodes=3\narcs=1\nwindowsize=7\n"
                     "maxrefcount=3\nminintervallength=4\nzetak=3\ncompressionflags=\n");
  testing::CommandResult r = Needle("info " + ShellQuote(base + ".graph"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find(base + ".graph: byte 0: bit 0, node 0"), std::string::npos) << r.err;
  testing::CommandResult w = Needle("info " + ShellQuote(Uk() + ".graph") + " --weights yes");
  EXPECT_NE(w.status, 0);
  EXPECT_NE(w.err.find("no weights"), std::string::npos) << w.err;
}

TEST_F(WebGraphCliTest, RunPageRankOnABvGraph) {
  const std::string shards = File("sets");
  std::filesystem::create_directories(shards);
  const auto before = std::distance(
      std::filesystem::directory_iterator(std::filesystem::path(Uk()).parent_path()),
      std::filesystem::directory_iterator());
  testing::CommandResult r =
      Needle("run pagerank " + ShellQuote(Uk() + ".graph") + " --shards-dir " +
             ShellQuote(shards) + " --memory 64M --verify");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_FALSE(std::filesystem::is_empty(shards));
  // Nothing was written beside the dataset.
  EXPECT_EQ(std::distance(
                std::filesystem::directory_iterator(std::filesystem::path(Uk()).parent_path()),
                std::filesystem::directory_iterator()),
            before);
  // A second run reuses the set: the content hash of the BVGraph matches.
  testing::CommandResult again =
      Needle("run pagerank " + ShellQuote(Uk() + ".graph") + " --shards-dir " +
             ShellQuote(shards) + " --memory 64M");
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_NE((again.out + again.err).find("reusing"), std::string::npos) << again.out << again.err;
}

}  // namespace
}  // namespace needle
