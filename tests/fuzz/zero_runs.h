// Zero runs collapsed: the encoding of inputs whose formats pad to 4 KiB with zeros (a .csr
// image, shard set files), so that a fuzz input holds what matters and libFuzzer's mutations
// are not spent on padding, while they can still grow or shrink the padding.
//
// A byte other than 0 stands for itself; a 0 is followed by a LEB128 varint v of at most
// 3 bytes and stands for v + 1 zero bytes (a 0 at the very end stands for one zero). Decoding
// is total: any byte string decodes to something, at most `max_bytes` long.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tests/fuzz/fuzz_util.h"

namespace needle::fuzz {

inline constexpr uint64_t kMaxFileBytes = uint64_t{256} << 10;

NEEDLE_FUZZ_NO_COVERAGE inline std::vector<uint8_t> DecodeZeroRuns(const uint8_t* p, const uint8_t* end,
                                           uint64_t max_bytes = kMaxFileBytes) {
  std::vector<uint8_t> out;
  while (p < end && out.size() < max_bytes) {
    const uint8_t b = *p++;
    if (b != 0) {
      out.push_back(b);
      continue;
    }
    uint64_t v = 0;
    for (int shift = 0; shift < 21 && p < end; shift += 7) {
      const uint8_t x = *p++;
      v |= uint64_t{x & 0x7fu} << shift;
      if (x < 0x80) break;
    }
    out.insert(out.end(), std::min<uint64_t>(v + 1, max_bytes - out.size()), 0);
  }
  return out;
}

inline void EncodeZeroRuns(const std::vector<uint8_t>& in, std::vector<uint8_t>& out) {
  for (size_t i = 0; i < in.size();) {
    if (in[i] != 0) {
      out.push_back(in[i++]);
      continue;
    }
    size_t run = 0;
    while (i + run < in.size() && in[i + run] == 0 && run < (size_t{1} << 21)) ++run;
    out.push_back(0);
    uint64_t v = run - 1;
    do {
      out.push_back(static_cast<uint8_t>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
      v >>= 7;
    } while (v != 0);
    i += run;
  }
}

}  // namespace needle::fuzz
