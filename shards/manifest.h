// Manifest: the self-description of a shard set — what it was built from, with which
// options, its counts and intervals, and every file with its size and XXH3-64 digest.
//
// Text, one `key value...` per line, opening with "needle-shards <version>" and closing with
// "manifest-hash <hex>" over all the bytes before that line. The choices added after version 1
// was first written ("symmetrize 1", "interval-costs IN OUT VERTEX", "order bfs") appear only
// when they are
// not the default, and a manifest without them has the defaults: a set sharded with default
// choices has the same manifest as before they existed (and stays reusable), while an older
// needle refuses a set that needs them (an unknown key) instead of misreading it. It is written
// last, under a temporary name, fsynced and renamed into place, so its presence means the set is
// complete.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "loaders/format.h"
#include "shards/intervals.h"
#include "shards/shard_layout.h"

namespace needle {

// A manifest of a format version other than kShardFormatVersion (shard_layout.h), refused
// at its first line before anything else in it is trusted: the sharder rebuilds such a set,
// saying so (sharder.cc), and the message says how to rebuild it when a set is given by its
// directory.
class ShardFormatError : public Error {
 public:
  ShardFormatError(Error error, uint32_t version) : Error(std::move(error)), version_(version) {}
  uint32_t version() const { return version_; }  // the version the manifest declares

 private:
  uint32_t version_;
};

// The most intervals a set may have: its window index holds 16 B per pair of intervals
// (64 GiB at this many), and the engine a flag per pair.
inline constexpr uint64_t kMaxIntervals = uint64_t{1} << 16;

// What a shard set was built from: the input's absolute path, size, modification and change
// times, and a hash of its whole content (FileContentHash: XXH3-64 of every byte of a text
// input, compressed or not; the header hash of a .csr, which covers every section through
// its chunk hashes), taken by the sharder during its single read of the input.
struct InputFingerprint {
  std::string path;  // absolute
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;  // the inode's change time: any write or touch sets it to now
  uint64_t content_hash = 0;
  // Path, size and times of `path` (content_hash left 0); of a BVGraph, the sum of the sizes
  // of X.graph and X.properties and the later of their times. Throws Error.
  static InputFingerprint Stat(const std::string& path);
  // Whether path, size and both times are those of `other`.
  bool SameStat(const InputFingerprint& other) const;
};

// Why the input now at `now` (InputFingerprint::Stat) is not the one `built` describes, or
// empty when it is: a different path or size is a different input; the same times mean the
// same content (a change to a file sets its change time, which cannot be set back); otherwise
// the content is hashed (FileContentHash, as the sharder's `format` reads it) and compared, so
// a file edited and touched back to its old mtime is noticed, and a file whose times changed
// but whose bytes did not (copied back, touched) is still the same input.
std::string InputDifference(const InputFingerprint& built, const InputFingerprint& now,
                            GraphFormat format);

// The options that change what the sharder writes.
struct ShardingChoices {
  uint64_t memory_bytes = 0;
  std::string format = "auto";
  std::string weights = "auto";
  bool symmetrize = false;  // every edge u->v also sharded as v->u (a self-loop once)
  IntervalCosts costs;      // the per-edge and per-vertex bytes the intervals were planned with
  uint32_t intervals = 0;   // the number of intervals asked for (0: the fewest that fit)
  std::string order = "input";  // the vertices' numbering (vertex_order.h): "input" or "bfs"
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
  uint32_t version = kShardFormatVersion;
  std::string written_by;  // "needle X.Y.Z" that wrote the set (empty: older sets)
  InputFingerprint input;
  ShardingChoices choices;
  uint64_t num_vertices = 0;
  uint64_t num_edges = 0;
  bool weighted = false;
  std::vector<uint32_t> bounds;  // interval bounds, num_intervals + 1 entries
  std::vector<ManifestFile> files;

  uint32_t num_intervals() const { return static_cast<uint32_t>(bounds.size() - 1); }
  std::string Serialize() const;
  // Parses and checks what the text alone can tell: its hash, every key known and present
  // once, numbers in range, interval bounds increasing from 0 to the vertex count, every file
  // of the set (shard_layout.h: value files only when weighted) listed once under a plain name,
  // and the sizes of windows.idx and degrees.bin those counts imply. Throws Error naming `path`
  // and the line for anything malformed, ShardFormatError for another version.
  static Manifest Parse(const std::string& path, std::string_view text);
  // The entry of file `name`, or nullptr.
  const ManifestFile* File(std::string_view name) const;
};

// Writes dir/manifest atomically (temporary name, fsync, rename, fsync of dir).
void WriteManifest(const Manifest& manifest, const std::string& dir);
// Whether dir/manifest exists and opens as a needle shard set's ("needle-shards ..."), without
// parsing the rest: a directory of needle's.
bool HoldsNeedleManifest(const std::string& dir);

// Reads and parses dir/manifest. Throws Error (missing: "not a shard set: no manifest"), and
// ShardFormatError for a set of another format version, saying how to rebuild it.
Manifest ReadManifest(const std::string& dir);

}  // namespace needle
