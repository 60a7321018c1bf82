// Fuzz target `manifest`: Manifest::Parse, the text that describes a shard set.
//
// Input: the manifest's text. It is parsed twice: as it is (which mostly exercises the
// checksum check), and with its trailing "manifest-hash <hex>" line recomputed — everything
// from the last "manifest-hash " that starts a line is replaced by a line holding XXH3-64 of the
// bytes before it (appended when there is none) — so that mutations reach the structure checks.
//
// Checks: a manifest that parses describes intervals that start at 0, never decrease and end
// at the vertex count; and it survives a round trip: Parse(Serialize(m)) succeeds and gives m
// again (compared as Serialize(Parse(Serialize(m))) == Serialize(m), which covers every field).
#include <xxhash.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "base/error.h"
#include "shards/manifest.h"
#include "tests/fuzz/fuzz_util.h"

namespace needle::fuzz {
namespace {

constexpr std::string_view kHashKey = "manifest-hash ";

// The text with its hash line recomputed.
NEEDLE_FUZZ_NO_COVERAGE std::string WithHash(std::string_view text) {
  size_t at = text.size();
  for (size_t p = text.rfind(kHashKey); p != std::string_view::npos;
       p = p == 0 ? std::string_view::npos : text.rfind(kHashKey, p - 1)) {
    if (p == 0 || text[p - 1] == '\n') {
      at = p;
      break;
    }
  }
  std::string out(text.substr(0, at));
  if (!out.empty() && out.back() != '\n') out += '\n';
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016" PRIx64, XXH3_64bits(out.data(), out.size()));
  return out + std::string(kHashKey) + hex + "\n";
}

void ParseAndCheck(std::string_view text) {
  Manifest m;
  try {
    m = Manifest::Parse("fuzz/manifest", text);
  } catch (const Error&) {
    return;
  }
  FUZZ_CHECK(m.bounds.size() >= 2, "a manifest without intervals");
  FUZZ_CHECK(m.bounds.front() == 0 && m.bounds.back() == m.num_vertices,
             "intervals do not cover the vertices");
  for (size_t i = 0; i + 1 < m.bounds.size(); ++i) {
    FUZZ_CHECK(m.bounds[i] <= m.bounds[i + 1], "intervals decrease");
  }
  const std::string again = m.Serialize();
  Manifest m2;
  try {
    m2 = Manifest::Parse("fuzz/manifest", again);
  } catch (const Error& e) {
    std::fprintf(stderr, "re-parse: %s\n", e.what());
    FUZZ_CHECK(false, "Parse refuses what Serialize wrote of a manifest it accepted");
  }
  // Compared through Serialize, which writes every field, so that fields added later are
  // compared too.
  FUZZ_CHECK(m2.Serialize() == again, "Parse(Serialize(m)) differs from m");
}

}  // namespace
}  // namespace needle::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  needle::fuzz::ParseAndCheck(text);
  needle::fuzz::ParseAndCheck(needle::fuzz::WithHash(text));
  return 0;
}
