// The scatter index's run encoding round-trips every run, small and extreme.
#include "shards/run_codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace needle {
namespace {

std::vector<SourceRun> RoundTrip(const std::vector<SourceRun>& runs, uint32_t base,
                                 size_t* bytes = nullptr) {
  std::vector<uint8_t> encoded(MaxEncodedRunBytes(runs.size()));
  const size_t n = EncodeRuns(runs.data(), runs.size(), base, encoded.data());
  EXPECT_LE(n, encoded.size());
  if (bytes != nullptr) *bytes = n;
  uint64_t edges = 0;
  for (const SourceRun& r : runs) edges += r.count;
  std::vector<SourceRun> decoded;
  const RunDecodeStatus status =
      DecodeRuns(encoded.data(), encoded.data() + n, runs.size(), base, UINT32_MAX, edges,
                 [&](uint32_t source, uint64_t count) {
                   decoded.push_back({source, static_cast<uint32_t>(count)});
                 });
  EXPECT_TRUE(status.ok()) << status.error;
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
  // (UINT32_MAX is the decoder's end: every source below it is in range.)
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

// Decoding trusts nothing: each way a window's bytes can disagree with what the window index
// says of them is refused, with the byte where it was found, before the caller sees a bad run.
struct Decoded {
  RunDecodeStatus status;
  std::vector<SourceRun> runs;
};

Decoded Decode(const std::vector<uint8_t>& bytes, uint64_t runs, uint32_t base, uint32_t end,
               uint64_t edges) {
  Decoded d;
  d.status = DecodeRuns(bytes.data(), bytes.data() + bytes.size(), runs, base, end, edges,
                        [&](uint32_t source, uint64_t count) {
                          EXPECT_GE(source, base);
                          EXPECT_LT(source, end);
                          d.runs.push_back({source, static_cast<uint32_t>(count)});
                        });
  return d;
}

std::vector<uint8_t> Encode(const std::vector<SourceRun>& runs, uint32_t base) {
  std::vector<uint8_t> out(MaxEncodedRunBytes(runs.size()));
  out.resize(EncodeRuns(runs.data(), runs.size(), base, out.data()));
  return out;
}

TEST(RunCodecTest, RefusesWindowsThatDisagreeWithTheirIndex) {
  const std::vector<SourceRun> runs{{10, 2}, {12, 1}, {300, 3}};  // 6 edges from [10, 400)
  const std::vector<uint8_t> bytes = Encode(runs, 10);
  ASSERT_TRUE(Decode(bytes, 3, 10, 400, 6).status.ok());
  auto refused = [&](const std::vector<uint8_t>& b, uint64_t n, uint32_t end, uint64_t edges,
                     const std::string& phrase) {
    const Decoded d = Decode(b, n, 10, end, edges);
    if (d.status.ok()) return ::testing::AssertionFailure() << "accepted";
    if (std::string(d.status.error).find(phrase) == std::string::npos) {
      return ::testing::AssertionFailure() << "said '" << d.status.error << "'";
    }
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(refused(bytes, 4, 400, 6, "cut off"));      // more runs than bytes
  EXPECT_TRUE(refused(bytes, 2, 400, 6, "fewer edges"));  // fewer runs
  EXPECT_TRUE(refused(bytes, 3, 400, 5, "more edges"));   // counts beyond the window
  EXPECT_TRUE(refused(bytes, 3, 400, 7, "fewer edges"));  // counts short of it
  EXPECT_TRUE(refused(bytes, 3, 300, 6, "outside"));      // a source past the interval
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_TRUE(refused(longer, 3, 400, 6, "do not fill"));  // bytes left over
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 1);
  EXPECT_TRUE(refused(cut, 3, 400, 6, "cut off"));  // the last varint cut
  // A repeated source: a distance of 0 after the first run.
  EXPECT_TRUE(refused({0, 0, 0, 0}, 2, 400, 2, "do not increase"));
  // Varints longer than 5 bytes, or whose 5th byte overflows 32 bits.
  EXPECT_TRUE(refused({0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00}, 1, 400, 1, "too long"));
  EXPECT_TRUE(refused({0xff, 0xff, 0xff, 0xff, 0x1f, 0x00}, 1, UINT32_MAX, 1, "too long"));
  // A distance that would carry the source past 2^32.
  EXPECT_TRUE(refused({0xff, 0xff, 0xff, 0xff, 0x0f, 0x00}, 1, UINT32_MAX, 1, "outside"));
  // The byte of the failure: the third run's source, after the two runs before it.
  const Decoded d = Decode(bytes, 3, 10, 300, 6);
  ASSERT_FALSE(d.status.ok());
  EXPECT_EQ(d.status.at, 4u);
  EXPECT_EQ(d.runs.size(), 2u);  // the runs before the bad one were delivered, not the bad one
}

// The largest count a varint holds (2^32 - 1, plus one) reaches the caller whole.
TEST(RunCodecTest, CountOfTwoToThe32IsNotWrapped) {
  const uint8_t bytes[] = {0x00, 0xff, 0xff, 0xff, 0xff, 0x0f};
  uint64_t got = 0;
  const RunDecodeStatus status =
      DecodeRuns(bytes, bytes + sizeof(bytes), 1, 0, 10, uint64_t{1} << 32,
                 [&](uint32_t, uint64_t count) { got = count; });
  EXPECT_TRUE(status.ok()) << status.error;
  EXPECT_EQ(got, uint64_t{1} << 32);
}

TEST(RunCodecTest, GetVarint32StopsAtTheLimit) {
  const uint8_t bytes[] = {0x96, 0x01, 0x05};
  uint32_t v = 0;
  EXPECT_EQ(GetVarint32(bytes, bytes + 3, &v), bytes + 2);
  EXPECT_EQ(v, 150u);
  EXPECT_EQ(GetVarint32(bytes, bytes + 1, &v), nullptr);  // continuation past the limit
  EXPECT_EQ(GetVarint32(bytes, bytes, &v), nullptr);
  const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
  EXPECT_EQ(GetVarint32(max, max + 5, &v), max + 5);
  EXPECT_EQ(v, UINT32_MAX);
}

}  // namespace
}  // namespace needle
