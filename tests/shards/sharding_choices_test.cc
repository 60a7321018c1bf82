// Two sharding choices against their contract (shards/sharder.h, intervals.h, manifest.h):
//
//  - symmetrize: every input edge u->v is sharded as u->v and v->u (a self-loop once), both
//    with its weight, and the degrees, intervals, windows and degrees.bin describe that graph.
//    Checked against a symmetrized multiset this test builds itself from the input's edges,
//    read back with the independent reader of shard_test_util.h, on hand-drawn graphs with
//    self-loops and duplicates, R-MAT graphs (plain and gzip: both paths through the sharder)
//    and real datasets, at one and many shards; and byte for byte against sharding a file that
//    spells the symmetrized edges out;
//  - interval costs: the intervals planned with other per-edge and per-vertex bytes, every one
//    within the budget under those bytes; larger costs give more intervals;
//  - the manifest: both choices recorded and compared on reuse, the rebuild reason naming
//    them; a set sharded with the default choices has exactly the manifest needle wrote before
//    the choices existed, and a set written then is still reused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "base/error.h"
#include "base/version.h"
#include "loaders/edge_list_writer.h"
#include "loaders/load_graph.h"
#include "loaders/rmat.h"
#include "shards/intervals.h"
#include "shards/manifest.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"
#include "tests/shards/shard_cases.h"
#include "tests/shards/shard_test_util.h"

namespace needle {
namespace {

namespace fs = std::filesystem;
using testing::Budget;
using testing::BudgetName;
using testing::CheckShardSet;
using testing::CostFactors;
using testing::CostsOf;
using testing::Dataset;
using testing::GraphCase;
using testing::Input;
using testing::MemoryFor;
using testing::OracleEdge;
using testing::OracleGraph;
using testing::ReadFile;
using testing::SameFiles;
using testing::ShardSetSummary;
using testing::UsableFor;
using testing::WriteFile;
using testing::Written;

// The expectation: each edge, and its reverse unless it is a self-loop, with the same weight.
OracleGraph Symmetrized(const OracleGraph& g) {
  OracleGraph s;
  s.num_vertices = g.num_vertices;
  s.weighted = g.weighted;
  for (const OracleEdge& e : g.edges) {
    s.edges.push_back(e);
    if (e.source != e.target) s.edges.push_back(OracleEdge{e.target, e.source, e.weight_bits});
  }
  return s;
}

Input Rmat(const std::string& dir, int scale, bool weighted, bool gzip = false) {
  Input in = testing::Rmat(dir, scale, weighted, 8, 11);
  if (gzip) in.path = testing::Compress(in.path, "gzip");
  return in;
}

std::vector<GraphCase> Graphs() {
  return {
      {"loops_and_duplicates", testing::LoopsAndDuplicates},
      {"weighted_loops_and_duplicates",
       [](const std::string& d) {
         // 1->0 and 0->1 both given with weight 5: symmetrized, each appears twice.
         return Written(d, "dups.wel", "1 0 5\n0 1 5\n1 0 -1\n0 0 0.25\n0 0 0.25\n2 1 3\n1 2 4\n",
                        testing::MakeOracle(3, true,
                                            {{1, 0, 5},
                                             {0, 1, 5},
                                             {1, 0, -1},
                                             {0, 0, 0.25f},
                                             {0, 0, 0.25f},
                                             {2, 1, 3},
                                             {1, 2, 4}}));
       }},
      {"tiny_txt",
       [](const std::string& d) {
         // tests/data/README.md: 6 vertices (3 isolated), 9 edges, one self-loop.
         fs::copy_file(testing::TestDataPath("tiny.txt"), d + "/tiny.txt");
         return Input{d + "/tiny.txt", testing::TinyOracle(true)};
       }},
      {"isolated_vertices",
       [](const std::string& d) {
         // The vertex count comes from the header: vertex 9 has no edges either way.
         return Written(
             d, "isolated.mtx",
             "%%MatrixMarket matrix coordinate pattern general\n10 10 3\n2 9\n9 3\n5 5\n",
             testing::MakeOracle(10, false, {{1, 8, 1}, {8, 2, 1}, {4, 4, 1}}));
       }},
      {"empty",
       [](const std::string& d) {
         return Written(d, "empty.el", "# no edges\n", testing::MakeOracle(0, false, {}));
       }},
      {"rmat12", [](const std::string& d) { return Rmat(d, 12, false); }},
      {"rmat12_weighted_gzip", [](const std::string& d) { return Rmat(d, 12, true, true); }},
      {"email_Enron", [](const std::string&) { return Dataset("email-Enron.txt.gz"); }},
      {"rome99", [](const std::string&) { return Dataset("roads/rome99.gr"); }},
  };
}

GraphCase GraphNamed(const std::string& name) {
  for (const GraphCase& c : Graphs()) {
    if (c.name == name) return c;
  }
  throw std::logic_error("no graph case " + name);
}

ShardOptions Options(const testing::OracleGraph& g, uint64_t usable, const std::string& out,
                     bool symmetrize, int threads = 0) {
  ShardOptions o;
  o.memory_bytes = MemoryFor(g, usable);
  if (const uint32_t parts = testing::IntervalsFor(g, usable); parts > 1) o.intervals = parts;
  o.out_dir = out;
  o.symmetrize = symmetrize;
  o.threads = threads;
  o.read.threads = threads;
  return o;
}

testing::ParsedManifest ManifestOf(const std::string& set) {
  return testing::ParseManifestText(ReadFile(set + "/manifest"));
}

// ---------------------------------------------------------------------------------------------
// Symmetrize: round trip.

class SymmetrizeRoundTripTest
    : public testing::WithTempDir<::testing::TestWithParam<std::tuple<GraphCase, Budget>>> {};

TEST_P(SymmetrizeRoundTripTest, EveryEdgeAndItsReverseOnceSelfLoopsOnce) {
  const auto& [graph, budget] = GetParam();
  const Input in = graph.make(dir().string());
  const OracleGraph expected = Symmetrized(in.oracle);
  const uint64_t usable = UsableFor(expected, budget);
  ShardOptions o = Options(expected, usable, File("set"), /*symmetrize=*/true);
  std::vector<std::string> log;
  o.log = [&](const std::string& line) { log.push_back(line); };

  const ShardReport report = ShardGraph(in.path, o);

  ShardSetSummary summary;
  CheckShardSet(File("set"), expected, true, &summary);
  if (HasFatalFailure()) return;
  if (budget == Budget::kOneShard) {
    EXPECT_EQ(summary.num_intervals, 1u);
  } else if (CostsOf(expected).total > usable) {
    EXPECT_GT(summary.num_intervals, 1u) << "the many-shard budget gave one shard";
  }
  EXPECT_EQ(report.manifest.num_edges, expected.edges.size());
  EXPECT_TRUE(report.manifest.choices.symmetrize);
  EXPECT_TRUE(ShardSet::Open(File("set")).manifest().choices.symmetrize);
  const testing::ParsedManifest m = ManifestOf(File("set"));
  EXPECT_EQ(m.values.count("symmetrize") ? m.values.at("symmetrize") : "", "1");
  EXPECT_EQ(m.values.count("interval-costs"), 0u) << "default costs are not written";
  const std::string said = "symmetrized: " + std::to_string(in.oracle.edges.size()) +
                           " input edges -> " + std::to_string(expected.edges.size()) + " edges";
  EXPECT_TRUE(std::any_of(log.begin(), log.end(),
                          [&](const std::string& l) { return l.rfind(said, 0) == 0; }))
      << "no '" << said << "' line logged";
}

INSTANTIATE_TEST_SUITE_P(Graphs, SymmetrizeRoundTripTest,
                         ::testing::Combine(::testing::ValuesIn(Graphs()),
                                            ::testing::Values(Budget::kOneShard, Budget::kMany)),
                         [](const ::testing::TestParamInfo<std::tuple<GraphCase, Budget>>& p) {
                           return std::get<0>(p.param).name + "_" +
                                  BudgetName(std::get<1>(p.param));
                         });

// The same set as sharding, without --symmetrize, a file that lists the symmetrized edges.
class SymmetrizeTwinTest
    : public testing::WithTempDir<::testing::TestWithParam<std::tuple<GraphCase, Budget>>> {};

TEST_P(SymmetrizeTwinTest, SameShardsAsTheSpelledOutSymmetricFile) {
  const auto& [graph, budget] = GetParam();
  const Input in = graph.make(dir().string());
  const OracleGraph expected = Symmetrized(in.oracle);
  std::string text;
  for (const OracleEdge& e : expected.edges) {
    float w;
    std::memcpy(&w, &e.weight_bits, 4);
    char line[64];
    if (expected.weighted) {
      std::snprintf(line, sizeof(line), "%u %u %.9g\n", e.source, e.target, w);
    } else {
      std::snprintf(line, sizeof(line), "%u %u\n", e.source, e.target);
    }
    text += line;
  }
  const std::string twin = File(expected.weighted ? "twin.wel" : "twin.el");
  WriteFile(twin, text);
  const uint64_t usable = UsableFor(expected, budget);
  ShardGraph(in.path, Options(expected, usable, File("symmetrized"), true));
  ShardGraph(twin, Options(expected, usable, File("twin"), false));
  CheckShardSet(File("twin"), expected, true);
  EXPECT_TRUE(SameFiles(File("symmetrized"), File("twin"), {"manifest"}));
}

INSTANTIATE_TEST_SUITE_P(
    Graphs, SymmetrizeTwinTest,
    ::testing::Combine(::testing::Values(GraphNamed("weighted_loops_and_duplicates"),
                                         GraphNamed("rmat12"), GraphNamed("rmat12_weighted_gzip")),
                       ::testing::Values(Budget::kOneShard, Budget::kMany)),
    [](const ::testing::TestParamInfo<std::tuple<GraphCase, Budget>>& p) {
      return std::get<0>(p.param).name + "_" + BudgetName(std::get<1>(p.param));
    });

class SymmetrizeThreadsTest : public testing::WithTempDir<::testing::TestWithParam<GraphCase>> {};

TEST_P(SymmetrizeThreadsTest, OneTwoAndThreeThreadsWriteIdenticalSets) {
  const Input in = GetParam().make(dir().string());
  const OracleGraph expected = Symmetrized(in.oracle);
  const uint64_t usable = UsableFor(expected, Budget::kMany);
  for (int t = 1; t <= 3; ++t) {
    ShardGraph(in.path,
               Options(expected, usable, File("t" + std::to_string(t)), true, t));
  }
  CheckShardSet(File("t1"), expected, true);
  EXPECT_TRUE(SameFiles(File("t1"), File("t2")));
  EXPECT_TRUE(SameFiles(File("t1"), File("t3")));
}

INSTANTIATE_TEST_SUITE_P(Graphs, SymmetrizeThreadsTest,
                         ::testing::Values(GraphNamed("weighted_loops_and_duplicates"),
                                           GraphNamed("rmat12_weighted_gzip"),
                                           GraphNamed("email_Enron")),
                         [](const ::testing::TestParamInfo<GraphCase>& p) { return p.param.name; });

TEST(SymmetrizeDirTest, DefaultDirectoryOfTheSymmetrizedSetSitsBesideTheDirectedOne) {
  testing::TempDir dir;
  const Input in = GraphNamed("tiny_txt").make(dir.path().string());
  EXPECT_EQ(DefaultShardDir(in.path), in.path + ".shards");
  EXPECT_EQ(DefaultShardDir(in.path, false), in.path + ".shards");
  EXPECT_EQ(DefaultShardDir(in.path, true), in.path + ".sym.shards");
  const ShardReport directed = ShardGraph(in.path, Options(in.oracle, 1 << 20, "", false));
  const ShardReport symmetric = ShardGraph(in.path, Options(in.oracle, 1 << 20, "", true));
  EXPECT_EQ(directed.dir, in.path + ".shards");
  EXPECT_EQ(symmetric.dir, in.path + ".sym.shards");
  EXPECT_FALSE(symmetric.reused);
  CheckShardSet(in.path + ".shards", in.oracle, true);
  CheckShardSet(in.path + ".sym.shards", Symmetrized(in.oracle), true);
  // Both stay: each is reused by its own choice.
  EXPECT_TRUE(ShardGraph(in.path, Options(in.oracle, 1 << 20, "", false)).reused);
  EXPECT_TRUE(ShardGraph(in.path, Options(in.oracle, 1 << 20, "", true)).reused);
}

// ---------------------------------------------------------------------------------------------
// Interval costs.

TEST(IntervalCostsTest, PlanUsesTheGivenBytesAndShowsThem) {
  // Vertices only, 2 MiB each (and 3 out-edges: a packed run each), room for 10 intervals of 10.
  const std::vector<uint32_t> out(100, 3), in(100, 5);
  const uint64_t vertex = testing::CostOf(3, 5, testing::Charged({0, 0, 1 << 20}, false, 10));
  const IntervalPlan plan =
      PlanIntervals(out, in, testing::FixedFor(10) + 10 * vertex, IntervalCosts{0, 0, 1 << 20});
  ASSERT_EQ(plan.num_intervals(), 10u) << plan.rule;
  for (uint32_t p = 0; p <= 10; ++p) EXPECT_EQ(plan.bounds[p], 10 * p);
  EXPECT_EQ(plan.max_cost, 10 * vertex);
  EXPECT_EQ(plan.engine_bytes, testing::FixedFor(10) + 10 * vertex);
  EXPECT_NE(plan.rule.find("cost = 2 x (0 B/in-edge + 3 B/out-edge + 1048577 B/vertex)"),
            std::string::npos)
      << plan.rule;
}

// The one cost model: programs whose values fit the defaults share the default set; wider
// ones plan with what they hold.
TEST(IntervalCostsTest, CostsFollowTheProgramsValueWidths) {
  EXPECT_TRUE(IntervalCostsFor(ValueWidths{}).is_default());
  EXPECT_TRUE(IntervalCostsFor({4, 8, 16}).is_default());  // PageRank's widths
  EXPECT_TRUE(IntervalCostsFor({4, 4, 4}).is_default());   // CC, one-source paths
  const IntervalCosts four = IntervalCostsFor({16, 16, 16});  // four sources
  EXPECT_EQ(four.in_edge, 4u + 16);
  EXPECT_EQ(four.out_edge, 16u);
  EXPECT_EQ(four.vertex, 8u + (16 + 16 + 17 + 2 * 16 + 1) / 2);
  const IntervalCosts wide_vertex = IntervalCostsFor({4, 4, 1024});
  EXPECT_EQ(wide_vertex.in_edge, kInEdgeBytes);
  EXPECT_EQ(wide_vertex.vertex, 8u + (4 + 4 + 17 + 2 * 1024 + 1) / 2);
}

// The "give --memory X" figure of a message.
uint64_t GivenMemory(const std::string& what) {
  const size_t at = what.find("give --memory ");
  if (at == std::string::npos) return 0;
  return static_cast<uint64_t>(std::stod(what.substr(at + 14)) * (1 << 20) + 0.5);
}

// A vertex over the budget is streamed: an interval of its own, its edges out of the engine's
// buffers (what sharding holds of it, its in-edges to sort, is charged).
TEST(IntervalCostsTest, VertexOverTheBudgetIsStreamedInAnIntervalOfItsOwn) {
  std::vector<uint32_t> out(100, 1), in(100, 1);
  out[42] = 100000;
  const uint64_t alone = testing::CostOf(100000, 1, testing::Charged({}, false, 1));
  const uint64_t memory = testing::FixedFor(1) + alone - 1;
  const IntervalPlan plan = PlanIntervals(out, in, memory);
  const auto at = std::find(plan.bounds.begin(), plan.bounds.end(), 42u);
  ASSERT_NE(at, plan.bounds.end()) << "no interval starts at the hub";
  EXPECT_EQ(*(at + 1), 43u) << "the hub shares its interval";
  EXPECT_LE(plan.engine_bytes, memory);
  EXPECT_LT(plan.max_cost, alone);
}

// The bound of a cut (what needle run's reuse asks) streams one-vertex intervals as the
// engine does, costliest first, until it fits: a plan with streamed hubs fits its own engine
// bound and every budget above it, and without the hubs streamed it would not.
TEST(IntervalCostsTest, TheBoundOfACutStreamsItsHubsAsTheEngineDoes) {
  std::vector<uint32_t> out(20000, 8), in(20000, 8);
  for (const uint32_t hub : {5000u, 15000u}) out[hub] = in[hub] = 300000;
  for (const uint64_t extra : {uint64_t{6} << 20, uint64_t{7} << 20, uint64_t{8} << 20}) {
    const uint64_t memory = testing::FixedFor(1) + extra;
    const IntervalPlan plan = PlanIntervals(out, in, memory);
    SCOPED_TRACE(plan.rule);
    const uint32_t p = plan.num_intervals();
    std::vector<uint64_t> interval_out(p, 0), interval_in(p, 0);
    uint32_t alone = 0;
    for (uint32_t k = 0; k < p; ++k) {
      for (uint32_t v = plan.bounds[k]; v < plan.bounds[k + 1]; ++v) {
        interval_out[k] += out[v];
        interval_in[k] += in[v];
      }
      alone += plan.bounds[k + 1] - plan.bounds[k] == 1;
    }
    ASSERT_GT(alone, 0u) << "no hub in an interval of its own";
    const uint64_t least = EngineBytesOfCut(plan.bounds, interval_out, interval_in, memory);
    EXPECT_LE(least, plan.engine_bytes);
    for (const uint64_t budget : {plan.engine_bytes, (plan.engine_bytes + memory) / 2, memory}) {
      EXPECT_LE(EngineBytesOfCut(plan.bounds, interval_out, interval_in, budget), budget);
    }
  }
}

// A vertex whose in-edges sharding cannot sort within the budget is refused with the smallest
// --memory that holds it, and that figure works.
TEST(IntervalCostsTest, VertexThatDoesNotFitNamesTheSmallestMemory) {
  std::vector<uint32_t> out(100, 1), in(100, 1);
  in[42] = 100000;
  const uint64_t sorted = testing::CostOf(0, 100000, testing::Charged({}, false, 1));
  const PlanContext context{false, 800};  // a caller that needs 800 bytes anyway
  uint64_t given = 0;
  try {
    PlanIntervals(out, in, testing::FixedFor(1) + sorted - 1, IntervalCosts{}, context);
    FAIL() << "planned";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("vertex 42 (out-degree 1, in-degree 100000)"), std::string::npos) << what;
    EXPECT_NE(what.find("to sort its in-edges"), std::string::npos) << what;
    given = GivenMemory(what);
  }
  EXPECT_GE(given, testing::FixedFor(1) + sorted);
  EXPECT_LE(given, testing::FixedFor(2) + sorted + (2 << 20)) << "not the smallest";
  EXPECT_GT(PlanIntervals(out, in, given, IntervalCosts{}, context).num_intervals(), 0u);
}

TEST(IntervalCostsTest, DefaultCostsAreTheDocumentedConstants) {
  const IntervalCosts c;
  EXPECT_EQ(c.in_edge, 8u);
  EXPECT_EQ(c.out_edge, 4u);
  EXPECT_EQ(c.vertex, 39u);
  EXPECT_TRUE(c.is_default());
  std::vector<uint32_t> out(5000), in(5000);
  for (uint32_t v = 0; v < 5000; ++v) {
    out[v] = v % 97;
    in[v] = (v * 7) % 31;
  }
  const uint64_t memory = kReservedBytes + (1 << 20);
  const IntervalPlan implicit = PlanIntervals(out, in, memory);
  const IntervalPlan explicit_costs = PlanIntervals(out, in, memory, IntervalCosts{8, 4, 39});
  EXPECT_GT(implicit.num_intervals(), 1u);
  EXPECT_EQ(implicit.bounds, explicit_costs.bounds);
  EXPECT_EQ(implicit.rule, explicit_costs.rule);
  EXPECT_NE(implicit.rule.find("cost = 2 x (8 B/in-edge + 7 B/out-edge + 40 B/vertex)"),
            std::string::npos)
      << implicit.rule;
  // Weighted: a weight per in-edge too.
  const IntervalPlan weighted = PlanIntervals(out, in, memory, IntervalCosts{}, {true, 0});
  EXPECT_EQ(weighted.charged.in_edge, 12u);
  EXPECT_GE(weighted.num_intervals(), implicit.num_intervals());
}

// Contiguous cuts of `costs` where each interval takes vertices while it stays within
// `capacity`: how many intervals that makes.
uint64_t GreedyIntervals(const std::vector<uint64_t>& costs, uint64_t capacity) {
  uint64_t parts = 1, interval = 0;
  for (uint64_t c : costs) {
    if (interval > 0 && interval + c > capacity) {
      ++parts;
      interval = 0;
    }
    interval += c;
  }
  return parts;
}

// The plan has the fewest intervals any contiguous cut within its capacity has, no cut into
// that many has a smaller largest interval, the capacity is within --memory less the fixed
// bytes, and the engine's bound within --memory — on skewed random degrees, at several
// budgets, per vertex and on units of 16 ids.
TEST(IntervalPlanTest, FewestIntervalsAndTheSmallestLargestOne) {
  std::mt19937_64 random(3);
  const uint64_t n = 20000;
  std::vector<uint32_t> out(n), in(n);
  for (uint64_t v = 0; v < n; ++v) {  // a few heavy vertices among many light ones
    out[v] = static_cast<uint32_t>(random() % 8 == 0 ? random() % 400 : random() % 6);
    in[v] = static_cast<uint32_t>(random() % 16 == 0 ? random() % 900 : random() % 4);
  }
  for (const int shift : {0, 4}) {
    std::vector<uint64_t> unit_out((n >> shift) + 1), unit_in((n >> shift) + 1);
    for (uint64_t v = 0; v < n; ++v) {
      unit_out[v >> shift] += out[v];
      unit_in[v >> shift] += in[v];
    }
    for (const uint64_t usable : {uint64_t{700} << 10, uint64_t{1536} << 10, uint64_t{3} << 20}) {
      SCOPED_TRACE("unit shift " + std::to_string(shift) + ", usable " + std::to_string(usable));
      const uint64_t memory = testing::FixedFor(64) + usable;  // room for up to 64 intervals
      const std::optional<IntervalPlan> plan =
          PlanIntervalsByUnits(unit_out, unit_in, shift, n, memory, IntervalCosts{});
      ASSERT_TRUE(plan.has_value());
      const uint32_t P = plan->num_intervals();
      const testing::CostFactors c = testing::Charged({}, false, P);
      EXPECT_EQ(plan->charged, (IntervalCosts{c.in_edge, c.out_edge, c.vertex}));
      std::vector<uint64_t> costs;  // per unit
      for (uint64_t v = 0; v < n; ++v) {
        if ((v >> shift) >= costs.size()) costs.push_back(0);
        costs[v >> shift] += testing::CostOf(out[v], in[v], c);
      }
      EXPECT_EQ(P, GreedyIntervals(costs, plan->usable_bytes)) << plan->rule;
      uint64_t largest = 0, max_in = 0, max_out = 0, max_vertices = 0;
      for (uint32_t p = 0; p < P; ++p) {
        ASSERT_EQ(plan->bounds[p] % (uint64_t{1} << shift), 0u) << "cut inside a unit";
        uint64_t cost = 0, i = 0, o = 0;
        for (uint64_t v = plan->bounds[p]; v < plan->bounds[p + 1]; ++v) {
          cost += testing::CostOf(out[v], in[v], c);
          i += in[v];
          o += out[v];
        }
        EXPECT_LE(cost, plan->usable_bytes) << "interval " << p;
        largest = std::max(largest, cost);
        max_in = std::max(max_in, i);
        max_out = std::max(max_out, o);
        max_vertices = std::max<uint64_t>(max_vertices, plan->bounds[p + 1] - plan->bounds[p]);
      }
      EXPECT_EQ(plan->max_cost, largest);
      EXPECT_LE(largest, memory - testing::FixedFor(P));
      EXPECT_GT(GreedyIntervals(costs, largest - 1), P)
          << "a cut with a smaller largest interval exists";
      const uint64_t engine =
          2 * (c.in_edge * max_in + c.out_edge * max_out + c.vertex * max_vertices) +
          testing::FixedFor(P);
      EXPECT_EQ(plan->engine_bytes, engine);
      EXPECT_LE(engine, memory);
    }
  }
}

// Intervals asked for are cut: exactly that many while the ids allow (even past what greedy
// cuts under the smallest capacity give), none over the cost of an even cut, each non-empty.
TEST(IntervalPlanTest, AskedIntervalsAreCutExactly) {
  std::mt19937_64 random(5);
  const uint64_t n = 3000;
  std::vector<uint32_t> out(n), in(n);
  for (uint64_t v = 0; v < n; ++v) {
    out[v] = static_cast<uint32_t>(random() % 50 == 0 ? random() % 2000 : random() % 3);
    in[v] = static_cast<uint32_t>(random() % 50 == 0 ? random() % 2000 : random() % 3);
  }
  for (const uint32_t asked : {1u, 7u, 300u, 2999u, 3000u, 5000u}) {
    SCOPED_TRACE("asked " + std::to_string(asked));
    const IntervalPlan plan = PlanIntervals(out, in, uint64_t{4} << 30, {}, {false, 0, asked});
    EXPECT_EQ(plan.num_intervals(), std::min<uint64_t>(asked, n)) << plan.rule;
    for (uint32_t p = 0; p < plan.num_intervals(); ++p) EXPECT_LT(plan.bounds[p], plan.bounds[p + 1]);
    EXPECT_LE(plan.engine_bytes, uint64_t{4} << 30);
  }
  EXPECT_THROW(PlanIntervals(out, in, testing::FixedFor(1) + (1 << 20), {}, {false, 0, 2000}),
               std::invalid_argument);
}

class IntervalCostsShardTest : public testing::WithTempDir<> {};

TEST_F(IntervalCostsShardTest, LargerCostsGiveMoreIntervalsEachWithinTheBudget) {
  const Input in = Rmat(dir().string(), 12, true);
  // About a dozen intervals at the default costs; room for the largest vertex at double.
  const uint64_t usable = std::max(UsableFor(in.oracle, Budget::kMany),
                                   CostsOf(in.oracle, CostFactors{32, 24, 32}).max_vertex);
  auto shard = [&](const std::string& name, const IntervalCosts& costs) {
    ShardOptions o = Options(in.oracle, usable, File(name), false);
    o.intervals = 0;  // by the budget alone
    o.memory_bytes = testing::FixedFor(8) + CostsOf(in.oracle).total / 2;
    o.costs = costs;
    ShardReport r = ShardGraph(in.path, o);
    EXPECT_EQ(r.manifest.choices.costs, costs);
    return r;
  };
  const ShardReport base = shard("default", IntervalCosts{});
  const ShardReport doubled = shard("doubled", IntervalCosts{32, 24, 32});
  const ShardReport halved = shard("halved", IntervalCosts{4, 2, 8});
  ShardSetSummary s_base, s_doubled, s_halved;
  CheckShardSet(File("default"), in.oracle, true, &s_base);
  CheckShardSet(File("doubled"), in.oracle, true, &s_doubled, CostFactors{32, 24, 32});
  CheckShardSet(File("halved"), in.oracle, true, &s_halved, CostFactors{4, 2, 8});
  if (HasFatalFailure()) return;
  EXPECT_GT(s_doubled.num_intervals, s_base.num_intervals);
  EXPECT_LT(s_halved.num_intervals, s_base.num_intervals);
  EXPECT_NE(doubled.plan.rule.find("cost = 2 x (36 B/in-edge + 27 B/out-edge + 33 B/vertex)"),
            std::string::npos)
      << doubled.plan.rule;
  // Recorded only when not the default.
  EXPECT_EQ(ManifestOf(File("default")).values.count("interval-costs"), 0u);
  EXPECT_EQ(ManifestOf(File("doubled")).values.at("interval-costs"), "32 24 32");
  EXPECT_EQ(ManifestOf(File("halved")).values.at("interval-costs"), "4 2 8");
  EXPECT_EQ(ShardSet::Open(File("doubled")).manifest().choices.costs, (IntervalCosts{32, 24, 32}));
  EXPECT_EQ(halved.manifest.num_intervals(), s_halved.num_intervals);
  EXPECT_EQ(base.manifest.num_intervals(), s_base.num_intervals);
}

// ---------------------------------------------------------------------------------------------
// Reuse and rebuild.

// A weighted R-MAT graph sharded, symmetrized and with program-specific costs, into several
// intervals.
class ChoicesReuseTest : public testing::WithTempDir<> {
 protected:
  static constexpr IntervalCosts kCosts{24, 8, 40};
  void SetUp() override {
    WithTempDir::SetUp();
    input_ = Rmat(dir().string(), 10, true);
    const OracleGraph sym = Symmetrized(input_.oracle);
    const CostFactors f{kCosts.in_edge, kCosts.out_edge, kCosts.vertex};
    usable_ = std::max(CostsOf(sym, f).total / 3, CostsOf(sym, f).max_vertex);
    options_ = Options(sym, usable_, File("set"), true);
    options_.costs = kCosts;
    const ShardReport first = ShardGraph(input_.path, options_);
    ASSERT_FALSE(first.reused);
    ASSERT_GT(first.manifest.num_intervals(), 1u);
    CheckShardSet(File("set"), sym, true, nullptr, f);
  }
  std::string Rebuilt(const ShardOptions& o) {
    const ShardReport r = ShardGraph(input_.path, o);
    EXPECT_FALSE(r.reused);
    return r.rebuild_reason;
  }

  Input input_;
  uint64_t usable_ = 0;
  ShardOptions options_;
};

TEST_F(ChoicesReuseTest, SameChoicesAreReusedUntouched) {
  const auto before = testing::StampsOf(File("set"));
  const ShardReport again = ShardGraph(input_.path, options_);
  EXPECT_TRUE(again.reused);
  EXPECT_TRUE(again.manifest.choices.symmetrize);
  EXPECT_EQ(again.manifest.choices.costs, kCosts);
  EXPECT_EQ(testing::StampsOf(File("set")), before);
}

TEST_F(ChoicesReuseTest, DroppingSymmetrizeRebuildsSayingSo) {
  ShardOptions o = options_;
  o.symmetrize = false;
  EXPECT_EQ(Rebuilt(o), "symmetrize differs: it was built with --symmetrize");
  CheckShardSet(File("set"), input_.oracle, false);
  EXPECT_TRUE(ShardGraph(input_.path, o).reused);
}

TEST_F(ChoicesReuseTest, OtherCostsRebuildSayingWhich) {
  ShardOptions o = options_;
  o.costs = IntervalCosts{};
  EXPECT_EQ(Rebuilt(o),
            "interval costs differ: it was planned with 24 B/in-edge + 8 B/out-edge + 40 B/vertex, "
            "not 8 B/in-edge + 4 B/out-edge + 39 B/vertex");
  EXPECT_EQ(ManifestOf(File("set")).values.count("interval-costs"), 0u);
  o.costs.out_edge = 13;  // one factor is enough
  EXPECT_NE(Rebuilt(o).find("interval costs differ"), std::string::npos);
  EXPECT_EQ(ManifestOf(File("set")).values.at("interval-costs"), "8 13 39");
  EXPECT_TRUE(ShardGraph(input_.path, o).reused);
}

// needle run's rule: a set planned for a smaller budget is reused for a larger one (its
// intervals fit), never for a smaller one, and only when everything else matches; without the
// option a different budget always rebuilds.
TEST_F(ChoicesReuseTest, SmallerBudgetSetIsReusedForALargerOneWhenAsked) {
  const auto before = testing::StampsOf(File("set"));
  ShardOptions larger = options_;
  larger.memory_bytes = options_.memory_bytes * 2;
  larger.reuse_other_budget = true;
  std::vector<std::string> log;
  larger.log = [&](const std::string& line) { log.push_back(line); };
  const ShardReport reused = ShardGraph(input_.path, larger);
  EXPECT_TRUE(reused.reused);
  EXPECT_EQ(reused.manifest.choices.memory_bytes, options_.memory_bytes);
  EXPECT_EQ(testing::StampsOf(File("set")), before);
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log.back().find("planned for --memory"), std::string::npos) << log.back();

  larger.costs = IntervalCosts{};  // another difference as well: rebuilt
  EXPECT_NE(Rebuilt(larger).find("--memory"), std::string::npos);
  larger.costs = kCosts;
  EXPECT_FALSE(ShardGraph(input_.path, larger).reused);  // the costs differ from the set now there

  // Half the budget of the set there now, whose two intervals (asked) fit it as well: reused
  // (LargerBudgetSetIsReusedWhereItsIntervalsFit has intervals that do not fit).
  ShardOptions smaller = options_;
  smaller.reuse_other_budget = true;
  EXPECT_TRUE(ShardGraph(input_.path, smaller).reused);
  ShardOptions plain = options_;  // without the option another budget always rebuilds
  EXPECT_NE(Rebuilt(plain).find("--memory"), std::string::npos);
}

// Budgets that a tenth of a MiB does not tell apart are named in bytes.
TEST(ShardingChoicesTest, BudgetsThatLookAlikeAreNamedInBytes) {
  ShardingChoices built, wanted;
  built.memory_bytes = uint64_t{120} << 20;
  wanted.memory_bytes = built.memory_bytes - 1000;
  EXPECT_EQ(wanted.DifferenceFrom(built),
            "it was planned for --memory 125829120 bytes, not 125828120 bytes");
  wanted.memory_bytes = uint64_t{100} << 20;
  EXPECT_EQ(wanted.DifferenceFrom(built), "it was planned for --memory 120 MiB, not 100 MiB");
}

// A set whose manifest says --weights no but that holds weights (sharded from a .csr before
// the reader honoured --weights there) is rebuilt, whatever budget would let it be reused.
TEST_F(ChoicesReuseTest, ASetHoldingWeightsThatWeightsNoDropsIsRebuilt) {
  const std::string path = File("set") + "/manifest";
  std::string body = testing::ManifestBody(ReadFile(path));
  const size_t at = body.find("\nweights auto\n");
  ASSERT_NE(at, std::string::npos) << body;
  body.replace(at, 14, "\nweights no\n");
  WriteFile(path, testing::WithManifestHash(body));
  ShardOptions o = options_;
  o.read.weights = WeightMode::kUnweighted;
  o.weights_name = "no";
  o.reuse_other_budget = true;
  for (const uint64_t memory : {options_.memory_bytes, options_.memory_bytes * 2}) {
    o.memory_bytes = memory;
    WriteFile(path, testing::WithManifestHash(body));
    EXPECT_NE(Rebuilt(o).find("it holds weights"), std::string::npos);
    EXPECT_FALSE(ShardSet::Open(File("set")).weighted());
    ASSERT_NO_FATAL_FAILURE(ShardGraph(input_.path, options_));  // the weighted set again
  }
}

// A set planned for a larger budget is reused for a smaller one where the engine's bound for
// its intervals fits (a default --memory moves between runs), and rebuilt where it does not.
TEST_F(ChoicesReuseTest, LargerBudgetSetIsReusedWhereItsIntervalsFit) {
  options_.intervals = 0;  // the fewest that fit: a smaller budget cuts more
  Rebuilt(options_);
  ASSERT_GT(ManifestOf(File("set")).intervals.size(), 1u);
  const uint64_t planned = options_.memory_bytes;
  const uint64_t bound = ShardSet::Open(File("set"), false).EngineBytes(planned);
  ASSERT_LE(bound, planned);
  const auto before = testing::StampsOf(File("set"));
  ShardOptions tighter = options_;
  tighter.reuse_other_budget = true;
  tighter.memory_bytes = bound;
  std::vector<std::string> log;
  tighter.log = [&](const std::string& line) { log.push_back(line); };
  const ShardReport reused = ShardGraph(input_.path, tighter);
  EXPECT_TRUE(reused.reused);
  EXPECT_EQ(reused.manifest.choices.memory_bytes, planned);
  EXPECT_EQ(testing::StampsOf(File("set")), before);
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log.back().find("could make more, smaller ones"), std::string::npos) << log.back();

  tighter.memory_bytes = bound - 1;  // the largest interval no longer fits beside the rest
  EXPECT_NE(Rebuilt(tighter).find("planned for --memory"), std::string::npos);
  EXPECT_EQ(ManifestOf(File("set")).values.at("memory"), std::to_string(bound - 1));
  ShardOptions plain = options_;  // without the option another budget always rebuilds
  EXPECT_NE(Rebuilt(plain).find("planned for --memory"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Default manifests are what they were.

// The manifest as needle wrote it before symmetrize and interval costs existed: these keys, in
// this order, built from the values of `m` — with the line naming the needle that wrote it.
std::string ManifestBeforeTheChoices(const testing::ParsedManifest& m) {
  std::string body = "needle-shards " + std::to_string(kShardFormatVersion) + "\n" +
                     "written-by needle " + std::string(Version()) + "\n";
  for (const char* key :
       {"input-size", "input-mtime-ns", "input-ctime-ns", "input-content-hash", "input-path",
        "memory", "format", "weights", "vertices", "edges", "weighted", "intervals"}) {
    body += std::string(key) + " " + m.values.at(key) + "\n";
  }
  for (const auto& iv : m.intervals) {
    body += "interval " + std::to_string(iv[0]) + " " + std::to_string(iv[1]) + " " +
            std::to_string(iv[2]) + "\n";
  }
  for (const testing::ManifestFileEntry& f : m.files) {
    body += "file " + f.name + " " + std::to_string(f.size) + " " + f.digest + "\n";
  }
  return testing::WithManifestHash(body);
}

class DefaultManifestTest : public testing::WithTempDir<> {
 protected:
  void SetUp() override {
    WithTempDir::SetUp();
    input_ = GraphNamed("tiny_txt").make(dir().string());
    options_ = Options(input_.oracle, 1 << 20, File("set"), false);
  }
  Input input_;
  ShardOptions options_;
};

TEST_F(DefaultManifestTest, DefaultChoicesWriteTheManifestOfBefore) {
  options_.costs = IntervalCosts{kInEdgeBytes, kOutEdgeBytes, kVertexBytes};  // spelled out
  ShardGraph(input_.path, options_);
  const std::string text = ReadFile(File("set/manifest"));
  const testing::ParsedManifest m = testing::ParseManifestText(text);
  ASSERT_EQ(m.error, "");
  EXPECT_EQ(text, ManifestBeforeTheChoices(m));
  EXPECT_EQ(text.find("symmetrize"), std::string::npos);
  EXPECT_EQ(text.find("interval-costs"), std::string::npos);
}

TEST_F(DefaultManifestTest, SetWrittenBeforeTheChoicesIsReusedAndRebuiltForThem) {
  ShardGraph(input_.path, options_);
  // Whatever this needle wrote, the set now carries a manifest in the format of before.
  const testing::ParsedManifest m = ManifestOf(File("set"));
  ASSERT_EQ(m.error, "");
  WriteFile(File("set/manifest"), ManifestBeforeTheChoices(m));
  fs::copy(File("set"), File("old"));
  const Manifest parsed = ReadManifest(File("set"));
  EXPECT_FALSE(parsed.choices.symmetrize);
  EXPECT_TRUE(parsed.choices.costs.is_default());

  const auto before = testing::StampsOf(File("set"));
  EXPECT_TRUE(ShardGraph(input_.path, options_).reused);
  EXPECT_EQ(testing::StampsOf(File("set")), before);

  ShardOptions costs = options_;
  costs.costs.in_edge = 32;
  const ShardReport for_costs = ShardGraph(input_.path, costs);
  EXPECT_FALSE(for_costs.reused);
  EXPECT_NE(for_costs.rebuild_reason.find("interval costs differ"), std::string::npos);

  fs::remove_all(File("set"));  // the old set again
  fs::copy(File("old"), File("set"));
  ShardOptions sym = options_;
  sym.symmetrize = true;
  const ShardReport for_sym = ShardGraph(input_.path, sym);
  EXPECT_FALSE(for_sym.reused);
  EXPECT_EQ(for_sym.rebuild_reason, "symmetrize differs: it was built without --symmetrize");
  CheckShardSet(File("set"), Symmetrized(input_.oracle), true);
}

// The library's own parser: the new lines round-trip, absent lines are the defaults, and
// malformed ones are errors naming the line.
// A manifest of one interval over `n` vertices, with the files such a set has.
Manifest OneIntervalManifest(uint64_t n) {
  Manifest m;
  m.input.path = "/g.el";
  m.num_vertices = n;
  m.weighted = true;  // so it has value files
  m.bounds = {0, static_cast<uint32_t>(n)};
  m.files = {{"shard-0000.adj", 8192, 1},
             {"shard-0000.val", 4096, 2},
             {"scatter-0000.idx", 4096, 3},
             {"windows.idx", 4096, 4},
             {"degrees.bin", (8 * n + 4095) / 4096 * 4096, 5}};
  return m;
}

TEST(ManifestChoicesTest, SerializeAndParseTheChoices) {
  Manifest m = OneIntervalManifest(5);
  m.choices.symmetrize = true;
  m.choices.costs = IntervalCosts{8, 4, 12};
  const std::string text = m.Serialize();
  EXPECT_NE(text.find("\nweights auto\nsymmetrize 1\ninterval-costs 8 4 12\nvertices 5\n"),
            std::string::npos)
      << text;
  const Manifest back = Manifest::Parse("m", text);
  EXPECT_TRUE(back.choices.symmetrize);
  EXPECT_EQ(back.choices.costs, (IntervalCosts{8, 4, 12}));
  EXPECT_EQ(back.choices.DifferenceFrom(m.choices), "");

  const std::string body = testing::ManifestBody(text);
  auto with = [&](const std::string& from, const std::string& to) {
    std::string b = body;
    b.replace(b.find(from), from.size(), to);
    return testing::WithManifestHash(b);
  };
  EXPECT_FALSE(Manifest::Parse("m", with("symmetrize 1\n", "symmetrize 0\n")).choices.symmetrize);
  EXPECT_TRUE(
      testing::ThrowsError([&] { Manifest::Parse("m", with("symmetrize 1\n", "symmetrize 2\n")); },
                           "m", testing::AtLine(11), "symmetrize"));
  EXPECT_TRUE(testing::ThrowsError(
      [&] { Manifest::Parse("m", with("interval-costs 8 4 12\n", "interval-costs 8 4\n")); }, "m",
      testing::AtLine(12), "interval-costs"));

  const Manifest plain = OneIntervalManifest(5);
  const Manifest defaults = Manifest::Parse("m", plain.Serialize());
  EXPECT_FALSE(defaults.choices.symmetrize);
  EXPECT_EQ(defaults.choices.costs, IntervalCosts{});
}

}  // namespace
}  // namespace needle
