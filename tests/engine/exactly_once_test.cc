// The engine's message invariant, checked by a program that knows no algorithm (GraphChi's smoke
// test idea): every message carries a token made of its source id and the iteration it was sent
// in, and every vertex sums the tokens it receives. Whatever the transport (static windows or
// resident), with or without inner passes, interval count, I/O backend, thread count, and
// whichever vertices happen to send, each vertex must end up with exactly the tokens of its
// in-edges (with multiplicity) for the iterations their sources sent in — no message lost, none
// consumed twice. Every check runs all five modes on one shard set (engine_test_util.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"

namespace needle {
namespace {

uint64_t Mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t Token(VertexId source, uint32_t iteration) {
  return Mix((uint64_t{source} << 8) | iteration) | 1;  // never 0, the identity
}

// Sends in iteration 0, then in iteration t < kLast whenever it is computed and
// Mix(id, t) % period == 0 — so intervals go quiet and wake up again.
struct TokenProgram {
  struct VertexValue {
    uint64_t sent_mask = 0;  // bit t: sent in iteration t
    uint64_t received = 0;   // sum of tokens received
    uint64_t messages = 0;   // number of messages received
  };
  struct EdgeValue {
    uint64_t tokens = 0;
    uint64_t count = 0;
    bool operator==(const EdgeValue&) const = default;
  };
  static constexpr Aggregation kAggregation = Aggregation::kUser;
  static constexpr bool kUsesWeights = false;
  static constexpr uint32_t kLast = 12;  // no vertex sends from this iteration on

  uint64_t period = 2;

  EdgeValue identity() const { return {}; }
  EdgeValue aggregate(const EdgeValue& a, const EdgeValue& b) const {
    return {a.tokens + b.tokens, a.count + b.count};
  }
  VertexValue init(const VertexContext&) const { return {}; }
  EdgeValue extract(const VertexContext&, const VertexValue& v) const {
    return {v.received, v.messages};
  }
  EdgeValue gather(const EdgeValue& acc, const EdgeValue& m, float) const {
    return aggregate(acc, m);
  }
  VertexValue apply(const VertexContext& v, const VertexValue& old, const EdgeValue& acc) const {
    VertexValue now = old;
    now.received = acc.tokens;
    now.messages = acc.count;
    const bool send = v.iteration == 0 || (v.iteration < kLast &&
                                           Mix(uint64_t{v.id} * 131 + v.iteration) % period == 0);
    if (send) now.sent_mask |= uint64_t{1} << v.iteration;
    return now;
  }
  bool changed(const VertexValue& old, const VertexValue& now) const {
    return now.sent_mask != old.sent_mask;
  }
  EdgeValue scatter(const VertexContext& v, const VertexValue&, const VertexValue&) const {
    return {Token(v.id, v.iteration), 1};
  }
};
static_assert(AccumulationProgram<TokenProgram>);

using Param = std::tuple<uint32_t /*parts*/, IoKind, uint64_t /*period*/>;

class ExactlyOnceTest : public WithTempDir<::testing::TestWithParam<Param>> {
 protected:
  // Check() on an R-MAT graph of that scale and edge factor.
  void CheckRmat(int scale, int edge_factor, const std::string& name) {
    RmatOptions options;
    options.scale = scale;
    options.edge_factor = edge_factor;
    const std::string path = dir().string() + "/" + name + ".txt";
    WriteEdgeListText(GenerateRmat(options), path);
    Check(path, name);
  }
  // memory: shard under this budget instead of into the parameter's interval count.
  void Check(const std::string& input, const std::string& name, uint64_t memory = 0) {
    SCOPED_TRACE(name);
    const auto [parts, io, period] = GetParam();
    const std::string shards = dir().string() + "/" + name + ".shards";
    const ShardSet set = memory > 0 ? ShardInto(input, shards, 0, false, {}, memory)
                                    : ShardInto(input, shards, parts);
    if (parts > 1 || memory > 0) {
      EXPECT_GT(set.num_intervals(), 1u);
    }
    // Every transport, each with one pass per turn and with inner passes, on the same set.
    for (Mode mode : kAllModes) Check(set, input, mode);
  }
  void Check(const ShardSet& set, const std::string& input, Mode mode) {
    SCOPED_TRACE(ModeName(mode));
    const auto [parts, io, period] = GetParam();
    EngineRun run;
    run.Use(mode);
    run.io = io == IoKind::kUring ? UringOrSkipNote() : IoKind::kPread;
    run.direct = direct_;
    run.direct_alignment = direct_alignment_;
    run.values_in_memory = !values_on_disk_;
    if (run_memory_ > 0) run.memory = run_memory_;
    RunSummary summary;
    std::vector<IterationStats> stats;
    TokenProgram program;
    program.period = period;
    const auto values = RunProgram(set, program, run, &summary, &stats);
    EXPECT_TRUE(summary.converged);
    EXPECT_EQ(summary.vertex_values_resident, !values_on_disk_);
    EXPECT_EQ(summary.transport, TransportName(TransportOf(mode)));
    EXPECT_EQ(summary.mode, ShardModeName(run.shard_mode));
    // Dynamic shards: the delayed messages of the last senders arrive at the final shadow
    // iteration, which may come two iterations later.
    EXPECT_LE(summary.iterations, TokenProgram::kLast + (IsDynamic(mode) ? 3 : 1));
    if (IsDynamic(mode)) {
      shadow_total_ += summary.shadow_iterations;
      delayed_total_ += summary.delayed;
      if (mode == Mode::kAuto) auto_builds_ += summary.dynamic_builds;
    }

    const Csr g = LoadCsr(input);
    ASSERT_EQ(values.size(), g.num_vertices);
    std::vector<uint64_t> expected_tokens(g.num_vertices, 0), expected_count(g.num_vertices, 0);
    for (VertexId u = 0; u < g.num_vertices; ++u) {
      for (VertexId v : g.Neighbors(u)) {
        for (uint32_t t = 0; t < 64; ++t) {
          if ((values[u].sent_mask >> t) & 1) {
            expected_tokens[v] += Token(u, t);
            ++expected_count[v];
          }
        }
      }
    }
    uint64_t bad = 0;
    for (VertexId v = 0; v < g.num_vertices; ++v) {
      if (values[v].received != expected_tokens[v] || values[v].messages != expected_count[v]) {
        if (++bad <= 5) {
          ADD_FAILURE() << "vertex " << v << ": received " << values[v].messages
                        << " messages, expected " << expected_count[v];
        }
      }
    }
    EXPECT_EQ(bad, 0u);
    for (VertexId u = 0; u < g.num_vertices; ++u) {
      ASSERT_TRUE(values[u].sent_mask & 1);
    }
    if (IsAsync(mode)) {
      inner_total_ += summary.inner_passes;
    } else {
      EXPECT_EQ(summary.inner_passes, 0u);
    }
    uint32_t cleared = 0;
    for (const auto& s : stats) cleared += s.intervals_cleared;
    cleared_total_ += cleared;
    if (mode == Mode::kStaticStreamed) streamed_total_ += summary.intervals_streamed;
  }
  uint32_t streamed_total_ = 0;
  uint64_t shadow_total_ = 0;   // shadow iterations of the dynamic modes, over all checks
  uint64_t delayed_total_ = 0;  // scatters they delayed
  uint64_t auto_builds_ = 0;    // dynamic shard sets mode auto built
  uint64_t run_memory_ = 0;  // the runs' budget (0: EngineRun's)
  uint32_t cleared_total_ = 0;
  uint64_t inner_total_ = 0;  // inner passes over all checks (asynchronous modes)
  bool direct_ = false;
  unsigned direct_alignment_ = 0;
  bool values_on_disk_ = false;
};

TEST_P(ExactlyOnceTest, TinyGraphs) {
  // fan: vertices 0..9 have no in-edges and send only in the first iteration, to a cycle of
  // 10..29 — with several intervals, theirs go quiet right after sending, so the engine must
  // overwrite their old messages without computing them.
  std::string fan;
  for (int u = 0; u < 10; ++u) {
    for (int v = 10; v < 30; v += 3) fan += std::to_string(u) + " " + std::to_string(v) + "\n";
  }
  for (int v = 10; v < 30; ++v)
    fan += std::to_string(v) + " " + std::to_string(v == 29 ? 10 : v + 1) + "\n";
  const std::pair<const char*, std::string> graphs[] = {
      {"cycle", "0 1\n1 2\n2 3\n3 4\n4 5\n5 6\n6 7\n7 0\n"},
      {"dense", "0 1\n0 2\n1 2\n2 0\n2 3\n3 3\n3 1\n4 0\n4 4\n1 4\n0 1\n5 2\n6 5\n7 6\n8 7\n"},
      {"fan", fan},
  };
  for (const auto& [name, text] : graphs) {
    const std::string path = dir().string() + "/" + name + ".txt";
    WriteFile(path, text);
    Check(path, name);
  }
  if (std::get<0>(GetParam()) > 1) {
    EXPECT_GT(cleared_total_, 0u) << "no interval was cleared: that path went untested";
  }

}

TEST_P(ExactlyOnceTest, Hub) {
  // Vertex 0 sends to 200,000 others and hears from 70,000 of them, which form a cycle: more
  // than one piece of the stream buffer each way, with 16-byte messages. Sharded at 27 MiB it
  // alone costs more than an interval may, though sorting its in-edges fits
  // (shards/intervals.h): an interval of its own, streamed by the engine.
  constexpr int kOut = 200000, kIn = 70000;
  std::string text;
  for (int v = 1; v <= kOut; ++v) text += "0 " + std::to_string(v) + "\n";
  for (int v = 1; v <= kIn; ++v) {
    text += std::to_string(v) + " 0\n" + std::to_string(v) + " " +
            std::to_string(v == kIn ? 1 : v + 1) + "\n";
  }
  const std::string path = dir().string() + "/hub.txt";
  WriteFile(path, text);
  Check(path, "hub", uint64_t{27} << 20);
  EXPECT_GT(streamed_total_, 0u) << "no interval was streamed: that path went untested";
  // Run under a budget near the sharding one, the memory plan streams the hub without being
  // told to (the vertex values then go through the run's file).
  streamed_total_ = 0;
  values_on_disk_ = true;
  run_memory_ = uint64_t{29} << 20;  // TokenProgram is wider than the plan's PageRank
  const ShardSet set = ShardSet::Open(dir().string() + "/hub.shards");
  Check(set, path, Mode::kStaticSync);
  Check(set, path, Mode::kStaticAsync);
  EXPECT_EQ(streamed_total_, 0u);  // only kStaticStreamed adds to it
  RunSummary summary;
  EngineRun run;
  run.memory = run_memory_;
  run.values_in_memory = false;
  run.transport = TransportChoice::kStatic;
  RunProgram(set, TokenProgram{}, run, &summary);
  EXPECT_GT(summary.intervals_streamed, 0u) << "the plan held the hub in its buffers";
}

TEST_P(ExactlyOnceTest, RmatDirect) {
  // O_DIRECT where the file system allows it (tmpfs does not: then it is the buffered path).
  direct_ = true;
  CheckRmat(10, 6, "rmat-direct");
}

TEST_P(ExactlyOnceTest, RmatDirectAtFourKibibytes) {
  // The same with windows padded to 4 KiB, whatever smaller alignment the file system allows
  // (most disks take 512 B): the layout for file systems that ask for 4 KiB.
  direct_ = true;
  direct_alignment_ = 4096;
  CheckRmat(10, 6, "rmat-direct-4k");
}

TEST_P(ExactlyOnceTest, RmatValuesOnDisk) {
  // Vertex values read and written interval by interval through the run's vertex file, as
  // when the budget cannot hold them all.
  values_on_disk_ = true;
  CheckRmat(10, 6, "rmat-on-disk");
  // The dynamic modes keep their delay buffer in the run's directory too, interval by
  // interval: that path must have held something.
  if (std::get<0>(GetParam()) > 1) {
    EXPECT_GT(delayed_total_, 0u) << "no scatter was delayed with the values on disk";
  }
}

TEST_P(ExactlyOnceTest, Rmat) {
  CheckRmat(11, 8, "rmat");
  EXPECT_GT(inner_total_, 0u) << "no interval took an inner pass: that path went untested";
  if (std::get<0>(GetParam()) > 1) {  // one interval with inner passes is done in two
    EXPECT_GT(shadow_total_, 0u) << "no shadow iteration: dynamic shards went untested";
    EXPECT_GT(delayed_total_, 0u) << "no scatter was delayed: the delay buffer went untested";
    EXPECT_GT(auto_builds_, 0u) << "mode auto built nothing: its dynamic shards went untested";
  }
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  return "parts" + std::to_string(std::get<0>(info.param)) + "_" +
         std::string(IoKindName(std::get<1>(info.param))) + "_period" +
         std::to_string(std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Engine, ExactlyOnceTest,
                         ::testing::Combine(::testing::Values(1u, 3u, 8u),
                                            ::testing::Values(IoKind::kPread, IoKind::kUring),
                                            ::testing::Values(uint64_t{2}, uint64_t{7})),
                         ParamName);

}  // namespace
}  // namespace needle
