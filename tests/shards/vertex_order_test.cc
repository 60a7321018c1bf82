// --order bfs (shards/vertex_order.h): the sharder numbers the vertices breadth-first over the
// edges both ways and writes order.bin, the input id of every vertex of the set.
//
//  - the order is breadth-first: input vertex 0 first, and every other vertex of a component
//    reached from one numbered before it (a neighbour), the components in order of their least
//    unreached id; the same at one and several threads;
//  - the set holds the input's edges renumbered (the independent reader of shard_test_util.h
//    against the oracle renumbered through order.bin), symmetrized or not, weighted or not;
//  - the choice is recorded ("order bfs"), compared on reuse and has its own default
//    directory; order.bin is checked (digest, permutation) when read;
//  - a budget that cannot hold the graph while ordering is refused before anything is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "base/error.h"
#include "shards/hashing_writer.h"
#include "shards/manifest.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"
#include "shards/vertex_order.h"
#include "tests/shards/shard_cases.h"
#include "tests/shards/shard_test_util.h"

namespace needle {
namespace {

using testing::CheckShardSet;
using testing::Input;
using testing::OracleEdge;
using testing::OracleGraph;
using testing::ReadFile;
using testing::WriteFile;

OracleGraph Symmetrized(const OracleGraph& g) {
  OracleGraph s = g;
  for (const OracleEdge& e : g.edges) {
    if (e.source != e.target) s.edges.push_back(OracleEdge{e.target, e.source, e.weight_bits});
  }
  return s;
}

class VertexOrderTest : public testing::WithTempDir<> {
 protected:
  std::string File(const std::string& name) { return (dir() / name).string(); }
  ShardOptions Options(const std::string& out, uint32_t intervals = 4, int threads = 0) {
    ShardOptions o;
    o.memory_bytes = uint64_t{64} << 20;
    o.intervals = intervals;
    o.out_dir = out;
    o.order = kBreadthFirstOrder;
    o.threads = threads;
    o.read.threads = threads;
    return o;
  }
  // A path of n vertices whose ids are shuffled: breadth-first order follows the path.
  Input ShuffledPath(uint32_t n) {
    std::vector<uint32_t> id(n);
    std::iota(id.begin(), id.end(), 0);
    std::shuffle(id.begin(), id.end(), std::mt19937(7));
    std::string text;
    OracleGraph g;
    g.num_vertices = n;
    for (uint32_t i = 0; i + 1 < n; ++i) {
      text += std::to_string(id[i]) + " " + std::to_string(id[i + 1]) + "\n";
      g.edges.push_back(OracleEdge{id[i], id[i + 1], testing::FloatBits(1.0f)});
    }
    return testing::Written(dir().string(), "path.el", text, g);
  }
  // g renumbered: each vertex v becomes the v' with input_ids[v'] == v.
  static OracleGraph Renumbered(const OracleGraph& g, const std::vector<VertexId>& input_ids) {
    std::vector<VertexId> set_id(input_ids.size());
    for (VertexId v = 0; v < input_ids.size(); ++v) set_id[input_ids[v]] = v;
    OracleGraph out = g;
    for (OracleEdge& e : out.edges) {
      e.source = set_id[e.source];
      e.target = set_id[e.target];
    }
    return out;
  }
  // Whether input_ids is a breadth-first order of g's edges followed both ways (above).
  static void ExpectBreadthFirst(const OracleGraph& g, const std::vector<VertexId>& input_ids) {
    const uint64_t n = g.num_vertices;
    ASSERT_EQ(input_ids.size(), n);
    std::vector<VertexId> set_id(n, kNoVertex);
    for (VertexId v = 0; v < n; ++v) {
      ASSERT_LT(input_ids[v], n);
      ASSERT_EQ(set_id[input_ids[v]], kNoVertex) << "input id " << input_ids[v] << " twice";
      set_id[input_ids[v]] = v;
    }
    std::vector<std::vector<VertexId>> both(n);
    for (const OracleEdge& e : g.edges) {
      both[e.source].push_back(e.target);
      both[e.target].push_back(e.source);
    }
    // The parent of a vertex is its earliest-numbered neighbour: numbered before it, and the
    // parents' numbers rise with their children's (a queue, not a stack).
    VertexId last_parent = 0;
    VertexId least_unreached = 0;
    std::vector<bool> numbered(n, false);
    for (VertexId v = 0; v < n; ++v) {
      VertexId parent = kNoVertex;
      for (VertexId u : both[input_ids[v]]) parent = std::min(parent, set_id[u]);
      if (parent == kNoVertex || parent >= v) {  // a root: the least input id not reached
        while (numbered[least_unreached]) ++least_unreached;
        EXPECT_EQ(input_ids[v], least_unreached) << "set vertex " << v << " starts a component";
      } else {
        EXPECT_GE(parent, last_parent) << "set vertex " << v << " out of breadth-first order";
        last_parent = parent;
      }
      numbered[input_ids[v]] = true;
    }
  }
};

TEST_F(VertexOrderTest, ShuffledPathIsNumberedAlongThePath) {
  const Input in = ShuffledPath(3000);
  const ShardReport r = ShardGraph(in.path, Options(File("set"), 8));
  ASSERT_FALSE(r.reused);
  const ShardSet set = ShardSet::Open(File("set"));
  ASSERT_TRUE(set.reordered());
  const std::vector<VertexId> ids = set.InputIds();
  ExpectBreadthFirst(in.oracle, ids);
  EXPECT_EQ(ids[0], 0u);
  // From vertex 0 the search runs both ways along the path: set vertices 2k+1 and 2k+2 are
  // the two at distance k+1, so at most one edge in about n / 8 / 2 crosses an interval.
  const OracleGraph g = Renumbered(in.oracle, ids);
  uint64_t crossing = 0;
  for (const OracleEdge& e : g.edges) {
    uint32_t p = 0, q = 0;
    while (set.interval_end(p) <= e.source) ++p;
    while (set.interval_end(q) <= e.target) ++q;
    crossing += p != q;
  }
  EXPECT_LE(crossing, 2u * set.num_intervals());
  CheckShardSet(File("set"), g, false);
}

TEST_F(VertexOrderTest, SetHoldsTheRenumberedEdgesAtAnyThreadCount) {
  for (const bool weighted : {false, true}) {
    for (const bool symmetrize : {false, true}) {
      SCOPED_TRACE(std::string(weighted ? "weighted" : "unweighted") +
                   (symmetrize ? ", symmetrized" : ""));
      const Input in = testing::Rmat(dir().string(), 10, weighted, 8, 3);
      std::vector<VertexId> first;
      for (const int threads : {1, 2, 3}) {
        ShardOptions o = Options(File("set"), 5, threads);
        o.symmetrize = symmetrize;
        o.force = true;
        ShardGraph(in.path, o);
        const std::vector<VertexId> ids = ShardSet::Open(File("set")).InputIds();
        ExpectBreadthFirst(in.oracle, ids);
        if (first.empty()) first = ids;
        EXPECT_EQ(ids, first) << "at " << threads << " threads";
        OracleGraph g = Renumbered(symmetrize ? Symmetrized(in.oracle) : in.oracle, ids);
        CheckShardSet(File("set"), g, false);
      }
    }
  }
}

TEST_F(VertexOrderTest, VerticesWithoutEdgesAreNumberedToo) {
  // DIMACS: 6 vertices (1-based in the file), edges 0-5 and 2-1; vertices 3 and 4 have none,
  // and the last one numbered (4) is an id no edge names.
  const Input in = testing::Written(
      dir().string(), "g.gr", "p sp 6 2\na 1 6 2\na 3 2 5\n",
      testing::MakeOracle(6, true, {{0, 5, 2.0f}, {2, 1, 5.0f}}));
  ShardGraph(in.path, Options(File("set"), 2));
  const ShardSet set = ShardSet::Open(File("set"));
  EXPECT_EQ(set.manifest().num_vertices, 6u);
  EXPECT_EQ(set.InputIds(), (std::vector<VertexId>{0, 5, 1, 2, 3, 4}));
  CheckShardSet(File("set"), Renumbered(in.oracle, set.InputIds()), false);
}

TEST_F(VertexOrderTest, TheChoiceIsRecordedComparedAndHasItsOwnDirectory) {
  const Input in = ShuffledPath(500);
  EXPECT_EQ(DefaultShardDir(in.path, false, kBreadthFirstOrder), in.path + ".bfs.shards");
  EXPECT_EQ(DefaultShardDir(in.path, true, kBreadthFirstOrder), in.path + ".sym.bfs.shards");
  ShardOptions o = Options(File("set"));
  ShardGraph(in.path, o);
  EXPECT_EQ(testing::ParseManifestText(ReadFile(File("set") + "/manifest")).values.at("order"),
            "bfs");
  EXPECT_TRUE(ShardGraph(in.path, o).reused);
  o.order = kInputOrder;
  const ShardReport input_order = ShardGraph(in.path, o);
  EXPECT_FALSE(input_order.reused);
  EXPECT_EQ(input_order.rebuild_reason, "it was built with --order bfs");
  const ShardSet set = ShardSet::Open(File("set"));
  EXPECT_FALSE(set.reordered());
  EXPECT_TRUE(set.InputIds().empty());
  EXPECT_FALSE(std::filesystem::exists(File("set") + "/order.bin"));
  EXPECT_EQ(testing::ParseManifestText(ReadFile(File("set") + "/manifest")).values.count("order"),
            0u);
}

TEST_F(VertexOrderTest, ADamagedOrderIsRefusedNamingTheFile) {
  const Input in = ShuffledPath(500);
  ShardGraph(in.path, Options(File("set")));
  const std::string order = File("set") + "/order.bin";
  std::string bytes = ReadFile(order);
  // A changed byte: the digest.
  std::string changed = bytes;
  changed[5] ^= 1;
  WriteFile(order, changed);
  try {
    ShardSet::Open(File("set"), false).InputIds();
    ADD_FAILURE() << "a changed order.bin was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(order + ": checksum mismatch"), std::string::npos)
        << e.what();
  }
  // A manifest naming an order needle does not know is refused at its line.
  Manifest unknown = ReadManifest(File("set"));
  unknown.choices.order = "dfs";
  try {
    Manifest::Parse("manifest", unknown.Serialize());
    ADD_FAILURE() << "a manifest with order dfs was parsed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("order must be bfs"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("manifest:"), std::string::npos) << e.what();
  }
  // An id twice, with a digest to match: not a permutation.
  std::copy(bytes.begin() + 4, bytes.begin() + 8, bytes.begin() + 12);
  WriteFile(order, bytes);
  Manifest m = ReadManifest(File("set"));
  for (ManifestFile& f : m.files) {
    if (f.name == kOrderName) f.digest = FileDigest(order);
  }
  WriteManifest(m, File("set"));
  try {
    ShardSet::Open(File("set")).InputIds();
    ADD_FAILURE() << "an order.bin with an id twice was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("appears twice"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("byte 12"), std::string::npos) << e.what();
  }
}

TEST_F(VertexOrderTest, ABudgetThatCannotHoldTheGraphIsRefusedBeforeWriting) {
  const Input in = testing::Rmat(dir().string(), 16, false, 16, 5);  // 1 M edges: 16 MiB
  ShardOptions o = Options(File("set"), 0);
  o.memory_bytes = uint64_t{36} << 20;
  try {
    ShardGraph(in.path, o);
    ADD_FAILURE() << "ordered within a budget that cannot hold the graph";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--order bfs holds the graph in memory"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(File("set")));
}

}  // namespace
}  // namespace needle
