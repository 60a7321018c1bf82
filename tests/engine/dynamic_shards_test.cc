// Dynamic shards (engine.h, dynamic_shards.h): the delay buffer replayed on the scenario of
// ATC'16 Table 2, a run stopped with scatters still delayed, and what the modes load. The
// exactly-once suite and the apps' oracles run every mode besides (engine_test_util.h).
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/oracles/oracles.h"
#include "apps/programs/pagerank.h"
#include "apps/programs/shortest_paths.h"
#include "engine/dynamic_shards.h"
#include "engine/edge_value_files.h"
#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"

namespace needle {
namespace {

// Every vertex owns a value that follows a schedule (Own) and sends its changes (deltas,
// kSum); `received` sums what it heard. Exactly once: a vertex's `received` is the sum of its
// in-neighbours' last own values.
struct ScheduleProgram {
  struct VertexValue {
    double own = 0;
    double received = 0;
  };
  using EdgeValue = double;
  static constexpr Aggregation kAggregation = Aggregation::kSum;
  static constexpr bool kUsesWeights = false;

  // w = 0 changes in iterations 0..3; u = 1 is I_u = 10 in iterations 0 and 1, a = 17 in 2,
  // b = 30 from 3 on; v = 2 stays 0.
  static double Own(VertexId id, uint32_t t) {
    if (id == 0) return t <= 3 ? t + 1.0 : 4.0;
    if (id == 1) return t <= 1 ? 10.0 : t == 2 ? 17.0 : 30.0;
    return 0.0;
  }
  double identity() const { return 0.0; }
  VertexValue init(const VertexContext&) const { return {}; }
  double extract(const VertexContext&, const VertexValue& v) const { return v.received; }
  double gather(double acc, double m, float) const { return acc + m; }
  VertexValue apply(const VertexContext& c, const VertexValue&, double acc) const {
    return {Own(c.id, c.iteration), acc};
  }
  bool changed(const VertexValue& old, const VertexValue& now) const {
    return old.own != now.own;
  }
  double scatter(const VertexContext&, const VertexValue& old, const VertexValue& now) const {
    return now.own - old.own;
  }
};
static_assert(AccumulationProgram<ScheduleProgram>);

class DynamicShardsTest : public WithTempDir<::testing::Test> {
 protected:
  // An R-MAT graph of 2^scale vertices and edge_factor edges a vertex, as a text edge list in
  // the test's directory (rmat.txt); returns its path.
  std::string RmatFile(int scale, int edge_factor, bool weighted = false) {
    RmatOptions options;
    options.scale = scale;
    options.edge_factor = edge_factor;
    options.weighted = weighted;
    const std::string path = dir().string() + "/rmat.txt";
    WriteEdgeListText(GenerateRmat(options), path);
    return path;
  }
};

TEST_F(DynamicShardsTest, DelayedDeltaOfTable2) {
  // w -> w keeps w computed, w -> u keeps u computed, u -> v is the edge of Table 2. The first
  // shadow iteration (1, forced) builds the dynamic shards from its senders: w only, u did not
  // change. So in iterations 2 and 3 u's edge to v is missing: its deltas a - I_u and b - a wait
  // in the delay buffer, combined (sum) into b - I_u, pushed by the final shadow iteration (5).
  const std::string path = dir().string() + "/table2.txt";
  WriteFile(path, "0 0\n0 1\n1 2\n");
  const ShardSet set = ShardInto(path, dir().string() + "/table2.shards", 1);
  for (ShardMode mode : {ShardMode::kStatic, ShardMode::kAds, ShardMode::kOds}) {
    SCOPED_TRACE(ShardModeName(mode));
    EngineRun run;
    run.transport = TransportChoice::kStatic;
    run.max_inner_passes = 0;
    run.shard_mode = mode;
    run.shadow_below = 2.0;  // the first shadow iteration comes second
    RunSummary summary;
    std::vector<IterationStats> stats;
    const auto values = RunProgram(set, ScheduleProgram{}, run, &summary, &stats);
    ASSERT_TRUE(summary.converged);
    EXPECT_EQ(values[1].received, 4.0);   // w's last value
    EXPECT_EQ(values[2].received, 30.0);  // b: I_u, then b - I_u once
    EXPECT_EQ(values[1].own, 30.0);
    if (mode == ShardMode::kStatic) {
      EXPECT_EQ(summary.shadow_iterations, 0u);
      EXPECT_EQ(summary.delayed, 0u);
      continue;
    }
    EXPECT_EQ(summary.mode, ShardModeName(mode));
    ASSERT_EQ(stats.size(), 7u);
    EXPECT_TRUE(stats[1].shadow);
    EXPECT_EQ(stats[2].delayed, 1u);  // (u, a - I_u)
    EXPECT_EQ(stats[3].delayed, 1u);  // (u, b - a), combined with it
    EXPECT_EQ(stats[3].delayed_vertices, 1u);
    EXPECT_FALSE(stats[4].shadow);
    EXPECT_TRUE(stats[5].shadow);  // nothing else pending: the flush
    EXPECT_EQ(stats[5].delayed_vertices, 0u);
    EXPECT_EQ(summary.delayed, 2u);
    EXPECT_EQ(summary.delayed_max, 1u);
    EXPECT_EQ(summary.shadow_iterations, 2u);
    EXPECT_GT(stats[2].dynamic_edges, 0u);
    EXPECT_LT(stats[2].edges_loaded, 3u);  // not u -> v: only w's edges are read
  }
}

// The degrees and the scatter indexes may be held in the room the dynamic shard builds take
// (MemoryPlan::degrees_shared, runs_shared) until the first build: the Table 2 run then reads
// them at each turn of its last shadow iteration, and ends as it does with room for both.
TEST_F(DynamicShardsTest, DegreesAndIndexesHeldInTheBuildsRoomAreGivenBackAtTheFirstBuild) {
  const std::string path = dir().string() + "/table2.txt";
  WriteFile(path, "0 0\n0 1\n1 2\n");
  const ShardSet set = ShardInto(path, dir().string() + "/table2.shards", 1);
  const uint64_t file = std::filesystem::file_size(set.DegreesPath());
  const uint64_t index = std::filesystem::file_size(set.ScatterIndexPath(0));
  EngineRun run;
  run.transport = TransportChoice::kStatic;
  run.max_inner_passes = 0;
  run.shard_mode = ShardMode::kOds;
  run.shadow_below = 2.0;  // the first shadow iteration (a build) comes second
  run.values_in_memory = false;
  Engine<ScheduleProgram> roomy(set, ScheduleProgram{}, OptionsFor(run));
  const MemoryPlan roomy_plan = roomy.memory_plan();
  ASSERT_GT(roomy_plan.degrees, 0u) << roomy_plan.Describe();
  ASSERT_FALSE(roomy_plan.degrees_shared);
  ASSERT_EQ(roomy_plan.runs, index) << roomy_plan.Describe();
  ASSERT_FALSE(roomy_plan.runs_shared);
  run.memory = roomy_plan.Total() - roomy_plan.Held();
  Engine<ScheduleProgram> shared(set, ScheduleProgram{}, OptionsFor(run));
  const MemoryPlan shared_plan = shared.memory_plan();
  EXPECT_TRUE(shared_plan.degrees_shared) << shared_plan.Describe();
  EXPECT_TRUE(shared_plan.runs_shared) << shared_plan.Describe();
  EXPECT_EQ(shared_plan.degrees, roomy_plan.degrees);
  EXPECT_EQ(shared_plan.runs, roomy_plan.runs);
  EXPECT_EQ(shared_plan.Total(), run.memory);
  EXPECT_NE(shared_plan.Describe().find("in the builds' room"), std::string::npos);
  const RunSummary roomy_run = roomy.Run(), shared_run = shared.Run();
  ASSERT_EQ(shared_run.shadow_iterations, 2u);
  const auto degrees = [](const RunSummary& s) {
    return s.io.read[static_cast<size_t>(FileKind::kDegrees)];
  };
  EXPECT_EQ(degrees(roomy_run), file);
  EXPECT_GT(degrees(shared_run), file);  // the flush's turn, after the build gave them back
  const auto indexes = [](const RunSummary& s) {
    return s.io.read[static_cast<size_t>(FileKind::kScatterIndex)];
  };
  // (The build reads the index's bytes too, itself.) Given back, it is read by the flush's turn.
  EXPECT_EQ(indexes(shared_run), indexes(roomy_run) + index);
  const auto a = roomy.Values(), b = shared.Values();
  ASSERT_EQ(a.size(), b.size());
  for (size_t v = 0; v < a.size(); ++v) {
    EXPECT_EQ(a[v].own, b[v].own);
    EXPECT_EQ(a[v].received, b[v].received);
  }
}

// Where --memory holds the dynamic modes' buffers only with the vertex values on disk, ods
// keeps the values in memory until its first build (MemoryPlan::values_shared), in the room
// the builds take: no vertex value is read or written before it, the build moves them to
// disk, and the values end as those of the run that had them on disk from the start. A run
// that never builds keeps them in memory to the end.
TEST_F(DynamicShardsTest, VertexValuesHeldUntilTheFirstBuildThenOnDisk) {
  const std::string path = RmatFile(13, 4);
  const ShardSet set = ShardInto(path, dir().string() + "/rmat.shards", 16);
  apps::PageRank program;
  program.tolerance = 1e-3f;
  EngineRun run;
  run.transport = TransportChoice::kStatic;
  run.shard_mode = ShardMode::kOds;
  run.shadow_below = 2.0;  // the first shadow iteration, and build, comes second
  run.values_in_memory = false;
  const MemoryPlan disk_plan = Engine<apps::PageRank>(set, program, OptionsFor(run)).memory_plan();
  ASSERT_FALSE(disk_plan.resident) << disk_plan.Describe();
  run.memory = disk_plan.Total() - disk_plan.Held();  // no room for the values beside the rest
  RunSummary disk_summary;
  std::vector<IterationStats> disk_stats;
  const auto on_disk = RunProgram(set, program, run, &disk_summary, &disk_stats);

  run.values_in_memory = true;
  const MemoryPlan plan = Engine<apps::PageRank>(set, program, OptionsFor(run)).memory_plan();
  ASSERT_TRUE(plan.values_shared) << plan.Describe();
  EXPECT_TRUE(plan.resident);
  EXPECT_LE(plan.Total(), run.memory);
  EXPECT_NE(plan.Describe().find("until the first build; then on disk"), std::string::npos);
  RunSummary summary;
  std::vector<IterationStats> stats;
  const auto shared = RunProgram(set, program, run, &summary, &stats);
  ASSERT_TRUE(summary.converged);
  ASSERT_GT(summary.dynamic_builds, 0u);
  ASSERT_GE(stats.size(), 3u);
  EXPECT_FALSE(summary.vertex_values_resident);  // moved to disk by the build
  const auto kVertices = static_cast<size_t>(FileKind::kVertices);
  EXPECT_GT(disk_stats[0].io.read[kVertices], 0u);
  EXPECT_EQ(stats[0].io.read[kVertices] + stats[0].io.written[kVertices], 0u);
  EXPECT_EQ(stats[1].io.read[kVertices], 0u);
  EXPECT_GE(stats[1].io.written[kVertices],
            set.manifest().num_vertices * sizeof(apps::PageRank::VertexValue));
  EXPECT_GT(stats[2].io.read[kVertices], 0u);
  ASSERT_EQ(shared.size(), on_disk.size());
  EXPECT_EQ(summary.iterations, disk_summary.iterations);
  for (size_t v = 0; v < shared.size(); ++v) {
    ASSERT_EQ(shared[v].rank, on_disk[v].rank) << "vertex " << v;
  }

  run.shadow_below = 0;  // no shadow iteration before the flush: no build
  RunSummary unbuilt;
  RunProgram(set, program, run, &unbuilt);
  EXPECT_EQ(unbuilt.dynamic_builds, 0u);
  EXPECT_TRUE(unbuilt.vertex_values_resident);
  EXPECT_EQ(unbuilt.io.read[kVertices] + unbuilt.io.written[kVertices], 0u);
}

// The first shadow iteration comes once the share of edges that carried a message "drops
// below" --shadow-below (§5): below it and below the iteration before's. A search from the
// root of a binary out-tree sends on 2, 4, 8, then 16 of its 33 edges (the last share above
// 0.3), then on the one-edge tail hanging from a leaf: the shares below 0.3 of the first
// three iterations are rising, and the first shadow iteration follows the fall, iteration 4.
TEST_F(DynamicShardsTest, FirstShadowIterationWaitsForTheShareToDrop) {
  std::string edges;
  for (int v = 0; v < 15; ++v) {
    edges += std::to_string(v) + " " + std::to_string(2 * v + 1) + "\n";
    edges += std::to_string(v) + " " + std::to_string(2 * v + 2) + "\n";
  }
  edges += "30 31\n31 32\n32 33\n";
  const std::string path = dir().string() + "/tree.txt";
  WriteFile(path, edges);
  const ShardSet set = ShardInto(path, dir().string() + "/tree.shards", 1);
  apps::ShortestPaths<1> program;
  program.sources = {0};
  std::vector<std::array<float, 1>> reference;
  for (ShardMode mode : {ShardMode::kStatic, ShardMode::kAds, ShardMode::kOds}) {
    SCOPED_TRACE(ShardModeName(mode));
    EngineRun run;
    run.transport = TransportChoice::kStatic;
    run.max_inner_passes = 0;  // one hop an iteration
    run.shard_mode = mode;
    run.shadow_below = 0.3;
    RunSummary summary;
    std::vector<IterationStats> stats;
    const auto distances = RunProgram(set, program, run, &summary, &stats);
    ASSERT_TRUE(summary.converged);
    if (mode == ShardMode::kStatic) {
      reference = distances;
      ASSERT_EQ(distances.size(), 34u);
      EXPECT_EQ(distances[33][0], 7.0f);
      continue;
    }
    EXPECT_EQ(distances, reference);
    ASSERT_GE(stats.size(), 6u);
    const std::vector<uint64_t> sent = {2, 4, 8, 16, 1};
    for (size_t i = 0; i < sent.size(); ++i) {
      EXPECT_EQ(stats[i].edges_changed, sent[i]) << "iteration " << i;
      EXPECT_FALSE(stats[i].shadow) << "iteration " << i;
    }
    EXPECT_TRUE(stats[5].shadow);
    EXPECT_GT(summary.dynamic_builds, 0u);
  }
}

// The source runs of window (q, r) of `set`, decoded from its scatter index.
std::vector<SourceRun> WindowRuns(const ShardSet& set, uint32_t q, uint32_t r) {
  const std::string index = testing::ReadFile(set.ScatterIndexPath(r));
  const auto* bytes = reinterpret_cast<const uint8_t*>(index.data());
  const WindowEntry &first = set.Window(q, r), &last = set.Window(q, r + 1);
  std::vector<SourceRun> runs;
  const RunDecodeStatus status = DecodeRuns(
      bytes + set.ScatterOffset(q, r), bytes + set.ScatterOffset(q + 1, r),
      last.first_run - first.first_run, set.interval_begin(r), set.interval_end(r),
      last.first_edge - first.first_edge, [&](uint32_t source, uint64_t count) {
        runs.push_back(SourceRun{source, static_cast<uint32_t>(count)});
      });
  EXPECT_TRUE(status.ok()) << status.error;
  return runs;
}

// Column c (0: targets, 1: weights) of shard q of `set`, 4 bytes an edge.
std::vector<uint32_t> ShardColumn(const ShardSet& set, uint32_t q, int c) {
  const std::string bytes =
      testing::ReadFile(c == 0 ? set.AdjacencyPath(q) : set.ValuesPath(q));
  const uint64_t at = c == 0 ? set.header(q).targets_pos : 0;
  std::vector<uint32_t> column(set.Window(q, set.num_intervals()).first_edge);
  EXPECT_GE(bytes.size(), at + 4 * column.size());
  std::memcpy(column.data(), bytes.data() + at, 4 * column.size());
  return column;
}

// A dynamic set holds the kept sources' out-edges, every one (the input's out-degrees say how
// many), as whole runs of the static windows with their targets and weights: the same set at
// any thread count; an interval without a kept source is not read. A damaged scatter index
// stops the build naming the file and the byte of the first damaged window, whatever the
// threads, and no manifest is written (what makes a directory a set).
TEST_F(DynamicShardsTest, WriteDynamicSetKeepsWholeSourcesAndStopsAtADamagedIndex) {
  const std::string path = RmatFile(10, 4, /*weighted=*/true);
  const std::string shards = dir().string() + "/rmat.shards";
  const ShardSet set = ShardInto(path, shards, 4);
  ASSERT_TRUE(set.weighted());
  const Csr csr = LoadCsr(path);
  ASSERT_EQ(csr.num_vertices, set.manifest().num_vertices);
  // Every third source, none of interval 2's.
  std::vector<uint8_t> flags(csr.num_vertices);
  for (VertexId u = 0; u < csr.num_vertices; ++u) {
    const bool in_2 = u >= set.interval_begin(2) && u < set.interval_end(2);
    flags[u] = u % 3 == 0 && !in_2 ? 1 : 0;
  }
  const KeptSources keep{flags};
  uint64_t kept = 0;
  for (VertexId u = 0; u < csr.num_vertices; ++u) {
    if (keep(u)) kept += csr.offsets[u + 1] - csr.offsets[u];
  }
  ASSERT_GT(kept, 0u);
  ASSERT_LT(kept, set.manifest().num_edges);
  const std::unique_ptr<IoBackend> io = IoBackend::Create(IoOptions{});
  const uint32_t n = set.num_intervals();
  std::vector<std::vector<uint32_t>> columns[2];
  for (uint32_t q = 0; q < n; ++q) {
    for (int c = 0; c < 2; ++c) columns[c].push_back(ShardColumn(set, q, c));
  }

  std::string first_set;  // the files of the set written at 1 thread
  for (int threads : {1, 2, 3, 8}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const std::string dynamic = dir().string() + "/dynamic-" + std::to_string(threads);
    std::filesystem::create_directory(dynamic);
    EXPECT_EQ(WriteDynamicSet(*io, set, false, keep, dynamic, threads).edges, kept);
    const ShardSet written = ShardSet::Open(dynamic);  // every file's digest checked
    EXPECT_EQ(written.manifest().num_edges, kept);
    ASSERT_EQ(written.num_intervals(), n);
    std::string files;
    for (uint32_t q = 0; q < n; ++q) {
      const std::vector<uint32_t> mine[2] = {ShardColumn(written, q, 0),
                                             ShardColumn(written, q, 1)};
      for (int c = 0; c < 2; ++c) {
        files.append(reinterpret_cast<const char*>(mine[c].data()), 4 * mine[c].size());
      }
      files += testing::ReadFile(written.ScatterIndexPath(q));
      for (uint32_t r = 0; r < n; ++r) {
        std::vector<std::pair<SourceRun, uint64_t>> expected;  // with the run's first edge
        uint64_t at = set.Window(q, r).first_edge;
        for (const SourceRun& run : WindowRuns(set, q, r)) {
          if (keep(run.source)) expected.emplace_back(run, at);
          at += run.count;
        }
        const std::vector<SourceRun> runs = WindowRuns(written, q, r);
        ASSERT_EQ(runs.size(), expected.size()) << "window (" << q << ", " << r << ")";
        if (r == 2) {
          EXPECT_TRUE(runs.empty());
        }
        uint64_t edge = written.Window(q, r).first_edge;
        for (size_t k = 0; k < runs.size(); ++k) {
          const auto& [run, from] = expected[k];
          EXPECT_EQ(runs[k].source, run.source);
          ASSERT_EQ(runs[k].count, run.count);
          for (uint32_t i = 0; i < run.count; ++i) {
            for (int c = 0; c < 2; ++c) {
              ASSERT_EQ(mine[c][edge + i], columns[c][q][from + i])
                  << (c == 0 ? "target" : "weight") << " of window (" << q << ", " << r
                  << "), run " << k << ", edge " << i;
            }
          }
          edge += run.count;
        }
      }
    }
    if (first_set.empty()) first_set = files;
    EXPECT_TRUE(files == first_set) << "the set differs from the one written at 1 thread";
  }

  // Two damaged windows of interval 1's index (varints longer than 5 bytes): the first and the
  // last non-empty one.
  std::vector<uint32_t> damaged_windows;
  for (uint32_t q = 0; q < n; ++q) {
    if (set.ScatterOffset(q + 1, 1) > set.ScatterOffset(q, 1)) damaged_windows.push_back(q);
  }
  ASSERT_GE(damaged_windows.size(), 2u);
  const uint64_t at = set.ScatterOffset(damaged_windows.front(), 1);
  std::string index = testing::ReadFile(set.ScatterIndexPath(1));
  for (uint32_t q : {damaged_windows.front(), damaged_windows.back()}) {
    ASSERT_LE(set.ScatterOffset(q, 1) + 5, index.size());
    index.replace(set.ScatterOffset(q, 1), 5, std::string(5, '\xff'));
  }
  testing::WriteFile(set.ScatterIndexPath(1), index);
  for (int threads : {1, 2, 8}) {
    const std::string damaged = dir().string() + "/damaged-" + std::to_string(threads);
    std::filesystem::create_directory(damaged);
    try {
      WriteDynamicSet(*io, set, false, keep, damaged, threads);
      ADD_FAILURE() << "a damaged scatter index was read as runs (" << threads << " threads)";
    } catch (const Error& e) {
      EXPECT_EQ(e.path(), set.ScatterIndexPath(1));
      EXPECT_EQ(e.byte_offset(), at) << threads << " threads";
      EXPECT_NE(std::string(e.what()).find("the scatter index is damaged"), std::string::npos)
          << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(damaged + "/manifest"));
  }
}

// Shards kept whole: the rule is asked with each shard's kept edges and all of them; a whole
// shard is the static one (its files linked: the same inodes, nothing written), its windows
// every run of the static windows, and the others keep the kept sources' runs alone. The
// scatter index of an interval without a kept source still lists its runs in the whole shards.
TEST_F(DynamicShardsTest, ShardsKeptWholeAreTheStaticShardsLinked) {
  const std::string path = RmatFile(10, 4, /*weighted=*/true);
  const ShardSet set = ShardInto(path, dir().string() + "/rmat.shards", 4);
  const Csr csr = LoadCsr(path);
  const uint32_t n = set.num_intervals();
  ASSERT_GE(n, 3u);
  std::vector<uint8_t> flags(csr.num_vertices);
  for (VertexId u = 0; u < csr.num_vertices; ++u) {
    const bool in_2 = u >= set.interval_begin(2) && u < set.interval_end(2);
    flags[u] = u % 3 == 0 && !in_2 ? 1 : 0;
  }
  const KeptSources keep{flags};
  // The kept sources' edges in each shard, from the input.
  std::vector<uint64_t> kept_in(n, 0);
  for (VertexId u = 0; u < csr.num_vertices; ++u) {
    if (!keep(u)) continue;
    for (uint64_t e = csr.offsets[u]; e < csr.offsets[u + 1]; ++e) {
      for (uint32_t q = 0; q < n; ++q) {
        if (csr.targets[e] >= set.interval_begin(q) && csr.targets[e] < set.interval_end(q)) {
          ++kept_in[q];
        }
      }
    }
  }
  const std::unique_ptr<IoBackend> io = IoBackend::Create(IoOptions{});
  for (int threads : {1, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const std::string dynamic = dir().string() + "/whole-" + std::to_string(threads);
    std::filesystem::create_directory(dynamic);
    std::vector<uint64_t> asked(n, UINT64_MAX);
    const WholeShardRule rule = [&](uint32_t q, uint64_t kept, uint64_t edges) {
      asked[q] = kept;
      EXPECT_EQ(edges, set.Window(q, n).first_edge);
      return q % 2 == 1;
    };
    const DynamicSetWritten written =
        WriteDynamicSet(*io, set, false, keep, dynamic, threads, rule);
    EXPECT_EQ(asked, kept_in);
    const ShardSet out = ShardSet::Open(dynamic);  // every file's digest checked
    uint64_t edges = 0;
    for (uint32_t q = 0; q < n; ++q) {
      const bool whole = q % 2 == 1;
      edges += whole ? set.Window(q, n).first_edge : kept_in[q];
      EXPECT_EQ(written.whole[q], whole ? 2 : 0) << "shard " << q;
      struct stat a {}, b {};
      ASSERT_EQ(stat(set.AdjacencyPath(q).c_str(), &a), 0);
      ASSERT_EQ(stat(out.AdjacencyPath(q).c_str(), &b), 0);
      EXPECT_EQ(a.st_ino == b.st_ino, whole) << "shard " << q;
      for (uint32_t r = 0; r < n; ++r) {
        std::vector<SourceRun> expected;
        for (const SourceRun& run : WindowRuns(set, q, r)) {
          if (whole || keep(run.source)) expected.push_back(run);
        }
        const std::vector<SourceRun> runs = WindowRuns(out, q, r);
        ASSERT_EQ(runs.size(), expected.size()) << "window (" << q << ", " << r << ")";
        for (size_t k = 0; k < runs.size(); ++k) {
          EXPECT_EQ(runs[k].source, expected[k].source);
          EXPECT_EQ(runs[k].count, expected[k].count);
        }
      }
      if (whole) {
        for (int c = 0; c < 2; ++c) EXPECT_EQ(ShardColumn(out, q, c), ShardColumn(set, q, c));
      }
    }
    EXPECT_EQ(written.edges, edges);
    EXPECT_EQ(out.manifest().num_edges, edges);
    EXPECT_EQ(written.WholeCount(), n / 2);
  }
  // Where a link cannot be made (here a file already has the name; another file system in
  // practice), the whole shard is written instead: the same bytes, a file of its own.
  const std::string dynamic = dir().string() + "/whole-written";
  std::filesystem::create_directory(dynamic);
  testing::WriteFile(dynamic + "/" + ShardFileName(1, ".adj"), "in the way");
  const DynamicSetWritten written = WriteDynamicSet(
      *io, set, false, keep, dynamic, 2, [](uint32_t q, uint64_t, uint64_t) { return q == 1; });
  EXPECT_EQ(written.whole[1], 1);
  const ShardSet out = ShardSet::Open(dynamic);  // every file's digest checked
  struct stat a {}, b {};
  ASSERT_EQ(stat(set.AdjacencyPath(1).c_str(), &a), 0);
  ASSERT_EQ(stat(out.AdjacencyPath(1).c_str(), &b), 0);
  EXPECT_NE(a.st_ino, b.st_ino);
  EXPECT_EQ(stat(out.ValuesPath(1).c_str(), &b), 0);
  for (int c = 0; c < 2; ++c) EXPECT_EQ(ShardColumn(out, 1, c), ShardColumn(set, 1, c));
  for (uint32_t r = 0; r < n; ++r) {
    EXPECT_EQ(WindowRuns(out, 1, r).size(), WindowRuns(set, 1, r).size()) << "window " << r;
  }
}

// Files of nothing are linked, not created (creating a file costs far more than a link):
// the scatter indexes of intervals without a kept source are one file, as are the edge value
// files of shards without an edge. A shard kept whole gives such an index runs again: it is
// then written as a file of its own, and the links to the first one stay its bytes. Edge
// value files made again in the same directory for another set are files of their own.
TEST_F(DynamicShardsTest, FilesOfNothingAreOneFileLinked) {
  const std::string path = RmatFile(10, 4);
  const ShardSet set = ShardInto(path, dir().string() + "/rmat.shards", 6);
  const uint32_t n = set.num_intervals();
  ASSERT_GE(n, 4u);
  // One source of interval 0 with one or two out-edges: the shards of its targets alone
  // hold an edge.
  const Csr csr = LoadCsr(path);
  std::vector<uint8_t> flags(set.manifest().num_vertices, 0);
  for (VertexId u = set.interval_begin(0); u < set.interval_end(0); ++u) {
    const uint64_t degree = csr.offsets[u + 1] - csr.offsets[u];
    if (degree == 1 || degree == 2) {
      flags[u] = 1;
      break;
    }
  }
  ASSERT_EQ(std::count(flags.begin(), flags.end(), 1), 1);
  const KeptSources keep{flags};
  auto inode = [](const std::string& file) {
    struct stat st {};
    EXPECT_EQ(stat(file.c_str(), &st), 0) << file;
    return st.st_ino;
  };
  const std::unique_ptr<IoBackend> io = IoBackend::Create(IoOptions{});
  for (bool whole : {false, true}) {
    SCOPED_TRACE(whole ? "shard 1 kept whole" : "no shard kept whole");
    const std::string dynamic = dir().string() + (whole ? "/whole" : "/kept");
    std::filesystem::create_directory(dynamic);
    const WholeShardRule rule = [&](uint32_t q, uint64_t, uint64_t) { return whole && q == 1; };
    WriteDynamicSet(*io, set, false, keep, dynamic, 2, rule);
    const ShardSet out = ShardSet::Open(dynamic);  // every file's digest checked
    std::vector<uint32_t> empty;  // intervals whose index holds no run
    for (uint32_t r = 0; r < n; ++r) {
      bool none = true;
      for (uint32_t q = 0; q < n; ++q) {
        std::vector<SourceRun> expected;
        for (const SourceRun& run : WindowRuns(set, q, r)) {
          if ((whole && q == 1) || keep(run.source)) expected.push_back(run);
        }
        const std::vector<SourceRun> runs = WindowRuns(out, q, r);
        ASSERT_EQ(runs.size(), expected.size()) << "window (" << q << ", " << r << ")";
        for (size_t k = 0; k < runs.size(); ++k) {
          EXPECT_EQ(runs[k].source, expected[k].source);
          EXPECT_EQ(runs[k].count, expected[k].count);
        }
        none = none && runs.empty();
      }
      if (none) empty.push_back(r);
    }
    if (whole) {
      // Shard 1 holds runs from every interval here: no index is empty, and none shares a file.
      ASSERT_TRUE(empty.empty());
      for (uint32_t r = 1; r < n; ++r) {
        EXPECT_NE(inode(out.ScatterIndexPath(r)), inode(out.ScatterIndexPath(r - 1)));
      }
    } else {
      ASSERT_EQ(empty.size(), n - 1);  // every interval but 0
      for (uint32_t r : empty) {
        EXPECT_EQ(inode(out.ScatterIndexPath(r)), inode(out.ScatterIndexPath(empty[0])));
      }
      EXPECT_NE(inode(out.ScatterIndexPath(0)), inode(out.ScatterIndexPath(empty[0])));
    }

    // The edge value files: those of shards without an edge share one file of no bytes.
    const std::string work = dynamic + "/work";
    std::filesystem::create_directory(work);
    auto edges_path = [&](uint32_t q) { return work + "/" + NumberedFileName("edges", q, ".val"); };
    {
      const EdgeValueFiles values(*io, out, work, 4);
      std::vector<uint32_t> none;
      for (uint32_t q = 0; q < n; ++q) {
        EXPECT_EQ(std::filesystem::file_size(edges_path(q)), AlignUp(values.FileBytes(q)));
        if (out.Window(q, n).first_edge == 0) none.push_back(q);
      }
      ASSERT_FALSE(none.empty());
      ASSERT_LT(none.size(), n);
      for (uint32_t q = 0; q < n; ++q) {
        const bool linked = std::find(none.begin(), none.end(), q) != none.end();
        EXPECT_EQ(inode(edges_path(q)) == inode(edges_path(none[0])), linked) << "shard " << q;
      }
    }
    const EdgeValueFiles again(*io, set, work, 4);  // every shard has edges
    for (uint32_t q = 0; q < n; ++q) {
      ASSERT_GT(again.FileBytes(q), 0u);
      EXPECT_EQ(std::filesystem::file_size(edges_path(q)), AlignUp(again.FileBytes(q)))
          << "shard " << q;
      if (q > 0) {
        EXPECT_NE(inode(edges_path(q)), inode(edges_path(q - 1)));
      }
    }
  }
}

TEST_F(DynamicShardsTest, StoppedWithScattersDelayedIsNotConverged) {
  const std::string path = dir().string() + "/table2.txt";
  WriteFile(path, "0 0\n0 1\n1 2\n");
  const ShardSet set = ShardInto(path, dir().string() + "/table2.shards", 1);
  EngineRun run;
  run.transport = TransportChoice::kStatic;
  run.max_inner_passes = 0;
  run.shard_mode = ShardMode::kOds;
  run.shadow_below = 2.0;
  run.max_iterations = 5;  // iteration 4 ends with nothing pending but u's delayed deltas
  RunSummary summary;
  std::vector<IterationStats> stats;
  RunProgram(set, ScheduleProgram{}, run, &summary, &stats);
  EXPECT_EQ(summary.iterations, 5u);
  EXPECT_EQ(stats.back().delayed_vertices, 1u);
  EXPECT_FALSE(summary.converged) << "a delayed scatter is a message not yet delivered";
}

TEST_F(DynamicShardsTest, ModesLoadFewerEdgesForTheSameRanks) {
  const std::string path = RmatFile(12, 8);
  const ShardSet set = ShardInto(path, dir().string() + "/rmat.shards", 6);
  apps::PageRank program;
  program.tolerance = 1e-3f;
  std::vector<double> reference;
  uint64_t static_edges = 0;
  for (ShardMode mode : {ShardMode::kStatic, ShardMode::kAds, ShardMode::kOds}) {
    SCOPED_TRACE(ShardModeName(mode));
    EngineRun run;
    run.transport = TransportChoice::kStatic;
    run.shard_mode = mode;  // the default thresholds
    RunSummary summary;
    std::vector<double> ranks;
    for (const auto& v : RunProgram(set, program, run, &summary)) ranks.push_back(v.rank);
    ASSERT_TRUE(summary.converged);
    // Utilisation: the loaded edges that carried a message, never more than were loaded.
    EXPECT_GT(summary.edges_used, 0u);
    EXPECT_LE(summary.edges_used, summary.edges_loaded);
    if (mode == ShardMode::kStatic) {
      EXPECT_EQ(summary.dynamic_disk_peak, 0u);
      reference = ranks;
      static_edges = summary.edges_loaded;
      continue;
    }
    EXPECT_GT(summary.shadow_iterations, 0u);
    EXPECT_GT(summary.dynamic_builds, 0u);
    EXPECT_GT(summary.io.read[static_cast<size_t>(FileKind::kDynamic)], 0u);
    EXPECT_LT(summary.edges_loaded, static_edges);
    EXPECT_GT(summary.dynamic_disk_peak, 0u);
    EXPECT_EQ(summary.delay_buffer_max_bytes, summary.delayed_max * (4 + sizeof(float)));
    // Delayed deltas arrive later, so the ranks differ by up to the tolerance's order.
    EXPECT_EQ(oracle::CompareValues(reference, ranks, 1e-2, 1e-3), "");
  }
  // The dynamic shards lived in the run's work directory, removed with it.
  for (const auto& entry : std::filesystem::directory_iterator(set.dir())) {
    EXPECT_EQ(entry.path().filename().string().rfind(".needle-run-", 0), std::string::npos)
        << entry.path();
  }
}

}  // namespace
}  // namespace needle
