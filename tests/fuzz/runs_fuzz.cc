// Fuzz target `runs`: the run codec of the scatter index (shards/run_codec.h).
//
// Input: a 20-byte header, then bytes.
//   runs (u32 LE), base (u32), end (u32), edges (u64): the parameters of one window
//   then the bytes to decode as that window's runs.
//
// 1. DecodeRuns(bytes, bytes + size, runs, base, end, edges, f) on the bytes as they are.
//    Checks, on what it reports: every run has base <= source < end, sources strictly
//    increase, counts (uint64_t: up to 2^32) are >= 1 and their running sum never exceeds
//    `edges`; success means
//    exactly `runs` runs holding exactly `edges` edges; and the result (success or not, and
//    the runs seen before a failure) equals that of a plain reference decoder written here
//    from the header's contract (varints of at most 5 bytes, all bytes consumed).
// 2. A round trip: runs derived from the same bytes (4 bytes a run: a source step and a count,
//    either scaled up by 2^16 when its top bit is set) are encoded with EncodeRuns into a buffer
//    of exactly MaxEncodedRunBytes(n) (ASan catches a write past it) and decoded again, which
//    must succeed and give them back.
#include <cstdint>
#include <vector>

#include "base/types.h"
#include "shards/run_codec.h"
#include "tests/fuzz/fuzz_util.h"

namespace needle::fuzz {
namespace {

struct Run {
  uint32_t source;
  uint64_t count;  // count - 1 is a 32-bit varint: a run may hold 2^32 edges
  friend bool operator==(const Run&, const Run&) = default;
};

// The contract of DecodeRuns, written out plainly: the runs reported before the first
// failure, and whether there was none.
bool ReferenceDecode(const uint8_t* p, const uint8_t* limit, uint64_t runs, uint32_t base,
                     uint32_t end, uint64_t edges, std::vector<Run>& out) {
  auto varint = [&](uint32_t& v) {
    uint64_t value = 0;
    for (int i = 0; i < 5; ++i) {
      if (p == limit) return false;
      const uint8_t byte = *p++;
      value |= uint64_t{byte & 0x7fu} << (7 * i);
      if (byte < 0x80) {
        if (value > UINT32_MAX) return false;
        v = static_cast<uint32_t>(value);
        return true;
      }
    }
    return false;  // a 6th byte would be needed
  };
  uint64_t source = base, total = 0;
  for (uint64_t i = 0; i < runs; ++i) {
    uint32_t delta = 0, count = 0;
    if (!varint(delta) || !varint(count)) return false;
    if (i > 0 && delta == 0) return false;
    source += delta;
    if (source >= end) return false;
    total += uint64_t{count} + 1;
    if (total > edges) return false;
    out.push_back({static_cast<uint32_t>(source), uint64_t{count} + 1});
  }
  return total == edges && p == limit;
}

void DecodeArbitrary(const uint8_t* in, size_t size, uint64_t runs, uint32_t base, uint32_t end,
                     uint64_t edges) {
  std::vector<Run> seen;
  uint64_t total = 0;
  const RunDecodeStatus status =
      DecodeRuns(in, in + size, runs, base, end, edges, [&](uint32_t source, uint64_t count) {
        FUZZ_CHECK(source >= base && source < end, "a run's source outside [base, end)");
        FUZZ_CHECK(seen.empty() || source > seen.back().source, "run sources do not increase");
        FUZZ_CHECK(count >= 1, "a run of no edges");
        total += count;
        FUZZ_CHECK(total <= edges, "the runs reported hold more edges than the window");
        FUZZ_CHECK(seen.size() < runs, "more runs reported than asked for");
        seen.push_back({source, count});
      });
  if (status.ok()) {
    FUZZ_CHECK(seen.size() == runs, "success with fewer runs than asked for");
    FUZZ_CHECK(total == edges, "success with fewer edges than the window");
  } else {
    FUZZ_CHECK(status.at <= size, "a failure reported beyond the bytes");
  }
  std::vector<Run> expected;
  const bool ok = ReferenceDecode(in, in + size, runs, base, end, edges, expected);
  FUZZ_CHECK(ok == status.ok(), "DecodeRuns and the reference decoder disagree on success");
  FUZZ_CHECK(seen == expected, "DecodeRuns and the reference decoder report different runs");
}

void RoundTrip(const uint8_t* in, size_t size, uint32_t base) {
  std::vector<SourceRun> runs;
  uint64_t source = base, edges = 0;
  for (size_t i = 0; i + 4 <= size; i += 4) {
    uint64_t step = Load<uint16_t>(in + i) & 0x7fff;
    if (in[i + 1] & 0x80) step <<= 16;
    uint64_t count = (Load<uint16_t>(in + i + 2) & 0x7fff) + uint64_t{1};
    if (in[i + 3] & 0x80) count <<= 16;
    if (!runs.empty() && step == 0) step = 1;
    if (source + step >= kNoVertex || count > UINT32_MAX) break;
    source += step;
    runs.push_back({static_cast<uint32_t>(source), static_cast<uint32_t>(count)});
    edges += count;
  }
  const uint32_t end = runs.empty() ? base : runs.back().source + 1;
  std::vector<uint8_t> encoded(MaxEncodedRunBytes(runs.size()));
  const size_t bytes = EncodeRuns(runs.data(), runs.size(), base, encoded.data());
  FUZZ_CHECK(bytes <= encoded.size(), "EncodeRuns wrote more than MaxEncodedRunBytes");
  size_t i = 0;
  const RunDecodeStatus status = DecodeRuns(
      encoded.data(), encoded.data() + bytes, runs.size(), base, end == base ? base + 1 : end,
      edges, [&](uint32_t s, uint64_t count) {
        FUZZ_CHECK(i < runs.size() && runs[i].source == s && runs[i].count == count,
                   "the round trip changed a run");
        ++i;
      });
  FUZZ_CHECK(status.ok() && i == runs.size(), "the round trip fails to decode");
}

}  // namespace
}  // namespace needle::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace needle::fuzz;
  ByteReader r(data, size);
  const uint32_t runs = r.Take<uint32_t>();
  const uint32_t base = r.Take<uint32_t>();
  const uint32_t end = r.Take<uint32_t>();
  const uint64_t edges = r.Take<uint64_t>();
  const std::span<const uint8_t> bytes = r.Rest();
  // Exactly the bytes, in a buffer of their own: ASan sees a read past them.
  std::vector<uint8_t> copy(bytes.begin(), bytes.end());
  DecodeArbitrary(copy.data(), copy.size(), runs, base, end, edges);
  RoundTrip(copy.data(), copy.size(), base);
  return 0;
}
