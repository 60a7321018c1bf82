#include "shards/shard_set.h"

#include <sys/stat.h>

#include <cstring>
#include <exception>
#include <mutex>

#include "loaders/error.h"
#include "loaders/parallel.h"
#include "loaders/unique_fd.h"
#include "shards/hashing_writer.h"
#include "shards/io_backend.h"

namespace needle {

ShardSet ShardSet::Open(const std::string& dir, bool verify_digests) {
  ShardSet set;
  set.dir_ = dir;
  set.manifest_ = ReadManifest(dir);
  const Manifest& m = set.manifest_;
  const uint32_t shards = m.num_intervals();
  // Every file the manifest names, with its size; then the digests, in parallel.
  for (const ManifestFile& f : m.files) {
    const std::string path = dir + "/" + f.name;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) throw Error(path, "shard set file is missing", errno);
    if (static_cast<uint64_t>(st.st_size) != f.size) {
      throw Error(path, "shard set file has " + std::to_string(st.st_size) +
                            " bytes, the manifest says " + std::to_string(f.size));
    }
  }
  if (verify_digests) {
    ParallelFor(m.files.size(), 0, [&](uint64_t i) {
      const std::string path = dir + "/" + m.files[i].name;
      if (FileDigest(path) != m.files[i].digest) {
        throw Error(path, "checksum mismatch: the file is corrupt (rebuild the shard set)");
      }
    });
  }
  for (uint32_t p = 0; p < shards; ++p) {
    bool listed_adj = false, listed_val = false;
    for (const ManifestFile& f : m.files) {
      listed_adj |= f.name == ShardFileName(p, ".adj");
      listed_val |= f.name == ShardFileName(p, ".val");
    }
    if (!listed_adj || !listed_val)
      throw Error(dir + "/manifest", "does not list shard " + std::to_string(p));
    const std::string path = set.AdjacencyPath(p);
    UniqueFd fd = OpenForReading(path);
    ShardFileHeader h{};
    ReadFully(fd.get(), path, &h, sizeof(h), 0);
    if (std::memcmp(h.magic, kShardMagic, sizeof(kShardMagic)) != 0) {
      throw Error::AtByte(path, 0, "wrong magic: not a needle shard file");
    }
    if (h.version != kShardFormatVersion || h.shard != p) {
      throw Error::AtByte(path, 8, "shard file version or index does not match the manifest");
    }
    set.headers_.push_back(h);
  }
  const std::string windows = dir + "/" + kWindowsName;
  UniqueFd fd = OpenForReading(windows);
  set.windows_.resize(static_cast<size_t>(shards) * (shards + 1));
  const uint64_t bytes = set.windows_.size() * sizeof(WindowEntry);
  if (FileSize(fd.get(), windows) < bytes) throw Error(windows, "window index is too short");
  ReadFully(fd.get(), windows, set.windows_.data(), bytes, 0);
  uint64_t edges = 0;
  for (uint32_t p = 0; p < shards; ++p) {
    const WindowEntry& total = set.Window(p, shards);
    if (total.first_edge != set.headers_[p].num_edges ||
        total.first_run != set.headers_[p].num_runs) {
      throw Error(windows, "window index disagrees with shard " + std::to_string(p));
    }
    edges += total.first_edge;
  }
  if (edges != m.num_edges) throw Error(dir + "/manifest", "edge count disagrees with the shards");
  // The scatter indexes' offsets: P + 1 per interval, ascending, within the file.
  set.scatter_offsets_.resize(static_cast<size_t>(shards) * (shards + 1));
  for (uint32_t p = 0; p < shards; ++p) {
    const std::string name = ScatterIndexName(p);
    bool listed = false;
    for (const ManifestFile& f : m.files) listed |= f.name == name;
    if (!listed) throw Error(dir + "/manifest", "does not list " + name);
    const std::string path = set.ScatterIndexPath(p);
    UniqueFd index = OpenForReading(path);
    uint64_t* offsets = set.scatter_offsets_.data() + static_cast<size_t>(p) * (shards + 1);
    const uint64_t header = 8 * (uint64_t{shards} + 1);
    const uint64_t size = FileSize(index.get(), path);
    if (size < header) throw Error(path, "scatter index is too short for its offsets");
    ReadFully(index.get(), path, offsets, header, 0);
    for (uint32_t q = 0; q <= shards; ++q) {
      const uint64_t low = q == 0 ? header : offsets[q - 1];
      if (offsets[q] < low || offsets[q] > size || (q == 0 && offsets[q] != header)) {
        throw Error::AtByte(path, 8 * uint64_t{q}, "scatter index offsets out of order");
      }
    }
  }
  return set;
}

std::string ShardSet::AdjacencyPath(uint32_t shard) const {
  return dir_ + "/" + ShardFileName(shard, ".adj");
}
std::string ShardSet::ValuesPath(uint32_t shard) const {
  return dir_ + "/" + ShardFileName(shard, ".val");
}
std::string ShardSet::DegreesPath() const { return dir_ + "/" + kDegreesName; }
std::string ShardSet::ScatterIndexPath(uint32_t interval) const {
  return dir_ + "/" + ScatterIndexName(interval);
}

uint64_t ShardSet::BytesOf(const std::string& suffix) const {
  uint64_t total = 0;
  for (const ManifestFile& f : manifest_.files) {
    if (f.name.size() >= suffix.size() &&
        f.name.compare(f.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      total += f.size;
    }
  }
  return total;
}

void EvictShardSet(const std::string& dir) {
  const Manifest m = ReadManifest(dir);
  for (const ManifestFile& f : m.files) EvictFromPageCache(dir + "/" + f.name);
  EvictFromPageCache(dir + "/" + kManifestName);
}

}  // namespace needle
