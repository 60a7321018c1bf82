// The message invariant (token_check.h) as a typed suite over the engine's ways of moving
// messages, one instance per transport and mode (as GBBS types its suites over
// implementations): static windows and resident, each with one pass per turn and with inner
// passes; a streamed one-vertex interval; the dynamic modes ads, ods and auto. Each instance
// runs the same checks — hand-drawn graphs and an R-MAT graph at 1, 3 and 8 intervals on both
// I/O backends — and says when its own path went untested.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"
#include "token_check.h"

namespace needle {
namespace {

template <Mode M>
using ModeTag = std::integral_constant<Mode, M>;
using Transports =
    ::testing::Types<ModeTag<Mode::kStaticSync>, ModeTag<Mode::kStaticAsync>,
                     ModeTag<Mode::kResidentSync>, ModeTag<Mode::kResidentAsync>,
                     ModeTag<Mode::kStaticStreamed>, ModeTag<Mode::kAds>, ModeTag<Mode::kOds>,
                     ModeTag<Mode::kAuto>, ModeTag<Mode::kStaticPages>,
                     ModeTag<Mode::kAutoPages>, ModeTag<Mode::kStaticPush>,
                     ModeTag<Mode::kStaticPull>, ModeTag<Mode::kAdsWhole>,
                     ModeTag<Mode::kOdsWhole>>;

struct TransportName {
  template <class T>
  static std::string GetName(int) {
    return ModeName(T::value);
  }
};

template <class Tag>
class TransportTypedTest : public WithTempDir<::testing::Test> {
 protected:
  static constexpr Mode kMode = Tag::value;

  // Checks `input` at 1, 3 and 8 intervals on both backends.
  void CheckEverywhere(const std::string& input, const std::string& name) {
    for (const uint32_t parts : {1u, 3u, 8u}) {
      const std::string shards = dir().string() + "/" + name + "-" + std::to_string(parts);
      const ShardSet set = ShardInto(input, shards, parts);
      for (const IoKind io : {IoKind::kPread, IoKind::kUring}) {
        SCOPED_TRACE(name + ", " + std::to_string(parts) + " parts, " +
                     std::string(IoKindName(io)));
        TokenSetting setting;
        setting.io = io;
        CheckTokens(set, input, kMode, setting, totals_);
      }
    }
  }
  TokenTotals totals_;
};

TYPED_TEST_SUITE(TransportTypedTest, Transports, TransportName);

TYPED_TEST(TransportTypedTest, EveryMessageArrivesExactlyOnce) {
  const std::string cycle = this->dir().string() + "/cycle.txt";
  WriteFile(cycle, "0 1\n1 2\n2 3\n3 4\n4 5\n5 6\n6 7\n7 0\n");
  this->CheckEverywhere(cycle, "cycle");
  std::string fan;  // 0..9 send once into a cycle of 10..29, then go quiet
  for (int u = 0; u < 10; ++u) {
    for (int v = 10; v < 30; v += 3) fan += std::to_string(u) + " " + std::to_string(v) + "\n";
  }
  for (int v = 10; v < 30; ++v) {
    fan += std::to_string(v) + " " + std::to_string(v == 29 ? 10 : v + 1) + "\n";
  }
  const std::string fan_path = this->dir().string() + "/fan.txt";
  WriteFile(fan_path, fan);
  this->CheckEverywhere(fan_path, "fan");
  RmatOptions options;
  options.scale = 10;
  options.edge_factor = 6;
  const std::string rmat = this->dir().string() + "/rmat.txt";
  WriteEdgeListText(GenerateRmat(options), rmat);
  this->CheckEverywhere(rmat, "rmat");

  // Each way's own path was taken somewhere.
  constexpr Mode mode = TypeParam::value;
  if (IsPages(mode)) {
    // Windows of many chunks (256 tokens each) with few senders: most chunks stay unmarked.
    options.scale = 12;
    options.edge_factor = 8;
    const std::string sparse = this->dir().string() + "/sparse.txt";
    WriteEdgeListText(GenerateRmat(options), sparse);
    for (const uint32_t parts : {1u, 3u}) {
      const ShardSet set = ShardInto(sparse, this->dir().string() + "/sparse-" +
                                                 std::to_string(parts), parts);
      for (const IoKind io : {IoKind::kPread, IoKind::kUring}) {
        for (const bool direct : {false, true}) {
          for (const bool one_pass : {false, true}) {  // (p, p) read whole, or by chunks
            SCOPED_TRACE("sparse, " + std::to_string(parts) + " parts, " +
                         std::string(IoKindName(io)) + (direct ? ", direct" : "") +
                         (one_pass ? ", one pass a turn" : ""));
            TokenSetting setting;
            setting.io = io;
            setting.direct = direct;
            setting.period = 64;
            setting.one_pass = one_pass;
            CheckTokens(set, sparse, mode, setting, this->totals_);
          }
        }
      }
    }
  }
  const TokenTotals& t = this->totals_;
  if (IsAsync(mode)) {
    EXPECT_GT(t.inner, 0u) << "no inner pass";
  }
  if (IsDynamic(mode)) {
    EXPECT_GT(t.shadow, 0u) << "no shadow iteration";
    EXPECT_GT(t.delayed, 0u) << "no scatter was delayed";
  }
  if (IsAuto(mode)) {
    EXPECT_GT(t.auto_builds, 0u) << "auto built no dynamic shards";
  }
  if (IsWhole(mode)) {
    EXPECT_GT(t.whole, 0u) << "no shard was kept whole";
  }
  if (mode == Mode::kStaticSync || mode == Mode::kStaticAsync) {
    EXPECT_GT(t.cleared, 0u) << "no quiet interval was cleared";
  }
  if (mode == Mode::kStaticStreamed) {
    EXPECT_GT(t.streamed, 0u) << "no one-vertex interval was streamed";
  }
  if (IsPages(mode)) {
    EXPECT_GT(t.skipped, 0u) << "page grain read every chunk of every window";
  }
  if (mode == Mode::kStaticPages) {
    EXPECT_GT(t.sparse, 0u) << "no turn read window (p, p) run by run";
  }
  if (mode == Mode::kStaticPush) {
    EXPECT_GT(t.pushed, 0u) << "no turn pushed";
    EXPECT_GT(t.fallbacks, 0u) << "no push turn found the logs full";
    EXPECT_GT(t.own_runs, 0u) << "every push turn read its whole scatter index";
  }
  if (mode == Mode::kAutoPages) {
    EXPECT_GT(t.pulled, 0u) << "no turn pulled";
  }
  if (mode == Mode::kStaticPull) {
    EXPECT_GT(t.pulled, 0u) << "no turn pulled";
    EXPECT_GT(t.pushed, 0u) << "no turn pushed between the pulls";
    EXPECT_GT(t.own_runs, 0u) << "every pull turn read its whole scatter index";
  }
}

}  // namespace
}  // namespace needle
