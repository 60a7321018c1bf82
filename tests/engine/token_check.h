// The engine's message invariant as a reusable check (GraphChi's smoke test idea): a program
// that knows no algorithm sends, on every edge, a token made of its source id and the
// iteration, and every vertex sums the tokens it receives. Whatever the transport, mode,
// interval count, I/O backend and thread count, each vertex must end up with exactly the
// tokens of its in-edges (with multiplicity) for the iterations their sources sent in — no
// message lost, none consumed twice. exactly_once_test.cc runs it over every mode per setting;
// transport_typed_test.cc is the typed suite over the transports and modes.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine_test_util.h"

namespace needle {

inline uint64_t Mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline uint64_t Token(VertexId source, uint32_t iteration) {
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

// How one check runs.
struct TokenSetting {
  IoKind io = IoKind::kPread;
  uint64_t period = 2;  // TokenProgram::period
  bool direct = false;
  unsigned direct_alignment = 0;
  bool values_on_disk = false;
  uint64_t run_memory = 0;  // the run's budget (0: EngineRun's)
  bool one_pass = false;    // no inner passes, whatever the mode says
};

// What the checks exercised, summed over them (so that a test can say a path went untested).
struct TokenTotals {
  uint32_t streamed = 0;   // intervals streamed (kStaticStreamed)
  uint64_t shadow = 0;     // shadow iterations of the dynamic modes
  uint64_t delayed = 0;    // scatters they delayed
  uint64_t auto_builds = 0;  // dynamic shard sets mode auto built
  uint64_t whole = 0;        // shards the dynamic sets kept whole (IsWhole)
  uint32_t cleared = 0;    // intervals cleared without being computed
  uint64_t inner = 0;      // inner passes (asynchronous modes)
  uint64_t skipped = 0;    // edges page grain did not read (IsPages)
  uint64_t sparse = 0;     // turns that read (p, p)'s targets run by run (page grain)
  uint64_t pushed = 0;     // messages push turns put into the logs (kStaticPush)
  uint64_t fallbacks = 0;  // push turns that found the logs full
  uint64_t pulled = 0;     // pull turns (kStaticPull)
  uint64_t own_runs = 0;   // push and pull turns that read only window (p, p)'s runs
};

// Every vertex of `g` holds exactly the tokens of its in-edges for the iterations their
// sources sent in (their sent_mask), each once; the first five that do not fail the test.
inline void ExpectEveryTokenOnce(const Csr& g,
                                 const std::vector<TokenProgram::VertexValue>& values) {
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
}

// Runs TokenProgram on `set` (sharded from `input`) in `mode` and checks every vertex's tokens.
inline void CheckTokens(const ShardSet& set, const std::string& input, Mode mode,
                        const TokenSetting& setting, TokenTotals& totals) {
  SCOPED_TRACE(ModeName(mode));
  EngineRun run;
  run.Use(mode);
  run.io = setting.io == IoKind::kUring ? UringOrSkipNote() : IoKind::kPread;
  run.direct = setting.direct;
  run.direct_alignment = setting.direct_alignment;
  run.values_in_memory = !setting.values_on_disk;
  if (setting.run_memory > 0) run.memory = setting.run_memory;
  if (setting.one_pass) run.max_inner_passes = 0;
  RunSummary summary;
  std::vector<IterationStats> stats;
  TokenProgram program;
  program.period = setting.period;
  const auto values = RunProgram(set, program, run, &summary, &stats);
  EXPECT_TRUE(summary.converged);
  EXPECT_EQ(summary.vertex_values_resident, !setting.values_on_disk);
  EXPECT_EQ(summary.transport, TransportName(TransportOf(mode)));
  EXPECT_EQ(summary.mode, ShardModeName(run.shard_mode));
  // Dynamic shards: the delayed messages of the last senders arrive at the final shadow
  // iteration, which may come two iterations later.
  EXPECT_LE(summary.iterations, TokenProgram::kLast + (IsDynamic(mode) ? 3 : 1));
  if (IsDynamic(mode)) {
    totals.shadow += summary.shadow_iterations;
    totals.delayed += summary.delayed;
    if (IsAuto(mode)) totals.auto_builds += summary.dynamic_builds;
    totals.whole += summary.whole_shards;
  }

  const Csr g = LoadCsr(input);
  ExpectEveryTokenOnce(g, values);
  for (VertexId u = 0; u < g.num_vertices; ++u) {
    ASSERT_TRUE(values[u].sent_mask & 1);
  }
  if (IsAsync(mode) && !setting.one_pass) {
    totals.inner += summary.inner_passes;
  } else {
    EXPECT_EQ(summary.inner_passes, 0u);
  }
  totals.skipped += summary.edges_skipped;
  totals.pushed += summary.edges_pushed;
  totals.fallbacks += summary.push_fallbacks;
  totals.pulled += summary.intervals_pulled;
  totals.own_runs += summary.intervals_own_runs;
  if (mode != Mode::kStaticPush && mode != Mode::kStaticPull) {
    EXPECT_EQ(summary.edges_pushed, 0u);
  }
  if (mode != Mode::kStaticPull && mode != Mode::kAutoPages) {
    EXPECT_EQ(summary.intervals_pulled, 0u);
  }
  totals.sparse += summary.intervals_sparse;
  if (!IsPages(mode)) {
    EXPECT_EQ(summary.edges_skipped, 0u);
    EXPECT_EQ(summary.intervals_sparse, 0u);
  }
  uint32_t cleared = 0;
  for (const auto& s : stats) cleared += s.intervals_cleared;
  totals.cleared += cleared;
  if (mode == Mode::kStaticStreamed) totals.streamed += summary.intervals_streamed;
}

}  // namespace needle
