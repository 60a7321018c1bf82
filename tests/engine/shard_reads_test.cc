// What a run reads of a shard set, by file kind (RunSummary::io, the --stats "bytes_read").
//
// An unweighted set has no value files: a program that uses weights (mssp) gets weight 1 on
// every edge without reading anything, and ends with exactly the values it gets on the same
// graph written with weight 1 on every edge, whose set has value files and reads them. On the
// resident transport (the set read once), every kind's bytes are exactly the files' parts the
// engine needs: 4 bytes an edge of targets (the adjacency files hold nothing else), 4 of
// weights when the program uses them and the set has them, the scatter indexes whole, 8 bytes
// a vertex of degrees (4, the out-degrees, for a program that reads no in-degree) — and
// nothing under any other kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "apps/programs/pagerank.h"
#include "apps/programs/shortest_paths.h"
#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"

namespace needle {
namespace {

uint64_t Read(const RunSummary& s, FileKind kind) { return s.io.read[static_cast<size_t>(kind)]; }

class ShardReadsTest : public WithTempDir<::testing::TestWithParam<Mode>> {
 protected:
  void SetUp() override {
    WithTempDir::SetUp();
    RmatOptions r;
    r.scale = 9;
    r.edge_factor = 8;
    const EdgeList list = GenerateRmat(r);
    WriteEdgeListText(list, File("g.el"));
    std::string ones;  // the same edges, each with weight 1
    list.ForEach([&](const Edge& e, Weight) {
      ones += std::to_string(e.source) + " " + std::to_string(e.target) + " 1\n";
    });
    WriteFile(File("g1.wel"), ones);
  }
  EngineRun Run() const {
    EngineRun run;
    run.Use(GetParam());
    return run;
  }
  // Pull turns in every iteration, at page grain, with the vertex values on disk.
  EngineRun PullRun() const {
    EngineRun run = Run();
    run.pages = true;
    run.pull = TurnChoice::kAlways;
    run.hold_runs = false;
    run.values_in_memory = false;
    return run;
  }
  // Whether a and b hold the same ranks, bit for bit.
  static void ExpectSameRanks(Engine<apps::PageRank>& a, Engine<apps::PageRank>& b) {
    const auto x = a.Values(), y = b.Values();
    ASSERT_EQ(x.size(), y.size());
    for (size_t v = 0; v < x.size(); ++v) EXPECT_EQ(x[v].rank, y[v].rank) << v;
  }
  // Every kind but those named read nothing.
  static void ExpectOnly(const RunSummary& s, std::initializer_list<FileKind> kinds) {
    for (int k = 0; k < static_cast<int>(FileKind::kCount); ++k) {
      const auto kind = static_cast<FileKind>(k);
      if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) continue;
      EXPECT_EQ(Read(s, kind), 0u) << FileKindName(kind);
    }
  }
};

TEST_P(ShardReadsTest, UnweightedSetReadsNoWeightsAndGivesTheSameValues) {
  // Charged like the weighted set (a weight per in-edge), so that both are cut alike.
  const IntervalCosts as_weighted{kInEdgeBytes + kWeightBytes, kOutEdgeBytes, kVertexBytes};
  const ShardSet plain = ShardInto(File("g.el"), File("plain"), 3, false, as_weighted);
  const ShardSet ones = ShardInto(File("g1.wel"), File("ones"), 3);
  ASSERT_FALSE(plain.weighted());
  ASSERT_TRUE(ones.weighted());
  ASSERT_GE(plain.num_intervals(), 2u);
  ASSERT_EQ(plain.manifest().bounds, ones.manifest().bounds);
  EXPECT_EQ(plain.BytesOf(".val"), 0u);
  EXPECT_EQ(ones.BytesOf(".val"), ones.BytesOf(".adj") - 4096 * uint64_t{ones.num_intervals()});

  apps::ShortestPaths<1> paths;
  paths.sources = {0};
  RunSummary plain_run, ones_run;
  const auto plain_distances = RunProgram(plain, paths, Run(), &plain_run);
  const auto ones_distances = RunProgram(ones, paths, Run(), &ones_run);
  EXPECT_EQ(plain_distances, ones_distances);
  EXPECT_EQ(Read(plain_run, FileKind::kWeights), 0u);
  EXPECT_GT(Read(ones_run, FileKind::kWeights), 0u);
  // Everything else is read alike.
  EXPECT_EQ(Read(plain_run, FileKind::kAdjacency), Read(ones_run, FileKind::kAdjacency));
  EXPECT_EQ(Read(plain_run, FileKind::kScatterIndex), Read(ones_run, FileKind::kScatterIndex));
  EXPECT_EQ(Read(plain_run, FileKind::kDegrees), Read(ones_run, FileKind::kDegrees));

  // A program that does not use weights reads none, weighted set or not.
  RunSummary pagerank_run;
  const auto ranks_plain = RunProgram(plain, apps::PageRank{}, Run());
  const auto ranks_ones = RunProgram(ones, apps::PageRank{}, Run(), &pagerank_run);
  ASSERT_EQ(ranks_plain.size(), ranks_ones.size());
  for (size_t v = 0; v < ranks_plain.size(); ++v)
    EXPECT_EQ(ranks_plain[v].rank, ranks_ones[v].rank);
  EXPECT_EQ(Read(pagerank_run, FileKind::kWeights), 0u);
}

TEST_P(ShardReadsTest, EachFileIsCountedUnderItsKind) {
  for (const char* input : {"g.el", "g1.wel"}) {
    SCOPED_TRACE(input);
    const std::string dir = File(std::string(input) + ".shards");
    const ShardSet set = ShardInto(File(input), dir, 3);
    apps::ShortestPaths<1> paths;
    paths.sources = {0};
    RunSummary s;
    RunProgram(set, paths, Run(), &s);
    const uint64_t edges = set.manifest().num_edges, vertices = set.manifest().num_vertices;
    const uint64_t scatter_indexes = set.BytesOf(".idx") - set.BytesOf(kWindowsName);
    if (TransportOf(GetParam()) == TransportChoice::kResident) {
      // Read once, exactly what the engine needs (buffered: exact byte ranges).
      EXPECT_EQ(Read(s, FileKind::kAdjacency), 4 * edges);
      EXPECT_EQ(Read(s, FileKind::kWeights), set.weighted() ? 4 * edges : 0);
      EXPECT_EQ(Read(s, FileKind::kScatterIndex), scatter_indexes);
      EXPECT_EQ(Read(s, FileKind::kDegrees), 4 * vertices);  // out-degrees: mssp reads no in-degree
      ExpectOnly(s, {FileKind::kAdjacency, FileKind::kWeights, FileKind::kScatterIndex,
                     FileKind::kDegrees});
    } else {
      // Every turn reads its interval's targets (and weights), scatter index and degrees, and
      // the messages of the windows that carry them.
      EXPECT_GE(Read(s, FileKind::kAdjacency), 4 * edges);
      EXPECT_EQ(Read(s, FileKind::kAdjacency) % 4, 0u);
      if (set.weighted()) {
        EXPECT_EQ(Read(s, FileKind::kWeights), Read(s, FileKind::kAdjacency));
      } else {
        EXPECT_EQ(Read(s, FileKind::kWeights), 0u);
      }
      EXPECT_GE(Read(s, FileKind::kScatterIndex), scatter_indexes);
      EXPECT_GE(Read(s, FileKind::kDegrees), 4 * vertices);
      EXPECT_GT(Read(s, FileKind::kValues), 0u);
      ExpectOnly(s, {FileKind::kAdjacency, FileKind::kWeights, FileKind::kScatterIndex,
                     FileKind::kDegrees, FileKind::kValues});
    }
  }
}

// The static windows read the degrees and the scatter indexes at every turn, or once where the
// plan has room left to hold them (MemoryPlan::degrees, MemoryPlan::runs); the values are the
// same either way. The resident transport holds them with the rest of the set.
TEST_P(ShardReadsTest, DegreesAndScatterIndexesAreReadOnceWhereThePlanHoldsThem) {
  const ShardSet set = ShardInto(File("g.el"), File("degrees"), 3);
  const uint64_t file = std::filesystem::file_size(set.DegreesPath());
  uint64_t indexes = 0;
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    indexes += std::filesystem::file_size(set.ScatterIndexPath(p));
  }
  EngineRun run = Run();
  run.values_in_memory = false;
  Engine<apps::PageRank> held(set, apps::PageRank{}, OptionsFor(run));
  const MemoryPlan plan = held.memory_plan();
  if (TransportOf(GetParam()) == TransportChoice::kResident) {
    EXPECT_EQ(plan.degrees, 0u);
    EXPECT_EQ(plan.runs, 0u);
    const RunSummary s = held.Run();
    EXPECT_EQ(Read(s, FileKind::kDegrees), 4 * set.manifest().num_vertices);  // out-degrees
    EXPECT_EQ(Read(s, FileKind::kScatterIndex), indexes);
    return;
  }
  ASSERT_GT(plan.degrees, 0u) << plan.Describe();
  ASSERT_EQ(plan.runs, indexes) << plan.Describe();
  EXPECT_NE(plan.Describe().find("degrees in memory"), std::string::npos) << plan.Describe();
  EXPECT_NE(plan.Describe().find("scatter indexes in memory"), std::string::npos)
      << plan.Describe();
  const RunSummary once = held.Run();
  EXPECT_EQ(Read(once, FileKind::kDegrees), file / 2);  // PageRank reads no in-degree
  EXPECT_EQ(Read(once, FileKind::kScatterIndex), indexes);
  EXPECT_GT(once.iterations, 1u);

  run.memory = plan.Total() - plan.Held();  // no room left for them
  Engine<apps::PageRank> read(set, apps::PageRank{}, OptionsFor(run));
  EXPECT_EQ(read.memory_plan().degrees, 0u);
  EXPECT_EQ(read.memory_plan().runs, 0u);
  const RunSummary every_turn = read.Run();
  EXPECT_GT(Read(every_turn, FileKind::kDegrees), file / 2);
  EXPECT_GT(Read(every_turn, FileKind::kScatterIndex), indexes);
  const auto a = held.Values(), b = read.Values();
  ASSERT_EQ(a.size(), b.size());
  for (size_t v = 0; v < a.size(); ++v) EXPECT_EQ(a[v].rank, b[v].rank) << v;
}

// Pull turns come before holding the degrees: a budget that holds the degrees but not pull
// turns too runs pull turns and reads the degrees at every turn, with the same ranks.
TEST_P(ShardReadsTest, PullTurnsComeBeforeHoldingTheDegrees) {
  if (TransportOf(GetParam()) == TransportChoice::kResident) return;  // (pulls nothing)
  const ShardSet set = ShardInto(File("g.el"), File("pull"), 3);
  EngineRun run = PullRun();
  Engine<apps::PageRank> both(set, apps::PageRank{}, OptionsFor(run));
  const MemoryPlan plan = both.memory_plan();
  ASSERT_GT(plan.degrees, 0u) << plan.Describe();
  ASSERT_GT(plan.pull, 0u) << plan.Describe();
  const RunSummary a = both.Run();
  EXPECT_GT(a.intervals_pulled, 0u);
  EXPECT_EQ(Read(a, FileKind::kDegrees), std::filesystem::file_size(set.DegreesPath()) / 2);

  run.memory = plan.Total() - 1;  // the degrees, or pull turns, but not both
  Engine<apps::PageRank> pull(set, apps::PageRank{}, OptionsFor(run));
  EXPECT_EQ(pull.memory_plan().degrees, 0u);
  EXPECT_GT(pull.memory_plan().pull, 0u);
  EXPECT_LE(pull.memory_plan().Total(), run.memory);
  const RunSummary b = pull.Run();
  EXPECT_EQ(b.intervals_pulled, a.intervals_pulled);
  EXPECT_GT(Read(b, FileKind::kDegrees), Read(a, FileKind::kDegrees));  // at every turn
  ExpectSameRanks(both, pull);
}

TEST_P(ShardReadsTest, PullTurnsComeBeforeTheRoutesBuffer) {
  if (TransportOf(GetParam()) == TransportChoice::kResident) return;  // (pulls nothing)
  const ShardSet set = ShardInto(File("g.el"), File("pull"), 3);
  EngineRun run = PullRun();
  run.threads = kRouteFromThreads;  // --gather auto routes dense passes from here on
  run.pull_by_target = false;       // (the plan of turns by target is larger)
  Engine<apps::PageRank> both(set, apps::PageRank{}, OptionsFor(run));
  const MemoryPlan plan = both.memory_plan();
  ASSERT_GT(plan.gather, 0u) << plan.Describe();
  ASSERT_GT(plan.pull, 0u) << plan.Describe();
  const RunSummary a = both.Run();
  EXPECT_GT(a.intervals_pulled, 0u);

  // Pull turns or the route's buffer, but not both (nor the degrees, which come first).
  run.memory = plan.Total() - plan.degrees - 1;
  Engine<apps::PageRank> pull(set, apps::PageRank{}, OptionsFor(run));
  EXPECT_EQ(pull.memory_plan().gather, 0u) << pull.memory_plan().Describe();
  EXPECT_GT(pull.memory_plan().pull, 0u);
  EXPECT_LE(pull.memory_plan().Total(), run.memory);
  const RunSummary b = pull.Run();
  EXPECT_EQ(b.intervals_pulled, a.intervals_pulled);
  ExpectSameRanks(both, pull);  // routed or scanned: the same folds

  run.gather = GatherChoice::kRoute;  // asked for by name: kept, and pull turns go
  Engine<apps::PageRank> route(set, apps::PageRank{}, OptionsFor(run));
  EXPECT_GT(route.memory_plan().gather, 0u);
  EXPECT_EQ(route.memory_plan().pull, 0u);
}

// Pull turns by target (engine/in_adjacency.h) fold each target's messages in the order the
// turns that read the runs do: the same ranks, bit for bit, at any thread count, read from the
// in-adjacency in place of the runs' columns. (PullRun pushes in no iteration: every turn but
// the first iteration's takes its messages by target.)
TEST_P(ShardReadsTest, PullTurnsByTargetGiveTheRanksOfTurnsByRuns) {
  if (TransportOf(GetParam()) == TransportChoice::kResident) return;  // (pulls nothing)
  const ShardSet set = ShardInto(File("g.el"), File("pull"), 4);
  for (const int threads : {1, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    EngineRun run = PullRun();
    run.threads = threads;
    run.pull_by_target = false;
    Engine<apps::PageRank> runs(set, apps::PageRank{}, OptionsFor(run));
    const RunSummary a = runs.Run();
    run.pull_by_target = true;
    Engine<apps::PageRank> by_target(set, apps::PageRank{}, OptionsFor(run));
    EXPECT_LE(by_target.memory_plan().Total(), run.memory);
    const RunSummary b = by_target.Run();
    EXPECT_GT(a.intervals_pulled, 0u);
    EXPECT_EQ(a.intervals_by_target, 0u);
    EXPECT_EQ(a.in_adjacency_bytes, 0u);
    EXPECT_EQ(Read(a, FileKind::kInAdjacency), 0u);
    EXPECT_EQ(b.intervals_pulled, a.intervals_pulled);
    EXPECT_GT(b.intervals_by_target, 0u);
    EXPECT_LT(b.intervals_by_target, b.intervals_pulled);  // none in the first iteration
    EXPECT_GT(b.in_adjacency_bytes, 0u);
    EXPECT_GT(Read(b, FileKind::kInAdjacency), b.in_adjacency_bytes);  // built, then read
    EXPECT_LT(Read(b, FileKind::kScatterIndex), Read(a, FileKind::kScatterIndex));
    EXPECT_EQ(b.iterations, a.iterations);
    ExpectSameRanks(runs, by_target);
  }
}

// The iteration between pulling and pushing (docs/engine.md, "The iteration between") takes
// its pulled messages by target too, where every other window's wait in the array: the same
// ranks, bit for bit, as taking them from the runs. (Pushing is asked for in iterations 2-3,
// 6-7, ...: 2 and 6 drain what the pull turns left.)
TEST_P(ShardReadsTest, TheIterationBetweenPullingAndPushingGoesByTarget) {
  if (TransportOf(GetParam()) == TransportChoice::kResident) return;  // (pulls nothing)
  const ShardSet set = ShardInto(File("g.el"), File("pull"), 4);
  std::vector<apps::PageRank::VertexValue> ranks[2];
  for (const bool by_target : {false, true}) {
    SCOPED_TRACE(by_target ? "by target" : "by runs");
    EngineRun run = PullRun();
    run.push = TurnChoice::kAuto;
    run.push_log_bytes = 256 * 1024;
    run.push_decides = [](uint32_t iteration) { return iteration % 4 >= 2; };
    run.pull_by_target = by_target;
    RunSummary summary;
    std::vector<IterationStats> stats;
    ranks[by_target] = RunProgram(set, apps::PageRank{}, run, &summary, &stats);
    ASSERT_GT(stats.size(), 4u);
    EXPECT_GT(stats[1].intervals_pulled, 0u);
    EXPECT_EQ(stats[2].intervals_pulled, 0u);  // between
    EXPECT_EQ(stats[2].intervals_pushed, 0u);
    EXPECT_GT(stats[3].intervals_pushed, 0u);
    if (by_target) {
      EXPECT_GT(stats[1].intervals_by_target, 0u);
      // Every turn, not only the first, whose load the iteration before issued.
      EXPECT_EQ(stats[2].intervals_by_target, stats[2].intervals_computed);
    } else {
      EXPECT_EQ(summary.intervals_by_target, 0u);
    }
  }
  ASSERT_EQ(ranks[0].size(), ranks[1].size());
  for (size_t v = 0; v < ranks[0].size(); ++v) EXPECT_EQ(ranks[0][v].rank, ranks[1][v].rank) << v;
}

// Every vertex sends its id + 1 in the first iteration and its id + 1 + kAgain at its second
// apply (the first turn after that in which it hears anything), and folds what it hears into
// a hash that depends on the order.
struct FoldOrder {
  struct VertexValue {
    uint64_t hash = 0;
    uint32_t applied = 0;
  };
  using EdgeValue = uint32_t;
  using Accumulator = uint64_t;
  static constexpr Aggregation kAggregation = Aggregation::kSum;
  static constexpr bool kUsesWeights = false;
  static constexpr bool kUsesInDegree = false;
  static constexpr uint32_t kAgain = 1'000'000;
  static uint64_t Fold(uint64_t hash, uint32_t m) { return hash * 1'000'003 + m; }
  uint32_t identity() const { return 0; }
  VertexValue init(const VertexContext&) const { return {}; }
  uint64_t extract(const VertexContext&, const VertexValue& value) const { return value.hash; }
  uint64_t gather(uint64_t acc, uint32_t m, float) const { return Fold(acc, m); }
  VertexValue apply(const VertexContext&, const VertexValue& old, uint64_t acc) const {
    return {acc, old.applied + 1};
  }
  bool changed(const VertexValue&, const VertexValue& now) const { return now.applied == 2; }
  uint32_t scatter(const VertexContext& v, const VertexValue&, const VertexValue& now) const {
    return v.id + 1 + (now.applied == 2 ? kAgain : 0);
  }
};

// Pull turns fold a vertex's messages in the order of the fold whether they take them by
// target or from the runs, as the windows do: in a turn, those of window (p, p) first, then
// the other windows', each by ascending source. Without inner passes an iteration's turns
// come in interval order, and what u sends in iteration i reaches v in v's turn of iteration
// i where u's interval comes before v's, else in that of iteration i + 1: so a vertex's turn
// after the first can fold messages of its own interval, an earlier and a later one (sent
// again), which tells the order of the fold from ascending source.
TEST_P(ShardReadsTest, PullTurnsFoldInTheOrderOfTheSources) {
  const bool pulls = TransportOf(GetParam()) != TransportChoice::kResident;  // (resident: never)
  const ShardSet set = ShardInto(File("g.el"), File("pull"), 4);
  ASSERT_GT(set.num_intervals(), 2u);
  const Csr g = LoadCsr(File("g.el"));
  std::vector<std::vector<uint32_t>> in(g.num_vertices);
  for (uint32_t u = 0; u < g.num_vertices; ++u) {
    for (const uint32_t v : g.Neighbors(u)) in[v].push_back(u);
  }
  auto interval = [&](uint32_t v) {
    uint32_t p = 0;
    while (v >= set.interval_end(p)) ++p;
    return p;
  };
  // The schedule above, turn by turn, until an iteration sends nothing: sent[i][u], what u
  // sent in iteration i (0: nothing).
  std::vector<std::vector<uint32_t>> sent;
  std::vector<FoldOrder::VertexValue> expected(g.num_vertices);
  bool three_kinds = false;  // some turn folds its own interval's, an earlier's and a later's
  for (size_t i = 0; i == 0 || std::any_of(sent[i - 1].begin(), sent[i - 1].end(),
                                           [](uint32_t m) { return m != 0; });
       ++i) {
    ASSERT_LT(i, 64u);
    sent.emplace_back(g.num_vertices, 0);
    for (uint32_t v = 0; v < g.num_vertices; ++v) {
      const uint32_t p = interval(v);
      std::vector<uint32_t> own, other;
      bool earlier = false, later = false;
      std::sort(in[v].begin(), in[v].end());
      for (const uint32_t u : in[v]) {
        const uint32_t q = interval(u);
        const uint32_t m = q < p ? sent[i][u] : i > 0 ? sent[i - 1][u] : 0;
        if (m == 0) continue;
        (q == p ? own : other).push_back(m);
        earlier |= q < p;
        later |= q > p;
      }
      if (i > 0 && own.empty() && other.empty()) continue;  // not applied
      uint64_t hash = expected[v].hash;
      for (const uint32_t m : own) hash = FoldOrder::Fold(hash, m);
      for (const uint32_t m : other) hash = FoldOrder::Fold(hash, m);
      three_kinds |= !own.empty() && earlier && later;
      expected[v] = {hash, expected[v].applied + 1};
      if (i == 0 || expected[v].applied == 2) {
        sent[i][v] = v + 1 + (expected[v].applied == 2 ? FoldOrder::kAgain : 0);
      }
    }
  }
  ASSERT_TRUE(three_kinds);
  // The windows, pull turns by runs, pull turns by target (sources in the fewest bytes, and
  // in 3 and 4).
  for (const int way : {0, 1, 2, 3, 4}) {
    if (way > 0 && !pulls) break;
    SCOPED_TRACE(way);
    EngineRun run = way == 0 ? Run() : PullRun();
    run.max_inner_passes = 0;  // (inner passes fold (p, p)'s messages of a sweep at once)
    run.pull_by_target = way >= 2;
    run.in_source_width = way >= 3 ? way : 0;
    RunSummary s;
    const auto got = RunProgram(set, FoldOrder{}, run, &s);
    EXPECT_EQ(s.intervals_by_target > 0, way >= 2);
    ASSERT_EQ(got.size(), expected.size());
    for (uint32_t v = 0; v < g.num_vertices; ++v) ASSERT_EQ(got[v].hash, expected[v].hash) << v;
  }
}

// Records the degrees its vertices are given; kUsesInDegree as asked. Sends nothing.
template <bool kIn>
struct DegreeProbe {
  struct VertexValue {
    uint32_t out = 0, in = 0;
  };
  using EdgeValue = uint32_t;
  static constexpr Aggregation kAggregation = Aggregation::kMin;
  static constexpr bool kUsesWeights = false;
  static constexpr bool kUsesInDegree = kIn;
  uint32_t identity() const { return UINT32_MAX; }
  VertexValue init(const VertexContext& v) const { return {v.out_degree, v.in_degree}; }
  uint32_t gather(uint32_t a, uint32_t b, float) const { return std::min(a, b); }
  VertexValue apply(const VertexContext& v, const VertexValue&, uint32_t) const {
    return {v.out_degree, v.in_degree};
  }
  bool changed(const VertexValue&, const VertexValue&) const { return false; }
  uint32_t scatter(const VertexContext&, const VertexValue&, const VertexValue&) const {
    return UINT32_MAX;
  }
};

// A program gets every vertex's out- and in-degree (as the degrees file says, read here
// apart), or, saying it reads no in-degree, 0 for it and half the degree bytes — read at every
// turn or held, whatever the transport.
TEST_P(ShardReadsTest, InDegreesAreReadOnlyForProgramsThatUseThem) {
  const ShardSet set = ShardInto(File("g.el"), File("in-degrees"), 3);
  const uint64_t n = set.manifest().num_vertices;
  std::vector<uint32_t> degrees(2 * n);
  {
    std::ifstream in(set.DegreesPath(), std::ios::binary);
    in.read(reinterpret_cast<char*>(degrees.data()), static_cast<std::streamsize>(8 * n));
    ASSERT_TRUE(in) << set.DegreesPath();
  }
  ASSERT_GT(*std::max_element(degrees.begin() + n, degrees.end()), 0u);
  EngineRun run = Run();
  for (const bool held : {true, false}) {
    SCOPED_TRACE(held ? "degrees held" : "degrees read at every turn");
    Engine<DegreeProbe<true>> with(set, DegreeProbe<true>{}, OptionsFor(run));
    if (!held) {
      if (TransportOf(GetParam()) == TransportChoice::kResident) return;
      ASSERT_EQ(with.memory_plan().degrees, 0u);
    }
    const RunSummary a = with.Run();
    Engine<DegreeProbe<false>> without(set, DegreeProbe<false>{}, OptionsFor(run));
    const RunSummary b = without.Run();
    const auto got = with.Values();
    const auto zero = without.Values();
    ASSERT_EQ(got.size(), n);
    ASSERT_EQ(zero.size(), n);
    for (uint64_t v = 0; v < n; ++v) {
      ASSERT_EQ(got[v].out, degrees[v]) << v;
      ASSERT_EQ(got[v].in, degrees[n + v]) << v;
      ASSERT_EQ(zero[v].out, degrees[v]) << v;
      ASSERT_EQ(zero[v].in, 0u) << v;
    }
    EXPECT_GT(Read(b, FileKind::kDegrees), 0u);
    EXPECT_LE(2 * Read(b, FileKind::kDegrees), Read(a, FileKind::kDegrees));
    const MemoryPlan plan = with.memory_plan();
    run.memory = plan.Total() - plan.Held();  // the next round: no room left to hold them
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, ShardReadsTest,
                         ::testing::Values(Mode::kStaticSync, Mode::kResidentSync),
                         [](const ::testing::TestParamInfo<Mode>& p) { return ModeName(p.param); });

}  // namespace
}  // namespace needle
