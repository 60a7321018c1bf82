// Manifest: the self-description of a shard set — what it was built from, with which
// options, its counts and intervals, and every file with its size and XXH3-64 digest.
//
// Text, one `key value...` per line, opening with "needle-shards <version>" and closing with
// "manifest-hash <hex>" over all the bytes before that line. The choices added after version 1
// was first written ("symmetrize 1", "interval-costs IN OUT VERTEX") appear only when they are
// not the default, and a manifest without them has the defaults: a set sharded with default
// choices has the same manifest as before they existed (and stays reusable), while an older
// needle refuses a set that needs them (an unknown key) instead of misreading it. It is written
// last, under a temporary name, fsynced and renamed into place, so its presence means the set is
// complete.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shards/intervals.h"

namespace needle {

// 2: the scatter index files (scatter-PPPP.idx) joined the set; a version-1 set is rebuilt.
inline constexpr uint32_t kManifestVersion = 2;

// Identifies an input file's content cheaply: size, modification time, and the hash of its
// first 64 KiB.
struct InputFingerprint {
  std::string path;  // absolute
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t head_hash = 0;
  static InputFingerprint Of(const std::string& path);  // throws Error
  // Empty when equal, else why not (e.g. "the input's size changed (10 → 12 bytes)").
  std::string DifferenceFrom(const InputFingerprint& other) const;
};

// The options that change what the sharder writes.
struct ShardingChoices {
  uint64_t memory_bytes = 0;
  std::string format = "auto";
  std::string weights = "auto";
  bool symmetrize = false;  // every edge u->v also sharded as v->u (a self-loop once)
  IntervalCosts costs;      // the per-edge and per-vertex bytes the intervals were planned with
  // Empty when equal, else why not, from this side: e.g. "symmetrize differs: it was built
  // without --symmetrize".
  std::string DifferenceFrom(const ShardingChoices& other) const;
};

struct ManifestFile {
  std::string name;  // relative to the shard set directory
  uint64_t size = 0;
  uint64_t digest = 0;  // XXH3-64 of the whole file
};

struct Manifest {
  uint32_t version = kManifestVersion;
  InputFingerprint input;
  ShardingChoices choices;
  uint64_t num_vertices = 0;
  uint64_t num_edges = 0;
  bool weighted = false;
  std::vector<uint32_t> bounds;  // interval bounds, num_intervals + 1 entries
  std::vector<ManifestFile> files;

  uint32_t num_intervals() const { return static_cast<uint32_t>(bounds.size() - 1); }
  std::string Serialize() const;
  // Throws Error naming `path` and the line for anything malformed or a newer version.
  static Manifest Parse(const std::string& path, std::string_view text);
};

// Writes dir/manifest atomically (temporary name, fsync, rename, fsync of dir).
void WriteManifest(const Manifest& manifest, const std::string& dir);
// Reads and parses dir/manifest. Throws Error (missing: "not a shard set: no manifest").
Manifest ReadManifest(const std::string& dir);

}  // namespace needle
