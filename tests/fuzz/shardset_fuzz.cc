// Fuzz target `shardset`: opening a shard set directory (ShardSet::Open, with and without
// verifying digests) and, when it opens, running the engine over it for a few iterations.
//
// Input: a shard set directory as an archive (shard_archive.h), whose flag byte says:
//   bit 0: keep the file sizes the manifest lists (else each listed file that exists gets its
//          real size)
//   bit 1: keep the digests the manifest lists (else each listed file that exists gets its
//          real XXH3-64)
//   bit 2: keep the manifest's "manifest-hash" line (else it is recomputed over the manifest
//          with the sizes and digests above)
//   bit 3: skip the engine (it costs several times the rest: see docs/fuzzing.md)
//   bit 4: engine with 2 threads (else 1)
//   bit 5: engine with vertex values in a file (values_in_memory = false)
// The seed corpus holds archives of valid sets (tests/fuzz/make_seeds.cc), so with the flags 0
// a mutation of one file's bytes reaches the checks behind the checksums.
//
// The directory is written to a private scratch directory; then ShardSet::Open(dir, true) and
// ShardSet::Open(dir, false), and, when the set opens and bit 3 is clear, Engine over it with
// connected components (apps/programs/connected_components.h), the pread backend, a 64 MiB
// budget and at most 3 iterations.
//
// Expected outcomes: needle::Error (a bad set), std::invalid_argument (the engine's budget
// check). Checks: a set that opens with verified digests also opens without verifying; after
// the engine, every vertex has a value and no label is above its vertex's id (connected
// components only takes minima starting from the id, whatever the edges say).
#include <xxhash.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/programs/connected_components.h"
#include "base/error.h"
#include "engine/engine.h"
#include "shards/shard_set.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/shard_archive.h"

namespace needle::fuzz {
namespace {

constexpr uint8_t kKeepSizes = 1, kKeepDigests = 2, kKeepHash = 4, kNoEngine = 8,
                  kTwoThreads = 16, kValuesInFile = 32;

std::string Hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64, v);
  return buf;
}

// The manifest with the sizes and digests of the files it lists rewritten from the archive,
// and its hash line recomputed, as the flags ask.
NEEDLE_FUZZ_NO_COVERAGE std::string FixManifest(const std::string& text, const Archive& a) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    const bool has_nl = nl != std::string::npos;
    if (!has_nl) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    std::vector<std::string> t;
    if (line.starts_with("file")) {
      std::istringstream in(line);
      for (std::string token; in >> token;) t.push_back(token);
    }
    if (t.size() == 4 && t[0] == "file") {
      const auto it = a.files.find(t[1]);
      if (it != a.files.end()) {
        if (!(a.flags & kKeepSizes)) t[2] = std::to_string(it->second.size());
        if (!(a.flags & kKeepDigests)) t[3] = Hex(XXH3_64bits(it->second.data(), it->second.size()));
        line = "file " + t[1] + " " + t[2] + " " + t[3];
      }
    }
    out += line;
    if (has_nl) out += '\n';
  }
  if (a.flags & kKeepHash) return out;
  // Everything from the last line that starts with "manifest-hash " is replaced.
  constexpr std::string_view kKey = "manifest-hash ";
  size_t at = out.size();
  for (size_t p = out.rfind(kKey); p != std::string::npos;
       p = p == 0 ? std::string::npos : out.rfind(kKey, p - 1)) {
    if (p == 0 || out[p - 1] == '\n') {
      at = p;
      break;
    }
  }
  out.resize(at);
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out + std::string(kKey) + Hex(XXH3_64bits(out.data(), out.size())) + "\n";
}

void RunEngine(const ShardSet& set, uint8_t flags, bool verbose) {
  EngineOptions options;
  options.memory_bytes = uint64_t{64} << 20;
  options.max_iterations = 3;
  options.threads = (flags & kTwoThreads) ? 2 : 1;
  options.io.kind = IoKind::kPread;
  options.values_in_memory = !(flags & kValuesInFile);
  try {
    Engine<apps::ConnectedComponents> engine(set, apps::ConnectedComponents{}, options);
    engine.Run();
    const std::vector<uint32_t> labels = engine.Values();
    FUZZ_CHECK(labels.size() == set.manifest().num_vertices, "a label per vertex");
    // A vertex starts with its own id and only ever takes a minimum, whatever edges it hears
    // on: a label above the id means values moved between vertices.
    for (size_t v = 0; v < labels.size(); ++v) {
      FUZZ_CHECK(labels[v] <= v, "a component label above its vertex's id");
    }
    if (verbose) std::fprintf(stderr, "engine: ran\n");
  } catch (const Error& e) {
    if (verbose) std::fprintf(stderr, "engine: %s\n", e.what());
  } catch (const std::invalid_argument& e) {  // the budget cannot hold an interval
    if (verbose) std::fprintf(stderr, "engine budget: %s\n", e.what());
  }
}

}  // namespace
}  // namespace needle::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace needle;
  using namespace needle::fuzz;
  namespace fs = std::filesystem;
  Archive archive = DecodeArchive(data, size);
  if (auto it = archive.files.find(kManifestName); it != archive.files.end()) {
    const std::string fixed =
        FixManifest(std::string(it->second.begin(), it->second.end()), archive);
    it->second.assign(fixed.begin(), fixed.end());
  }
  const std::string dir = ScratchDir() + "/set";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& [name, contents] : archive.files) WriteFileOrDie(dir + "/" + name, contents);

  static const bool verbose = std::getenv("NEEDLE_FUZZ_VERBOSE") != nullptr;
  std::optional<ShardSet> verified, unverified;
  try {
    verified = ShardSet::Open(dir, true);
  } catch (const Error& e) {
    if (verbose) std::fprintf(stderr, "verified open: %s\n", e.what());
  }
  try {
    unverified = ShardSet::Open(dir, false);
  } catch (const Error& e) {
    if (verified || verbose) std::fprintf(stderr, "unverified open: %s\n", e.what());
    FUZZ_CHECK(!verified, "a set that opens verified fails to open unverified");
  }
  if (unverified && !(archive.flags & kNoEngine)) RunEngine(*unverified, archive.flags, verbose);
  return 0;
}
