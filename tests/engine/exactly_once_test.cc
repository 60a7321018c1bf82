// The engine's message invariant (token_check.h) over settings: every check runs all eight
// modes (transports, with and without inner passes, the dynamic modes) on one shard set, at 1,
// 3 and 8 intervals, on both I/O backends, with two sending periods; O_DIRECT, vertex values on
// disk and a streamed hub have tests of their own. transport_typed_test.cc is the same check as
// a typed suite, one instance per transport and mode.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "engine_test_util.h"
#include "token_check.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"

namespace needle {
namespace {

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
    const auto [parts, io, period] = GetParam();
    TokenSetting s;
    s.io = io;
    s.period = period;
    s.direct = direct_;
    s.direct_alignment = direct_alignment_;
    s.values_on_disk = values_on_disk_;
    s.run_memory = run_memory_;
    TokenTotals t;
    CheckTokens(set, input, mode, s, t);
    streamed_total_ += t.streamed;
    shadow_total_ += t.shadow;
    delayed_total_ += t.delayed;
    auto_builds_ += t.auto_builds;
    whole_total_ += t.whole;
    cleared_total_ += t.cleared;
    inner_total_ += t.inner;
  }
  uint32_t streamed_total_ = 0;
  uint64_t shadow_total_ = 0;   // shadow iterations of the dynamic modes, over all checks
  uint64_t delayed_total_ = 0;  // scatters they delayed
  uint64_t auto_builds_ = 0;    // dynamic shard sets mode auto built
  uint64_t whole_total_ = 0;    // shards the dynamic sets kept whole
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
    EXPECT_GT(whole_total_, 0u) << "no shard was kept whole: that path went untested";
  }
}

// TokenProgram as a program without extract() and with a priority: the ordered schedule, which
// gathers a vertex's messages to its own interval at once. Not a selection (every message
// changes its target, so none is dropped); each vertex still sends at most once an iteration
// (the first apply that sets the iteration's bit), and an apply that sets none sends identity.
struct OrderedTokenProgram {
  using VertexValue = TokenProgram::VertexValue;
  using EdgeValue = TokenProgram::EdgeValue;
  static constexpr Aggregation kAggregation = Aggregation::kUser;
  static constexpr bool kUsesWeights = false;
  uint64_t period = 2;

  EdgeValue identity() const { return {}; }
  EdgeValue aggregate(const EdgeValue& a, const EdgeValue& b) const {
    return {a.tokens + b.tokens, a.count + b.count};
  }
  VertexValue init(const VertexContext&) const { return {}; }
  EdgeValue gather(const EdgeValue& acc, const EdgeValue& m, float) const {
    return aggregate(acc, m);
  }
  VertexValue apply(const VertexContext& v, const VertexValue& old, const EdgeValue& acc) const {
    VertexValue now = old;
    now.received += acc.tokens;
    now.messages += acc.count;
    const bool send =
        v.iteration == 0 || (v.iteration < TokenProgram::kLast &&
                             Mix(uint64_t{v.id} * 131 + v.iteration) % period == 0);
    if (send) now.sent_mask |= uint64_t{1} << v.iteration;
    return now;
  }
  bool changed(const VertexValue& old, const VertexValue& now) const {
    return now.sent_mask != old.sent_mask || now.messages != old.messages;
  }
  EdgeValue scatter(const VertexContext& v, const VertexValue& old, const VertexValue& now) const {
    if (now.sent_mask == old.sent_mask) return {};
    return {Token(v.id, v.iteration), 1};
  }
  uint32_t priority(const VertexValue&, const EdgeValue& heard) const {
    return static_cast<uint32_t>(heard.tokens >> 40);
  }
};
static_assert(OrderedProgram<OrderedTokenProgram>);

// The ordered schedule delivers exactly once in every mode, dynamic sets with shards kept whole
// included: there a vertex the set leaves out has runs in window (p, p), and its messages must
// wait in the delay buffer, not reach its own interval at once as well.
TEST(OrderedExactlyOnceTest, EveryMessageArrivesOnceInOrderedTurns) {
  testing::TempDir dir;
  RmatOptions options;
  options.scale = 10;
  options.edge_factor = 6;
  const std::string input = dir.File("rmat.txt");
  WriteEdgeListText(GenerateRmat(options), input);
  const Csr g = LoadCsr(input);
  for (uint32_t parts : {2u, 3u}) {
    SCOPED_TRACE(std::to_string(parts) + " intervals");
    const ShardSet set = ShardInto(input, dir.File("set" + std::to_string(parts)), parts);
    uint64_t ordered = 0, whole = 0;
    for (Mode mode : {Mode::kStaticAsync, Mode::kResidentAsync, Mode::kOds, Mode::kAdsWhole,
                      Mode::kOdsWhole, Mode::kAuto}) {
      for (const auto& [period, io] : {std::pair{uint64_t{2}, IoKind::kPread},
                                       std::pair{uint64_t{7}, UringOrSkipNote()}}) {
        SCOPED_TRACE(ModeName(mode) + ", period " + std::to_string(period) + ", " +
                     std::string(IoKindName(io)));
        EngineRun run;
        run.Use(mode);
        run.io = io;
        RunSummary summary;
        OrderedTokenProgram program;
        program.period = period;
        const auto values = RunProgram(set, program, run, &summary);
        EXPECT_TRUE(summary.converged);
        ordered += summary.intervals_ordered;
        whole += summary.whole_shards;
        ExpectEveryTokenOnce(g, values);
      }
    }
    EXPECT_GT(ordered, 0u) << "no turn took the ordered schedule";
    EXPECT_GT(whole, 0u) << "no shard was kept whole";
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
