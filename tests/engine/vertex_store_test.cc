// VertexStore: interval reads and writes of fixed-width vertex values, on both backends, with
// and without O_DIRECT, at ranges that do not line up with 4 KiB blocks.
#include "engine/vertex_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <stdexcept>
#include <utility>
#include <tuple>
#include <vector>

#include "base/error.h"
#include "shards/shard_set.h"

namespace needle {
namespace {

namespace fs = std::filesystem;

class VertexStoreTest : public ::testing::TestWithParam<std::tuple<IoKind, bool>> {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() /
            ("needle_vstore_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++)))
               .string();
    fs::create_directories(dir_);
    IoOptions o;
    o.kind = std::get<0>(GetParam());
    o.direct = std::get<1>(GetParam());
    io_ = IoBackend::Create(o);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static inline int counter_ = 0;
  std::string dir_;
  std::unique_ptr<IoBackend> io_;
};

TEST_P(VertexStoreTest, IntervalsRoundTripAgainstAnInMemoryCopy) {
  constexpr uint64_t kCount = 10007;  // not a multiple of anything useful
  constexpr size_t kWidth = 12;
  VertexStore store = VertexStore::Create(*io_, dir_, "test", kCount, kWidth);
  std::vector<unsigned char> truth(kCount * kWidth, 0);
  std::mt19937_64 rng(42);
  for (int round = 0; round < 200; ++round) {
    uint64_t a = rng() % (kCount + 1), b = rng() % (kCount + 1);
    if (a > b) std::swap(a, b);
    std::vector<unsigned char> values((b - a) * kWidth);
    for (auto& v : values) v = static_cast<unsigned char>(rng());
    store.Write(a, b, values.data());
    std::copy(values.begin(), values.end(), truth.begin() + static_cast<long>(a * kWidth));
    uint64_t c = rng() % (kCount + 1), d = rng() % (kCount + 1);
    if (c > d) std::swap(c, d);
    std::vector<unsigned char> got((d - c) * kWidth);
    store.Read(c, d, got.data());
    ASSERT_TRUE(std::equal(got.begin(), got.end(), truth.begin() + static_cast<long>(c * kWidth)))
        << "round " << round << " read [" << c << ", " << d << ")";
  }
  EXPECT_GT(io_->counters().written[static_cast<size_t>(FileKind::kVertices)], 0u);
  // Reopened, the values are still there; a wrong size is refused by name.
  VertexStore again = VertexStore::Open(*io_, dir_, "test", kCount, kWidth);
  std::vector<unsigned char> all(kCount * kWidth);
  again.Read(0, kCount, all.data());
  EXPECT_EQ(all, truth);
  try {
    VertexStore::Open(*io_, dir_, "test", kCount * 2, kWidth);
    FAIL() << "a store of the wrong size was opened";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vertices-test.val"), std::string::npos) << e.what();
  }
  EXPECT_THROW(store.Read(0, kCount + 1, all.data()), Error);
}

// The engine's use: Load an interval, change it in place, Store it, with the next interval
// read ahead (Prefetch) in between; ranges chosen at random, so a read ahead is sometimes
// taken, sometimes overlapped by a write (it must not serve the old bytes), sometimes dropped
// by a Load of another range.
TEST_P(VertexStoreTest, ReadAheadNeverServesValuesAWriteChanged) {
  constexpr uint64_t kCount = 5003;
  constexpr size_t kWidth = 12;
  VertexStore store = VertexStore::Create(*io_, dir_, "ahead", kCount, kWidth);
  std::vector<unsigned char> truth(kCount * kWidth, 0);
  std::mt19937_64 rng(7);
  auto range = [&] {
    uint64_t a = rng() % (kCount + 1), b = rng() % (kCount + 1);
    return a <= b ? std::pair{a, b} : std::pair{b, a};
  };
  auto next = range();
  int taken = 0, overwritten = 0;
  for (int round = 0; round < 400; ++round) {
    // Mostly the range read ahead, as the engine's guess of the next turn mostly is.
    const auto [a, b] = rng() % 4 != 0 ? next : range();
    taken += std::pair{a, b} == next;
    std::byte* values = store.Load(a, b);
    ASSERT_TRUE(std::equal(truth.begin() + static_cast<long>(a * kWidth),
                           truth.begin() + static_cast<long>(b * kWidth),
                           reinterpret_cast<const unsigned char*>(values)))
        << "round " << round << " load [" << a << ", " << b << ")";
    next = range();
    store.Prefetch(next.first, next.second);
    for (uint64_t i = 0; i < (b - a) * kWidth; ++i) {
      values[i] = static_cast<std::byte>(rng());
      truth[a * kWidth + i] = static_cast<unsigned char>(values[i]);
    }
    store.Store(a, b);
    overwritten += a < next.second && next.first < b;
    if (rng() % 8 == 0) {  // a copy written over another range, read ahead or not
      const auto [c, d] = rng() % 2 == 0 ? next : range();
      std::vector<unsigned char> copy((d - c) * kWidth);
      for (auto& v : copy) v = static_cast<unsigned char>(rng());
      store.Write(c, d, copy.data());
      std::copy(copy.begin(), copy.end(), truth.begin() + static_cast<long>(c * kWidth));
      overwritten += c < next.second && next.first < d;
    }
  }
  EXPECT_GT(taken, 100);
  EXPECT_GT(overwritten, 20);
  std::vector<unsigned char> all(kCount * kWidth);
  store.Read(0, kCount, all.data());
  EXPECT_EQ(all, truth);
  EXPECT_THROW(store.Store(0, 1), std::logic_error);  // not the range loaded last
}

INSTANTIATE_TEST_SUITE_P(Backends, VertexStoreTest,
                         ::testing::Combine(::testing::Values(IoKind::kUring, IoKind::kPread),
                                            ::testing::Bool()));

}  // namespace
}  // namespace needle
