// Text graph formats: every hand-drawn file in tests/data describes the same graph, so every
// one of them, plain or compressed, through every reading path, must give the same edges in
// the same order and the same CSR, which is written out by hand below.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "loaders/csr.h"
#include "loaders/csr_file_format.h"
#include "loaders/edge_list_writer.h"
#include "loaders/format.h"
#include "loaders/load_graph.h"
#include "loaders/text_reader.h"
#include "tests/test_util.h"

namespace needle {
namespace {

using testing::CsrEquals;
using testing::Packing;
using testing::PackingName;
using testing::PlainCsr;
using testing::PlainEdges;
using testing::SequencesEqual;
using testing::TestDataPath;
using testing::ThrowsError;
using testing::ToPlain;

// The graph of tests/data/README.md, in file order.
const std::vector<Edge> kTinyEdges = {{0, 1}, {0, 2}, {1, 2}, {2, 0}, {4, 4},
                                      {2, 5}, {5, 4}, {0, 1}, {4, 0}};
const std::vector<Weight> kTinyWeights = {1.5f, 2, 0.5f, 3, 1, 1000, -2, 7, 4.25f};

// Its CSR, by hand: out-lists keep the input order (the duplicate 0 -> 1 stays last).
PlainCsr TinyCsr(bool weighted) {
  PlainCsr p;
  p.num_vertices = 6;
  p.weighted = weighted;
  p.offsets = {0, 3, 4, 6, 6, 8, 9};
  p.targets = {1, 2, 1, /*1*/ 2, /*2*/ 0, 5, /*3*/ /*4*/ 4, 0, /*5*/ 4};
  if (weighted) p.weights = {1.5f, 2, 7, 0.5f, 3, 1000, 1, 4.25f, -2};
  return p;
}

Compression PackingCompression(Packing p) {
  switch (p) {
    case Packing::kPlain:
      return Compression::kNone;
    case Packing::kGzip:
      return Compression::kGzip;
    case Packing::kXz:
      return Compression::kXz;
  }
  return Compression::kNone;
}

// Copies tests/data/<name> into `dir` and compresses it when asked; returns the path to read.
std::string Prepare(const std::filesystem::path& dir, const std::string& name, Packing packing) {
  const std::string copy = (dir / name).string();
  std::filesystem::copy_file(TestDataPath(name), copy);
  return testing::Pack(copy, packing);
}

struct TinyFile {
  const char* name;
  bool weighted;
  GraphFormat format;
};

const TinyFile kTinyFiles[] = {
    {"tiny.txt", true, GraphFormat::kEdgeList},
    {"tiny.el", false, GraphFormat::kEdgeList},
    {"tiny_extra_column.el", false, GraphFormat::kEdgeList},
    {"tiny.wel", true, GraphFormat::kEdgeList},
    {"tiny_mixed_blanks.wel", true, GraphFormat::kEdgeList},
    {"tiny_crlf.wel", true, GraphFormat::kEdgeList},
    {"tiny_no_final_newline.wel", true, GraphFormat::kEdgeList},
    {"tiny.mtx", true, GraphFormat::kMatrixMarket},
    {"tiny_pattern.mtx", false, GraphFormat::kMatrixMarket},
    {"tiny.gr", true, GraphFormat::kDimacs},
    {"tiny_tw.gr", false, GraphFormat::kDimacs},
};

// block_bytes: the default, and 64 bytes (the parser's minimum), which puts only a line or
// two in each parallel block so that block boundaries fall everywhere.
constexpr size_t kTinyBlock = 64;

using TinyParam = std::tuple<TinyFile, Packing, size_t>;

class TinyFormatTest : public testing::WithTempDir<::testing::TestWithParam<TinyParam>> {
 protected:
  const TinyFile& file() const { return std::get<0>(GetParam()); }
  Packing packing() const { return std::get<1>(GetParam()); }
  ReadOptions Options(int threads) const {
    ReadOptions o;
    o.threads = threads;
    o.block_bytes = std::get<2>(GetParam());
    return o;
  }
  std::string PreparedPath() { return Prepare(dir(), file().name, packing()); }
};

TEST_P(TinyFormatTest, ReadTextGraphGivesTheEdgesInFileOrder) {
  const std::string path = PreparedPath();
  for (int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    TextGraphInfo info;
    EdgeList list = ReadTextGraph(path, Options(threads), &info);
    EXPECT_EQ(list.num_vertices, 6u);
    EXPECT_EQ(list.weighted, file().weighted);
    PlainEdges got = ToPlain(list);
    EXPECT_TRUE(SequencesEqual("edges", got.edges, kTinyEdges));
    if (file().weighted) {
      EXPECT_TRUE(SequencesEqual("weights", got.weights, kTinyWeights));
    }
    EXPECT_EQ(info.layout.format, file().format);
    EXPECT_EQ(info.layout.weighted, file().weighted);
    EXPECT_EQ(info.compression, PackingCompression(packing()));
    EXPECT_EQ(info.entries, 9u);
    EXPECT_EQ(info.text_bytes, std::filesystem::file_size(TestDataPath(file().name)));
  }
}

TEST_P(TinyFormatTest, BuildCsrGivesTheHandWrittenCsr) {
  const std::string path = PreparedPath();
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    EdgeList list = ReadTextGraph(path, Options(threads));
    CsrOptions csr_options;
    csr_options.threads = threads;
    CsrReport report;
    Csr csr = BuildCsr(list, csr_options, &report);
    EXPECT_TRUE(CsrEquals(csr, TinyCsr(file().weighted)));
    EXPECT_EQ(report.input_edges, 9u);
    EXPECT_EQ(report.self_loops, 1u);
    EXPECT_EQ(report.duplicates, 1u);
    EXPECT_TRUE(report.duplicates_counted);
    EXPECT_EQ(report.dropped_self_loops, 0u);
    EXPECT_EQ(report.dropped_duplicates, 0u);
  }
}

TEST_P(TinyFormatTest, LoadGraphGivesTheHandWrittenCsr) {
  const std::string path = PreparedPath();
  LoadOptions options;
  options.read = Options(0);
  LoadReport report;
  Csr csr = LoadGraph(path, options, &report);
  EXPECT_TRUE(CsrEquals(csr, TinyCsr(file().weighted)));
  EXPECT_EQ(report.format, file().format);
  EXPECT_EQ(report.compression, PackingCompression(packing()));
  EXPECT_EQ(report.file_bytes, std::filesystem::file_size(path));
  EXPECT_EQ(report.text_bytes, std::filesystem::file_size(TestDataPath(file().name)));
  EXPECT_FALSE(report.description.empty());
  EXPECT_EQ(report.csr.input_edges, 9u);
  EXPECT_EQ(report.csr.self_loops, 1u);
  EXPECT_EQ(report.csr.duplicates, 1u);
}

TEST_P(TinyFormatTest, TextStreamGivesTheSameEdges) {
  const std::string path = PreparedPath();
  TextStream stream(path, Options(2));
  EXPECT_EQ(stream.compression(), PackingCompression(packing()));
  EXPECT_EQ(stream.layout().format, file().format);
  if (file().format == GraphFormat::kEdgeList) {
    EXPECT_FALSE(stream.declared_vertices().has_value());
  } else {
    EXPECT_EQ(stream.declared_vertices(), std::optional<uint64_t>(6));
  }
  PlainEdges got;
  EdgeList chunk;
  while (stream.Next(chunk)) {
    // Take what each call appended, clearing in between as a bounded-memory reader would.
    PlainEdges part = ToPlain(chunk);
    got.edges.insert(got.edges.end(), part.edges.begin(), part.edges.end());
    got.weights.insert(got.weights.end(), part.weights.begin(), part.weights.end());
    ClearEdges(chunk);
  }
  EXPECT_FALSE(stream.Next(chunk)) << "Next() after the end must keep returning false";
  EXPECT_EQ(stream.num_vertices(), 6u);
  EXPECT_EQ(stream.entries(), 9u);
  EXPECT_TRUE(SequencesEqual("edges", got.edges, kTinyEdges));
  if (file().weighted) {
    EXPECT_TRUE(SequencesEqual("weights", got.weights, kTinyWeights));
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllFiles, TinyFormatTest,
    ::testing::Combine(::testing::ValuesIn(kTinyFiles),
                       ::testing::Values(Packing::kPlain, Packing::kGzip, Packing::kXz),
                       ::testing::Values(TextParser::kDefaultBlockBytes, kTinyBlock)),
    [](const ::testing::TestParamInfo<TinyParam>& p) {
      std::string name = std::get<0>(p.param).name;
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name + "_" + PackingName(std::get<1>(p.param)) + "_block" +
             std::to_string(std::get<2>(p.param));
    });

// --- Detection from the content when the name says nothing --------------------------------

struct NeutralNameCase {
  const char* name;
  bool weighted;  // what the content alone implies
  GraphFormat format;
};

class NeutralNameTest : public testing::WithTempDir<::testing::TestWithParam<NeutralNameCase>> {};

TEST_P(NeutralNameTest, FormatIsDetectedFromTheContent) {
  const std::string path = File("graph.data");
  std::filesystem::copy_file(TestDataPath(GetParam().name), path);
  for (Packing packing : {Packing::kPlain, Packing::kGzip}) {
    SCOPED_TRACE(PackingName(packing));
    // A misnamed compressed file: compression is recognised by its magic bytes.
    std::string read_path = path;
    if (packing == Packing::kGzip) {
      read_path = File("graph_gz.data");
      testing::WriteFile(read_path, testing::ReadFile(testing::Compress(path, "gzip")));
    }
    LoadReport report;
    Csr csr = LoadGraph(read_path, LoadOptions{}, &report);
    EXPECT_EQ(report.format, GetParam().format);
    EXPECT_EQ(report.compression, PackingCompression(packing));
    EXPECT_TRUE(CsrEquals(csr, TinyCsr(GetParam().weighted)));
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllFiles, NeutralNameTest,
    ::testing::Values(NeutralNameCase{"tiny.txt", true, GraphFormat::kEdgeList},
                      NeutralNameCase{"tiny.el", false, GraphFormat::kEdgeList},
                      // Without the .el name the third column is read as a weight.
                      NeutralNameCase{"tiny_extra_column.el", true, GraphFormat::kEdgeList},
                      NeutralNameCase{"tiny_crlf.wel", true, GraphFormat::kEdgeList},
                      NeutralNameCase{"tiny.mtx", true, GraphFormat::kMatrixMarket},
                      NeutralNameCase{"tiny_pattern.mtx", false, GraphFormat::kMatrixMarket},
                      NeutralNameCase{"tiny.gr", true, GraphFormat::kDimacs},
                      NeutralNameCase{"tiny_tw.gr", false, GraphFormat::kDimacs}),
    [](const ::testing::TestParamInfo<NeutralNameCase>& p) {
      std::string name = p.param.name;
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

// An explicit format overrides a misleading name.
TEST(ExplicitFormat, OverridesTheName) {
  testing::TempDir dir;
  const std::string path = dir.File("actually_dimacs.mtx.txt");
  std::filesystem::copy_file(TestDataPath("tiny.gr"), path);
  LoadOptions options;
  options.read.format = GraphFormat::kDimacs;
  EXPECT_TRUE(CsrEquals(LoadGraph(path, options), TinyCsr(true)));
}

// --- Weight mode ----------------------------------------------------------------------------

TEST(WeightMode, UnweightedDropsTheWeightColumn) {
  for (const char* name : {"tiny.wel", "tiny.mtx", "tiny.gr", "tiny.txt"}) {
    SCOPED_TRACE(name);
    LoadOptions options;
    options.read.weights = WeightMode::kUnweighted;
    EXPECT_TRUE(CsrEquals(LoadGraph(TestDataPath(name), options), TinyCsr(false)));
  }
}

TEST(WeightMode, WeightedOnAPatternFileIsAnError) {
  for (const char* name : {"tiny_pattern.mtx", "tiny_tw.gr"}) {
    SCOPED_TRACE(name);
    ReadOptions options;
    options.weights = WeightMode::kWeighted;
    const std::string path = TestDataPath(name);
    EXPECT_TRUE(ThrowsError([&] { ReadTextGraph(path, options); }, path, "", "weights"));
  }
}

// --- Matrix Market symmetric expansion --------------------------------------------------------

class SymmetricMtxTest : public testing::WithTempDir<::testing::TestWithParam<Packing>> {};

TEST_P(SymmetricMtxTest, ExpandsEachEntryInPlace) {
  const std::string path = Prepare(dir(), "tiny_sym.mtx", GetParam());
  const std::string expanded_path = Prepare(dir(), "tiny_sym_expanded.mtx", GetParam());
  // (i, j) is followed by (j, i); the diagonal entry (3, 3) appears once.
  const std::vector<Edge> expected_edges = {{1, 0}, {0, 1}, {2, 0}, {0, 2}, {2, 2},
                                            {4, 1}, {1, 4}, {3, 2}, {2, 3}};
  const std::vector<Weight> expected_weights = {0.5f, 0.5f, 2, 2, 4, -1, -1, 1000, 1000};
  PlainCsr expected_csr;
  expected_csr.num_vertices = 5;
  expected_csr.weighted = true;
  expected_csr.offsets = {0, 2, 4, 7, 8, 9};
  expected_csr.targets = {1, 2, 0, 4, 0, 2, 3, 2, 1};
  expected_csr.weights = {0.5f, 2, 0.5f, -1, 2, 4, 1000, 1000, -1};

  for (int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    ReadOptions options;
    options.threads = threads;
    options.block_bytes = kTinyBlock;
    TextGraphInfo info;
    EdgeList list = ReadTextGraph(path, options, &info);
    EXPECT_TRUE(info.layout.symmetric);
    EXPECT_EQ(info.entries, 5u);
    EXPECT_EQ(list.num_vertices, 5u);
    PlainEdges got = ToPlain(list);
    EXPECT_TRUE(SequencesEqual("edges", got.edges, expected_edges));
    EXPECT_TRUE(SequencesEqual("weights", got.weights, expected_weights));

    CsrOptions csr_options;
    csr_options.threads = threads;
    Csr csr = BuildCsr(list, csr_options);
    EXPECT_TRUE(CsrEquals(csr, expected_csr));
    Csr from_expanded = BuildCsr(ReadTextGraph(expanded_path, options), csr_options);
    EXPECT_TRUE(CsrEquals(csr, from_expanded));
  }
  EXPECT_TRUE(CsrEquals(LoadGraph(path, LoadOptions{}), expected_csr));
}

INSTANTIATE_TEST_SUITE_P(AllPackings, SymmetricMtxTest,
                         ::testing::Values(Packing::kPlain, Packing::kGzip, Packing::kXz),
                         [](const ::testing::TestParamInfo<Packing>& p) {
                           return PackingName(p.param);
                         });

// --- Odd but valid content ------------------------------------------------------------------

struct ValidTextCase {
  const char* label;
  const char* file_name;
  const char* text;
  bool weighted;
  std::vector<Edge> edges;
  std::vector<Weight> weights;  // empty: unweighted
  uint64_t vertices;
};

class ValidTextTest : public testing::WithTempDir<::testing::TestWithParam<ValidTextCase>> {};

TEST_P(ValidTextTest, ParsesAsExpected) {
  const ValidTextCase& c = GetParam();
  const std::string path = File(c.file_name);
  testing::WriteFile(path, c.text);
  for (size_t block : {TextParser::kDefaultBlockBytes, kTinyBlock}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE("block " + std::to_string(block) + " threads " + std::to_string(threads));
      ReadOptions options;
      options.block_bytes = block;
      options.threads = threads;
      EdgeList list = ReadTextGraph(path, options);
      EXPECT_EQ(list.num_vertices, c.vertices);
      EXPECT_EQ(list.weighted, c.weighted);
      PlainEdges got = ToPlain(list);
      EXPECT_TRUE(SequencesEqual("edges", got.edges, c.edges));
      EXPECT_TRUE(SequencesEqual("weights", got.weights, c.weights));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ValidTextTest,
    ::testing::Values(
        ValidTextCase{"NoFinalNewline", "a.el", "0 1\n1 2", false, {{0, 1}, {1, 2}}, {}, 3},
        ValidTextCase{"NoFinalNewlineCrlf", "a.el", "0 1\r\n1 2\r", false, {{0, 1}, {1, 2}}, {}, 3},
        ValidTextCase{"CommentWithoutFinalNewline", "a.el", "0 1\n# end", false, {{0, 1}}, {}, 2},
        ValidTextCase{"OnlyCommentsAndBlanks", "a.el", "# nothing\n\n%\n   \n", false, {}, {}, 0},
        ValidTextCase{
            "BlankLinesEverywhere", "a.el", "\n\n0 1\n\n\n2 0\n\n", false, {{0, 1}, {2, 0}}, {}, 3},
        ValidTextCase{"CrlfBlankAndCommentLines",
                      "a.wel",
                      "# c\r\n\r\n0 1 2\r\n% c\r\n1 0 3\r\n",
                      true,
                      {{0, 1}, {1, 0}},
                      {2, 3},
                      2},
        ValidTextCase{"WeightNotations",
                      "a.wel",
                      "0 1 1e3\n0 2 0.5\n0 3 -2\n0 4 +4\n0 5 .25\n0 6 2.5E-1\n0 7 1e+2\n0 8 7.\n",
                      true,
                      {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}, {0, 8}},
                      {1000, 0.5f, -2, 4, 0.25f, 0.25f, 100, 7},
                      9},
        // float32's limits: the largest finite magnitude (3.4028234e38 rounds to it), the
        // smallest subnormal (1e-45 rounds to it), and zeros with any exponent.
        ValidTextCase{
            "WeightsAtTheLimitsOfFloat32",
            "a.wel",
            "0 1 3.4028234e38\n0 2 -3.4028235e38\n0 3 1e-45\n0 4 -1.4e-45\n"
            "0 5 0e999999\n0 6 -0.0e-999999\n0 7 0.000\n0 8 1.17549435e-38\n",
            true,
            {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}, {0, 8}},
            {std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
             std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(), 0,
             0, 0, std::numeric_limits<float>::min()},
            9},
        ValidTextCase{"SnapExtraColumnsIgnored",
                      "a.el",
                      "0 1 123456 x\n1 0 99 y\n",
                      false,
                      {{0, 1}, {1, 0}},
                      {},
                      2},
        ValidTextCase{
            "LargestId", "a.el", "4294967294 0\n", false, {{4294967294u, 0}}, {}, 4294967295ull},
        ValidTextCase{"LargestIdOneBased",
                      "a.mtx",
                      "%%MatrixMarket matrix coordinate pattern general\n"
                      "4294967295 4294967295 1\n4294967295 1\n",
                      false,
                      {{4294967294u, 0}},
                      {},
                      4294967295ull},
        ValidTextCase{"MtxIntegerField",
                      "a.mtx",
                      "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 -5\n3 1 7\n",
                      true,
                      {{0, 1}, {2, 0}},
                      {-5, 7},
                      3},
        ValidTextCase{"MtxRectangularUsesTheLargerSide",
                      "a.mtx",
                      "%%MatrixMarket matrix coordinate pattern general\n2 4 1\n1 4\n",
                      false,
                      {{0, 3}},
                      {},
                      4},
        ValidTextCase{"MtxBannerCaseInsensitive",
                      "a.mtx",
                      "%%MatrixMarket MATRIX Coordinate Pattern GENERAL\n2 2 1\n2 1\n",
                      false,
                      {{1, 0}},
                      {},
                      2},
        ValidTextCase{"MtxSymmetricPatternDiagonalOnce",
                      "a.mtx",
                      "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 2\n3 1\n",
                      false,
                      {{1, 1}, {2, 0}, {0, 2}},
                      {},
                      3},
        ValidTextCase{"DimacsIsolatedTrailingVertices",
                      "a.gr",
                      "p sp 5 1\na 1 2 10\n",
                      true,
                      {{0, 1}},
                      {10},
                      5},
        ValidTextCase{"DimacsNoArcs", "a.gr", "c empty\np sp 3 0\n", true, {}, {}, 3},
        ValidTextCase{"LeadingZeros",
                      "a.el",
                      "007 00000000012\n0 000000000000000000\n",
                      false,
                      {{7, 12}, {0, 0}},
                      {},
                      13},
        ValidTextCase{
            "PaceNoFinalNewline", "a.gr", "p tw 3 2\n1 2\n3 1", false, {{0, 1}, {2, 0}}, {}, 3}),
    [](const ::testing::TestParamInfo<ValidTextCase>& p) { return p.param.label; });

// --- Many chunks and blocks -----------------------------------------------------------------

// A text graph much larger than the chunk and block sizes: the streaming reader must carry the
// partial line at each chunk end over to the next chunk.
TEST(ChunkedReading, LargeFileReadInSmallChunksMatchesTheOracle) {
  testing::TempDir dir;
  testing::Rng rng(7);
  std::vector<Edge> edges;
  std::vector<Weight> weights;
  std::string text = "# generated\n";
  for (int i = 0; i < 100000; ++i) {
    Edge e{static_cast<VertexId>(rng.Below(5000)), static_cast<VertexId>(rng.Below(70000))};
    auto w = static_cast<Weight>(rng.Below(1000)) / 4;
    edges.push_back(e);
    weights.push_back(w);
    text += std::to_string(e.source) + "\t" + std::to_string(e.target) + "\t" + std::to_string(w) +
            (i % 1000 == 0 ? "\r\n# comment\n" : "\n");
  }
  uint64_t n = 0;
  for (const Edge& e : edges) n = std::max<uint64_t>(n, std::max(e.source, e.target) + 1);
  const std::string path = dir.File("big.wel");
  testing::WriteFile(path, text);
  const std::string gz = testing::Compress(path, "gzip");
  for (const std::string& p : {path, gz}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(p + " threads " + std::to_string(threads));
      ReadOptions options;
      options.threads = threads;
      options.block_bytes = 1000;
      options.chunk_bytes = 10000;  // ~ 800 lines per chunk
      EdgeList list = ReadTextGraph(p, options);
      EXPECT_EQ(list.num_vertices, n);
      PlainEdges got = ToPlain(list);
      EXPECT_TRUE(SequencesEqual("edges", got.edges, edges));
      EXPECT_TRUE(SequencesEqual("weights", got.weights, weights));

      TextStream stream(p, options);
      EdgeList chunk;
      uint64_t at = 0;
      int calls = 0;
      while (stream.Next(chunk)) {
        PlainEdges part = ToPlain(chunk);
        ASSERT_LE(at + part.edges.size(), edges.size());
        std::vector<Edge> expected(edges.begin() + static_cast<int64_t>(at),
                                   edges.begin() + static_cast<int64_t>(at + part.edges.size()));
        ASSERT_TRUE(SequencesEqual("chunk edges", part.edges, expected)) << "chunk " << calls;
        at += part.edges.size();
        ++calls;
        ClearEdges(chunk);
      }
      EXPECT_EQ(at, edges.size());
      EXPECT_GT(calls, 10) << "chunk_bytes did not bound the chunks";
      EXPECT_EQ(stream.num_vertices(), n);
      EXPECT_EQ(stream.entries(), edges.size());
      EXPECT_EQ(stream.text_bytes(), text.size());
    }
  }
}

// Lines longer than the chunk the stream holds: the stream must grow its buffer rather than
// cut a line.
TEST(ChunkedReading, LinesLongerThanAChunk) {
  testing::TempDir dir;
  const std::string path = dir.File("long_lines.wel");
  std::string text = "# " + std::string(20000, 'x') + "\n";
  text += "0 1 2\n";
  text += "1" + std::string(9000, ' ') + "2" + std::string(9000, '\t') + "3.5\n";
  text += "2 0 " + std::string(12000, '0') + "4\n";  // a weight with 12,000 leading zeros
  testing::WriteFile(path, text);
  const std::string gz = testing::Compress(path, "gzip");
  for (const std::string& p : {path, gz}) {
    SCOPED_TRACE(p);
    ReadOptions options;
    options.chunk_bytes = 4096;
    options.block_bytes = 64;
    PlainEdges got = ToPlain(ReadTextGraph(p, options));
    const std::vector<Edge> expected = {{0, 1}, {1, 2}, {2, 0}};
    EXPECT_TRUE(SequencesEqual("edges", got.edges, expected));
    EXPECT_TRUE(SequencesEqual("weights", got.weights, std::vector<Weight>{2, 3.5f, 4}));
  }
}

// --- Format names and detection -------------------------------------------------------------

TEST(FormatNames, ParseAndPrint) {
  EXPECT_EQ(ParseFormatName("auto"), GraphFormat::kAuto);
  for (const char* n : {"snap", "el", "wel", "txt", "edgelist"}) {
    EXPECT_EQ(ParseFormatName(n), GraphFormat::kEdgeList) << n;
  }
  EXPECT_EQ(ParseFormatName("mtx"), GraphFormat::kMatrixMarket);
  EXPECT_EQ(ParseFormatName("gr"), GraphFormat::kDimacs);
  EXPECT_EQ(ParseFormatName("dimacs"), GraphFormat::kDimacs);
  EXPECT_EQ(ParseFormatName("csr"), GraphFormat::kCsr);
  EXPECT_THROW(ParseFormatName("graphml"), std::invalid_argument);
  for (GraphFormat f : {GraphFormat::kEdgeList, GraphFormat::kMatrixMarket, GraphFormat::kDimacs,
                        GraphFormat::kCsr, GraphFormat::kAuto}) {
    EXPECT_EQ(ParseFormatName(FormatName(f)), f) << FormatName(f);
  }
  EXPECT_EQ(CompressionName(Compression::kNone), "none");
  EXPECT_EQ(CompressionName(Compression::kGzip), "gzip");
  EXPECT_EQ(CompressionName(Compression::kXz), "xz");
}

TEST(FormatDetection, FromNameAndContent) {
  EXPECT_EQ(DetectFormat("a.mtx.gz", ""), GraphFormat::kMatrixMarket);
  EXPECT_EQ(DetectFormat("a.gr.xz", ""), GraphFormat::kDimacs);
  EXPECT_EQ(DetectFormat("a.txt", "%%MatrixMarket matrix"), GraphFormat::kMatrixMarket);
  EXPECT_EQ(DetectFormat("a.txt", "c comment\np sp 1 0\n"), GraphFormat::kDimacs);
  EXPECT_EQ(DetectFormat("a.txt", "p tw 1 0\n"), GraphFormat::kDimacs);
  EXPECT_EQ(DetectFormat("a.txt", "# c\n0 1\n"), GraphFormat::kEdgeList);
  EXPECT_EQ(DetectFormat("a.mtx", std::string_view(kCsrMagic, 8)), GraphFormat::kCsr);
  EXPECT_EQ(WeightModeFromName("a.wel.gz"), WeightMode::kWeighted);
  EXPECT_EQ(WeightModeFromName("a.el.xz"), WeightMode::kUnweighted);
  EXPECT_EQ(WeightModeFromName("a.txt"), WeightMode::kAuto);
  const unsigned char gz[] = {0x1f, 0x8b, 8, 0};
  const unsigned char xz[] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
  EXPECT_EQ(DetectCompression(gz, sizeof(gz)), Compression::kGzip);
  EXPECT_EQ(DetectCompression(xz, sizeof(xz)), Compression::kXz);
  EXPECT_EQ(DetectCompression(xz, 5), Compression::kNone);
  EXPECT_EQ(DetectCompression("0 1\n", 4), Compression::kNone);
}

// --- Writing edge lists back ------------------------------------------------------------------

class EdgeListWriterTest : public testing::WithTempDir<::testing::TestWithParam<bool>> {};

TEST_P(EdgeListWriterTest, WrittenTextReadsBackIdentically) {
  const bool weighted = GetParam();
  EdgeList list = ReadTextGraph(TestDataPath(weighted ? "tiny.txt" : "tiny.el"), ReadOptions{});
  const std::string path = File(weighted ? "out.wel" : "out.el");
  WriteEdgeListText(list, path, "written by the test");
  const std::string text = testing::ReadFile(path);
  EXPECT_EQ(text.rfind("# written by the test\n", 0), 0u) << text;
  EdgeList back = ReadTextGraph(path, ReadOptions{});
  PlainEdges got = ToPlain(back);
  EXPECT_TRUE(SequencesEqual("edges", got.edges, kTinyEdges));
  if (weighted) {
    EXPECT_TRUE(SequencesEqual("weights", got.weights, kTinyWeights));
  }
  EXPECT_EQ(back.weighted, weighted);

  // In CSR order: the text is the CSR's edge sequence, and it rebuilds the same CSR.
  Csr csr = BuildCsr(list, CsrOptions{});
  const std::string csr_path = File(weighted ? "csr_order.wel" : "csr_order.el");
  WriteCsrAsEdgeListText(csr, csr_path, "", 2);
  EXPECT_NE(testing::ReadFile(csr_path).substr(0, 1), "#");
  EdgeList from_csr = ReadTextGraph(csr_path, ReadOptions{});
  PlainEdges expected = testing::EdgesInCsrOrder(TinyCsr(weighted));
  PlainEdges got_csr = ToPlain(from_csr);
  EXPECT_TRUE(SequencesEqual("edges", got_csr.edges, expected.edges));
  EXPECT_TRUE(SequencesEqual("weights", got_csr.weights, expected.weights));

  // Nothing but the two outputs is left in the directory (no temporaries).
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 2u);
}

INSTANTIATE_TEST_SUITE_P(WeightedAndNot, EdgeListWriterTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "weighted" : "unweighted";
                         });

}  // namespace
}  // namespace needle
