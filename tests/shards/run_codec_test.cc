// The scatter index's run encoding round-trips every run, small and extreme.
#include "shards/run_codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace needle {
namespace {

std::vector<SourceRun> RoundTrip(const std::vector<SourceRun>& runs, uint32_t base,
                                 size_t* bytes = nullptr) {
  std::vector<uint8_t> encoded(MaxEncodedRunBytes(runs.size()));
  const size_t n = EncodeRuns(runs.data(), runs.size(), base, encoded.data());
  EXPECT_LE(n, encoded.size());
  if (bytes != nullptr) *bytes = n;
  std::vector<SourceRun> decoded;
  DecodeRuns(encoded.data(), runs.size(), base, [&](uint32_t source, uint32_t count) {
    decoded.push_back({source, count});
  });
  return decoded;
}

bool Same(const std::vector<SourceRun>& a, const std::vector<SourceRun>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].source != b[i].source || a[i].count != b[i].count) return false;
  }
  return true;
}

TEST(RunCodecTest, RoundTripsExtremes) {
  const std::vector<SourceRun> runs{
      {7, 1}, {8, 127}, {9, 128}, {300, 1}, {4000000000u, 16384}, {4294967294u, 4294967295u}};
  EXPECT_TRUE(Same(RoundTrip(runs, 7), runs));
  EXPECT_TRUE(Same(RoundTrip({}, 0), {}));
}

TEST(RunCodecTest, TypicalWindowsTakeAboutTwoBytesARun) {
  std::mt19937 random(5);
  std::vector<SourceRun> runs;
  uint32_t source = 1000;
  for (int i = 0; i < 10000; ++i) {
    source += 1 + static_cast<uint32_t>(random() % 20);
    runs.push_back({source, 1 + static_cast<uint32_t>(random() % 3)});
  }
  size_t bytes = 0;
  EXPECT_TRUE(Same(RoundTrip(runs, 1000, &bytes), runs));
  EXPECT_LE(bytes, 2 * runs.size());
}

}  // namespace
}  // namespace needle
