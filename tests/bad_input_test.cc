// Bad input: every malformed file must raise needle::Error whose what() names the file, the
// line (text) or byte (binary) where the problem is, and says what is wrong. Each text case
// runs through every way of reading a text graph (whole file, CSR, stream, block API blocking
// and asynchronous), plain and compressed, and with tiny parser blocks, which must all report
// the same line.
#include <gtest/gtest.h>
#include <xxhash.h>
#include <zlib.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "loaders/csr_file.h"
#include "loaders/csr_file_format.h"
#include "loaders/graph_reader.h"
#include "loaders/load_graph.h"
#include "loaders/text_reader.h"
#include "tests/test_util.h"

namespace needle {
namespace {

using testing::AtByte;
using testing::AtLine;
using testing::Pack;
using testing::Packing;
using testing::PackingName;
using testing::ThrowsError;

// --- The ways of reading a text graph -------------------------------------------------------

enum class Entry { kReadTextGraph, kLoadGraph, kTextStream, kGraphReader, kGraphReaderAsync };

std::string EntryName(Entry e) {
  switch (e) {
    case Entry::kReadTextGraph:
      return "ReadTextGraph";
    case Entry::kLoadGraph:
      return "LoadGraph";
    case Entry::kTextStream:
      return "TextStream";
    case Entry::kGraphReader:
      return "GraphReader";
    case Entry::kGraphReaderAsync:
      return "GraphReaderAsync";
  }
  return "?";
}

// Reads the whole graph at `path` through `entry`; lets the library's Error out.
void ReadAll(Entry entry, const std::string& path, const ReadOptions& options) {
  switch (entry) {
    case Entry::kReadTextGraph: {
      ReadTextGraph(path, options);
      return;
    }
    case Entry::kLoadGraph: {
      LoadOptions load;
      load.read = options;
      LoadGraph(path, load);
      return;
    }
    case Entry::kTextStream: {
      TextStream stream(path, options);
      EdgeList chunk;
      while (stream.Next(chunk)) ClearEdges(chunk);
      return;
    }
    case Entry::kGraphReader: {
      GraphReaderOptions ro;
      ro.read = options;
      auto reader = GraphReader::Open(path, ro);
      std::vector<VertexId> sources(1000), targets(1000);
      std::vector<Weight> weights(reader->weighted() ? 1000 : 0);
      EdgeBuffers buffers{sources, targets, weights};
      for (uint64_t first = 0;;) {
        EdgeBlock block = reader->ReadEdges(first, buffers);
        if (block.size() == 0) break;
        first += block.size();
      }
      return;
    }
    case Entry::kGraphReaderAsync: {
      GraphReaderOptions ro;
      ro.read = options;
      ro.block_edges = 16;
      ro.buffers = 2;
      auto reader = GraphReader::Open(path, ro);
      reader->ReadEdgesAsync(0, UINT64_MAX, [](BlockLease lease) { lease.Release(); });
      reader->Wait();
      return;
    }
  }
}

// --- Malformed text -------------------------------------------------------------------------

struct BadTextCase {
  const char* label;
  const char* file_name;
  std::string text;
  uint64_t line;  // 0: the error is about the file as a whole
  const char* phrase;
};

const char kMtxReal[] = "%%MatrixMarket matrix coordinate real general\n";

std::string ManyGoodLinesThen(const std::string& bad, int good) {
  std::string text;
  for (int i = 0; i < good; ++i) {
    text += std::to_string(i % 97) + "\t" + std::to_string((i * 7) % 101) + "\n";
    if (i % 500 == 0) text += "# comment\n\n";  // comment and blank lines count as lines
  }
  return text + bad;
}

// Lines in ManyGoodLinesThen(bad, good) before `bad`.
uint64_t LinesBefore(int good) { return static_cast<uint64_t>(good + 2 * ((good + 499) / 500)); }

std::vector<BadTextCase> BadTextCases() {
  const std::string mtx = kMtxReal;
  return {
      {"NonNumericTarget", "a.el", "0 1\n1 x\n", 2, "non-negative integer"},
      {"NonNumericSource", "a.txt", "# header\n0 1\nabc 2\n", 3, "non-negative integer"},
      {"NegativeId", "a.el", "0 1\n-1 2\n", 2, "non-negative integer"},
      {"MissingTarget", "a.el", "0 1\n2\n", 2, "missing column"},
      {"MissingTargetLastLineNoNewline", "a.el", "0 1\n2", 2, "missing column"},
      {"MissingWeight", "a.wel", "0 1 2\n1 2\n", 2, "missing column"},
      {"MissingWeightDimacs", "a.gr", "p sp 3 2\na 1 2 5\na 2 3\n", 3, "missing column"},
      {"NonNumericWeight", "a.wel", "0 1 2\n1 2 abc\n", 2, "weight"},
      {"IdBeyond32Bits", "a.el", "0 1\n4294967296 0\n", 2, "beyond"},
      {"IdReserved", "a.el", "0 4294967295\n", 1, "beyond"},
      {"IdOverflowing64Bits", "a.el", "0 1\n1 99999999999999999999999\n", 2, "beyond"},
      {"IdZeroInMtx", "a.mtx", mtx + "3 3 2\n1 2 1\n0 1 1\n", 4, "1-based"},
      {"IdZeroTargetInMtx", "a.mtx", mtx + "3 3 1\n1 0 1\n", 3, "1-based"},
      {"IdZeroInDimacs", "a.gr", "p sp 3 2\na 1 2 1\na 2 0 1\n", 3, "1-based"},
      {"IdZeroInPace", "a.gr", "c pace\np tw 3 1\n0 1\n", 3, "1-based"},
      {"DimacsFewerArcsThanDeclared", "a.gr", "c x\np sp 3 3\na 1 2 1\na 2 3 1\n", 2, "declares 3"},
      {"DimacsMoreArcsThanDeclared", "a.gr", "p sp 3 1\na 1 2 1\na 2 3 1\n", 1, "declares 1"},
      {"PaceEdgeCountMismatch", "a.gr", "p tw 3 3\n1 2\n", 1, "declares 3"},
      {"MtxEntryCountMismatch", "a.mtx", mtx + "% c\n3 3 4\n1 2 1\n", 3, "declares 4"},
      {"MtxIdBeyondDeclared", "a.mtx", mtx + "3 3 2\n1 2 1\n4 1 1\n", 4, "beyond the vertex count"},
      {"DimacsIdBeyondDeclared", "a.gr", "p sp 3 1\na 1 4 1\n", 2, "beyond the vertex count"},
      {"PaceIdBeyondDeclared", "a.gr", "p tw 3 1\n4 1\n", 2, "beyond the vertex count"},
      {"MtxBannerArray", "a.mtx", "%%MatrixMarket matrix array real general\n3 3\n", 1,
       "coordinate"},
      {"MtxBannerTruncated", "a.mtx", "%%MatrixMarket matrix\n3 3 0\n", 1, "%%MatrixMarket"},
      {"MtxBannerComplex", "a.mtx", "%%MatrixMarket matrix coordinate complex general\n", 1,
       "complex"},
      {"MtxBannerHermitian", "a.mtx", "%%MatrixMarket matrix coordinate real hermitian\n", 1,
       "hermitian"},
      {"MtxMissingSizeLine", "a.mtx", mtx + "% only comments\n", 0, "size line"},
      {"MtxSizeLineTwoColumns", "a.mtx", mtx + "3 3\n", 2, "size line"},
      {"MtxSizeLineNotNumeric", "a.mtx", mtx + "3 x 1\n", 2, "non-negative integer"},
      {"MtxExtraColumn", "a.mtx", mtx + "2 2 1\n1 2 3 4\n", 3, "end of the line"},
      {"DimacsArcWithoutA", "a.gr", "p sp 3 1\n1 2 3\n", 2, "arc line"},
      {"DimacsUnknownLine", "a.gr", "p sp 3 1\nx 1 2 3\n", 2, "arc line"},
      {"DimacsMissingProblemLine", "a.gr", "c only comments\na 1 2 3\n", 2, "'p sp"},
      {"DimacsBadProblemLine", "a.gr", "p max 3 1\n", 1, "p sp"},
      {"DimacsNoProblemLineAtAll", "a.gr", "c nothing else\n", 0, "'p sp"},
      {"VertexCountBeyond32Bits", "a.gr", "p sp 4294967297 0\n", 1, "vertex count"},
      {"BadLineLateInTheFile", "a.el", ManyGoodLinesThen("17 x\n0 1\n", 6000),
       LinesBefore(6000) + 1, "non-negative integer"},
      {"BadLineLateNoNewline", "a.el", ManyGoodLinesThen("17", 3000), LinesBefore(3000) + 1,
       "missing column"},
      {"BadLineAfterCrlfLines", "a.wel", "# c\r\n0 1 2\r\n\r\n1 2 3\r\n% c\r\n2 3 x\r\n", 6,
       "weight"},
      // Weights float32 cannot hold: beyond its largest finite value once rounded (the float
      // would be ±inf), or non-zero but rounding to 0; a huge exponent is no special case.
      {"WeightBeyondFloat32", "a.wel", "0 1 2\n0 1 1e40\n", 2,
       "edge weight 1e40 does not fit float32 (magnitude at most 3.40282e+38)"},
      {"WeightJustBeyondFloat32", "a.wel", "0 1 3.4028236e38\n", 1, "does not fit float32"},
      {"NegativeWeightBeyondFloat32", "a.wel", "0 1 -5e38\n", 1, "does not fit float32"},
      {"WeightHugeExponent", "a.wel", "0 1 1e999999\n", 1, "does not fit float32"},
      {"WeightHugeExponentManyDigits", "a.wel", "0 1 1e99999999999999999999999\n", 1,
       "does not fit float32"},
      {"WeightManyIntegerDigits", "a.wel", "0 1 " + std::string(50, '9') + "\n", 1,
       "does not fit float32"},
      {"WeightUnderflowsFloat32", "a.wel", "0 1 1e-50\n", 1, "would round to 0"},
      {"WeightUnderflowsDouble", "a.wel", "0 1 -1e-999999\n", 1, "would round to 0"},
      {"WeightBeyondFloat32Mtx", "a.mtx", mtx + "2 2 2\n1 2 1\n2 1 1e39\n", 4,
       "does not fit float32"},
      {"WeightBeyondFloat32Dimacs", "a.gr", "p sp 2 1\na 1 2 4e38\n", 2, "does not fit float32"},
      {"WeightUnderflowDimacs", "a.gr", "p sp 2 1\na 1 2 1e-46\n", 2, "would round to 0"},
      {"WeightInfinityIsNotANumber", "a.wel", "0 1 inf\n", 1, "expected an edge weight"},
      {"WeightNanIsNotANumber", "a.wel", "0 1 nan\n", 1, "expected an edge weight"},
      // The message quotes the bad token, not the rest of the line.
      {"NegativeIdQuotesTheToken", "a.el", "0 1\n-3 2\n", 2, "found '-3'"},
      {"BadTargetQuotesTheToken", "a.el", "0 1\n3 2x 7\n", 2, "found '2x'"},
      {"BadWeightQuotesTheToken", "a.wel", "0 1 abc def\n", 1, "found 'abc'"},
      {"BadArcLetterQuotesTheToken", "a.gr", "p sp 3 1\nb 1 2 3\n", 2, "found 'b'"},
      // Non-printable bytes in quoted input are escaped: a NUL must not cut the message short.
      {"NulByteEscaped", "a.el", std::string("0 1\n\0 2\n", 8), 2, "found '\\x00'"},
      {"ControlBytesEscaped", "a.el", "0 1\n\x1b[2J 2\n", 2, "found '\\x1b[2J'"},
      {"HighBytesEscaped", "a.el", "0 1\n\xff\xfe 2\n", 2, "found '\\xff\\xfe'"},
      {"TabInQuotedRestOfLine", "a.mtx", mtx + "2 2 1\n1 2 3 4\t5\n", 3, "found '4\\t5'"},
      {"NulInMtxSizeLine", "a.mtx", mtx + std::string("3 \0 1\n", 6), 2, "\\x00"},
      {"EmptyEdgeList", "a.el", "", 0, "empty file"},
      {"EmptyMtx", "a.mtx", "", 0, "empty file"},
      {"EmptyDimacs", "a.gr", "", 0, "empty file"},
  };
}

using BadTextParam = std::tuple<BadTextCase, Entry, Packing>;

class BadTextTest : public testing::WithTempDir<::testing::TestWithParam<BadTextParam>> {};

// what() is one line of text: no control byte of the input (NUL, CR, LF, ESC) gets into it.
::testing::AssertionResult PrintableMessage(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    const std::string what = e.what();
    for (size_t i = 0; i < what.size(); ++i) {
      const auto c = static_cast<unsigned char>(what[i]);
      if (c < 0x20 || c == 0x7f) {
        return ::testing::AssertionFailure()
               << "control byte " << static_cast<int>(c) << " at " << i << " of what(): " << what;
      }
    }
    return ::testing::AssertionSuccess();
  } catch (...) {
    return ::testing::AssertionFailure() << "not a needle::Error";
  }
  return ::testing::AssertionFailure() << "did not throw";
}

TEST_P(BadTextTest, ErrorNamesFileLineAndProblem) {
  const auto& [c, entry, packing] = GetParam();
  const std::string plain = File(c.file_name);
  testing::WriteFile(plain, c.text);
  const std::string path = Pack(plain, packing);
  for (size_t block : {TextParser::kDefaultBlockBytes, size_t{64}}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE("block " + std::to_string(block) + " threads " + std::to_string(threads));
      ReadOptions options;
      options.block_bytes = block;
      options.threads = threads;
      options.chunk_bytes = 4096;  // several chunks for the long cases
      EXPECT_TRUE(ThrowsError([&] { ReadAll(entry, path, options); }, path,
                              c.line == 0 ? "" : AtLine(c.line), c.phrase));
      EXPECT_TRUE(PrintableMessage([&] { ReadAll(entry, path, options); }));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllCases, BadTextTest,
    ::testing::Combine(::testing::ValuesIn(BadTextCases()),
                       ::testing::Values(Entry::kReadTextGraph, Entry::kLoadGraph,
                                         Entry::kTextStream, Entry::kGraphReader,
                                         Entry::kGraphReaderAsync),
                       ::testing::Values(Packing::kPlain, Packing::kGzip, Packing::kXz)),
    [](const ::testing::TestParamInfo<BadTextParam>& p) {
      return std::string(std::get<0>(p.param).label) + "_" + EntryName(std::get<1>(p.param)) + "_" +
             PackingName(std::get<2>(p.param));
    });

// A file whose lines end in a lone CR (classic Mac) must not lose edges silently: either the CR
// ends the line, or the file is rejected at line 1.
TEST(CarriageReturn, LoneCrLineEndsAreNotSilentlyMisread) {
  testing::TempDir dir;
  for (const char* name : {"cr.el", "cr.wel"}) {
    SCOPED_TRACE(name);
    const bool weighted = std::strcmp(name, "cr.wel") == 0;
    const std::string path = dir.File(name);
    testing::WriteFile(path, weighted ? "0 1 5\r1 2 6\r2 0 7\r" : "0 1\r1 2\r2 0\r");
    try {
      EdgeList list = ReadTextGraph(path, ReadOptions{});
      testing::PlainEdges got = testing::ToPlain(list);
      const std::vector<Edge> expected = {{0, 1}, {1, 2}, {2, 0}};
      EXPECT_TRUE(testing::SequencesEqual("edges", got.edges, expected))
          << "a CR-only file was read without an error but with the wrong edges";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + AtLine(1)), std::string::npos) << e.what();
    }
  }
}

// --- Compressed streams cut short -----------------------------------------------------------

class TruncatedCompressionTest
    : public testing::WithTempDir<::testing::TestWithParam<std::tuple<Packing, Entry>>> {};

TEST_P(TruncatedCompressionTest, ReportsTruncationAtTheEndOfTheInput) {
  const auto [packing, entry] = GetParam();
  std::string text;
  testing::Rng rng(3);
  for (int i = 0; i < 40000; ++i) {
    text += std::to_string(rng.Below(100000)) + " " + std::to_string(rng.Below(100000)) + "\n";
  }
  const std::string plain = File("graph.el");
  testing::WriteFile(plain, text);
  const std::string packed = Pack(plain, packing);
  const uint64_t half = std::filesystem::file_size(packed) / 2;
  testing::Truncate(packed, half);
  const std::string phrase = packing == Packing::kGzip ? "truncated gzip" : "truncated xz";
  ReadOptions options;
  options.chunk_bytes = 16384;
  EXPECT_TRUE(ThrowsError([&] { ReadAll(entry, packed, options); }, packed, AtByte(half), phrase));
}

TEST_P(TruncatedCompressionTest, CorruptStreamIsAnError) {
  const auto [packing, entry] = GetParam();
  std::string text;
  for (int i = 0; i < 20000; ++i) text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  const std::string plain = File("graph.el");
  testing::WriteFile(plain, text);
  const std::string packed = Pack(plain, packing);
  std::string bytes = testing::ReadFile(packed);
  for (size_t i = bytes.size() / 3; i < bytes.size() / 3 + 8; ++i)
    bytes[i] = static_cast<char>(~bytes[i]);
  testing::WriteFile(packed, bytes);
  EXPECT_TRUE(ThrowsError([&] { ReadAll(entry, packed, ReadOptions{}); }, packed, ": byte ",
                          packing == Packing::kGzip ? "gzip" : "xz"));
}

// A decoder's failure is said in words, not as a library's status number.
TEST_P(TruncatedCompressionTest, CorruptStreamIsExplainedInWords) {
  const auto [packing, entry] = GetParam();
  std::string text;
  for (int i = 0; i < 20000; ++i) text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  const std::string plain = File("graph.el");
  testing::WriteFile(plain, text);
  const std::string packed = Pack(plain, packing);
  std::string bytes = testing::ReadFile(packed);
  for (size_t i = bytes.size() / 3; i < bytes.size() / 3 + 8; ++i)
    bytes[i] = static_cast<char>(~bytes[i]);
  testing::WriteFile(packed, bytes);
  EXPECT_TRUE(ThrowsError([&] { ReadAll(entry, packed, ReadOptions{}); }, packed, ": byte ",
                          "the compressed data is corrupt"));
  try {
    ReadAll(entry, packed, ReadOptions{});
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("error 9"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(GzipAndXz, TruncatedCompressionTest,
                         ::testing::Combine(::testing::Values(Packing::kGzip, Packing::kXz),
                                            ::testing::Values(Entry::kReadTextGraph,
                                                              Entry::kLoadGraph, Entry::kTextStream,
                                                              Entry::kGraphReader,
                                                              Entry::kGraphReaderAsync)),
                         [](const ::testing::TestParamInfo<std::tuple<Packing, Entry>>& p) {
                           return PackingName(std::get<0>(p.param)) + "_" +
                                  EntryName(std::get<1>(p.param));
                         });

class CompressedStreamTest : public testing::WithTempDir<::testing::TestWithParam<Entry>> {};

// An xz stream header whose flags (with a matching CRC32) ask for something unknown.
TEST_P(CompressedStreamTest, XzUnsupportedOptionsAreSaidSo) {
  const Entry entry = GetParam();
  const std::string plain = File("graph.el");
  testing::WriteFile(plain, "0 1\n1 2\n");
  const std::string packed = Pack(plain, Packing::kXz);
  std::string bytes = testing::ReadFile(packed);
  bytes[6] = 0x01;  // stream flags: the first byte is reserved and must be 0
  const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(bytes.data() + 6), 2);
  for (int i = 0; i < 4; ++i) bytes[8 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  testing::WriteFile(packed, bytes);
  EXPECT_TRUE(ThrowsError([&] { ReadAll(entry, packed, ReadOptions{}); }, packed, ": byte ",
                          "options this liblzma does not support"));
}

// A gzip member followed by a zlib stream that asks for a preset dictionary: zlib gives no
// message of its own for that.
TEST_P(CompressedStreamTest, GzipNeedingADictionaryIsSaidSo) {
  const Entry entry = GetParam();
  const std::string plain = File("graph.el");
  testing::WriteFile(plain, "0 1\n1 2\n");
  const std::string packed = Pack(plain, Packing::kGzip);
  // CMF 0x78 (deflate, 32 KiB window), FLG 0xbb (FDICT; 0x78bb is a multiple of 31), DICTID.
  std::ofstream(packed, std::ios::binary | std::ios::app) << std::string("\x78\xbb\0\0\0\1", 6);
  EXPECT_TRUE(ThrowsError([&] { ReadAll(entry, packed, ReadOptions{}); }, packed, ": byte ",
                          "preset dictionary"));
}

INSTANTIATE_TEST_SUITE_P(AllEntries, CompressedStreamTest,
                         ::testing::Values(Entry::kReadTextGraph, Entry::kLoadGraph,
                                           Entry::kTextStream, Entry::kGraphReader,
                                           Entry::kGraphReaderAsync),
                         [](const ::testing::TestParamInfo<Entry>& p) {
                           return EntryName(p.param);
                         });

TEST(EmptyCompressed, GzipOfNothingIsAnEmptyFile) {
  testing::TempDir dir;
  const std::string plain = dir.File("nothing.el");
  testing::WriteFile(plain, "");
  for (const char* tool : {"gzip", "xz"}) {
    const std::string packed = testing::Compress(plain, tool);
    for (Entry entry : {Entry::kReadTextGraph, Entry::kLoadGraph, Entry::kGraphReader}) {
      SCOPED_TRACE(std::string(tool) + " " + EntryName(entry));
      EXPECT_TRUE(
          ThrowsError([&] { ReadAll(entry, packed, ReadOptions{}); }, packed, "", "empty file"));
    }
  }
}

// --- Files that are not there or not files --------------------------------------------------

enum class Opener { kReadTextGraph, kLoadGraph, kTextStream, kGraphReader, kCsrFile };

class MissingFileTest : public ::testing::TestWithParam<Opener> {
 protected:
  void Open(const std::string& path) {
    switch (GetParam()) {
      case Opener::kReadTextGraph:
        ReadTextGraph(path, ReadOptions{});
        break;
      case Opener::kLoadGraph:
        LoadGraph(path, LoadOptions{});
        break;
      case Opener::kTextStream: {
        TextStream stream(path, ReadOptions{});
        break;
      }
      case Opener::kGraphReader:
        GraphReader::Open(path);
        break;
      case Opener::kCsrFile:
        CsrFile::Open(path);
        break;
    }
  }
};

TEST_P(MissingFileTest, MissingFile) {
  testing::TempDir dir;
  for (const char* name : {"missing.el", "missing.csr", "missing.mtx.gz"}) {
    const std::string path = dir.File(name);
    EXPECT_TRUE(ThrowsError([&] { Open(path); }, path, "", "No such file"));
  }
}

TEST_P(MissingFileTest, DirectoryInsteadOfAFile) {
  testing::TempDir dir;
  const std::string path = dir.File("graph.csr");
  std::filesystem::create_directory(path);
  EXPECT_TRUE(ThrowsError([&] { Open(path); }, path, "", "directory"));
}

TEST_P(MissingFileTest, EmptyFile) {
  testing::TempDir dir;
  for (const char* name : {"empty.el", "empty.csr", "empty.mtx", "empty.gr"}) {
    SCOPED_TRACE(name);
    const std::string path = dir.File(name);
    testing::WriteFile(path, "");
    EXPECT_TRUE(ThrowsError([&] { Open(path); }, path, "", "empty file"));
  }
}

INSTANTIATE_TEST_SUITE_P(AllOpeners, MissingFileTest,
                         ::testing::Values(Opener::kReadTextGraph, Opener::kLoadGraph,
                                           Opener::kTextStream, Opener::kGraphReader,
                                           Opener::kCsrFile),
                         [](const ::testing::TestParamInfo<Opener>& p) {
                           switch (p.param) {
                             case Opener::kReadTextGraph:
                               return "ReadTextGraph";
                             case Opener::kLoadGraph:
                               return "LoadGraph";
                             case Opener::kTextStream:
                               return "TextStream";
                             case Opener::kGraphReader:
                               return "GraphReader";
                             case Opener::kCsrFile:
                               return "CsrFile";
                           }
                           return "?";
                         });

// A .csr file handed to the text reader.
TEST(WrongKind, CsrFileIsNotText) {
  testing::TempDir dir;
  Csr csr = LoadGraph(testing::TestDataPath("tiny.wel"), LoadOptions{});
  const std::string path = dir.File("graph.csr");
  WriteCsrFile(csr, path);
  EXPECT_TRUE(ThrowsError([&] { ReadTextGraph(path, ReadOptions{}); }, path, "", "csr"));
}

// --- Damaged binary .csr files ----------------------------------------------------------------

// A weighted graph large enough that each section spans more than one 1 MiB checksum chunk.
Csr BigWeightedCsr() {
  const uint64_t n = 150000;  // offsets: 1.2 MB
  const uint64_t m = 300000;  // targets and weights: 1.2 MB each
  testing::Rng rng(11);
  std::vector<Edge> edges(m);
  std::vector<Weight> weights(m);
  for (uint64_t i = 0; i < m; ++i) {
    edges[i] = Edge{static_cast<VertexId>(rng.Below(n)), static_cast<VertexId>(rng.Below(n))};
    weights[i] = static_cast<Weight>(rng.Below(100));
  }
  return BuildCsr(testing::MakeEdgeList(n, edges, weights, true, 3), CsrOptions{});
}

CsrFileHeader ReadHeader(const std::string& path) {
  CsrFileHeader h{};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(&h), sizeof(h));
  return h;
}

void FlipByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
  ASSERT_TRUE(f.good()) << "cannot patch " << path;
}

template <class T>
void PatchField(const std::string& path, uint64_t offset, T value) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(reinterpret_cast<const char*>(&value), sizeof(value));
  ASSERT_TRUE(f.good()) << "cannot patch " << path;
}

// Recomputes, as the writer does, the chunk hashes (with rehash_chunks) and the header hash
// of the .csr at `path` after a test edited its header or its sections, so that the file
// passes every checksum and what refuses it is the structure or value check under test.
// The header hash is XXH3-64 of the 128-byte header with header_hash zeroed, followed by the
// chunk table.
void Reseal(const std::string& path, bool rehash_chunks) {
  std::string bytes = testing::ReadFile(path);
  CsrFileHeader h{};
  std::memcpy(&h, bytes.data(), sizeof(h));
  ASSERT_LE(h.table_pos + h.table_entries * sizeof(uint64_t), bytes.size());
  if (rehash_chunks) {
    uint64_t entry = 0;
    auto hash_section = [&](uint64_t pos, uint64_t size) {
      for (uint64_t off = 0; off < size; off += h.chunk_bytes) {
        const uint64_t hash =
            XXH3_64bits(bytes.data() + pos + off, std::min<uint64_t>(h.chunk_bytes, size - off));
        std::memcpy(bytes.data() + h.table_pos + sizeof(uint64_t) * entry++, &hash, sizeof(hash));
      }
    };
    hash_section(h.offsets_pos, (h.num_vertices + 1) * sizeof(EdgeIndex));
    hash_section(h.targets_pos, h.num_edges * sizeof(VertexId));
    if (h.weight_type == 1) hash_section(h.weights_pos, h.num_edges * sizeof(Weight));
    ASSERT_EQ(entry, h.table_entries);
  }
  h.header_hash = 0;
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, &h, sizeof(h));
  XXH3_64bits_update(state, bytes.data() + h.table_pos, h.table_entries * sizeof(uint64_t));
  h.header_hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  std::memcpy(bytes.data(), &h, sizeof(h));
  testing::WriteFile(path, bytes);
}

// Every edge through the block API, blocking and asynchronous; the sources derived from the
// offsets are checked to lie below the vertex count.
void ReadAllThroughReader(const std::string& path, bool async) {
  GraphReaderOptions options;
  options.block_edges = 50000;
  auto reader = GraphReader::Open(path, options);
  const uint64_t n = *reader->num_vertices();
  auto check = [&](const EdgeBlock& block) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (block.sources[i] >= n || block.targets[i] >= n) {
        ADD_FAILURE() << "edge " << block.first_edge + i << " (" << block.sources[i] << "->"
                      << block.targets[i] << ") beyond the " << n << " vertices";
        return;
      }
    }
  };
  if (async) {
    reader->ReadEdgesAsync(0, UINT64_MAX, [&](BlockLease lease) { check(lease.block()); });
    reader->Wait();
    return;
  }
  std::vector<VertexId> sources(70000), targets(70000);
  std::vector<Weight> weights(reader->weighted() ? 70000 : 0);
  for (uint64_t first = 0;;) {
    EdgeBlock block = reader->ReadEdges(first, {sources, targets, weights});
    if (block.size() == 0) break;
    check(block);
    first += block.size();
  }
}

class DamagedCsrTest : public testing::WithTempDir<> {
 protected:
  static void SetUpTestSuite() { csr_ = new Csr(BigWeightedCsr()); }
  static void TearDownTestSuite() {
    delete csr_;
    csr_ = nullptr;
  }
  void SetUp() override {
    WithTempDir::SetUp();
    path_ = File("graph.csr");
    WriteCsrFile(*csr_, path_);
    header_ = ReadHeader(path_);
  }
  // Every way of opening the file as a whole must fail the same way.
  void ExpectOpenFails(const std::string& position, const std::string& phrase) {
    EXPECT_TRUE(ThrowsError([&] { CsrFile::Open(path_); }, path_, position, phrase));
    EXPECT_TRUE(ThrowsError([&] { LoadGraph(path_, LoadOptions{}); }, path_, position, phrase));
    EXPECT_TRUE(ThrowsError([&] { GraphReader::Open(path_); }, path_, position, phrase));
  }
  // The file opens, but loading it, or reading the damaged range, fails.
  void ExpectLoadFails(const std::string& position, const std::string& phrase,
                       const std::function<void(const CsrFile&)>& read_damaged_range) {
    CsrFile file = CsrFile::Open(path_);
    EXPECT_TRUE(ThrowsError([&] { file.Load(1); }, path_, position, phrase));
    EXPECT_TRUE(ThrowsError([&] { file.Load(2); }, path_, position, phrase));
    EXPECT_TRUE(ThrowsError([&] { LoadGraph(path_, LoadOptions{}); }, path_, position, phrase));
    EXPECT_TRUE(ThrowsError([&] { read_damaged_range(file); }, path_, position, phrase));
  }

  static Csr* csr_;
  std::string path_;
  CsrFileHeader header_{};
};

Csr* DamagedCsrTest::csr_ = nullptr;

TEST_F(DamagedCsrTest, Undamaged) {
  EXPECT_TRUE(testing::CsrEquals(CsrFile::Open(path_).Load(), *csr_));
  EXPECT_GT(header_.num_edges * sizeof(VertexId), kCsrChunkBytes);
  EXPECT_GT((header_.num_vertices + 1) * sizeof(EdgeIndex), kCsrChunkBytes);
}

TEST_F(DamagedCsrTest, WrongMagic) {
  FlipByte(path_, 3);
  ExpectOpenFails(AtByte(0), "wrong magic");
}

TEST_F(DamagedCsrTest, TextFileNamedCsr) {
  testing::WriteFile(path_, "0 1\n1 2\n");
  // Named .csr but not one: either the magic check rejects it, or it is read as text.
  try {
    CsrFile::Open(path_);
    ADD_FAILURE() << "CsrFile::Open accepted a text file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path_), std::string::npos) << e.what();
  }
}

TEST_F(DamagedCsrTest, NewerVersion) {
  PatchField<uint32_t>(path_, offsetof(CsrFileHeader, version), kCsrVersion + 1);
  ExpectOpenFails(AtByte(offsetof(CsrFileHeader, version)), "newer");
}

TEST_F(DamagedCsrTest, HeaderByteFlipped) {
  for (uint64_t offset : {uint64_t{offsetof(CsrFileHeader, num_edges)},
                          uint64_t{offsetof(CsrFileHeader, reserved)} + 5}) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    WriteCsrFile(*csr_, path_);
    FlipByte(path_, offset);
    ExpectOpenFails(AtByte(kCsrHeaderHashOffset), "checksum mismatch");
  }
}

TEST_F(DamagedCsrTest, ChunkTableByteFlipped) {
  FlipByte(path_, header_.table_pos + 9);
  ExpectOpenFails(AtByte(kCsrHeaderHashOffset), "checksum mismatch");
}

TEST_F(DamagedCsrTest, OffsetsByteFlipped) {
  // In the second checksum chunk of the offsets section.
  const uint64_t chunk_start = header_.offsets_pos + kCsrChunkBytes;
  FlipByte(path_, chunk_start + 100);
  ExpectLoadFails(AtByte(chunk_start), "checksum mismatch in the offsets section",
                  [](const CsrFile& f) {
                    std::vector<EdgeIndex> out(10);
                    f.ReadOffsets(kCsrChunkBytes / sizeof(EdgeIndex) + 5, out);
                  });
  // Ranges in other chunks still read.
  CsrFile file = CsrFile::Open(path_);
  std::vector<EdgeIndex> first(100);
  file.ReadOffsets(0, first);
  EXPECT_EQ(first[99], csr_->offsets[99]);
}

TEST_F(DamagedCsrTest, TargetsByteFlipped) {
  const uint64_t chunk_start = header_.targets_pos + kCsrChunkBytes;
  FlipByte(path_, chunk_start + 4);
  ExpectLoadFails(AtByte(chunk_start), "checksum mismatch in the targets section",
                  [](const CsrFile& f) {
                    std::vector<VertexId> out(1);
                    f.ReadTargets(kCsrChunkBytes / sizeof(VertexId) + 1, out);
                  });
  CsrFile file = CsrFile::Open(path_);
  std::vector<VertexId> first(100);
  file.ReadTargets(0, first);
  EXPECT_EQ(first[50], csr_->targets[50]);
}

TEST_F(DamagedCsrTest, WeightsByteFlipped) {
  const uint64_t chunk_start = header_.weights_pos;
  FlipByte(path_, chunk_start + 1);
  ExpectLoadFails(AtByte(chunk_start), "checksum mismatch in the weights section",
                  [](const CsrFile& f) {
                    std::vector<Weight> out(3);
                    f.ReadWeights(100, out);
                  });
}

TEST_F(DamagedCsrTest, Truncated) {
  const uint64_t size = std::filesystem::file_size(path_);
  for (uint64_t cut : {size - 1, size / 2, uint64_t{4096}}) {
    SCOPED_TRACE("cut to " + std::to_string(cut));
    WriteCsrFile(*csr_, path_);
    testing::Truncate(path_, cut);
    ExpectOpenFails(AtByte(cut), "truncated");
  }
}

TEST_F(DamagedCsrTest, TruncatedInsideTheHeader) {
  testing::Truncate(path_, 50);
  ExpectOpenFails(AtByte(50), "header");
}

TEST_F(DamagedCsrTest, BytesAppended) {
  std::ofstream(path_, std::ios::binary | std::ios::app) << "junk";
  ExpectOpenFails(": byte ", "header says");
}

// --- Crafted .csr files: valid checksums, impossible contents ------------------------------

// The fixture's file with its header edited and the header hash recomputed.
class CraftedCsrTest : public DamagedCsrTest {
 protected:
  void EditHeader(const std::function<void(CsrFileHeader&)>& edit) {
    WriteCsrFile(*csr_, path_);
    CsrFileHeader h = ReadHeader(path_);
    edit(h);
    PatchField(path_, 0, h);
    Reseal(path_, /*rehash_chunks=*/false);
  }
  template <class T>
  void PatchValue(uint64_t offset, T value) {
    PatchField(path_, offset, value);
    Reseal(path_, /*rehash_chunks=*/true);
  }
  // The file opens, and every way of reading all of it fails at `byte` saying `phrase`.
  void ExpectEveryReadFails(uint64_t byte, const std::string& phrase) {
    const std::string at = AtByte(byte);
    CsrFile file = CsrFile::Open(path_);
    EXPECT_TRUE(ThrowsError([&] { file.Load(1); }, path_, at, phrase));
    EXPECT_TRUE(ThrowsError([&] { file.Load(2); }, path_, at, phrase));
    EXPECT_TRUE(ThrowsError([&] { LoadGraph(path_, LoadOptions{}); }, path_, at, phrase));
    EXPECT_TRUE(ThrowsError([&] { ReadAllThroughReader(path_, false); }, path_, at, phrase));
    EXPECT_TRUE(ThrowsError([&] { ReadAllThroughReader(path_, true); }, path_, at, phrase));
  }
  uint64_t OffsetByte(uint64_t v) const { return header_.offsets_pos + v * sizeof(EdgeIndex); }
  uint64_t TargetByte(uint64_t e) const { return header_.targets_pos + e * sizeof(VertexId); }
  uint64_t WeightByte(uint64_t e) const { return header_.weights_pos + e * sizeof(Weight); }
};

TEST_F(CraftedCsrTest, ResealingAnUneditedFileKeepsItValid) {
  EditHeader([](CsrFileHeader&) {});
  PatchValue<uint32_t>(TargetByte(5), csr_->targets[5]);
  EXPECT_TRUE(testing::CsrEquals(CsrFile::Open(path_).Load(), *csr_));
  ReadAllThroughReader(path_, false);
}

// Sizes and positions that wrap around 2^64 or leave the file, with a valid header hash: the
// structure check refuses them, naming the header field.
TEST_F(CraftedCsrTest, HeaderArithmeticIsChecked) {
  struct Case {
    const char* label;
    std::function<void(CsrFileHeader&)> edit;
    size_t field;
    const char* phrase;
  };
  const uint64_t top = ~uint64_t{0} - kCsrAlignment + 1;  // 2^64 - 4096, 4096-aligned
  const std::vector<Case> cases = {
      // num_edges * 4 wraps to the real section size: 2^62 + m edges look like m.
      {"num_edges wraps", [](CsrFileHeader& h) { h.num_edges += uint64_t{1} << 62; },
       offsetof(CsrFileHeader, num_edges), "num_edges"},
      {"num_vertices wraps", [](CsrFileHeader& h) { h.num_vertices += uint64_t{1} << 61; },
       offsetof(CsrFileHeader, num_vertices), "num_vertices"},
      {"offsets_pos wraps", [&](CsrFileHeader& h) { h.offsets_pos = top; },
       offsetof(CsrFileHeader, offsets_pos), "offsets section"},
      {"targets_pos wraps", [&](CsrFileHeader& h) { h.targets_pos = top; },
       offsetof(CsrFileHeader, targets_pos), "targets section"},
      {"weights_pos wraps", [&](CsrFileHeader& h) { h.weights_pos = top; },
       offsetof(CsrFileHeader, weights_pos), "weights section"},
      {"sections overlap", [](CsrFileHeader& h) { h.targets_pos = h.offsets_pos; },
       offsetof(CsrFileHeader, targets_pos), "targets section"},
      {"section inside the header", [](CsrFileHeader& h) { h.offsets_pos = 0; },
       offsetof(CsrFileHeader, offsets_pos), "offsets section"},
      {"weights past the table", [](CsrFileHeader& h) { h.weights_pos = h.table_pos; },
       offsetof(CsrFileHeader, weights_pos), "weights section"},
      {"unaligned section", [](CsrFileHeader& h) { h.targets_pos += 8; },
       offsetof(CsrFileHeader, targets_pos), "targets section"},
      {"unknown weight type", [](CsrFileHeader& h) { h.weight_type = 2; },
       offsetof(CsrFileHeader, weight_type), "weight type"},
      {"unweighted with a weights position", [](CsrFileHeader& h) { h.weight_type = 0; },
       offsetof(CsrFileHeader, weights_pos), "weights section position"},
      {"table entries wrap", [](CsrFileHeader& h) { h.table_entries += uint64_t{1} << 61; },
       offsetof(CsrFileHeader, table_entries), "chunk table"},
      // chunk_bytes: a non-zero multiple of 4096 of at most 1 GiB (else ids straddle chunks
      // unchecked and are read misaligned).
      {"chunk_bytes not a multiple of 4", [](CsrFileHeader& h) { h.chunk_bytes += 2; },
       offsetof(CsrFileHeader, chunk_bytes), "chunk_bytes"},
      {"chunk_bytes not a multiple of 4096", [](CsrFileHeader& h) { h.chunk_bytes += 8; },
       offsetof(CsrFileHeader, chunk_bytes), "chunk_bytes"},
      {"chunk_bytes tiny", [](CsrFileHeader& h) { h.chunk_bytes = 6; },
       offsetof(CsrFileHeader, chunk_bytes), "chunk_bytes"},
      {"chunk_bytes zero", [](CsrFileHeader& h) { h.chunk_bytes = 0; },
       offsetof(CsrFileHeader, chunk_bytes), "chunk_bytes"},
      {"chunk_bytes above 1 GiB", [](CsrFileHeader& h) { h.chunk_bytes = uint64_t{2} << 30; },
       offsetof(CsrFileHeader, chunk_bytes), "chunk_bytes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    EditHeader(c.edit);
    ExpectOpenFails(AtByte(c.field), c.phrase);
  }
}

// A weight that is not a number (NaN, ±inf) under valid checksums: refused with its byte.
TEST_F(CraftedCsrTest, NonFiniteWeights) {
  const uint64_t e = kCsrChunkBytes / sizeof(Weight) + 17;  // in the second checksum chunk
  for (uint32_t bits : {0x7fc00000u, 0x7f800000u, 0xff800000u, 0x7f800001u}) {
    SCOPED_TRACE("bits " + std::to_string(bits));
    WriteCsrFile(*csr_, path_);
    PatchValue<uint32_t>(WeightByte(e), bits);
    ExpectEveryReadFails(WeightByte(e), "not a finite number");
    CsrFile file = CsrFile::Open(path_);
    std::vector<Weight> out(3);
    EXPECT_TRUE(ThrowsError([&] { file.ReadWeights(e - 1, out); }, path_, AtByte(WeightByte(e)),
                            "not a finite number"));
  }
}

// Targets at or beyond the vertex count under valid checksums: the block API must not hand
// them out (the sharder would build a shard set for more vertices than the header says).
TEST_F(CraftedCsrTest, TargetBeyondTheVertexCount) {
  const uint64_t e = kCsrChunkBytes / sizeof(VertexId) + 5;
  for (uint32_t target : {static_cast<uint32_t>(header_.num_vertices), 0xffffffffu}) {
    SCOPED_TRACE("target " + std::to_string(target));
    WriteCsrFile(*csr_, path_);
    PatchValue<uint32_t>(TargetByte(e), target);
    ExpectEveryReadFails(TargetByte(e), "beyond the vertex count");
    CsrFile file = CsrFile::Open(path_);
    std::vector<VertexId> out(10);
    EXPECT_TRUE(ThrowsError([&] { file.ReadTargets(e - 3, out); }, path_, AtByte(TargetByte(e)),
                            "beyond the vertex count"));
  }
}

// Offsets that decrease, inside a checksum chunk and across two, under valid checksums.
TEST_F(CraftedCsrTest, OffsetsThatDecrease) {
  const uint64_t per_chunk = kCsrChunkBytes / sizeof(EdgeIndex);
  ASSERT_GT(header_.num_vertices, per_chunk + 10);
  for (uint64_t v : {uint64_t{1000}, per_chunk - 1, per_chunk}) {
    SCOPED_TRACE("vertex " + std::to_string(v));
    WriteCsrFile(*csr_, path_);
    PatchValue<EdgeIndex>(OffsetByte(v), csr_->offsets[v + 1] + 1);
    ExpectEveryReadFails(OffsetByte(v), "offsets decrease");
    auto reader = GraphReader::Open(path_);
    std::vector<EdgeIndex> all(header_.num_vertices + 1);
    EXPECT_TRUE(ThrowsError([&] { reader->ReadVertexOffsets(0, all); }, path_,
                            AtByte(OffsetByte(v)), "offsets decrease"));
    // A range that ends right after v: the pair (v, v + 1) straddles its end.
    std::vector<EdgeIndex> before(v + 1 - (v - 20));
    EXPECT_TRUE(ThrowsError([&] { reader->ReadVertexOffsets(v - 20, before); }, path_,
                            AtByte(OffsetByte(v)), "offsets decrease"));
  }
}

// Offsets that do not start at 0 or end at num_edges, or exceed it.
TEST_F(CraftedCsrTest, OffsetsThatDoNotSpanTheEdges) {
  const uint64_t n = header_.num_vertices;
  const uint64_t m = header_.num_edges;
  struct Case {
    uint64_t vertex;
    EdgeIndex value;
    const char* phrase;
  };
  for (const Case& c : {Case{0, 1, "span the edges"}, Case{n, m - 1, "span the edges"},
                        Case{n, m + 1, "edge count"}, Case{n - 1, m + 5, "beyond the edge count"},
                        Case{n / 2, m + 1, "beyond the edge count"}}) {
    SCOPED_TRACE("offsets[" + std::to_string(c.vertex) + "] = " + std::to_string(c.value));
    WriteCsrFile(*csr_, path_);
    PatchValue<EdgeIndex>(OffsetByte(c.vertex), c.value);
    ExpectEveryReadFails(OffsetByte(c.vertex), c.phrase);
  }
}

// A small crafted file whose offsets decrease and whose targets are beyond its 2 vertices
// must not send the block reader past its offsets (heap overflow under ASan).
TEST(CraftedSmallCsr, BlockReaderStaysInsideTheOffsets) {
  testing::TempDir dir;
  const std::string path = dir.File("two.csr");
  Csr csr;
  csr.num_vertices = 2;
  csr.offsets.Resize(3);
  csr.offsets[0] = 0;
  csr.offsets[1] = 2;
  csr.offsets[2] = 3;
  csr.targets.Resize(3);
  csr.targets[0] = 1;
  csr.targets[1] = 0;
  csr.targets[2] = 1;
  WriteCsrFile(csr, path);
  const CsrFileHeader h = ReadHeader(path);
  // offsets 0 2 2 for 3 edges: the old reader walked past offsets[2] for edge 2 (read out of
  // its cache under ASan).
  PatchField<EdgeIndex>(path, h.offsets_pos + 2 * sizeof(EdgeIndex), 2);
  Reseal(path, true);
  EXPECT_TRUE(ThrowsError([&] { ReadAllThroughReader(path, false); }, path,
                          AtByte(h.offsets_pos + 2 * sizeof(EdgeIndex)), "span the edges"));
  PatchField<EdgeIndex>(path, h.offsets_pos + 2 * sizeof(EdgeIndex), 3);
  PatchField<EdgeIndex>(path, h.offsets_pos + sizeof(EdgeIndex), 7);  // offsets: 0 7 3
  Reseal(path, true);
  EXPECT_TRUE(ThrowsError([&] { ReadAllThroughReader(path, false); }, path,
                          AtByte(h.offsets_pos + sizeof(EdgeIndex)), "beyond the edge count"));
  PatchField<EdgeIndex>(path, h.offsets_pos + sizeof(EdgeIndex), 2);    // offsets fine again
  PatchField<VertexId>(path, h.targets_pos + 2 * sizeof(VertexId), 7);  // a target beyond 2
  Reseal(path, true);
  EXPECT_TRUE(ThrowsError([&] { ReadAllThroughReader(path, false); }, path,
                          AtByte(h.targets_pos + 2 * sizeof(VertexId)), "beyond the vertex count"));
}

}  // namespace
}  // namespace needle
