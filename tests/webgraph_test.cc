// The WebGraph BVGraph reader (loaders/bvgraph.h, webgraph_reader.h, webgraph_properties.h):
//
// - the instantaneous codes on hand-computed bit patterns, and round trips through a bit
//   writer written here;
// - hand-drawn graphs (empty, outdegree 0, self-loops, long intervals, references and
//   blocks) written by a small BVGraph encoder written here from the format's description,
//   read back through every path: sequential and parallel Decode, LoadGraph, the block API;
// - cnr-2000 (with .offsets: parallel and forced sequential) and uk-2007-05-100k (no
//   .offsets: sequential) arc for arc against their .txt.gz, read with zlib line by line;
// - corrupt input: truncations, single-byte changes, bad properties, unsupported
//   compressionflags, an .offsets file that disagrees — always a needle::Error, never a crash
//   (the ASan build runs these too).
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "loaders/bit_reader.h"
#include "loaders/bvgraph.h"
#include "loaders/content_hash.h"
#include "loaders/graph_reader.h"
#include "loaders/load_graph.h"
#include "loaders/webgraph_input.h"
#include "loaders/webgraph_properties.h"
#include "tests/bit_writer.h"
#include "tests/test_util.h"

namespace needle {
namespace {

using testing::ThrowsError;
using Lists = std::vector<std::vector<VertexId>>;

// --- An independent bit writer and BVGraph encoder --------------------------------------

using testing::BitWriter;

uint64_t Int2Nat(int64_t v) { return v >= 0 ? uint64_t(v) * 2 : uint64_t(-v) * 2 - 1; }

struct EncodeOptions {
  uint32_t window = 7;
  uint32_t max_ref = 3;
  uint32_t min_interval = 4;
  int zeta_k = 3;
  BvCodings codings;
  std::string flags;  // compressionflags as written
};

struct Encoded {
  std::vector<uint8_t> graph;
  std::vector<uint8_t> offsets;
  std::string properties;
};

// Chooses, for each node, the reference in the window (chain permitting) that copies most,
// then codes blocks, intervals of at least min_interval, and residuals.
Encoded Encode(const Lists& lists, const EncodeOptions& o) {
  const uint64_t n = lists.size();
  BitWriter w;
  std::vector<uint64_t> offsets;
  std::vector<uint32_t> chain(n, 0);
  uint64_t arcs = 0;
  for (uint64_t x = 0; x < n; ++x) {
    offsets.push_back(w.bits());
    const std::vector<VertexId>& cur = lists[x];
    arcs += cur.size();
    w.Coded(cur.size(), o.codings.outdegrees, o.zeta_k);
    if (cur.empty()) continue;
    const std::set<VertexId> cur_set(cur.begin(), cur.end());
    uint64_t best_r = 0, best_copy = 0;
    for (uint64_t r = 1; r <= o.window && r <= x; ++r) {
      if (chain[x - r] >= o.max_ref) continue;
      uint64_t copy = 0;
      for (VertexId v : lists[x - r]) copy += cur_set.count(v);
      if (copy > best_copy) best_copy = copy, best_r = r;
    }
    std::set<VertexId> extra(cur.begin(), cur.end());
    if (o.window > 0) w.Coded(best_r, o.codings.references, o.zeta_k);
    if (best_r > 0) {
      chain[x] = chain[x - best_r] + 1;
      // Runs of copied / skipped over the referenced list, starting with a copied run.
      std::vector<uint64_t> runs{0};
      bool copying = true;
      for (VertexId v : lists[x - best_r]) {
        const bool in = cur_set.count(v) > 0;
        if (in) extra.erase(v);
        if (in != copying) {
          runs.push_back(0);
          copying = in;
        }
        ++runs.back();
      }
      runs.pop_back();  // the last run is implied by the parity of the count
      w.Coded(runs.size(), o.codings.block_count, o.zeta_k);
      for (size_t i = 0; i < runs.size(); ++i) {
        w.Coded(runs[i] - (i == 0 ? 0 : 1), o.codings.blocks, o.zeta_k);
      }
    }
    const std::vector<VertexId> rest(extra.begin(), extra.end());
    if (rest.empty()) continue;
    std::vector<std::pair<uint64_t, uint64_t>> intervals;  // left, length
    std::vector<VertexId> residuals;
    for (size_t i = 0; i < rest.size();) {
      size_t j = i + 1;
      while (j < rest.size() && rest[j] == rest[j - 1] + 1) ++j;
      if (o.min_interval > 0 && j - i >= o.min_interval) {
        intervals.emplace_back(rest[i], j - i);
      } else {
        residuals.insert(residuals.end(), rest.begin() + i, rest.begin() + j);
      }
      i = j;
    }
    if (o.min_interval > 0) {
      w.Gamma(intervals.size());
      uint64_t prev = 0;
      for (size_t i = 0; i < intervals.size(); ++i) {
        const auto [left, length] = intervals[i];
        if (i == 0) {
          w.Gamma(Int2Nat(int64_t(left) - int64_t(x)));
        } else {
          w.Gamma(left - prev - 1);
        }
        w.Gamma(length - o.min_interval);
        prev = left + length;
      }
    }
    for (size_t i = 0; i < residuals.size(); ++i) {
      const uint64_t v = i == 0 ? Int2Nat(int64_t(residuals[0]) - int64_t(x))
                                : residuals[i] - residuals[i - 1] - 1;
      w.Coded(v, o.codings.residuals, o.zeta_k);
    }
  }
  offsets.push_back(w.bits());
  Encoded e;
  e.graph = w.bytes();
  BitWriter ow;
  for (size_t i = 0; i < offsets.size(); ++i) {
    ow.Coded(offsets[i] - (i == 0 ? 0 : offsets[i - 1]), o.codings.offsets, 3);
  }
  e.offsets = ow.bytes();
  e.properties = "#BVGraph properties\ngraphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\n"
                 "nodes=" + std::to_string(n) + "\narcs=" + std::to_string(arcs) +
                 "\nwindowsize=" + std::to_string(o.window) +
                 "\nmaxrefcount=" + std::to_string(o.max_ref) +
                 "\nminintervallength=" + std::to_string(o.min_interval) +
                 "\nzetak=" + std::to_string(o.zeta_k) + "\ncompressionflags=" + o.flags + "\n";
  return e;
}

std::string Bytes(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

// Writes base.graph, base.properties and (when wanted) base.offsets.
void WriteGraph(const std::string& base, const Encoded& e, bool offsets = true) {
  testing::WriteFile(base + ".graph", Bytes(e.graph));
  testing::WriteFile(base + ".properties", e.properties);
  if (offsets) testing::WriteFile(base + ".offsets", Bytes(e.offsets));
}

Lists ListsOf(const Csr& csr) {
  Lists lists(csr.num_vertices);
  for (uint64_t v = 0; v < csr.num_vertices; ++v) {
    auto s = csr.Neighbors(static_cast<VertexId>(v));
    lists[v].assign(s.begin(), s.end());
  }
  return lists;
}

std::vector<Edge> EdgesOf(const Lists& lists) {
  std::vector<Edge> edges;
  for (size_t u = 0; u < lists.size(); ++u) {
    for (VertexId v : lists[u]) edges.push_back(Edge{static_cast<VertexId>(u), v});
  }
  return edges;
}

// Reads [first, first + count) through the block API.
std::vector<Edge> ReadRange(GraphReader& reader, uint64_t first, uint64_t count) {
  std::vector<VertexId> s(count), t(count);
  EdgeBlock b = reader.ReadEdges(first, EdgeBuffers{s, t, {}});
  std::vector<Edge> out;
  for (size_t i = 0; i < b.size(); ++i) out.push_back(Edge{b.sources[i], b.targets[i]});
  return out;
}

// Every way of reading `base` agrees with `lists`.
void ExpectReadsBack(const std::string& base, const Lists& lists) {
  SCOPED_TRACE(base);
  const BvGraph g = BvGraph::Open(base + ".graph");
  EXPECT_EQ(ListsOf(g.Decode({1, false})), lists);
  EXPECT_EQ(ListsOf(g.Decode({4, true})), lists);
  EXPECT_EQ(ListsOf(LoadGraph(base, LoadOptions{})), lists);
  BvCursor cursor(g);
  for (size_t v = 0; v < lists.size(); ++v) {
    auto s = cursor.Next();
    EXPECT_EQ(std::vector<VertexId>(s.begin(), s.end()), lists[v]) << "node " << v;
  }
  const std::vector<Edge> edges = EdgesOf(lists);
  auto reader = GraphReader::Open(base + ".properties");
  EXPECT_EQ(reader->format(), GraphFormat::kWebGraph);
  EXPECT_EQ(reader->num_vertices(), lists.size());
  EXPECT_EQ(reader->num_edges(), edges.size());
  EXPECT_EQ(ReadRange(*reader, 0, edges.size() + 5), edges);
  testing::Rng rng(7);
  for (int i = 0; i < 20 && !edges.empty(); ++i) {
    const uint64_t first = rng.Below(edges.size());
    const uint64_t count = 1 + rng.Below(std::min<uint64_t>(edges.size(), 50));
    const std::vector<Edge> want(edges.begin() + first,
                                 edges.begin() + std::min(edges.size(), first + count));
    EXPECT_EQ(ReadRange(*reader, first, count), want) << first << "+" << count;
  }
}

// --- The codes -------------------------------------------------------------------------

BitReader ReaderOf(const std::vector<uint8_t>& bytes) {
  return BitReader(bytes.data(), bytes.size());
}

TEST(WebGraphCodes, HandComputedPatterns) {
  // γ 0, 1, 2, 3, 4 = 1 010 011 00100 00101
  const std::vector<uint8_t> gamma{0xa6, 0x42, 0x80};
  BitReader g = ReaderOf(gamma);
  for (uint64_t v = 0; v <= 4; ++v) EXPECT_EQ(g.ReadGamma(), v);
  EXPECT_EQ(g.position(), 17u);
  // unary 0, 3 = 1 0001; δ 0, 1, 4 = 1 0100 01101
  // 1 0001 1 0100 01101 → 10001101 0001101(0)
  const std::vector<uint8_t> ud{0x8d, 0x1a};
  BitReader r = ReaderOf(ud);
  EXPECT_EQ(r.ReadUnary(), 0u);
  EXPECT_EQ(r.ReadUnary(), 3u);
  EXPECT_EQ(r.ReadDelta(), 0u);
  EXPECT_EQ(r.ReadDelta(), 1u);
  EXPECT_EQ(r.ReadDelta(), 4u);
  EXPECT_EQ(r.position(), 15u);
  // ζ_3: 0 = 1 00, 1 = 1 01 0, 6 = 1 11 1, 7 = 01 00000
  // 100 1010 1111 0100000 → 10010101 11101000 00
  const std::vector<uint8_t> zeta{0x95, 0xe8, 0x00};
  BitReader z = ReaderOf(zeta);
  EXPECT_EQ(z.ReadZeta(3), 0u);
  EXPECT_EQ(z.ReadZeta(3), 1u);
  EXPECT_EQ(z.ReadZeta(3), 6u);
  EXPECT_EQ(z.ReadZeta(3), 7u);
  EXPECT_EQ(z.position(), 18u);
  EXPECT_EQ(Nat2Int(0), 0);
  EXPECT_EQ(Nat2Int(1), -1);
  EXPECT_EQ(Nat2Int(2), 1);
  EXPECT_EQ(Nat2Int(3), -2);
  // Starting at a bit inside a byte.
  BitReader mid(gamma.data(), gamma.size(), 4);
  EXPECT_EQ(mid.ReadGamma(), 2u);
}

TEST(WebGraphCodes, RoundTripsThroughAnIndependentWriter) {
  testing::Rng rng(42);
  std::vector<std::pair<BvCoding, uint64_t>> written;
  BitWriter w;
  for (int i = 0; i < 20000; ++i) {
    const BvCoding c = static_cast<BvCoding>(rng.Below(4));
    const int width = static_cast<int>(rng.Below(c == BvCoding::kUnary ? 8 : 40));
    const uint64_t v = rng.Next() & ((uint64_t{1} << width) - 1);
    w.Coded(v, c, 3);
    written.emplace_back(c, v);
  }
  BitReader r(w.bytes().data(), w.bytes().size());
  for (const auto& [c, v] : written) {
    switch (c) {
      case BvCoding::kGamma:
        ASSERT_EQ(r.ReadGamma(), v);
        break;
      case BvCoding::kDelta:
        ASSERT_EQ(r.ReadDelta(), v);
        break;
      case BvCoding::kUnary:
        ASSERT_EQ(r.ReadUnary(), v);
        break;
      case BvCoding::kZeta:
        ASSERT_EQ(r.ReadZeta(3), v);
        break;
    }
  }
  EXPECT_EQ(r.position(), w.bits());
}

TEST(WebGraphCodes, ReadsPastTheEndThrow) {
  const std::vector<uint8_t> zeros(16, 0);
  BitReader a = ReaderOf(zeros);
  EXPECT_THROW(a.ReadGamma(), CorruptBits);  // 128 zeros: no γ code ends
  BitReader b = ReaderOf(zeros);
  EXPECT_THROW(b.ReadUnary(), CorruptBits);
  const std::vector<uint8_t> short_code{0x01};  // 0000000 1: γ needs 7 more bits
  BitReader c = ReaderOf(short_code);
  EXPECT_THROW(c.ReadGamma(), CorruptBits);
  BitReader d = ReaderOf(short_code);
  EXPECT_THROW(d.ReadBits(9), CorruptBits);
  EXPECT_THROW(BitReader(short_code.data(), 1, 9), CorruptBits);
  try {
    BitReader e = ReaderOf(zeros);
    e.ReadBits(3);
    e.ReadDelta();
    FAIL() << "no throw";
  } catch (const CorruptBits& e) {
    EXPECT_EQ(e.bit(), 3u);  // where the code began
  }
}

// A code that ends in the last bytes, read after a refill that left the word nearly full:
// the byte-by-byte refill near the end must keep at most 63 bits (a shift by 64 is undefined).
TEST(WebGraphCodes, LongCodeAtTheEndOfTheStream) {
  BitWriter w;
  w.Int(0xabcdef012345, 48);
  w.Unary(63);  // 63 zeros and a one: the last 8 of the 14 bytes
  ASSERT_EQ(w.bytes().size(), 14u);
  BitReader in = ReaderOf(w.bytes());
  EXPECT_EQ(in.ReadBits(48), 0xabcdef012345u);
  EXPECT_EQ(in.ReadUnary(), 63u);
  EXPECT_EQ(in.position(), 112u);
}

// --- Properties --------------------------------------------------------------------------

TEST(WebGraphProperties, ParsesJavaSyntax) {
  auto p = ParseJavaProperties("# c\n! c\n a = 1\nb:2\nc 3\nd=x\\\n   y\ne=\\u0041\\t\n");
  EXPECT_EQ(p["a"], "1");
  EXPECT_EQ(p["b"], "2");
  EXPECT_EQ(p["c"], "3");
  EXPECT_EQ(p["d"], "xy");
  EXPECT_EQ(p["e"], "A\t");
}

const char* kGood =
    "graphclass=it.unimi.dsi.webgraph.BVGraph\nnodes=10\narcs=20\nwindowsize=7\n"
    "maxrefcount=3\nminintervallength=4\nzetak=3\ncompressionflags=\n";

TEST(WebGraphProperties, DefaultsAndFlags) {
  WebGraphProperties p = ParseWebGraphProperties("x.properties", kGood);
  EXPECT_EQ(p.nodes, 10u);
  EXPECT_EQ(p.codings.residuals, BvCoding::kZeta);
  EXPECT_EQ(p.codings.references, BvCoding::kUnary);
  p = ParseWebGraphProperties(
      "x.properties",
      std::string(kGood) + "compressionflags= OUTDEGREES_DELTA | RESIDUALS_GAMMA|\n");
  EXPECT_EQ(p.codings.outdegrees, BvCoding::kDelta);
  EXPECT_EQ(p.codings.residuals, BvCoding::kGamma);
  EXPECT_EQ(p.codings.blocks, BvCoding::kGamma);
  p = ParseWebGraphProperties("x.properties",
                              std::string(kGood) + "graphclass=it.unimi.dsi.big.webgraph.BVGraph\n");
  EXPECT_EQ(p.graph_class, "it.unimi.dsi.big.webgraph.BVGraph");
}

TEST(WebGraphProperties, RefusesWhatItCannotRead) {
  auto parse = [](const std::string& text) {
    return [text] { ParseWebGraphProperties("x.properties", text); };
  };
  std::string no_nodes = kGood;
  no_nodes.replace(no_nodes.find("nodes=10\n"), 9, "");
  EXPECT_TRUE(ThrowsError(parse(no_nodes), "x.properties", "", "no 'nodes' key"));
  EXPECT_TRUE(ThrowsError(parse(std::string(kGood) + "compressionflags=RESIDUALS_NIBBLE\n"),
                          "x.properties", "", "'RESIDUALS_NIBBLE' is not supported"));
  EXPECT_TRUE(ThrowsError(
      parse(std::string(kGood) + "compressionflags=OUTDEGREES_GAMMA|OUTDEGREES_DELTA\n"),
      "x.properties", "", "contradict"));
  EXPECT_TRUE(ThrowsError(parse(std::string(kGood) + "graphclass=it.unimi.dsi.webgraph.EFGraph\n"),
                          "x.properties", "", "is not a BVGraph"));
  EXPECT_TRUE(ThrowsError(parse(std::string(kGood) + "nodes=12x\n"), "x.properties", "",
                          "'nodes' is not a whole number"));
  EXPECT_TRUE(ThrowsError(parse(std::string(kGood) + "nodes=4294967296\n"), "x.properties", "",
                          "out of range"));
  EXPECT_TRUE(ThrowsError(parse(std::string(kGood) + "version=1\n"), "x.properties", "",
                          "version 1"));
  EXPECT_TRUE(ThrowsError(parse(std::string(kGood) + "windowsize=-1\n"), "x.properties", "",
                          "out of range"));
}

// --- Hand-drawn graphs through the encoder ------------------------------------------------

class WebGraphSmall : public testing::WithTempDir<> {};

TEST_F(WebGraphSmall, EmptyGraph) {
  const Lists lists;
  WriteGraph(File("empty"), Encode(lists, {}));
  const BvGraph g = BvGraph::Open(File("empty"));
  EXPECT_EQ(g.Decode().num_vertices, 0u);
  EXPECT_EQ(LoadGraph(File("empty.graph"), LoadOptions{}).NumEdges(), 0u);
  auto reader = GraphReader::Open(File("empty.graph"));
  EXPECT_EQ(ReadRange(*reader, 0, 10).size(), 0u);
}

TEST_F(WebGraphSmall, HandDrawnGraphsInEveryCoding) {
  const Lists hand = {
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},  // a long interval, a self-loop
      {},                              // outdegree 0
      {0, 1, 2, 3, 4, 5, 6, 7, 9},     // mostly a copy of node 0
      {3},                             // a lone self-loop
      {0, 2, 4, 6, 8, 9},              // residuals and a copy
      {0, 2, 4, 6, 8, 9},              // an exact copy
      {1, 2, 3, 4, 5, 9},
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
      {9},
      {0, 9},
  };
  // A larger pseudo-random graph with locality, so references and blocks are common.
  testing::Rng rng(3);
  Lists random(400);
  for (size_t v = 0; v < random.size(); ++v) {
    std::set<VertexId> s;
    if (v > 0 && rng.Below(3) > 0) {
      for (VertexId u : random[v - 1 - rng.Below(std::min<uint64_t>(v, 5))]) {
        if (rng.Below(5) > 0) s.insert(u);
      }
    }
    const uint64_t extra = rng.Below(12);
    for (uint64_t i = 0; i < extra; ++i) s.insert(static_cast<VertexId>(rng.Below(random.size())));
    if (rng.Below(4) == 0) {
      const VertexId from = static_cast<VertexId>(rng.Below(random.size() - 10));
      for (VertexId u = from; u < from + 8; ++u) s.insert(u);
    }
    random[v].assign(s.begin(), s.end());
  }
  struct Variant {
    const char* name;
    EncodeOptions options;
  };
  std::vector<Variant> variants;
  variants.push_back({"defaults", {}});
  variants.push_back({"no_window", {0, 0, 4, 3, {}, ""}});
  variants.push_back({"no_intervals", {7, 3, 0, 3, {}, ""}});
  variants.push_back({"chains_of_one", {3, 1, 2, 2, {}, ""}});
  variants.push_back({"wide_window", {20, 100, 3, 5, {}, ""}});
  EncodeOptions flags;
  flags.codings = {BvCoding::kDelta, BvCoding::kGamma, BvCoding::kUnary,
                   BvCoding::kDelta, BvCoding::kGamma, BvCoding::kDelta};
  flags.flags =
      "OUTDEGREES_DELTA | REFERENCES_GAMMA | BLOCK_COUNT_UNARY | BLOCKS_DELTA | "
      "RESIDUALS_GAMMA | OFFSETS_DELTA";
  variants.push_back({"flags", flags});
  for (const Variant& v : variants) {
    for (const Lists* lists : std::vector<const Lists*>{&hand, &random}) {
      const std::string base = File(std::string(v.name) + std::to_string(lists->size()));
      WriteGraph(base, Encode(*lists, v.options));
      ExpectReadsBack(base, *lists);
      // Without .offsets: sequential only, and the block API re-decodes from node 0.
      std::filesystem::remove(base + ".offsets");
      ExpectReadsBack(base, *lists);
    }
  }
}

TEST_F(WebGraphSmall, WeightsAreRefused) {
  WriteGraph(File("g"), Encode({{1}, {0}}, {}));
  LoadOptions load;
  load.read.weights = WeightMode::kWeighted;
  EXPECT_TRUE(ThrowsError([&] { LoadGraph(File("g.graph"), load); }, File("g.graph"), "",
                          "no weights"));
  GraphReaderOptions options;
  options.read.weights = WeightMode::kWeighted;
  EXPECT_TRUE(ThrowsError([&] { GraphReader::Open(File("g.graph"), options); }, File("g.graph"),
                          "", "no weights"));
}

TEST_F(WebGraphSmall, Detection) {
  WriteGraph(File("g"), Encode({{1}, {0}}, {}));
  EXPECT_TRUE(IsWebGraphInput(File("g"), GraphFormat::kAuto));
  EXPECT_TRUE(IsWebGraphInput(File("g.graph"), GraphFormat::kAuto));
  EXPECT_TRUE(IsWebGraphInput(File("g.properties"), GraphFormat::kAuto));
  EXPECT_FALSE(IsWebGraphInput(File("g.graph"), GraphFormat::kEdgeList));
  EXPECT_FALSE(IsWebGraphInput(File("other.graph"), GraphFormat::kAuto));
  EXPECT_EQ(ParseFormatName("webgraph"), GraphFormat::kWebGraph);
  EXPECT_EQ(ParseFormatName("bv"), GraphFormat::kWebGraph);
  EXPECT_EQ(FormatName(GraphFormat::kWebGraph), "webgraph");
  LoadOptions as_webgraph;
  as_webgraph.read.format = GraphFormat::kWebGraph;
  EXPECT_TRUE(ThrowsError([&] { LoadGraph(File("nothing"), as_webgraph); }, File("nothing"), "",
                          "not a WebGraph BVGraph"));
  // The content hash: the same from every name, from the reader, and it covers the properties.
  const uint64_t h = FileContentHash(File("g"), GraphFormat::kAuto);
  EXPECT_EQ(FileContentHash(File("g.graph"), GraphFormat::kAuto), h);
  EXPECT_EQ(GraphReader::Open(File("g.properties"))->content_hash(), h);
  testing::WriteFile(File("g.properties"), Encode({{1}, {0}}, {}).properties + "# edited\n");
  EXPECT_NE(FileContentHash(File("g.graph"), GraphFormat::kAuto), h);
}

// --- Corrupt input ---------------------------------------------------------------------

// Decodes every way; success is allowed (a changed residual can still be a valid graph) but
// must give a structurally valid graph. Anything else than needle::Error fails.
void DecodeOrError(const std::string& base, uint64_t* errors) {
  auto check = [&](const Csr& csr) {
    for (uint64_t v = 0; v < csr.num_vertices; ++v) {
      auto s = csr.Neighbors(static_cast<VertexId>(v));
      for (size_t i = 0; i < s.size(); ++i) {
        ASSERT_LT(s[i], csr.num_vertices);
        if (i > 0) {
          ASSERT_LT(s[i - 1], s[i]);
        }
      }
    }
  };
  for (bool parallel : {false, true}) {
    try {
      const BvGraph g = BvGraph::Open(base + ".graph");
      check(g.Decode({2, parallel}));
    } catch (const Error& e) {
      ++*errors;
      EXPECT_NE(std::string(e.what()).find(base), std::string::npos) << e.what();
    }
  }
  try {
    auto reader = GraphReader::Open(base + ".graph");
    ReadRange(*reader, 1000, 500);
    ReadRange(*reader, 0, 100);
  } catch (const Error&) {
    ++*errors;
  }
}

// A prefix of cnr-2000 (its first nodes, arcs among them kept), written by the encoder.
Lists CnrPrefix(uint64_t nodes) {
  const BvGraph cnr = BvGraph::Open(testing::DatasetPath("cnr-2000/cnr-2000.graph"));
  BvCursor cursor(cnr);
  Lists lists(nodes);
  for (uint64_t v = 0; v < nodes; ++v) {
    for (VertexId u : cursor.Next()) {
      if (u < nodes) lists[v].push_back(u);
    }
  }
  return lists;
}

TEST_F(WebGraphSmall, SingleByteChangesGiveAnErrorOrAValidGraph) {
  const Lists lists = CnrPrefix(3000);
  const Encoded e = Encode(lists, {});
  ASSERT_GT(e.graph.size(), 1000u);
  const std::string base = File("cnr-prefix");
  WriteGraph(base, e);
  ExpectReadsBack(base, lists);
  uint64_t errors = 0;
  testing::Rng rng(11);
  const int kChanges = 300;
  for (int i = 0; i < kChanges; ++i) {
    std::vector<uint8_t> bad = e.graph;
    const size_t at = i < 100 ? static_cast<size_t>(i) : rng.Below(bad.size());
    bad[at] = static_cast<uint8_t>(bad[at] ^ (1 + rng.Below(255)));
    testing::WriteFile(base + ".graph", Bytes(bad));
    DecodeOrError(base, &errors);
    if (HasFatalFailure()) return;
  }
  // Nearly every change is caught: offsets stop matching, counts stop adding up.
  EXPECT_GT(errors, uint64_t{kChanges} * 2);
}

TEST_F(WebGraphSmall, TruncatedGraphAndOffsets) {
  const Lists lists = CnrPrefix(2000);
  const Encoded e = Encode(lists, {});
  const std::string base = File("t");
  for (size_t keep : {size_t{0}, size_t{1}, e.graph.size() / 3, e.graph.size() - 1}) {
    WriteGraph(base, e);
    testing::Truncate(base + ".graph", keep);
    for (bool parallel : {false, true}) {
      EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base).Decode({2, parallel}); }, base + ".", "",
                              "")) << keep;
    }
    std::filesystem::remove(base + ".offsets");
    EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base).Decode(); }, base + ".graph", "",
                            "bit "))
        << keep;
  }
  WriteGraph(base, e);
  testing::Truncate(base + ".offsets", e.offsets.size() / 2);
  EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base); }, base + ".offsets", "", "the file ends after"));
}

TEST_F(WebGraphSmall, OffsetsThatDisagree) {
  const Lists lists = CnrPrefix(500);
  EncodeOptions o;
  Encoded e = Encode(lists, o);
  // Node 11 moved one bit earlier, node 12 where it was: the total still fits the stream.
  BitReader in(e.offsets.data(), e.offsets.size());
  BitWriter moved;
  for (uint64_t v = 0; v <= lists.size(); ++v) {
    const uint64_t gap = in.ReadGamma();
    moved.Gamma(v == 11 ? gap - 1 : v == 12 ? gap + 1 : gap);
  }
  e.offsets = moved.bytes();
  const std::string base = File("d");
  WriteGraph(base, e);
  EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base).Decode({1, false}); }, base + ".offsets", "",
                          "disagrees with"));
  // In parallel the outdegrees are read at the offsets first: a wrong offset may show as a
  // corrupt outdegree, or a sum that is not arcs, before a range meets the disagreement.
  EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base).Decode({2, true}); }, base + ".", "", ""));
}

// .offsets must put node 0 at bit 0; and a node count that neither file can hold (each node
// takes at least a bit of each) is refused before anything is allocated for it.
TEST_F(WebGraphSmall, OffsetsFromZeroAndNodeCountsTheFilesCanHold) {
  const Lists lists = CnrPrefix(200);
  Encoded e = Encode(lists, {});
  BitReader in(e.offsets.data(), e.offsets.size());
  BitWriter shifted;
  for (uint64_t v = 0; v <= lists.size(); ++v) {
    const uint64_t gap = in.ReadGamma();
    shifted.Gamma(v == 0 ? 1 : v == 1 ? gap - 1 : gap);  // node 0 at bit 1, node 1 unchanged
  }
  Encoded moved = e;
  moved.offsets = shifted.bytes();
  const std::string base = File("z");
  WriteGraph(base, moved);
  EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base); }, base + ".offsets", "",
                          "node 0 starts at bit 1"));
  for (bool offsets : {false, true}) {
    Encoded forged = e;
    const size_t at = forged.properties.find("nodes=");
    forged.properties.replace(at, forged.properties.find('\n', at) - at, "nodes=4000000000");
    WriteGraph(base, forged, offsets);
    if (!offsets) std::filesystem::remove(base + ".offsets");
    EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base).Decode({1, false}); },
                            base + (offsets ? "." : ".graph"), "", "each takes at least a bit"))
        << offsets;
  }
}

TEST_F(WebGraphSmall, ArcsThatDisagree) {
  const Lists lists = CnrPrefix(300);
  Encoded e = Encode(lists, {});
  const std::string arcs = "arcs=" + std::to_string(EdgesOf(lists).size());
  e.properties.replace(e.properties.find(arcs), arcs.size(), "arcs=1");
  const std::string base = File("a");
  WriteGraph(base, e);
  for (bool parallel : {false, true}) {
    EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base).Decode({2, parallel}); }, base + ".graph",
                            "", "arcs=1"));
  }
  auto reader = GraphReader::Open(base);
  EXPECT_TRUE(ThrowsError([&] { ReadRange(*reader, 0, 100); }, base + ".graph", "", "arcs=1"));
}

TEST_F(WebGraphSmall, BadReferencesAndSuccessors) {
  const std::string base = File("r");
  auto write = [&](const BitWriter& w, uint64_t nodes, uint64_t arcs, const char* extra = "") {
    testing::WriteFile(base + ".graph", Bytes(w.bytes()));
    testing::WriteFile(base + ".properties",
                       "graphclass=it.unimi.dsi.webgraph.BVGraph\nnodes=" + std::to_string(nodes) +
                           "\narcs=" + std::to_string(arcs) +
                           "\nwindowsize=2\nmaxrefcount=1\nminintervallength=0\nzetak=3\n" +
                           extra);
  };
  {  // node 0 refers 1 back
    BitWriter w;
    w.Gamma(1);
    w.Unary(1);
    write(w, 1, 1);
    EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base).Decode(); }, base + ".graph", ": byte 0",
                            "points before node 0"));
  }
  {  // a reference beyond the window
    BitWriter w;
    for (int i = 0; i < 3; ++i) {
      w.Gamma(1);
      w.Unary(0);
      w.Zeta(0, 3);
    }
    w.Gamma(1);
    w.Unary(3);
    write(w, 4, 4);
    EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base).Decode(); }, base + ".graph", "",
                            "beyond windowsize=2"));
  }
  {  // a chain of 2 with maxrefcount=1
    BitWriter w;
    w.Gamma(1);
    w.Unary(0);
    w.Zeta(Int2Nat(1), 3);  // node 0 → 1
    for (int i = 0; i < 2; ++i) {
      w.Gamma(1);
      w.Unary(1);
      w.Gamma(0);  // no blocks: copy everything
    }
    write(w, 3, 3);
    EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base).Decode(); }, base + ".graph", "",
                            "exceeds maxrefcount=1"));
  }
  {  // a successor at the node count; and successors not increasing
    BitWriter w;
    w.Gamma(1);
    w.Unary(0);
    w.Zeta(Int2Nat(2), 3);
    write(w, 2, 1);
    EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base).Decode(); }, base + ".graph", "",
                            "lies outside the graph"));
  }
  {  // the same successor copied and residual
    BitWriter w;
    w.Gamma(1);
    w.Unary(0);
    w.Zeta(Int2Nat(1), 3);  // node 0 → 1
    w.Gamma(2);
    w.Unary(1);
    w.Gamma(0);             // copy {1}
    w.Zeta(Int2Nat(0), 3);  // and 1 again as a residual
    write(w, 2, 3);
    EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base).Decode(); }, base + ".graph", "",
                            "coded twice"));
  }
  {  // trailing garbage after the last node
    BitWriter w;
    w.Gamma(0);
    w.Int(0xffff, 16);
    write(w, 1, 0);
    EXPECT_TRUE(ThrowsError([&] { BvGraph::Open(base).Decode(); }, base + ".graph", "",
                            "not padding"));
  }
}

// --- The shared datasets ---------------------------------------------------------------

// The 0-based "u<TAB>v" lines of a .txt.gz, with zlib, in file order.
std::vector<Edge> ReadTextEdges(const std::string& path) {
  std::vector<Edge> edges;
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  if (f == nullptr) return edges;
  char line[256];
  while (gzgets(f, line, sizeof line) != nullptr) {
    if (line[0] == '#') continue;
    char* end = nullptr;
    const unsigned long long u = std::strtoull(line, &end, 10);
    const unsigned long long v = std::strtoull(end, nullptr, 10);
    edges.push_back(Edge{static_cast<VertexId>(u), static_cast<VertexId>(v)});
  }
  gzclose(f);
  return edges;
}

struct Dataset {
  const char* label;
  const char* base;  // under NEEDLE_DATASETS
  uint64_t nodes;
  uint64_t arcs;
  bool offsets;
};

class WebGraphDataset : public ::testing::TestWithParam<Dataset> {};

TEST_P(WebGraphDataset, ArcForArcAgainstTheTextFile) {
  const Dataset& d = GetParam();
  const std::string base = testing::DatasetPath(d.base);
  ASSERT_TRUE(std::filesystem::is_regular_file(base + ".graph")) << base << ".graph is missing";
  const std::vector<Edge> text = ReadTextEdges(base + ".txt.gz");
  ASSERT_EQ(text.size(), d.arcs);

  const BvGraph g = BvGraph::Open(base + ".graph");
  EXPECT_EQ(g.num_nodes(), d.nodes);
  EXPECT_EQ(g.num_arcs(), d.arcs);
  EXPECT_EQ(g.has_offsets(), d.offsets);
  EXPECT_EQ(g.random_access(), d.offsets);
  // The BVGraph order (by source, successors ascending) is the text file's order.
  for (bool parallel : {false, true}) {
    const Csr csr = g.Decode({0, parallel});
    ASSERT_EQ(csr.num_vertices, d.nodes);
    EXPECT_TRUE(testing::SequencesEqual("edges", EdgesOf(ListsOf(csr)), text)) << parallel;
  }

  // LoadGraph: the same CSR as the text loader's.
  LoadReport report;
  const Csr loaded = LoadGraph(base, LoadOptions{}, &report);
  EXPECT_EQ(report.format, GraphFormat::kWebGraph);
  EXPECT_TRUE(testing::CsrEquals(loaded, LoadGraph(base + ".txt.gz", LoadOptions{})));
  LoadOptions transpose;
  transpose.csr.transpose = true;
  EXPECT_TRUE(testing::CsrEquals(LoadGraph(base + ".graph", transpose),
                                 LoadGraph(base + ".txt.gz", transpose)));

  // The block API: a whole pass, random ranges (forward and backward), and async.
  auto reader = GraphReader::Open(base + ".graph");
  EXPECT_EQ(reader->num_edges(), d.arcs);
  EXPECT_EQ(reader->content_hash(), FileContentHash(base + ".graph", GraphFormat::kAuto));
  EXPECT_TRUE(testing::SequencesEqual("block reads", ReadRange(*reader, 0, d.arcs + 1), text));
  testing::Rng rng(d.nodes);
  const int reads = d.offsets ? 200 : 12;  // without .offsets every backward read re-decodes
  for (int i = 0; i < reads; ++i) {
    const uint64_t first = rng.Below(d.arcs);
    const uint64_t count = 1 + rng.Below(i % 4 == 0 ? 300000 : 3000);
    const std::vector<Edge> want(text.begin() + first,
                                 text.begin() + std::min<uint64_t>(d.arcs, first + count));
    ASSERT_TRUE(testing::SequencesEqual("range", ReadRange(*reader, first, count), want))
        << first << "+" << count;
    // Continuing forward from where the read ended.
    if (first + count < d.arcs) {
      const std::vector<Edge> next(text.begin() + first + count,
                                   text.begin() + std::min<uint64_t>(d.arcs, first + 2 * count));
      ASSERT_TRUE(testing::SequencesEqual("next", ReadRange(*reader, first + count, count), next));
    }
  }
  GraphReaderOptions small;
  small.block_edges = 100000;
  auto async = GraphReader::Open(base, small);
  std::vector<Edge> got;
  async->ReadEdgesAsync(0, UINT64_MAX, [&](BlockLease lease) {
    const EdgeBlock& b = lease.block();
    for (size_t i = 0; i < b.size(); ++i) got.push_back(Edge{b.sources[i], b.targets[i]});
  });
  async->Wait();
  EXPECT_TRUE(testing::SequencesEqual("async", got, text));
}

TEST_P(WebGraphDataset, FlippedBytesOfTheRealFile) {
  const Dataset& d = GetParam();
  const std::string from = testing::DatasetPath(d.base);
  testing::TempDir dir;
  const std::string base = dir.File("g");
  const std::string graph = testing::ReadFile(from + ".graph");
  testing::WriteFile(base + ".properties", testing::ReadFile(from + ".properties"));
  if (d.offsets) testing::WriteFile(base + ".offsets", testing::ReadFile(from + ".offsets"));
  testing::Rng rng(5);
  uint64_t errors = 0;
  for (int i = 0; i < 12; ++i) {
    std::string bad = graph;
    const size_t at = rng.Below(bad.size());
    bad[at] = static_cast<char>(bad[at] ^ static_cast<char>(1 + rng.Below(255)));
    testing::WriteFile(base + ".graph", bad);
    try {
      BvGraph::Open(base).Decode({2, true});
    } catch (const Error& e) {
      ++errors;
      EXPECT_NE(std::string(e.what()).find(base), std::string::npos);
    }
  }
  // Without .offsets a changed bit inside a fixed-width part of a code can still decode.
  EXPECT_GE(errors, d.offsets ? 10u : 6u);
}

const Dataset kDatasets[] = {
    {"Cnr2000", "cnr-2000/cnr-2000", 325557, 3216152, true},
    {"Uk2007Sample", "uk-2007-05-100k/uk-2007-05-100k", 100000, 3050615, false},
};

INSTANTIATE_TEST_SUITE_P(SharedDatasets, WebGraphDataset, ::testing::ValuesIn(kDatasets),
                         [](const ::testing::TestParamInfo<Dataset>& p) { return p.param.label; });

}  // namespace
}  // namespace needle
