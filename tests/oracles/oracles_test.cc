// The oracles themselves, on tiny hand-drawn graphs whose answers are worked out by hand in the
// comments: an oracle is only worth comparing against if it is right on graphs one can check on
// paper. Covers the corner cases the apps must also get right (empty, edgeless, isolated
// vertices, self-loops, duplicate edges, dangling vertices, unreachable vertices).
#include "apps/oracles/oracles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "loaders/csr.h"
#include "tests/test_util.h"

namespace needle::oracle {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTol = 1e-10;

// The out-edge CSR of `edges` on `n` vertices, built by the library with default options
// (duplicates and self-loops kept); two segments so the edge list looks like a parsed one.
Csr Graph(uint64_t n, const std::vector<Edge>& edges) {
  return BuildCsr(testing::MakeEdgeList(n, edges, {}, false, 2), CsrOptions{});
}

Csr WeightedGraph(uint64_t n, const std::vector<Edge>& edges, const std::vector<Weight>& weights) {
  return BuildCsr(testing::MakeEdgeList(n, edges, weights, true, 2), CsrOptions{});
}

void ExpectValues(const std::vector<double>& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t v = 0; v < expected.size(); ++v) {
    if (std::isinf(expected[v])) {
      EXPECT_EQ(actual[v], expected[v]) << "vertex " << v;
    } else {
      EXPECT_NEAR(actual[v], expected[v], kTol) << "vertex " << v;
    }
  }
}

// --- PageRank -------------------------------------------------------------------------------

TEST(PageRankOracle, EmptyGraph) { EXPECT_TRUE(PageRank(Graph(0, {})).empty()); }

TEST(PageRankOracle, EdgelessGraphIsTheBase) {
  // No in-edges anywhere: r = 0.15 for every vertex.
  ExpectValues(PageRank(Graph(3, {})), {0.15, 0.15, 0.15});
}

TEST(PageRankOracle, TwoCycle) {
  // r0 = 0.15 + 0.85 r1, r1 = 0.15 + 0.85 r0  =>  r0 = r1 = 0.15 / 0.15 = 1.
  ExpectValues(PageRank(Graph(2, {{0, 1}, {1, 0}})), {1.0, 1.0});
}

TEST(PageRankOracle, ThreeCycle) {
  // Every vertex has one in-edge from a vertex of out-degree 1: r = 0.15 + 0.85 r  =>  r = 1.
  ExpectValues(PageRank(Graph(3, {{0, 1}, {1, 2}, {2, 0}})), {1.0, 1.0, 1.0});
}

TEST(PageRankOracle, PathWithDanglingEnd) {
  // 0 -> 1 -> 2, and 2 dangles (its rank goes nowhere, no teleport):
  // r0 = 0.15, r1 = 0.15 + 0.85 * 0.15 = 0.2775, r2 = 0.15 + 0.85 * 0.2775 = 0.385875.
  ExpectValues(PageRank(Graph(3, {{0, 1}, {1, 2}})), {0.15, 0.2775, 0.385875});
}

TEST(PageRankOracle, OutStar) {
  // 0 -> 1, 2, 3, 4: outdeg(0) = 4, each leaf gets 0.15 + 0.85 * 0.15 / 4 = 0.181875.
  ExpectValues(PageRank(Graph(5, {{0, 1}, {0, 2}, {0, 3}, {0, 4}})),
               {0.15, 0.181875, 0.181875, 0.181875, 0.181875});
}

TEST(PageRankOracle, InStar) {
  // 1, 2, 3, 4 -> 0, each with outdeg 1: r0 = 0.15 + 4 * 0.85 * 0.15 = 0.66.
  ExpectValues(PageRank(Graph(5, {{1, 0}, {2, 0}, {3, 0}, {4, 0}})),
               {0.66, 0.15, 0.15, 0.15, 0.15});
}

TEST(PageRankOracle, SelfLoopCountsInTheDegree) {
  // A lone self-loop: r0 = 0.15 + 0.85 r0  =>  r0 = 1.
  ExpectValues(PageRank(Graph(1, {{0, 0}})), {1.0});
  // 0 -> 0 and 0 -> 1: outdeg(0) = 2 (the loop counts), so r0 = 0.15 + 0.425 r0
  // => r0 = 0.15 / 0.575 = 6/23; r1 = 0.15 + 0.425 * 6/23 = 0.15 + 2.55/23 = 6/23 as well
  // (0.15 = 3.45/23, 3.45 + 2.55 = 6).
  ExpectValues(PageRank(Graph(2, {{0, 0}, {0, 1}})), {6.0 / 23, 6.0 / 23});
}

TEST(PageRankOracle, DuplicateEdgesCountWithMultiplicity) {
  // 0 -> 1 twice and 0 -> 2 once: outdeg(0) = 3, so 1 receives 2/3 and 2 receives 1/3 of
  // 0.85 * 0.15 = 0.1275: r1 = 0.15 + 0.085 = 0.235, r2 = 0.15 + 0.0425 = 0.1925.
  ExpectValues(PageRank(Graph(3, {{0, 1}, {0, 2}, {0, 1}})), {0.15, 0.235, 0.1925});
}

TEST(PageRankOracle, SmallGraphInClosedForm) {
  // 0 -> 1, 0 -> 2, 1 -> 2, 2 -> 0; outdeg = (2, 1, 1):
  //   r0 = 0.15 + 0.85 r2
  //   r1 = 0.15 + 0.425 r0
  //   r2 = 0.15 + 0.425 r0 + 0.85 r1 = 0.2775 + 0.78625 r0
  // so r0 = 0.15 + 0.85 (0.2775 + 0.78625 r0) = 0.385875 + 0.6683125 r0
  //    r0 = 0.385875 / 0.3316875 = 2058/1769, r1 = 1140/1769, r2 = 2109/1769.
  // Nothing dangles, so the ranks sum to n: (2058 + 1140 + 2109) / 1769 = 3.
  const std::vector<double> r = PageRank(Graph(3, {{0, 1}, {0, 2}, {1, 2}, {2, 0}}));
  ExpectValues(r, {2058.0 / 1769, 1140.0 / 1769, 2109.0 / 1769});
  EXPECT_NEAR(r[0] + r[1] + r[2], 3.0, kTol);
}

TEST(PageRankOracle, IsolatedVerticesKeepTheBase) {
  // Vertices 2 and 4 touch no edge; the 2-cycle 0 <-> 1 and the edge 3 -> 0 do not reach them.
  // r3 = 0.15; r0 = 0.15 + 0.85 (r1 + r3), r1 = 0.15 + 0.85 r0
  // => r0 = 0.15 + 0.85 (0.15 + 0.85 r0 + 0.15) = 0.405 + 0.7225 r0 => r0 = 0.405 / 0.2775
  //    = 1.459459... = 54/37, r1 = 0.15 + 0.85 * 54/37 = (5.55 + 45.9)/37 = 51.45/37.
  ExpectValues(PageRank(Graph(5, {{0, 1}, {1, 0}, {3, 0}})),
               {54.0 / 37, 51.45 / 37, 0.15, 0.15, 0.15});
}

TEST(PageRankOracle, IterationsAreJacobiSweeps) {
  const Csr path = Graph(3, {{0, 1}, {1, 2}});
  // Zero sweeps: the start vector.
  ExpectValues(PageRank(path, 1e-12, 0), {0.15, 0.15, 0.15});
  // One sweep computes every rank from the start vector: r2 = 0.15 + 0.85 * 0.15 = 0.2775,
  // not the 0.385875 a Gauss-Seidel sweep (using the new r1) would give.
  ExpectValues(PageRank(path, 1e-12, 1), {0.15, 0.2775, 0.2775});
  // Two sweeps reach the fixed point of the path.
  ExpectValues(PageRank(path, 1e-12, 2), {0.15, 0.2775, 0.385875});
}

// --- Connected components -------------------------------------------------------------------

TEST(ConnectedComponentsOracle, EmptyGraph) {
  EXPECT_TRUE(ConnectedComponents(Graph(0, {})).empty());
}

TEST(ConnectedComponentsOracle, EdgelessGraphIsAllSingletons) {
  EXPECT_EQ(ConnectedComponents(Graph(4, {})), (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(ConnectedComponentsOracle, EdgesAreFollowedBothWays) {
  // 2 -> 1 <- 0 and 3 -> 2: no vertex reaches all others along the edges, but weakly it is one
  // component labelled by its smallest id, 0.
  EXPECT_EQ(ConnectedComponents(Graph(4, {{2, 1}, {0, 1}, {3, 2}})),
            (std::vector<uint32_t>{0, 0, 0, 0}));
}

TEST(ConnectedComponentsOracle, Cycle) {
  EXPECT_EQ(ConnectedComponents(Graph(3, {{1, 2}, {2, 0}, {0, 1}})),
            (std::vector<uint32_t>{0, 0, 0}));
}

TEST(ConnectedComponentsOracle, TwoComponentsAndAnIsolatedVertex) {
  // {1, 3, 5} via 5 -> 3 -> 1, {2, 4} via 4 -> 2, and 0 alone.
  EXPECT_EQ(ConnectedComponents(Graph(6, {{5, 3}, {3, 1}, {4, 2}})),
            (std::vector<uint32_t>{0, 1, 2, 1, 2, 1}));
}

TEST(ConnectedComponentsOracle, LabelIsTheSmallestIdNotTheFirstSeen) {
  // A star whose centre 3 has the largest id: 3 -> 0, 1, 2, plus a separate edge 5 -> 4.
  EXPECT_EQ(ConnectedComponents(Graph(6, {{3, 2}, {3, 1}, {3, 0}, {5, 4}})),
            (std::vector<uint32_t>{0, 0, 0, 0, 4, 4}));
}

TEST(ConnectedComponentsOracle, SelfLoopsAndDuplicatesJoinNothing) {
  // 1 -> 1 and the twice-repeated 2 -> 3: components {0}, {1}, {2, 3}.
  EXPECT_EQ(ConnectedComponents(Graph(4, {{1, 1}, {2, 3}, {2, 3}})),
            (std::vector<uint32_t>{0, 1, 2, 2}));
}

// --- Shortest paths -------------------------------------------------------------------------

TEST(ShortestPathsOracle, NoSourcesNoRows) {
  EXPECT_TRUE(ShortestPaths(Graph(3, {{0, 1}}), {}).empty());
}

TEST(ShortestPathsOracle, EdgelessGraph) {
  const std::vector<VertexId> sources = {1};
  const auto d = ShortestPaths(Graph(3, {}), sources);
  ASSERT_EQ(d.size(), 1u);
  ExpectValues(d[0], {kInf, 0, kInf});
}

TEST(ShortestPathsOracle, UnweightedPathCountsHops) {
  // 0 -> 1 -> 2 -> 3: from 0 the hop counts; from 2 only 3 is ahead, 0 and 1 are unreachable
  // (edges are directed).
  const std::vector<VertexId> sources = {0, 2};
  const auto d = ShortestPaths(Graph(4, {{0, 1}, {1, 2}, {2, 3}}), sources);
  ASSERT_EQ(d.size(), 2u);
  ExpectValues(d[0], {0, 1, 2, 3});
  ExpectValues(d[1], {kInf, kInf, 0, 1});
}

TEST(ShortestPathsOracle, UnweightedCycleAndStar) {
  // 4-cycle 0 -> 1 -> 2 -> 3 -> 0 from 1: 2 is 1 hop, 3 is 2, 0 is 3.
  const std::vector<VertexId> from1 = {1};
  ExpectValues(ShortestPaths(Graph(4, {{0, 1}, {1, 2}, {2, 3}, {3, 0}}), from1)[0], {3, 0, 1, 2});
  // Out-star from 0: every leaf 1 hop; from a leaf nothing else is reachable.
  const std::vector<VertexId> from0and2 = {0, 2};
  const auto d = ShortestPaths(Graph(4, {{0, 1}, {0, 2}, {0, 3}}), from0and2);
  ExpectValues(d[0], {0, 1, 1, 1});
  ExpectValues(d[1], {kInf, kInf, 0, kInf});
}

TEST(ShortestPathsOracle, WeightedDagPrefersTheLongerPathWithLessWeight) {
  // 0 -10-> 1, 0 -1-> 2 -1-> 3 -1-> 1, 1 -2-> 4; 5 is isolated.
  // From 0: d2 = 1, d3 = 2, d1 = min(10, 3) = 3, d4 = 3 + 2 = 5, d5 = inf.
  // From 3: d1 = 1, d4 = 3; 0 and 2 lie upstream, unreachable.
  const Csr g = WeightedGraph(6, {{0, 1}, {0, 2}, {2, 3}, {3, 1}, {1, 4}}, {10, 1, 1, 1, 2});
  const std::vector<VertexId> sources = {0, 3};
  const auto d = ShortestPaths(g, sources);
  ASSERT_EQ(d.size(), 2u);
  ExpectValues(d[0], {0, 3, 1, 2, 5, kInf});
  ExpectValues(d[1], {kInf, 1, kInf, 0, 3, kInf});
}

TEST(ShortestPathsOracle, DuplicateEdgesTakeTheLightestCopy) {
  // 0 -> 1 three times with weights 5, 2, 7; a self-loop 1 -> 1 of weight 0.5 changes nothing.
  const Csr g = WeightedGraph(2, {{0, 1}, {0, 1}, {0, 1}, {1, 1}}, {5, 2, 7, 0.5f});
  const std::vector<VertexId> sources = {0};
  ExpectValues(ShortestPaths(g, sources)[0], {0, 2});
}

TEST(ShortestPathsOracle, FractionalAndZeroWeights) {
  // 0 -0-> 1 -0.25-> 2 and 0 -0.5-> 2: d1 = 0, d2 = min(0.25, 0.5) = 0.25.
  const Csr g = WeightedGraph(3, {{0, 1}, {1, 2}, {0, 2}}, {0, 0.25f, 0.5f});
  const std::vector<VertexId> sources = {0};
  ExpectValues(ShortestPaths(g, sources)[0], {0, 0, 0.25});
}

TEST(ShortestPathsOracle, NegativeWeightThrows) {
  // 1 -> 2 weighs -1. It throws from source 0, which reaches that edge, and from source 2,
  // which does not: the weights are checked over the whole graph.
  const Csr g = WeightedGraph(3, {{0, 1}, {1, 2}}, {1, -1});
  const std::vector<VertexId> from0 = {0};
  const std::vector<VertexId> from2 = {2};
  EXPECT_THROW(ShortestPaths(g, from0), std::invalid_argument);
  EXPECT_THROW(ShortestPaths(g, from2), std::invalid_argument);
  // A NaN weight is no length either.
  const Csr nan = WeightedGraph(2, {{0, 1}}, {std::numeric_limits<Weight>::quiet_NaN()});
  EXPECT_THROW(ShortestPaths(nan, from0), std::invalid_argument);
}

TEST(ShortestPathsOracle, SourceOutOfRangeThrows) {
  const std::vector<VertexId> sources = {0, 3};
  EXPECT_THROW(ShortestPaths(Graph(3, {{0, 1}}), sources), std::invalid_argument);
}

// --- ComparePartition -----------------------------------------------------------------------

TEST(ComparePartitionTest, SamePartitionDifferentLabels) {
  const std::vector<uint32_t> a = {0, 0, 2, 0, 2, 5};
  const std::vector<uint32_t> b = {7, 7, 1, 7, 1, 0};
  EXPECT_EQ(ComparePartition(a, b), "");
  EXPECT_EQ(ComparePartition({}, {}), "");
}

TEST(ComparePartitionTest, SplitInTheSecondIsReported) {
  // a puts 0 and 1 together, b separates them: the first disagreeing pair is (0, 1).
  const std::vector<uint32_t> a = {0, 0, 1};
  const std::vector<uint32_t> b = {0, 1, 1};
  const std::string message = ComparePartition(a, b);
  EXPECT_NE(message.find("vertices 0 and 1"), std::string::npos) << message;
  EXPECT_NE(message.find("together in the first"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(ComparePartitionTest, MergeInTheSecondIsReported) {
  // b lumps everything into one class (an all-one-label answer must not pass): vertices 0 and 1
  // are apart in a and together in b.
  const std::vector<uint32_t> a = {0, 1, 2};
  const std::vector<uint32_t> b = {9, 9, 9};
  const std::string message = ComparePartition(a, b);
  EXPECT_NE(message.find("vertices 0 and 1"), std::string::npos) << message;
  EXPECT_NE(message.find("together in the second"), std::string::npos) << message;
}

TEST(ComparePartitionTest, LaterDisagreementIsFound) {
  // Classes agree on {0, 2} and {1}; then 3 joins {0, 2} in a but {1} in b. Smallest class-mates
  // of 3: 0 in a, 1 in b; the pair reported is (0, 3), together in a.
  const std::vector<uint32_t> a = {4, 8, 4, 4};
  const std::vector<uint32_t> b = {1, 2, 1, 2};
  const std::string message = ComparePartition(a, b);
  EXPECT_NE(message.find("vertices 0 and 3"), std::string::npos) << message;
  EXPECT_NE(message.find("together in the first"), std::string::npos) << message;
}

TEST(ComparePartitionTest, SizeMismatch) {
  const std::vector<uint32_t> a = {0, 0};
  const std::vector<uint32_t> b = {0};
  EXPECT_NE(ComparePartition(a, b), "");
}

// --- CompareValues --------------------------------------------------------------------------

TEST(CompareValuesTest, WithinTolerance) {
  const std::vector<double> e = {1.0, 100.0, 0.0, kInf};
  const std::vector<double> a = {1.0 + 1e-7, 100.0 - 5e-5, 5e-7, kInf};
  // |diff| <= 1e-6 + 1e-6 * |e|: 1e-7 <= 2e-6, 5e-5 <= 1.01e-4, 5e-7 <= 1e-6, inf == inf.
  EXPECT_EQ(CompareValues(e, a, 1e-6, 1e-6), "");
  EXPECT_EQ(CompareValues({}, {}, 0, 0), "");
}

TEST(CompareValuesTest, ReportsFirstBadVertexAndCount) {
  const std::vector<double> e = {1.0, 2.0, 3.0, 4.0};
  const std::vector<double> a = {1.0, 2.5, 3.0, 4.5};
  const std::string message = CompareValues(e, a, 0, 1e-9);
  EXPECT_NE(message.find("vertex 1:"), std::string::npos) << message;
  EXPECT_NE(message.find("expected 2,"), std::string::npos) << message;
  EXPECT_NE(message.find("actual 2.5"), std::string::npos) << message;
  EXPECT_NE(message.find("2 of 4"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(CompareValuesTest, InfinityAgainstFiniteMismatches) {
  const std::vector<double> inf = {kInf};
  const std::vector<double> big = {1e300};
  const std::vector<double> minus_inf = {-kInf};
  EXPECT_NE(CompareValues(inf, big, 1, 1), "");
  EXPECT_NE(CompareValues(big, inf, 1, 1), "");
  EXPECT_NE(CompareValues(inf, minus_inf, 1, 1), "");
}

TEST(CompareValuesTest, NanNeverMatches) {
  const std::vector<double> nan = {std::numeric_limits<double>::quiet_NaN()};
  const std::vector<double> one = {1.0};
  EXPECT_NE(CompareValues(one, nan, 1, 1), "");
  EXPECT_NE(CompareValues(nan, nan, 1, 1), "");
}

TEST(CompareValuesTest, SizeMismatch) {
  const std::vector<double> e = {1.0, 2.0};
  const std::vector<double> a = {1.0};
  EXPECT_NE(CompareValues(e, a, 0, 0), "");
}

}  // namespace
}  // namespace needle::oracle
