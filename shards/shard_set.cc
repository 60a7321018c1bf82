#include "shards/shard_set.h"

#include <sys/stat.h>
#include <xxhash.h>

#include <cstddef>
#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>

#include "base/error.h"
#include "base/parallel.h"
#include "base/types.h"
#include "base/unique_fd.h"
#include "io/io_backend.h"
#include "shards/hashing_writer.h"
#include "shards/intervals.h"
#include "shards/run_codec.h"
#include "shards/set_lock.h"

namespace needle {

namespace {

// a + b and a * b, or an Error naming `path` when they overflow.
uint64_t Add(const std::string& path, uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw Error(path, "sizes in the header overflow");
  return r;
}
uint64_t Mul(const std::string& path, uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw Error(path, "sizes in the header overflow");
  return r;
}

// Shard p's header: its own magic, the set's version (the manifest's) and its own index, and
// a targets section that lies where the layout puts it and fills a file of the size the
// manifest lists; in a weighted set, a value file of one float per edge.
ShardFileHeader ReadShardHeader(const std::string& path, uint32_t p, uint32_t begin, uint32_t end,
                                uint64_t adj_size, const ManifestFile* values) {
  UniqueFd fd = OpenForReading(path);
  ShardFileHeader h{};
  if (adj_size < sizeof(h)) throw Error::AtByte(path, 0, "too short for a shard header");
  ReadFully(fd.get(), path, &h, sizeof(h), 0);
  if (std::memcmp(h.magic, kShardMagic, sizeof(kShardMagic)) != 0) {
    throw Error::AtByte(path, 0, "wrong magic: not a needle shard file");
  }
  if (h.version != kShardFormatVersion) {
    throw Error::AtByte(path, offsetof(ShardFileHeader, version),
                        "shard file of format version " + std::to_string(h.version) +
                            " in a set whose manifest says " + std::to_string(kShardFormatVersion) +
                            ": the set is corrupt (rebuild it)");
  }
  if (h.shard != p) {
    throw Error::AtByte(path, offsetof(ShardFileHeader, shard),
                        "shard file index " + std::to_string(h.shard) +
                            " does not match the manifest (" + std::to_string(p) + ")");
  }
  if (h.first_vertex != begin || h.end_vertex != end) {
    throw Error::AtByte(path, offsetof(ShardFileHeader, first_vertex),
                        "the shard holds interval [" + std::to_string(h.first_vertex) + ", " +
                            std::to_string(h.end_vertex) + "), the manifest says [" +
                            std::to_string(begin) + ", " + std::to_string(end) + ")");
  }
  if (h.reserved != 0 || h.reserved_end != 0) {
    throw Error::AtByte(path,
                        h.reserved != 0 ? offsetof(ShardFileHeader, reserved)
                                        : offsetof(ShardFileHeader, reserved_end),
                        "a reserved header field is not zero");
  }
  const uint64_t targets_end = Add(path, h.targets_pos, Mul(path, h.num_edges, sizeof(VertexId)));
  if (h.num_runs > h.num_edges || (h.num_edges > 0 && h.num_runs == 0)) {
    throw Error::AtByte(
        path, offsetof(ShardFileHeader, num_runs),
        std::to_string(h.num_runs) + " runs cannot hold " + std::to_string(h.num_edges) + " edges");
  }
  if (h.targets_pos != kShardAlignment || ShardAlignUp(targets_end) != adj_size) {
    throw Error::AtByte(path, offsetof(ShardFileHeader, targets_pos),
                        "the targets section does not lie where the layout puts it in a file of " +
                            std::to_string(adj_size) + " bytes");
  }
  if (values != nullptr && ShardAlignUp(Mul(path, h.num_edges, sizeof(float))) != values->size) {
    throw Error(path, "its value file has " + std::to_string(values->size) + " bytes, not " +
                          std::to_string(ShardAlignUp(h.num_edges * sizeof(float))) + " for " +
                          std::to_string(h.num_edges) + " edges");
  }
  return h;
}

}  // namespace

ShardSet ShardSet::Open(const std::string& dir, bool verify_digests) {
  ShardSet set;
  set.dir_ = dir;
  if (!std::filesystem::is_directory(dir)) {
    throw Error(dir, "not a shard set: not a directory with a manifest");
  }
  set.lock_ = LockSetForReading(dir);
  set.manifest_ = ReadManifest(dir);  // every file listed once, windows.idx and degrees.bin sized
  const Manifest& m = set.manifest_;
  const uint32_t shards = m.num_intervals();
  // Every file the manifest names, with its size; then the digests, in parallel.
  for (const ManifestFile& f : m.files) {
    const std::string path = dir + "/" + f.name;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) throw Error(path, "shard set file is missing", errno);
    if (!S_ISREG(st.st_mode)) throw Error(path, "shard set file is not a regular file");
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
  // Structure: checked whether or not the digests were, so that nothing below (nor the
  // engine) reads or writes outside what the files hold.
  uint64_t edges = 0;
  for (uint32_t p = 0; p < shards; ++p) {
    const std::string adj = ShardFileName(p, ".adj");
    // Manifest::Parse has made sure a weighted set lists the value files and no other does.
    set.headers_.push_back(ReadShardHeader(dir + "/" + adj, p, m.bounds[p], m.bounds[p + 1],
                                           m.File(adj)->size, m.File(ShardFileName(p, ".val"))));
    edges = Add(dir + "/" + adj, edges, set.headers_.back().num_edges);
  }
  if (edges != m.num_edges) {
    throw Error(dir + "/" + kManifestName, "edge count " + std::to_string(m.num_edges) +
                                               " disagrees with the shards' " +
                                               std::to_string(edges));
  }
  // The window index: read whole (its size follows from the interval count, checked by the
  // manifest), so its digest is always checked — it is small and every window read and
  // written depends on it.
  const std::string windows = dir + "/" + kWindowsName;
  UniqueFd fd = OpenForReading(windows);
  set.windows_.resize(static_cast<size_t>(shards) * (shards + 1));
  const uint64_t entry_bytes = set.windows_.size() * sizeof(WindowEntry);
  std::vector<std::byte> padding(m.File(kWindowsName)->size - entry_bytes);  // < 4 KiB
  ReadFully(fd.get(), windows, set.windows_.data(), entry_bytes, 0);
  ReadFully(fd.get(), windows, padding.data(), padding.size(), entry_bytes);
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, set.windows_.data(), entry_bytes);
  XXH3_64bits_update(state, padding.data(), padding.size());
  const uint64_t digest = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  if (digest != m.File(kWindowsName)->digest) {
    throw Error(windows, "checksum mismatch: the file is corrupt (rebuild the shard set)");
  }
  for (uint32_t p = 0; p < shards; ++p) {
    // From (0, 0), runs and edges never decrease, a window with edges has runs and no more
    // runs than edges, and the last entry holds the shard's totals.
    const ShardFileHeader& h = set.headers_[p];
    for (uint32_t q = 0; q <= shards; ++q) {
      const WindowEntry& w = set.Window(p, q);
      const WindowEntry previous = q == 0 ? WindowEntry{0, 0} : set.Window(p, q - 1);
      const bool ok = w.first_run >= previous.first_run && w.first_edge >= previous.first_edge &&
                      w.first_run - previous.first_run <= w.first_edge - previous.first_edge &&
                      (w.first_edge == previous.first_edge || w.first_run > previous.first_run) &&
                      (q > 0 || (w.first_run == 0 && w.first_edge == 0)) &&
                      (q < shards || (w.first_run == h.num_runs && w.first_edge == h.num_edges));
      if (!ok) {
        throw Error::AtByte(windows,
                            (static_cast<uint64_t>(p) * (shards + 1) + q) * sizeof(WindowEntry),
                            "window index entry (shard " + std::to_string(p) + ", interval " +
                                std::to_string(q) + ") disagrees with its neighbours or shard");
      }
    }
  }
  // The scatter indexes' offsets: P + 1 per interval, from the end of the offsets, ascending,
  // within the file, and each window's bytes room for its runs (2 to 10 bytes a run).
  set.scatter_offsets_.resize(static_cast<size_t>(shards) * (shards + 1));
  for (uint32_t p = 0; p < shards; ++p) {
    const std::string path = set.ScatterIndexPath(p);
    uint64_t* offsets = set.scatter_offsets_.data() + static_cast<size_t>(p) * (shards + 1);
    const uint64_t header = 8 * (uint64_t{shards} + 1);
    const uint64_t size = m.File(ScatterIndexName(p))->size;
    if (size < header) throw Error(path, "scatter index is too short for its offsets");
    UniqueFd index = OpenForReading(path);
    ReadFully(index.get(), path, offsets, header, 0);
    for (uint32_t q = 0; q <= shards; ++q) {
      const uint64_t low = q == 0 ? header : offsets[q - 1];
      if (offsets[q] < low || offsets[q] > size || (q == 0 && offsets[q] != header) ||
          (q == shards && ShardAlignUp(offsets[q]) != size)) {
        throw Error::AtByte(path, 8 * uint64_t{q}, "scatter index offsets out of order");
      }
      if (q == shards) break;
      const uint64_t runs = set.Window(q, p + 1).first_run - set.Window(q, p).first_run;
      const uint64_t bytes = offsets[q + 1] >= offsets[q] ? offsets[q + 1] - offsets[q] : 0;
      if (offsets[q + 1] >= offsets[q] && (bytes < 2 * runs || bytes > MaxEncodedRunBytes(runs))) {
        throw Error::AtByte(path, 8 * uint64_t{q},
                            "scatter index window of shard " + std::to_string(q) + " has " +
                                std::to_string(bytes) + " bytes for " + std::to_string(runs) +
                                " runs");
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

uint64_t ShardSet::EngineBytes(uint64_t memory_bytes) const {
  const uint32_t n = num_intervals();
  std::vector<uint64_t> out(n, 0), in(n, 0);
  for (uint32_t p = 0; p < n; ++p) {
    in[p] = Window(p, n).first_edge - Window(p, 0).first_edge;
    for (uint32_t r = 0; r < n; ++r) {
      out[r] += Window(p, r + 1).first_edge - Window(p, r).first_edge;
    }
  }
  return EngineBytesOfCut(manifest_.bounds, out, in, memory_bytes, manifest_.choices.costs,
                          weighted());
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

std::vector<VertexId> ShardSet::InputIds() const {
  if (!reordered()) return {};
  const std::string path = dir_ + "/" + kOrderName;
  const ManifestFile* file = manifest_.File(kOrderName);
  const uint64_t n = manifest_.num_vertices;
  // Read once, padding and all (its size, a multiple of 4 KiB, checked by Open), hashed as
  // read, then cut to the vertices.
  std::vector<VertexId> ids(file->size / sizeof(VertexId));
  UniqueFd fd = OpenForReading(path);
  ReadFully(fd.get(), path, ids.data(), file->size, 0);
  if (XXH3_64bits(ids.data(), file->size) != file->digest) {
    throw Error(path, "checksum mismatch: the file is corrupt (rebuild the shard set)");
  }
  ids.resize(n);
  std::vector<bool> seen(n, false);
  for (uint64_t v = 0; v < n; ++v) {
    if (ids[v] >= n || seen[ids[v]]) {
      throw Error::AtByte(path, v * sizeof(VertexId),
                          "input id " + std::to_string(ids[v]) +
                              (ids[v] >= n ? " is not a vertex" : " appears twice") +
                              ": the order is not a permutation of the vertices");
    }
    seen[ids[v]] = true;
  }
  return ids;
}

void EvictShardSet(const std::string& dir) {
  const Manifest m = ReadManifest(dir);
  for (const ManifestFile& f : m.files) EvictFromPageCache(dir + "/" + f.name);
  EvictFromPageCache(dir + "/" + kManifestName);
}

}  // namespace needle
