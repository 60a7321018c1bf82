// The input format of the `shardset` fuzz target: a whole shard set directory in one byte
// string, in a form whose structure libFuzzer's mutations can change (a file's bytes, its
// length, its name, a file added or dropped) without wasting them on the 4 KiB zero padding
// every shard file carries.
//
//   byte 0        flags (shardset_fuzz.cc says what each bit does)
//   then entries  name length (u8, 1..255; 0 or the end of the input ends the list),
//                 the name, the encoded length (u16 LE, clipped to what is left),
//                 the encoded contents
//
// Contents are encoded with zero runs collapsed (zero_runs.h), except the manifest's, which are
// stored as they are (so at most 65535 bytes). Names keep [A-Za-z0-9._-] and
// map any other byte to '_'; "." and ".." are dropped. Decoding is total (any byte string
// decodes to some directory), bounded by kMaxFileBytes per file and kMaxSetBytes in all. Used by the target (DecodeArchive) and the seed generator
// (EncodeArchive).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/zero_runs.h"

namespace needle::fuzz {

inline constexpr uint64_t kMaxSetBytes = uint64_t{1} << 20;
// Stored as it is: the manifest is text, without zero padding. (Zero runs in it would only let
// a mutation grow it to a line of 256 KiB of zeros, which costs the parser much and tests
// nothing the `manifest` target does not.)
inline constexpr std::string_view kRawName = "manifest";

struct Archive {
  uint8_t flags = 0;
  std::map<std::string, std::vector<uint8_t>> files;  // name → contents
};

NEEDLE_FUZZ_NO_COVERAGE inline Archive DecodeArchive(const uint8_t* data, size_t size) {
  Archive a;
  if (size == 0) return a;
  a.flags = data[0];
  const uint8_t* p = data + 1;
  const uint8_t* end = data + size;
  uint64_t budget = kMaxSetBytes;
  while (p < end) {
    const size_t name_len = *p++;
    if (name_len == 0 || static_cast<size_t>(end - p) < name_len) break;
    std::string name(reinterpret_cast<const char*>(p), name_len);
    p += name_len;
    for (char& c : name) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-';
      if (!ok) c = '_';
    }
    size_t enc_len = 0;
    if (end - p >= 2) {
      enc_len = p[0] | (size_t{p[1]} << 8);
      p += 2;
    } else {
      p = end;
    }
    enc_len = std::min(enc_len, static_cast<size_t>(end - p));
    std::vector<uint8_t> contents =
        name == kRawName ? std::vector<uint8_t>(p, p + enc_len)
                         : DecodeZeroRuns(p, p + enc_len, std::min(budget, kMaxFileBytes));
    budget -= contents.size();
    p += enc_len;
    if (name == "." || name == "..") continue;
    a.files[name] = std::move(contents);
  }
  return a;
}

// False when a name or an encoded file does not fit the format (name ≤ 255 bytes, encoded
// contents ≤ 65535 bytes).
inline bool EncodeArchive(const Archive& a, std::vector<uint8_t>& out) {
  out.clear();
  out.push_back(a.flags);
  for (const auto& [name, contents] : a.files) {
    if (name.empty() || name.size() > 255) return false;
    std::vector<uint8_t> enc;
    if (name == kRawName) {
      enc = contents;
    } else {
      EncodeZeroRuns(contents, enc);
    }
    if (enc.size() > 0xffff) return false;
    out.push_back(static_cast<uint8_t>(name.size()));
    out.insert(out.end(), name.begin(), name.end());
    out.push_back(static_cast<uint8_t>(enc.size() & 0xff));
    out.push_back(static_cast<uint8_t>(enc.size() >> 8));
    out.insert(out.end(), enc.begin(), enc.end());
  }
  return true;
}

}  // namespace needle::fuzz
