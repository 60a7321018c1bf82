// The source runs pull turns read (engine/pull_columns.h): every wanted window's runs are the
// bytes of its scatter index, batch after batch through the two halves; a prefetched first
// batch is used where it holds what the turn wants, and read anew where the guess left a
// window out or was of another column. And a load for a push or pull turn reads only window
// (p, p)'s runs of p's scatter index, the rest when asked (IntervalIo::ReadAllRuns). On both
// backends, through the page cache and with O_DIRECT.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/edge_value_files.h"
#include "engine/interval_io.h"
#include "engine/pull_columns.h"
#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"

namespace needle {
namespace {

class PullColumnsTest : public WithTempDir<::testing::TestWithParam<std::tuple<IoKind, bool>>> {
 protected:
  static constexpr uint32_t kParts = 7;

  void SetUp() override {
    WithTempDir::SetUp();
    RmatOptions rmat;
    rmat.scale = 15;
    rmat.edge_factor = 8;
    WriteEdgeListText(GenerateRmat(rmat), File("g.el"));
    set_.emplace(ShardInto(File("g.el"), File("set"), kParts));
    IoOptions options;
    options.kind = std::get<0>(GetParam()) == IoKind::kUring ? UringOrSkipNote() : IoKind::kPread;
    options.direct = std::get<1>(GetParam());
    io_ = IoBackend::Create(options);
    std::filesystem::create_directories(File("work"));
    values_.emplace(*io_, *set_, File("work"), 4);
    files_.emplace(*io_, *set_, *values_, false);
    const uint32_t n = set_->num_intervals();
    for (uint32_t q = 0; q < n; ++q) {
      for (uint32_t r = 0; r < n; ++r) {
        window_runs_ = std::max(window_runs_, Length(q, r));
      }
    }
  }

  uint64_t Length(uint32_t q, uint32_t r) const {
    return set_->ScatterOffset(q + 1, r) - set_->ScatterOffset(q, r);
  }
  // Window (q, r)'s runs, read from its scatter index file.
  std::string Expected(uint32_t q, uint32_t r) const {
    std::ifstream in(set_->ScatterIndexPath(r), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return bytes.substr(set_->ScatterOffset(q, r), Length(q, r));
  }
  // Reads column q for `wanted` and checks every wanted window; returns the batches.
  uint32_t CheckColumn(PullColumns& columns, uint32_t q, const std::vector<uint8_t>& wanted) {
    const uint32_t n = set_->num_intervals();
    uint32_t batches = 0, expected_from = 0;
    double waited = 0;
    columns.ForEachBatch(q, wanted.data(), &waited, [&](uint32_t from, uint32_t next) {
      ++batches;
      EXPECT_EQ(from, expected_from) << "column " << q << ": batches leave a gap";
      EXPECT_LT(from, next);
      expected_from = next;
      for (uint32_t r = from; r < next; ++r) {
        if (!wanted[r] || Length(q, r) == 0) continue;
        const auto* runs = reinterpret_cast<const char*>(columns.Runs(r));
        EXPECT_EQ(std::string(runs, Length(q, r)), Expected(q, r))
            << "window (" << q << ", " << r << ")";
      }
    });
    EXPECT_EQ(expected_from, n) << "column " << q << " not read to its end";
    return batches;
  }
  std::vector<uint8_t> AllBut(uint32_t q) const {
    std::vector<uint8_t> wanted(set_->num_intervals(), 1);
    wanted[q] = 0;
    return wanted;
  }
  uint64_t Requests() const { return io_->counters().read_requests; }
  // The least PullColumns takes (two halves of the largest window's runs, aligned), so that
  // the halves take turns.
  uint64_t SmallBuffer() const {
    const uint64_t unit = files_->scatter_index(0).alignment();
    return 2 * AlignUp(window_runs_ + (unit > 1 ? 3 * unit : 0));
  }

  std::optional<ShardSet> set_;
  std::unique_ptr<IoBackend> io_;
  std::optional<EdgeValueFiles> values_;
  std::optional<IntervalIo> files_;
  uint64_t window_runs_ = 0;
};

TEST_P(PullColumnsTest, EveryWantedWindowHoldsItsRunsBatchAfterBatch) {
  ASSERT_EQ(set_->num_intervals(), kParts);
  PullColumns columns(*files_, kParts, SmallBuffer());
  uint32_t most = 0;
  for (uint32_t q = 0; q < kParts; ++q) most = std::max(most, CheckColumn(columns, q, AllBut(q)));
  EXPECT_GE(most, 3u) << "the halves should take turns more than once";
  // As the engine plans it.
  PullColumns planned(*files_, kParts, PullColumns::Bytes(window_runs_, files_->ColumnBytes()));
  for (uint32_t q = 0; q < kParts; ++q) CheckColumn(planned, q, AllBut(q));
  // Every other window only.
  for (uint32_t q = 0; q < kParts; ++q) {
    std::vector<uint8_t> wanted(kParts, 0);
    for (uint32_t r = q % 2; r < kParts; r += 2) wanted[r] = r != q;
    CheckColumn(columns, q, wanted);
  }
}

TEST_P(PullColumnsTest, APrefetchIsUsedWhereItHoldsWhatTheTurnWants) {
  PullColumns columns(*files_, kParts, SmallBuffer());
  const uint32_t q = 3;
  uint64_t before = Requests();
  CheckColumn(columns, q, AllBut(q));
  const uint64_t plain = Requests() - before;
  ASSERT_GT(plain, 0u);

  // What a prefetch reads: the first batch.
  before = Requests();
  columns.Prefetch(q, AllBut(q));
  columns.Drop();  // waits, and forgets it
  const uint64_t first = Requests() - before;
  ASSERT_GT(first, 0u);
  ASSERT_LT(first, plain) << "the column should take more than one batch";

  // The guess as wanted: the first batch is not read again.
  before = Requests();
  columns.Prefetch(q, AllBut(q));
  CheckColumn(columns, q, AllBut(q));
  EXPECT_EQ(Requests() - before, plain);

  // The guess wanted more than the turn: still used.
  std::vector<uint8_t> fewer = AllBut(q);
  fewer[kParts - 1] = 0;
  before = Requests();
  CheckColumn(columns, q, fewer);
  const uint64_t fewer_plain = Requests() - before;
  before = Requests();
  columns.Prefetch(q, AllBut(q));
  CheckColumn(columns, q, fewer);
  EXPECT_LT(Requests() - before, first + fewer_plain);

  // The guess left out a window the turn wants, or was of another column: read anew.
  std::vector<uint8_t> left_out = AllBut(q);
  left_out[0] = 0;
  for (const uint32_t other : {q, q + 1}) {
    before = Requests();
    columns.Prefetch(other, left_out);
    CheckColumn(columns, q, AllBut(q));
    EXPECT_GT(Requests() - before, plain) << "prefetch of column " << other;
  }
}

TEST_P(PullColumnsTest, ALoadReadsOnlyItsOwnWindowsRunsWhereAsked) {
  IntervalData data;
  files_->Allocate(data);
  const std::vector<uint8_t> none(kParts, 0);
  auto read = [&] { return io_->counters().read[static_cast<size_t>(FileKind::kScatterIndex)]; };
  auto runs = [&](uint32_t q) {
    return std::string(reinterpret_cast<const char*>(data.RunBytes(q)),
                       data.RunBytes(q + 1) - data.RunBytes(q));
  };
  uint64_t own_bytes = 0, all_bytes = 0;
  for (uint32_t p = 0; p < kParts; ++p) {
    SCOPED_TRACE("interval " + std::to_string(p));
    uint64_t before = read();
    files_->StartLoad(p, data, none.data(), /*windows_only=*/false, /*messages=*/true,
                      /*all_runs=*/false);
    files_->FinishLoad(data);
    EXPECT_FALSE(data.all_runs);
    const uint64_t own = read() - before;
    EXPECT_EQ(runs(p), Expected(p, p));
    const uint64_t unit = files_->scatter_index(p).alignment();
    EXPECT_LE(own, AlignUp(Length(p, p), unit) + unit);  // the window's cover, no more
    before = read();
    files_->ReadAllRuns(data);
    EXPECT_TRUE(data.all_runs);
    EXPECT_EQ(read() - before, files_->scatter_index_bytes(p));
    for (uint32_t q = 0; q < kParts; ++q) EXPECT_EQ(runs(q), Expected(q, p)) << "window " << q;
    before = read();
    files_->ReadAllRuns(data);  // holds them all: nothing more
    EXPECT_EQ(read(), before);
    own_bytes += own;
    all_bytes += files_->scatter_index_bytes(p);
  }
  EXPECT_LT(own_bytes * 2, all_bytes) << "window (p, p) should be a small part of the index";
}

INSTANTIATE_TEST_SUITE_P(Backends, PullColumnsTest,
                         ::testing::Combine(::testing::Values(IoKind::kUring, IoKind::kPread),
                                            ::testing::Bool()));

}  // namespace
}  // namespace needle
