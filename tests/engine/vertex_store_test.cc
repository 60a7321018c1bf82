// VertexStore: interval reads and writes of fixed-width vertex values, on both backends, with
// and without O_DIRECT, at ranges that do not line up with 4 KiB blocks.
#include "engine/vertex_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
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

INSTANTIATE_TEST_SUITE_P(Backends, VertexStoreTest,
                         ::testing::Combine(::testing::Values(IoKind::kUring, IoKind::kPread),
                                            ::testing::Bool()));

}  // namespace
}  // namespace needle
