// CSR construction against a naive serial oracle (std::vector of out-lists, std::set for
// duplicates), for every combination of options and thread counts; graph statistics against a
// naive count; the R-MAT generator's determinism across thread counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "loaders/csr.h"
#include "loaders/graph_stats.h"
#include "loaders/load_graph.h"
#include "loaders/rmat.h"
#include "tests/test_util.h"

namespace needle {
namespace {

using testing::CsrEquals;
using testing::PlainCsr;
using testing::PlainEdges;
using testing::SequencesEqual;

// --- The oracle -----------------------------------------------------------------------------

struct OracleResult {
  PlainCsr csr;
  CsrReport report;
};

// CsrOptions semantics written out naively: each input edge in order emits (u, v) — after the
// optional transpose — and, when symmetrizing and u != v, (v, u) right after it; out-lists keep
// the emission order; a dropped duplicate is any (u, v) already in u's out-list.
OracleResult Oracle(uint64_t n, const std::vector<Edge>& edges, const std::vector<Weight>& weights,
                    bool weighted, const CsrOptions& options) {
  OracleResult r;
  std::vector<std::vector<std::pair<VertexId, Weight>>> out(n);
  r.report.input_edges = edges.size();
  for (size_t i = 0; i < edges.size(); ++i) {
    const Weight w = weighted ? weights[i] : Weight{1};
    VertexId u = options.transpose ? edges[i].target : edges[i].source;
    VertexId v = options.transpose ? edges[i].source : edges[i].target;
    if (u == v) {
      ++r.report.self_loops;
      if (options.self_loops == SelfLoopPolicy::kDrop) {
        ++r.report.dropped_self_loops;
      } else {
        out[u].emplace_back(v, w);
      }
      continue;
    }
    out[u].emplace_back(v, w);
    if (options.symmetrize) out[v].emplace_back(u, w);
  }
  r.csr.num_vertices = n;
  r.csr.weighted = weighted;
  r.csr.offsets.push_back(0);
  for (uint64_t u = 0; u < n; ++u) {
    std::set<VertexId> seen;
    for (auto [v, w] : out[u]) {
      if (!seen.insert(v).second) {
        ++r.report.duplicates;
        if (options.duplicates == DuplicatePolicy::kDrop) {
          ++r.report.dropped_duplicates;
          continue;
        }
      }
      r.csr.targets.push_back(v);
      if (weighted) r.csr.weights.push_back(w);
    }
    r.csr.offsets.push_back(r.csr.targets.size());
  }
  return r;
}

// A random multigraph with many self-loops and duplicates (few vertices, many edges), isolated
// vertices at both ends of the id range, and weights that tell the copies of an edge apart.
struct RandomGraph {
  uint64_t n;
  std::vector<Edge> edges;
  std::vector<Weight> weights;
};

RandomGraph MakeRandomGraph(uint64_t seed, uint64_t n, uint64_t m) {
  testing::Rng rng(seed);
  RandomGraph g{n, {}, {}};
  const uint64_t used = std::max<uint64_t>(1, n > 2 ? n - 2 : n);  // ids 1..n-2 when n > 2
  const uint64_t base = n > 2 ? 1 : 0;
  for (uint64_t i = 0; i < m; ++i) {
    auto u = static_cast<VertexId>(base + rng.Below(used));
    auto v = rng.Below(8) == 0 ? u : static_cast<VertexId>(base + rng.Below(used));
    g.edges.push_back(Edge{u, v});
    g.weights.push_back(static_cast<Weight>(i));
  }
  return g;
}

struct GraphShape {
  uint64_t n;
  uint64_t m;
  size_t segments;
};

const GraphShape kShapes[] = {
    {0, 0, 1}, {5, 0, 1}, {1, 10, 2}, {2, 3, 3}, {7, 40, 4}, {60, 3000, 5}, {3000, 20000, 7},
};

using BuilderParam = std::tuple<bool, bool, bool, bool, bool, int>;

class CsrBuilderTest : public ::testing::TestWithParam<BuilderParam> {
 protected:
  CsrOptions Options() const {
    auto [transpose, symmetrize, drop_loops, drop_duplicates, weighted, threads] = GetParam();
    (void)weighted;
    CsrOptions o;
    o.transpose = transpose;
    o.symmetrize = symmetrize;
    o.self_loops = drop_loops ? SelfLoopPolicy::kDrop : SelfLoopPolicy::kKeep;
    o.duplicates = drop_duplicates ? DuplicatePolicy::kDrop : DuplicatePolicy::kKeep;
    o.threads = threads;
    return o;
  }
  bool weighted() const { return std::get<4>(GetParam()); }
};

TEST_P(CsrBuilderTest, MatchesTheOracle) {
  const CsrOptions options = Options();
  uint64_t seed = 1;
  for (const GraphShape& shape : kShapes) {
    RandomGraph g = MakeRandomGraph(seed++, shape.n, shape.m);
    SCOPED_TRACE("n " + std::to_string(shape.n) + " m " + std::to_string(shape.m));
    EdgeList list = testing::MakeEdgeList(g.n, g.edges, g.weights, weighted(), shape.segments);
    CsrReport report;
    Csr csr = BuildCsr(list, options, &report);
    OracleResult expected = Oracle(g.n, g.edges, g.weights, weighted(), options);
    EXPECT_TRUE(CsrEquals(csr, expected.csr));
    EXPECT_EQ(report.input_edges, expected.report.input_edges);
    EXPECT_EQ(report.self_loops, expected.report.self_loops);
    EXPECT_EQ(report.dropped_self_loops, expected.report.dropped_self_loops);
    EXPECT_EQ(report.dropped_duplicates, expected.report.dropped_duplicates);
    EXPECT_TRUE(report.duplicates_counted);
    EXPECT_EQ(report.duplicates, expected.report.duplicates);
    // CountDuplicates on the result: none left after dropping them.
    EXPECT_EQ(CountDuplicates(csr, options.threads),
              options.duplicates == DuplicatePolicy::kDrop ? 0 : expected.report.duplicates);
  }
}

TEST_P(CsrBuilderTest, WithoutCountingDuplicates) {
  CsrOptions options = Options();
  options.count_duplicates = false;
  RandomGraph g = MakeRandomGraph(99, 40, 500);
  EdgeList list = testing::MakeEdgeList(g.n, g.edges, g.weights, weighted(), 3);
  CsrReport report;
  Csr csr = BuildCsr(list, options, &report);
  OracleResult expected = Oracle(g.n, g.edges, g.weights, weighted(), options);
  EXPECT_TRUE(CsrEquals(csr, expected.csr));
  if (options.duplicates == DuplicatePolicy::kKeep) {
    EXPECT_FALSE(report.duplicates_counted);
  } else {
    EXPECT_TRUE(report.duplicates_counted);
    EXPECT_EQ(report.duplicates, expected.report.duplicates);
  }
}

INSTANTIATE_TEST_SUITE_P(AllOptions, CsrBuilderTest,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool(), ::testing::Bool(),
                                            ::testing::Bool(), ::testing::Bool(),
                                            ::testing::Values(0, 1, 2, 3)),
                         [](const ::testing::TestParamInfo<BuilderParam>& p) {
                           // Upper case: the option is on (Transpose, Symmetrize, drop Loops, drop
                           // Duplicates).
                           std::string name;
                           name += std::get<0>(p.param) ? "T" : "t";
                           name += std::get<1>(p.param) ? "S" : "s";
                           name += std::get<2>(p.param) ? "L" : "l";
                           name += std::get<3>(p.param) ? "D" : "d";
                           name += std::get<4>(p.param) ? "_weighted" : "_unweighted";
                           name += "_threads" + std::to_string(std::get<5>(p.param));
                           return name;
                         });

// The hand-drawn graph through LoadGraph with every option, against CSRs written by hand.
TEST(CsrBuilderTiny, OptionsThroughLoadGraph) {
  const std::string path = testing::TestDataPath("tiny.wel");
  // 0->1 1.5, 0->2 2, 1->2 .5, 2->0 3, 4->4 1, 2->5 1000, 5->4 -2, 0->1 7, 4->0 4.25
  struct Case {
    const char* label;
    bool transpose, symmetrize, drop_loops, drop_duplicates;
    std::vector<uint64_t> offsets;
    std::vector<VertexId> targets;
    std::vector<Weight> weights;
  };
  const Case cases[] = {
      {"drop self-loops",
       false,
       false,
       true,
       false,
       {0, 3, 4, 6, 6, 7, 8},
       {1, 2, 1, 2, 0, 5, 0, 4},
       {1.5f, 2, 7, 0.5f, 3, 1000, 4.25f, -2}},
      {"drop duplicates keeps the first copy",
       false,
       false,
       false,
       true,
       {0, 2, 3, 5, 5, 7, 8},
       {1, 2, 2, 0, 5, 4, 0, 4},
       {1.5f, 2, 0.5f, 3, 1000, 1, 4.25f, -2}},
      {"transpose",
       true,
       false,
       false,
       false,
       {0, 2, 4, 6, 6, 8, 9},
       {2, 4, 0, 0, 0, 1, 4, 5, 2},
       {3, 4.25f, 1.5f, 7, 2, 0.5f, 1, -2, 1000}},
      {"symmetrize",
       false,
       true,
       false,
       false,
       {0, 5, 8, 12, 12, 15, 17},
       // Each edge's reverse follows it: 0: 1 2 (2->0) 1 (4->0); 1: (0->1) 2 (0->1);
       // 2: (0->2) (1->2) 0 5; 4: 4 (5->4) 0; 5: (2->5) 4
       {1, 2, 2, 1, 4, 0, 2, 0, 0, 1, 0, 5, 4, 5, 0, 2, 4},
       {1.5f, 2, 3, 7, 4.25f, 1.5f, 0.5f, 7, 2, 0.5f, 3, 1000, 1, -2, 4.25f, 1000, -2}},
      {"symmetrize, drop both",
       false,
       true,
       true,
       true,
       {0, 3, 5, 8, 8, 10, 12},
       {1, 2, 4, 0, 2, 0, 1, 5, 5, 0, 2, 4},
       {1.5f, 2, 4.25f, 1.5f, 0.5f, 2, 0.5f, 1000, -2, 4.25f, 1000, -2}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    PlainCsr expected;
    expected.num_vertices = 6;
    expected.weighted = true;
    expected.offsets = c.offsets;
    expected.targets = c.targets;
    expected.weights = c.weights;
    for (int threads : {1, 2}) {
      LoadOptions options;
      options.csr.transpose = c.transpose;
      options.csr.symmetrize = c.symmetrize;
      options.csr.self_loops = c.drop_loops ? SelfLoopPolicy::kDrop : SelfLoopPolicy::kKeep;
      options.csr.duplicates = c.drop_duplicates ? DuplicatePolicy::kDrop : DuplicatePolicy::kKeep;
      options.csr.threads = threads;
      options.read.threads = threads;
      EXPECT_TRUE(CsrEquals(LoadGraph(path, options), expected)) << "threads " << threads;
    }
  }
}

// EdgeListFromCsr gives the CSR's edges in CSR order; rebuilding from them is the identity, and
// transposing twice sorts each out-list by target (stably).
TEST(EdgeListFromCsr, RebuildAndDoubleTranspose) {
  RandomGraph g = MakeRandomGraph(5, 500, 8000);
  for (bool weighted : {false, true}) {
    SCOPED_TRACE(weighted ? "weighted" : "unweighted");
    Csr csr = BuildCsr(testing::MakeEdgeList(g.n, g.edges, g.weights, weighted, 4), CsrOptions{});
    EdgeList list = EdgeListFromCsr(csr);
    EXPECT_EQ(list.num_vertices, g.n);
    EXPECT_EQ(list.weighted, weighted);
    PlainEdges got = testing::ToPlain(list);
    PlainEdges expected = testing::EdgesInCsrOrder(testing::ToPlain(csr));
    EXPECT_TRUE(SequencesEqual("edges", got.edges, expected.edges));
    EXPECT_TRUE(SequencesEqual("weights", got.weights, expected.weights));
    for (int threads : {1, 2, 3}) {
      CsrOptions options;
      options.threads = threads;
      EXPECT_TRUE(CsrEquals(BuildCsr(list, options), csr));
      options.transpose = true;
      Csr transposed = BuildCsr(list, options);
      Csr back = BuildCsr(EdgeListFromCsr(transposed), options);
      PlainCsr sorted = testing::ToPlain(csr);
      for (uint64_t v = 0; v < g.n; ++v) {
        std::vector<std::pair<VertexId, Weight>> row;
        for (uint64_t i = sorted.offsets[v]; i < sorted.offsets[v + 1]; ++i) {
          row.emplace_back(sorted.targets[i], weighted ? sorted.weights[i] : Weight{0});
        }
        std::stable_sort(row.begin(), row.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (uint64_t i = sorted.offsets[v]; i < sorted.offsets[v + 1]; ++i) {
          sorted.targets[i] = row[i - sorted.offsets[v]].first;
          if (weighted) sorted.weights[i] = row[i - sorted.offsets[v]].second;
        }
      }
      EXPECT_TRUE(CsrEquals(back, sorted)) << "threads " << threads;
    }
  }
}

// Graphs with no vertices, or vertices but no edges, through every step. (Under the
// project's ASan+UBSan build this also checks that no step passes a null pointer to
// memset/memcpy for an empty array, which UBSan treats as fatal.)
TEST(EmptyGraphs, EveryStepHandlesThem) {
  for (uint64_t n : {uint64_t{0}, uint64_t{4}}) {
    for (bool weighted : {false, true}) {
      SCOPED_TRACE("n " + std::to_string(n) + (weighted ? " weighted" : " unweighted"));
      EdgeList list;
      list.num_vertices = n;
      list.weighted = weighted;
      for (bool drop : {false, true}) {
        CsrOptions options;
        options.duplicates = drop ? DuplicatePolicy::kDrop : DuplicatePolicy::kKeep;
        options.self_loops = drop ? SelfLoopPolicy::kDrop : SelfLoopPolicy::kKeep;
        options.symmetrize = drop;
        CsrReport report;
        Csr csr = BuildCsr(list, options, &report);
        EXPECT_EQ(csr.num_vertices, n);
        EXPECT_EQ(csr.NumEdges(), 0u);
        EXPECT_EQ(csr.offsets.size(), n + 1);
        for (uint64_t v = 0; v <= n; ++v) EXPECT_EQ(csr.offsets[v], 0u);
        EXPECT_EQ(report.duplicates, 0u);
        EXPECT_EQ(CountDuplicates(csr), 0u);
        GraphStats stats = ComputeStats(csr);
        EXPECT_EQ(stats.vertices, n);
        EXPECT_EQ(stats.isolated, n);
        EdgeList back = EdgeListFromCsr(csr);
        EXPECT_EQ(back.num_vertices, n);
        EXPECT_EQ(back.NumEdges(), 0u);
      }
    }
  }
}

// --- Graph statistics -----------------------------------------------------------------------

GraphStats NaiveStats(const PlainCsr& csr) {
  GraphStats s;
  s.vertices = csr.num_vertices;
  s.edges = csr.targets.size();
  std::vector<uint64_t> in(csr.num_vertices, 0);
  for (uint64_t u = 0; u < csr.num_vertices; ++u) {
    std::set<VertexId> seen;
    const uint64_t degree = csr.offsets[u + 1] - csr.offsets[u];
    s.max_out_degree = std::max(s.max_out_degree, degree);
    s.zero_out_degree += degree == 0;
    for (uint64_t i = csr.offsets[u]; i < csr.offsets[u + 1]; ++i) {
      const VertexId v = csr.targets[i];
      s.self_loops += v == u;
      s.duplicates += !seen.insert(v).second;
      ++in[v];
    }
  }
  for (uint64_t v = 0; v < csr.num_vertices; ++v) {
    s.max_in_degree = std::max(s.max_in_degree, in[v]);
    s.isolated += in[v] == 0 && csr.offsets[v + 1] == csr.offsets[v];
  }
  s.average_degree = csr.num_vertices == 0
                         ? 0.0
                         : static_cast<double>(s.edges) / static_cast<double>(csr.num_vertices);
  return s;
}

void ExpectStatsEqual(const GraphStats& got, const GraphStats& expected) {
  EXPECT_EQ(got.vertices, expected.vertices);
  EXPECT_EQ(got.edges, expected.edges);
  EXPECT_EQ(got.self_loops, expected.self_loops);
  EXPECT_EQ(got.duplicates, expected.duplicates);
  EXPECT_EQ(got.max_out_degree, expected.max_out_degree);
  EXPECT_EQ(got.max_in_degree, expected.max_in_degree);
  EXPECT_EQ(got.zero_out_degree, expected.zero_out_degree);
  EXPECT_EQ(got.isolated, expected.isolated);
  EXPECT_DOUBLE_EQ(got.average_degree, expected.average_degree);
}

TEST(GraphStats, TinyGraphByHand) {
  Csr csr = LoadGraph(testing::TestDataPath("tiny.txt"), LoadOptions{});
  GraphStats expected;
  expected.vertices = 6;
  expected.edges = 9;
  expected.self_loops = 1;
  expected.duplicates = 1;
  expected.max_out_degree = 3;   // vertex 0
  expected.max_in_degree = 2;    // vertices 0, 1, 2, 4
  expected.zero_out_degree = 1;  // vertex 3
  expected.isolated = 1;         // vertex 3
  expected.average_degree = 1.5;
  for (int threads : {0, 1, 2, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    ExpectStatsEqual(ComputeStats(csr, threads), expected);
  }
}

TEST(GraphStats, RandomGraphsMatchANaiveCount) {
  for (const GraphShape& shape : kShapes) {
    SCOPED_TRACE("n " + std::to_string(shape.n) + " m " + std::to_string(shape.m));
    RandomGraph g = MakeRandomGraph(shape.n + 17, shape.n, shape.m);
    Csr csr = BuildCsr(testing::MakeEdgeList(g.n, g.edges, g.weights, false), CsrOptions{});
    const GraphStats expected = NaiveStats(testing::ToPlain(csr));
    for (int threads : {1, 2, 3}) ExpectStatsEqual(ComputeStats(csr, threads), expected);
  }
}

// --- R-MAT ----------------------------------------------------------------------------------

PlainEdges Generate(const RmatOptions& options, int threads) {
  return testing::ToPlain(GenerateRmat(options, threads));
}

TEST(Rmat, IdenticalForAnyThreadCount) {
  for (bool weighted : {false, true}) {
    SCOPED_TRACE(weighted ? "weighted" : "unweighted");
    RmatOptions options;
    options.scale = 12;
    options.edge_factor = 8;
    options.seed = 42;
    options.weighted = weighted;
    EdgeList reference_list = GenerateRmat(options, 1);
    PlainEdges reference = testing::ToPlain(reference_list);
    ASSERT_EQ(reference_list.num_vertices, 4096u);
    ASSERT_EQ(reference.edges.size(), 8u * 4096u);
    EXPECT_EQ(reference_list.weighted, weighted);
    for (const Edge& e : reference.edges) {
      ASSERT_LT(e.source, 4096u);
      ASSERT_LT(e.target, 4096u);
    }
    for (Weight w : reference.weights) {
      ASSERT_GE(w, 1);
      ASSERT_LE(w, 255);
      ASSERT_EQ(w, static_cast<Weight>(static_cast<int>(w))) << "weights are integers";
    }
    CsrOptions csr_options;
    csr_options.threads = 1;
    Csr reference_csr = BuildCsr(reference_list, csr_options);
    for (int threads : {0, 2, 3}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      EdgeList list = GenerateRmat(options, threads);
      PlainEdges got = testing::ToPlain(list);
      EXPECT_TRUE(SequencesEqual("edges", got.edges, reference.edges));
      EXPECT_TRUE(SequencesEqual("weights", got.weights, reference.weights));
      csr_options.threads = threads;
      EXPECT_TRUE(CsrEquals(BuildCsr(list, csr_options), reference_csr));
    }
  }
}

TEST(Rmat, SeedMattersAndIsReproducible) {
  RmatOptions options;
  options.scale = 10;
  options.edge_factor = 4;
  options.seed = 1;
  PlainEdges a = Generate(options, 2);
  PlainEdges again = Generate(options, 2);
  EXPECT_TRUE(SequencesEqual("edges", again.edges, a.edges));
  options.seed = 2;
  PlainEdges b = Generate(options, 2);
  EXPECT_GE(testing::FirstMismatch(a.edges, b.edges), 0) << "seeds 1 and 2 gave the same graph";
}

// Scrambling renames vertices by a bijection: edge i of the scrambled graph is edge i of the
// unscrambled one under one consistent, injective renaming.
TEST(Rmat, ScramblingIsABijectionOfTheSameGraph) {
  RmatOptions options;
  options.scale = 11;
  options.edge_factor = 8;
  options.seed = 9;
  options.scramble_ids = false;
  PlainEdges plain = Generate(options, 2);
  options.scramble_ids = true;
  PlainEdges scrambled = Generate(options, 2);
  ASSERT_EQ(plain.edges.size(), scrambled.edges.size());
  std::map<VertexId, VertexId> forward;
  std::map<VertexId, VertexId> backward;
  auto map = [&](VertexId from, VertexId to) {
    auto [f, inserted_f] = forward.emplace(from, to);
    auto [b, inserted_b] = backward.emplace(to, from);
    return f->second == to && b->second == from;
  };
  for (size_t i = 0; i < plain.edges.size(); ++i) {
    ASSERT_TRUE(map(plain.edges[i].source, scrambled.edges[i].source)) << "edge " << i;
    ASSERT_TRUE(map(plain.edges[i].target, scrambled.edges[i].target)) << "edge " << i;
  }
  // Unscrambled, vertex 0 is the R-MAT hub (quadrant a = 0.57 at every level).
  Csr csr = BuildCsr(testing::MakeEdgeList(2048, plain.edges, {}, false), CsrOptions{});
  EXPECT_EQ(csr.Degree(0), ComputeStats(csr).max_out_degree);
}

TEST(Rmat, RejectsBadParameters) {
  for (int scale : {0, 32, -1}) {
    RmatOptions options;
    options.scale = scale;
    EXPECT_THROW(GenerateRmat(options, 1), std::invalid_argument) << "scale " << scale;
  }
  RmatOptions options;
  options.scale = 4;
  options.a = 0.6;
  options.b = 0.3;
  options.c = 0.3;  // a + b + c > 1
  EXPECT_THROW(GenerateRmat(options, 1), std::invalid_argument);
  options.a = -0.1;
  options.b = 0.5;
  options.c = 0.2;
  EXPECT_THROW(GenerateRmat(options, 1), std::invalid_argument);
}

}  // namespace
}  // namespace needle
