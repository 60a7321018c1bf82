#include "loaders/csr_file.h"

#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "loaders/error.h"
#include "loaders/parallel.h"
#include "loaders/temp_file.h"

namespace needle {
namespace {

uint64_t AlignUp(uint64_t x) { return (x + kCsrAlignment - 1) / kCsrAlignment * kCsrAlignment; }
uint64_t Chunks(uint64_t bytes, uint64_t chunk) { return (bytes + chunk - 1) / chunk; }

uint64_t HeaderHash(const CsrFileHeader& header, const std::vector<uint64_t>& table) {
  CsrFileHeader copy = header;
  copy.header_hash = 0;
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, &copy, sizeof(copy));
  XXH3_64bits_update(state, table.data(), table.size() * sizeof(uint64_t));
  uint64_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return h;
}

struct Piece {
  const char* data;
  uint64_t pos;  // file offset
  uint64_t bytes;
};

// Branch-free scans (they vectorise): validation must not cost more than the checksums.
uint64_t FirstDecrease(const EdgeIndex* offsets, uint64_t first, uint64_t last) {
  uint64_t bad = 0;
  for (uint64_t v = first; v < last; ++v) bad |= static_cast<uint64_t>(offsets[v] > offsets[v + 1]);
  if (bad == 0) return last;
  uint64_t v = first;
  while (offsets[v] <= offsets[v + 1]) ++v;
  return v;
}

VertexId MaxOf(const VertexId* values, uint64_t count) {
  VertexId top[8] = {};
  uint64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    for (int k = 0; k < 8; ++k) top[k] = values[i + k] > top[k] ? values[i + k] : top[k];
  }
  for (; i < count; ++i) top[0] = values[i] > top[0] ? values[i] : top[0];
  return *std::max_element(top, top + 8);
}

}  // namespace

void WriteCsrFile(const Csr& csr, const std::string& path, int threads) {
  threads = threads > 0 ? threads : omp_get_max_threads();
  const uint64_t n = csr.num_vertices;
  const uint64_t m = csr.NumEdges();
  CsrFileHeader h{};
  std::memcpy(h.magic, kCsrMagic, sizeof(kCsrMagic));
  h.version = kCsrVersion;
  h.weight_type =
      static_cast<uint32_t>(csr.weighted ? CsrWeightType::kFloat32 : CsrWeightType::kNone);
  h.num_vertices = n;
  h.num_edges = m;
  h.chunk_bytes = kCsrChunkBytes;
  h.offsets_pos = kCsrAlignment;
  h.targets_pos = AlignUp(h.offsets_pos + (n + 1) * sizeof(EdgeIndex));
  uint64_t end = h.targets_pos + m * sizeof(VertexId);
  if (csr.weighted) {
    h.weights_pos = AlignUp(end);
    end = h.weights_pos + m * sizeof(Weight);
  }
  h.table_pos = AlignUp(end);

  std::vector<Piece> pieces;  // one per chunk, in table order
  auto add_section = [&](const void* data, uint64_t pos, uint64_t bytes) {
    for (uint64_t off = 0; off < bytes; off += kCsrChunkBytes) {
      pieces.push_back(Piece{static_cast<const char*>(data) + off, pos + off,
                             std::min(kCsrChunkBytes, bytes - off)});
    }
  };
  add_section(csr.offsets.data(), h.offsets_pos, (n + 1) * sizeof(EdgeIndex));
  add_section(csr.targets.data(), h.targets_pos, m * sizeof(VertexId));
  if (csr.weighted) add_section(csr.weights.data(), h.weights_pos, m * sizeof(Weight));
  h.table_entries = pieces.size();
  h.file_size = h.table_pos + h.table_entries * sizeof(uint64_t);

  TempFile file(path);
  std::vector<uint64_t> table(pieces.size());
  ParallelFor(pieces.size(), threads, [&](uint64_t i) {
    table[i] = XXH3_64bits(pieces[i].data, pieces[i].bytes);
    WriteFully(file.fd(), path, pieces[i].data, pieces[i].bytes, pieces[i].pos);
  });
  h.header_hash = HeaderHash(h, table);
  WriteFully(file.fd(), path, table.data(), table.size() * sizeof(uint64_t), h.table_pos);
  std::vector<char> head(kCsrAlignment, 0);
  std::memcpy(head.data(), &h, sizeof(h));
  WriteFully(file.fd(), path, head.data(), head.size(), 0);
  if (ftruncate(file.fd(), static_cast<off_t>(h.file_size)) != 0)
    ThrowSystemError(path, "cannot size");
  file.Commit();
}

bool IsCsrInput(const std::string& path, GraphFormat requested) {
  if (requested != GraphFormat::kAuto) return requested == GraphFormat::kCsr;
  UniqueFd fd = OpenForReading(path);
  char head[sizeof(kCsrMagic)] = {};
  const ssize_t n = ::pread(fd.get(), head, sizeof(head), 0);
  if (n == static_cast<ssize_t>(sizeof(head)) && std::memcmp(head, kCsrMagic, sizeof(head)) == 0) {
    return true;
  }
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".csr") == 0;
}

CsrFile CsrFile::Open(const std::string& path) {
  CsrFile f;
  f.path_ = path;
  f.fd_ = OpenForReading(path);
  const uint64_t size = FileSize(f.fd_.get(), path);
  if (size == 0) throw Error(path, "empty file");
  if (size < sizeof(CsrFileHeader)) {
    throw Error::AtByte(path, size, "file ends inside the .csr header (needs 128 bytes)");
  }
  CsrFileHeader& h = f.header_;
  ReadFully(f.fd_.get(), path, &h, sizeof(h), 0);
  if (std::memcmp(h.magic, kCsrMagic, sizeof(kCsrMagic)) != 0) {
    throw Error::AtByte(path, 0, "wrong magic: not a needle .csr file");
  }
  if (h.version != kCsrVersion) {
    throw Error::AtByte(path, offsetof(CsrFileHeader, version),
                        "format version " + std::to_string(h.version) +
                            (h.version > kCsrVersion ? " is newer than" : " is not") +
                            " the version this needle reads (" + std::to_string(kCsrVersion) + ")");
  }
  if (h.file_size != size) {
    throw Error::AtByte(path, std::min(size, h.file_size),
                        "file is " + std::to_string(size) + " bytes but its header says " +
                            std::to_string(h.file_size) + " (truncated or damaged)");
  }
  const uint64_t max_entries = size / sizeof(uint64_t);
  if (h.table_entries > max_entries || h.table_pos > size ||
      h.table_pos + h.table_entries * sizeof(uint64_t) != size) {
    throw Error::AtByte(path, offsetof(CsrFileHeader, table_pos),
                        "chunk table lies outside the file");
  }
  f.table_.resize(h.table_entries);
  ReadFully(f.fd_.get(), path, f.table_.data(), h.table_entries * sizeof(uint64_t), h.table_pos);
  if (HeaderHash(h, f.table_) != h.header_hash) {
    throw Error::AtByte(path, kCsrHeaderHashOffset,
                        "header checksum mismatch (the header or the chunk table is corrupt)");
  }
  // The checksum holds, so the header is what the writer wrote; still check its arithmetic.
  const bool weighted = h.weight_type == static_cast<uint32_t>(CsrWeightType::kFloat32);
  if (h.weight_type > 1 || h.chunk_bytes == 0 || h.num_vertices > kMaxVertexId + 1 ||
      h.offsets_pos < sizeof(CsrFileHeader) ||
      h.targets_pos < h.offsets_pos + (h.num_vertices + 1) * sizeof(EdgeIndex) ||
      (weighted && h.weights_pos < h.targets_pos + h.num_edges * sizeof(VertexId)) ||
      h.table_pos < (weighted ? h.weights_pos + h.num_edges * sizeof(Weight)
                              : h.targets_pos + h.num_edges * sizeof(VertexId))) {
    throw Error::AtByte(path, 0, "inconsistent .csr header (sections overlap or exceed the file)");
  }
  uint64_t chunk = 0;
  auto section = [&](const char* name, uint64_t pos, uint64_t bytes) {
    Section s{name, pos, bytes, chunk};
    chunk += Chunks(bytes, h.chunk_bytes);
    return s;
  };
  f.offsets_ = section("offsets", h.offsets_pos, (h.num_vertices + 1) * sizeof(EdgeIndex));
  f.targets_ = section("targets", h.targets_pos, h.num_edges * sizeof(VertexId));
  if (weighted) f.weights_ = section("weights", h.weights_pos, h.num_edges * sizeof(Weight));
  if (chunk != h.table_entries) {
    throw Error::AtByte(path, offsetof(CsrFileHeader, table_entries),
                        "chunk table has the wrong size");
  }
  return f;
}

void CsrFile::VerifyChunk(const Section& s, uint64_t chunk, const char* data, uint64_t size) const {
  if (XXH3_64bits(data, size) != table_[s.first_chunk + chunk]) {
    throw Error::AtByte(path_, s.pos + chunk * header_.chunk_bytes,
                        std::string("checksum mismatch in the ") + s.name + " section");
  }
}

void CsrFile::ReadSection(const Section& s, uint64_t offset, void* dst, uint64_t size) const {
  if (size == 0) return;
  ReadFully(fd_.get(), path_, dst, size, s.pos + offset);
  const uint64_t c = header_.chunk_bytes;
  const char* data = static_cast<const char*>(dst);
  for (uint64_t k = offset / c; k * c < offset + size; ++k) {
    const uint64_t begin = k * c;
    const uint64_t end = std::min(begin + c, s.bytes);
    if (begin >= offset && end <= offset + size) {
      VerifyChunk(s, k, data + (begin - offset), end - begin);
      continue;
    }
    // The range covers part of this chunk: read the rest of it to check the whole.
    std::vector<char> whole(end - begin);
    ReadFully(fd_.get(), path_, whole.data(), whole.size(), s.pos + begin);
    const uint64_t lo = std::max(begin, offset);
    const uint64_t hi = std::min(end, offset + size);
    std::memcpy(whole.data() + (lo - begin), data + (lo - offset), hi - lo);  // what the caller got
    VerifyChunk(s, k, whole.data(), whole.size());
  }
}

void CsrFile::ReadOffsets(uint64_t first, std::span<EdgeIndex> out) const {
  if (first + out.size() > num_vertices() + 1) throw Error(path_, "vertex range beyond the graph");
  ReadSection(offsets_, first * sizeof(EdgeIndex), out.data(), out.size_bytes());
}

void CsrFile::ReadTargets(uint64_t first, std::span<VertexId> out) const {
  if (first + out.size() > num_edges()) throw Error(path_, "edge range beyond the graph");
  ReadSection(targets_, first * sizeof(VertexId), out.data(), out.size_bytes());
}

void CsrFile::ReadWeights(uint64_t first, std::span<Weight> out) const {
  if (!weighted()) throw Error(path_, "graph has no weights");
  if (first + out.size() > num_edges()) throw Error(path_, "edge range beyond the graph");
  ReadSection(weights_, first * sizeof(Weight), out.data(), out.size_bytes());
}

Csr CsrFile::Load(int threads) const {
  threads = threads > 0 ? threads : omp_get_max_threads();
  const uint64_t n = num_vertices();
  const uint64_t m = num_edges();
  Csr csr;
  csr.num_vertices = n;
  csr.weighted = weighted();
  // Sections are page-aligned, so each maps on its own as a private view of the page cache:
  // no copy; verification below is the first (and only) pass over the bytes. Where mmap is
  // refused, the chunks are read with pread instead.
  const bool mapped = csr.offsets.MapFile(fd_.get(), offsets_.pos, n + 1) &&
                      csr.targets.MapFile(fd_.get(), targets_.pos, m) &&
                      (!csr.weighted || csr.weights.MapFile(fd_.get(), weights_.pos, m));
  if (!mapped) {
    csr.offsets = HugeArray<EdgeIndex>(n + 1);
    csr.targets = HugeArray<VertexId>(m);
    csr.weights = HugeArray<Weight>(csr.weighted ? m : 0);
  }
  struct Job {
    const Section* section;
    char* data;
    uint64_t chunk;
  };
  std::vector<Job> jobs;
  auto add = [&](const Section& s, void* data) {
    for (uint64_t k = 0; k * header_.chunk_bytes < s.bytes; ++k) {
      jobs.push_back(Job{&s, static_cast<char*>(data), k});
    }
  };
  add(offsets_, csr.offsets.data());
  add(targets_, csr.targets.data());
  if (csr.weighted) add(weights_, csr.weights.data());
  const EdgeIndex* offsets = csr.offsets.data();
  ParallelFor(jobs.size(), threads, [&](uint64_t i) {
    const Job& j = jobs[i];
    const uint64_t begin = j.chunk * header_.chunk_bytes;
    const uint64_t bytes = std::min(header_.chunk_bytes, j.section->bytes - begin);
    if (!mapped) ReadFully(fd_.get(), path_, j.data + begin, bytes, j.section->pos + begin);
    VerifyChunk(*j.section, j.chunk, j.data + begin, bytes);
    // The hashes prove the bytes are the writer's; these prove the writer made a CSR.
    if (j.section == &offsets_) {
      const uint64_t first = begin / sizeof(EdgeIndex);
      const uint64_t last = std::min(first + bytes / sizeof(EdgeIndex), n);  // pairs (v, v+1)
      if (FirstDecrease(offsets, first, last) != last) {
        uint64_t v = first;
        while (offsets[v] <= offsets[v + 1]) ++v;
        throw Error::AtByte(path_, offsets_.pos + v * sizeof(EdgeIndex), "offsets decrease");
      }
    } else if (j.section == &targets_) {
      const auto* t = reinterpret_cast<const VertexId*>(j.data + begin);
      const uint64_t count = bytes / sizeof(VertexId);
      if (count > 0 && MaxOf(t, count) >= n) {
        throw Error::AtByte(path_, targets_.pos + begin, "target id beyond the vertex count");
      }
    }
  });
  if (csr.offsets[0] != 0 || csr.offsets[n] != m) {
    throw Error::AtByte(path_, offsets_.pos, "offsets do not span the edges");
  }
  return csr;
}

}  // namespace needle
