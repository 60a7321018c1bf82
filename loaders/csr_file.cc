#include "loaders/csr_file.h"

#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "base/error.h"
#include "base/parallel.h"
#include "io/output_file.h"

namespace needle {
namespace {

uint64_t AlignUp(uint64_t x) { return (x + kCsrAlignment - 1) / kCsrAlignment * kCsrAlignment; }

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

// Branch-free scans (omp simd asks for vectorisation whatever the optimisation level's cost
// model says): validation must not cost more than the checksums. Each finds out whether
// there is a bad value first, and only then, on the error path, where.

// Whether offsets[0, count) may be bad: decrease somewhere, or hold a value of 2^63 or more
// (beyond any edge count, which is below 2^62). One pass of 64-bit subtractions and ors, which
// vectorise on any x86-64 (64-bit compares need SSE4.2): a decrease between values below 2^63
// wraps the difference into the top bit.
bool MaybeBadOffsets(const EdgeIndex* offsets, uint64_t count) {
  uint64_t bits = offsets[0];
  const uint64_t pairs = count - 1;  // count >= 1
#pragma omp simd reduction(| : bits)
  for (uint64_t v = 0; v < pairs; ++v) bits |= (offsets[v + 1] - offsets[v]) | offsets[v + 1];
  return (bits >> 63) != 0;
}

// The index of the first v in [0, count - 1) with offsets[v] > offsets[v + 1], or count - 1.
// The error path only.
uint64_t FirstDecrease(const EdgeIndex* offsets, uint64_t count) {
  uint64_t v = 0;
  while (v + 1 < count && offsets[v] <= offsets[v + 1]) ++v;
  return v;
}

// The index of the first value above `limit`, or count.
template <class T>
uint64_t FirstAbove(const T* values, uint64_t count, T limit) {
  T bad = 0;
#pragma omp simd reduction(| : bad)
  for (uint64_t i = 0; i < count; ++i) bad |= static_cast<T>(values[i] > limit);
  if (bad == 0) return count;
  uint64_t i = 0;
  while (values[i] <= limit) ++i;
  return i;
}

// The index of the first NaN or ±inf (all exponent bits set), or count.
uint64_t FirstNonFinite(const Weight* values, uint64_t count) {
  constexpr uint32_t kExponent = 0x7f800000;
  uint32_t bad = 0;
#pragma omp simd reduction(| : bad)
  for (uint64_t i = 0; i < count; ++i) {
    bad |= static_cast<uint32_t>((std::bit_cast<uint32_t>(values[i]) & kExponent) == kExponent);
  }
  if (bad == 0) return count;
  uint64_t i = 0;
  while ((std::bit_cast<uint32_t>(values[i]) & kExponent) != kExponent) ++i;
  return i;
}

std::string WeightText(Weight w) {
  if (std::isnan(w)) return "NaN";
  return w > 0 ? "+inf" : "-inf";
}

// x * y and x + y that report overflow instead of wrapping.
bool Mul(uint64_t x, uint64_t y, uint64_t* out) { return !__builtin_mul_overflow(x, y, out); }
bool Add(uint64_t x, uint64_t y, uint64_t* out) { return !__builtin_add_overflow(x, y, out); }

uint64_t ChunksOf(uint64_t bytes, uint64_t chunk) {
  return bytes / chunk + (bytes % chunk != 0 ? 1 : 0);
}

}  // namespace

void WriteCsrFile(const Csr& csr, OutputFile& out, int threads) {
  threads = ThreadCount(threads);
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

  std::vector<uint64_t> table(pieces.size());
  std::vector<char> head(kCsrAlignment, 0);
  if (out.replaces()) {  // a regular file: every chunk hashed and written where it goes
    ParallelFor(pieces.size(), threads, [&](uint64_t i) {
      table[i] = XXH3_64bits(pieces[i].data, pieces[i].bytes);
      out.WriteAt(pieces[i].data, pieces[i].bytes, pieces[i].pos);
    });
    h.header_hash = HeaderHash(h, table);
    out.WriteAt(table.data(), table.size() * sizeof(uint64_t), h.table_pos);
    std::memcpy(head.data(), &h, sizeof(h));
    out.WriteAt(head.data(), head.size(), 0);
    out.Resize(h.file_size);
    return;
  }
  // A device or a pipe: hashed first (the header holds the hash of the table), then written
  // in file order, the gaps between sections as zeros.
  ParallelFor(pieces.size(), threads,
              [&](uint64_t i) { table[i] = XXH3_64bits(pieces[i].data, pieces[i].bytes); });
  h.header_hash = HeaderHash(h, table);
  std::memcpy(head.data(), &h, sizeof(h));
  out.Write(head.data(), head.size());
  uint64_t at = head.size();
  const std::vector<char> zeros(kCsrAlignment, 0);
  auto write_at = [&](const void* data, uint64_t bytes, uint64_t pos) {
    for (; at < pos; at += std::min<uint64_t>(pos - at, zeros.size())) {
      out.Write(zeros.data(), std::min<uint64_t>(pos - at, zeros.size()));
    }
    out.Write(data, bytes);
    at += bytes;
  };
  for (const Piece& piece : pieces) write_at(piece.data, piece.bytes, piece.pos);
  write_at(table.data(), table.size() * sizeof(uint64_t), h.table_pos);
}

void WriteCsrFile(const Csr& csr, const std::string& path, int threads) {
  OutputFile out(path);
  WriteCsrFile(csr, out, threads);
  out.Commit();
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
  // The chunk table: exactly the end of the file.
  uint64_t table_bytes = 0;
  if (h.table_pos > size || h.table_pos % kCsrAlignment != 0) {
    throw Error::AtByte(path, offsetof(CsrFileHeader, table_pos),
                        "chunk table position " + std::to_string(h.table_pos) +
                            " is not a 4096-byte boundary within the file");
  }
  if (!Mul(h.table_entries, sizeof(uint64_t), &table_bytes) || table_bytes != size - h.table_pos) {
    throw Error::AtByte(path, offsetof(CsrFileHeader, table_entries),
                        "chunk table of " + std::to_string(h.table_entries) +
                            " entries does not end exactly at the end of the file");
  }
  f.table_.resize(h.table_entries);
  ReadFully(f.fd_.get(), path, f.table_.data(), table_bytes, h.table_pos);
  if (HeaderHash(h, f.table_) != h.header_hash) {
    throw Error::AtByte(path, kCsrHeaderHashOffset,
                        "header checksum mismatch (the header or the chunk table is corrupt)");
  }
  // The checksum holds, so the header is what some writer wrote; a crafted file can still
  // carry a valid checksum, so check every size and position, without overflow.
  auto bad_field = [&](size_t field, const std::string& message) {
    return Error::AtByte(path, field, "inconsistent .csr header: " + message);
  };
  if (h.weight_type > static_cast<uint32_t>(CsrWeightType::kFloat32)) {
    throw bad_field(offsetof(CsrFileHeader, weight_type),
                    "unknown weight type " + std::to_string(h.weight_type));
  }
  const bool weighted = h.weight_type == static_cast<uint32_t>(CsrWeightType::kFloat32);
  if (h.chunk_bytes == 0 || h.chunk_bytes % kCsrAlignment != 0 ||
      h.chunk_bytes > kCsrMaxChunkBytes) {
    throw bad_field(offsetof(CsrFileHeader, chunk_bytes),
                    "chunk_bytes " + std::to_string(h.chunk_bytes) +
                        " is not a non-zero multiple of 4096 of at most 1 GiB");
  }
  if (h.num_vertices > uint64_t{kMaxVertexId} + 1) {
    throw bad_field(offsetof(CsrFileHeader, num_vertices),
                    "num_vertices " + std::to_string(h.num_vertices) + " is above 4294967295");
  }
  // Each section [pos, pos + bytes) starts on a 4 KiB boundary at or after the end of the one
  // before (the header's for the first), and the last ends at or before the chunk table.
  uint64_t prev_end = sizeof(CsrFileHeader);
  auto place = [&](const char* name, size_t pos_field, uint64_t pos, size_t count_field,
                   uint64_t count, uint64_t element_bytes) {
    const bool edges = count_field == offsetof(CsrFileHeader, num_edges);
    const char* count_name = edges ? "num_edges" : "num_vertices";
    const uint64_t count_value = edges ? h.num_edges : h.num_vertices;
    uint64_t bytes = 0;
    if (!Mul(count, element_bytes, &bytes) || bytes > size) {
      throw bad_field(count_field, std::string(count_name) + " " + std::to_string(count_value) +
                                       ": the " + name + " section of " + std::to_string(count) +
                                       " entries would be larger than the " + std::to_string(size) +
                                       "-byte file");
    }
    uint64_t end = 0;
    if (pos % kCsrAlignment != 0 || pos < prev_end || !Add(pos, bytes, &end) || end > h.table_pos) {
      throw bad_field(pos_field, std::string("the ") + name + " section at byte " +
                                     std::to_string(pos) + " (" + std::to_string(bytes) +
                                     " bytes) is not 4096-aligned between byte " +
                                     std::to_string(prev_end) + " and the chunk table at byte " +
                                     std::to_string(h.table_pos));
    }
    prev_end = end;
    return bytes;
  };
  uint64_t chunk = 0;
  auto section = [&](const char* name, uint64_t pos, uint64_t bytes) {
    Section s{name, pos, bytes, chunk};
    chunk += ChunksOf(bytes, h.chunk_bytes);
    return s;
  };
  // num_vertices <= 2^32 - 1, so num_vertices + 1 cannot overflow.
  const uint64_t offsets_bytes =
      place("offsets", offsetof(CsrFileHeader, offsets_pos), h.offsets_pos,
            offsetof(CsrFileHeader, num_vertices), h.num_vertices + 1, sizeof(EdgeIndex));
  const uint64_t targets_bytes =
      place("targets", offsetof(CsrFileHeader, targets_pos), h.targets_pos,
            offsetof(CsrFileHeader, num_edges), h.num_edges, sizeof(VertexId));
  f.offsets_ = section("offsets", h.offsets_pos, offsets_bytes);
  f.targets_ = section("targets", h.targets_pos, targets_bytes);
  if (weighted) {
    const uint64_t weights_bytes =
        place("weights", offsetof(CsrFileHeader, weights_pos), h.weights_pos,
              offsetof(CsrFileHeader, num_edges), h.num_edges, sizeof(Weight));
    f.weights_ = section("weights", h.weights_pos, weights_bytes);
  } else if (h.weights_pos != 0) {
    throw bad_field(offsetof(CsrFileHeader, weights_pos),
                    "an unweighted graph with a weights section position (" +
                        std::to_string(h.weights_pos) + ", must be 0)");
  }
  if (chunk != h.table_entries) {
    throw Error::AtByte(path, offsetof(CsrFileHeader, table_entries),
                        "chunk table has the wrong size: " + std::to_string(h.table_entries) +
                            " entries for " + std::to_string(chunk) + " chunks");
  }
  return f;
}

void CsrFile::VerifyChunk(const Section& s, uint64_t chunk, const char* data, uint64_t size) const {
  if (XXH3_64bits(data, size) != table_[s.first_chunk + chunk]) {
    throw Error::AtByte(path_, s.pos + chunk * header_.chunk_bytes,
                        std::string("checksum mismatch in the ") + s.name + " section");
  }
}

void CsrFile::ReadSection(const Section& s, uint64_t offset, void* dst, uint64_t size, void* tail,
                          uint64_t tail_size) const {
  if (size + tail_size == 0) return;
  if (size > 0) ReadFully(fd_.get(), path_, dst, size, s.pos + offset);
  const uint64_t c = header_.chunk_bytes;
  const uint64_t stop = offset + size;  // end of dst's bytes; the tail's follow
  const char* data = static_cast<const char*>(dst);
  for (uint64_t k = offset / c; k * c < stop + tail_size; ++k) {
    const uint64_t begin = k * c;
    const uint64_t end = std::min(begin + c, s.bytes);
    if (begin >= offset && end <= stop) {
      VerifyChunk(s, k, data + (begin - offset), end - begin);
      continue;
    }
    // The range covers part of this chunk: read the rest of it to check the whole.
    std::vector<char> whole(end - begin);
    ReadFully(fd_.get(), path_, whole.data(), whole.size(), s.pos + begin);
    const uint64_t lo = std::max(begin, offset);
    const uint64_t hi = std::min(end, stop);
    if (lo < hi) {
      std::memcpy(whole.data() + (lo - begin), data + (lo - offset), hi - lo);  // what dst got
    }
    VerifyChunk(s, k, whole.data(), whole.size());
    const uint64_t tail_lo = std::max(begin, stop);
    const uint64_t tail_hi = std::min(end, stop + tail_size);
    if (tail_lo < tail_hi) {
      std::memcpy(static_cast<char*>(tail) + (tail_lo - stop), whole.data() + (tail_lo - begin),
                  tail_hi - tail_lo);
    }
  }
}

void CsrFile::CheckRange(uint64_t first, uint64_t count, uint64_t limit, const char* what) const {
  if (first > limit || count > limit - first) {
    throw Error(path_, std::string(what) + " range [" + std::to_string(first) + ", +" +
                           std::to_string(count) + ") beyond the graph");
  }
}

void CsrFile::ReadOffsets(uint64_t first, std::span<EdgeIndex> out, bool check_next) const {
  const uint64_t entries = num_vertices() + 1;
  CheckRange(first, out.size(), entries, "vertex");
  const bool with_next = check_next && !out.empty() && first + out.size() < entries;
  EdgeIndex pair[2] = {0, 0};  // (out.back(), the offset after it)
  ReadSection(offsets_, first * sizeof(EdgeIndex), out.data(), out.size_bytes(), &pair[1],
              with_next ? sizeof(EdgeIndex) : 0);
  CheckOffsets(first, out);
  if (with_next) {
    pair[0] = out.back();
    CheckOffsets(first + out.size() - 1, pair);
  }
}

void CsrFile::ReadTargets(uint64_t first, std::span<VertexId> out) const {
  CheckRange(first, out.size(), num_edges(), "edge");
  ReadSection(targets_, first * sizeof(VertexId), out.data(), out.size_bytes());
  CheckTargets(first, out);
}

void CsrFile::ReadWeights(uint64_t first, std::span<Weight> out) const {
  if (!weighted()) throw Error(path_, "graph has no weights");
  CheckRange(first, out.size(), num_edges(), "edge");
  ReadSection(weights_, first * sizeof(Weight), out.data(), out.size_bytes());
  CheckWeights(first, out);
}

void CsrFile::CheckOffsets(uint64_t first, std::span<const EdgeIndex> values) const {
  if (values.empty()) return;
  const uint64_t n = num_vertices();
  const uint64_t m = num_edges();
  const EdgeIndex* v = values.data();
  const uint64_t count = values.size();
  auto byte = [&](uint64_t i) { return offsets_.pos + (first + i) * sizeof(EdgeIndex); };
  if (first == 0 && v[0] != 0) {
    throw Error::AtByte(
        path_, byte(0),
        "offsets do not span the edges: offsets[0] is " + std::to_string(v[0]) + ", not 0");
  }
  if (first + count == n + 1 && v[count - 1] != m) {
    throw Error::AtByte(path_, byte(count - 1),
                        "offsets do not span the edges: offsets[" + std::to_string(n) + "] is " +
                            std::to_string(v[count - 1]) + ", not the edge count " +
                            std::to_string(m));
  }
  // One pass: non-decreasing values are all at most m when the last one is. The rest is the
  // error path, which finds the first bad value exactly.
  if (MaybeBadOffsets(v, count) || v[count - 1] > m) {
    if (const uint64_t i = FirstAbove(v, count, EdgeIndex{m}); i != count) {
      throw Error::AtByte(path_, byte(i),
                          "offset " + std::to_string(v[i]) + " of vertex " +
                              std::to_string(first + i) + " is beyond the edge count " +
                              std::to_string(m));
    }
    const uint64_t i = FirstDecrease(v, count);  // values below m < 2^63: there is one
    throw Error::AtByte(path_, byte(i),
                        "offsets decrease: offsets[" + std::to_string(first + i) +
                            "] = " + std::to_string(v[i]) + " > offsets[" +
                            std::to_string(first + i + 1) + "] = " + std::to_string(v[i + 1]));
  }
}

void CsrFile::CheckTargets(uint64_t first, std::span<const VertexId> values) const {
  const uint64_t n = num_vertices();
  if (values.empty()) return;
  // n <= 2^32 - 1: every VertexId is below n when n is 2^32 - 1 but the reserved id.
  const auto limit = static_cast<VertexId>(n == 0 ? 0 : n - 1);
  const uint64_t i = n == 0 ? 0 : FirstAbove(values.data(), values.size(), limit);
  if (i != values.size()) {
    throw Error::AtByte(path_, targets_.pos + (first + i) * sizeof(VertexId),
                        "target id " + std::to_string(values[i]) + " of edge " +
                            std::to_string(first + i) + " is beyond the vertex count " +
                            std::to_string(n));
  }
}

void CsrFile::CheckWeights(uint64_t first, std::span<const Weight> values) const {
  const uint64_t i = FirstNonFinite(values.data(), values.size());
  if (i != values.size()) {
    throw Error::AtByte(path_, weights_.pos + (first + i) * sizeof(Weight),
                        "edge weight " + WeightText(values[i]) + " of edge " +
                            std::to_string(first + i) + " is not a finite number");
  }
}

Csr CsrFile::Load(int threads) const {
  threads = ThreadCount(threads);
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
  ParallelFor(jobs.size(), threads, [&](uint64_t i) {
    const Job& j = jobs[i];
    const uint64_t begin = j.chunk * header_.chunk_bytes;
    const uint64_t bytes = std::min(header_.chunk_bytes, j.section->bytes - begin);
    if (!mapped) ReadFully(fd_.get(), path_, j.data + begin, bytes, j.section->pos + begin);
    VerifyChunk(*j.section, j.chunk, j.data + begin, bytes);
    // The hashes prove the bytes are the writer's; these prove the writer made a CSR. Each job
    // checks its own chunk only (another job may still be reading the next one); chunk_bytes
    // is a multiple of 4096, so no value straddles two chunks.
    if (j.section == &offsets_) {
      CheckOffsets(begin / sizeof(EdgeIndex),
                   {reinterpret_cast<const EdgeIndex*>(j.data + begin), bytes / sizeof(EdgeIndex)});
    } else if (j.section == &targets_) {
      CheckTargets(begin / sizeof(VertexId),
                   {reinterpret_cast<const VertexId*>(j.data + begin), bytes / sizeof(VertexId)});
    } else {
      CheckWeights(begin / sizeof(Weight),
                   {reinterpret_cast<const Weight*>(j.data + begin), bytes / sizeof(Weight)});
    }
  });
  // The pairs of offsets that straddle two chunks.
  const uint64_t per_chunk = header_.chunk_bytes / sizeof(EdgeIndex);
  for (uint64_t v = per_chunk; v <= n; v += per_chunk) {
    CheckOffsets(v - 1, std::span<const EdgeIndex>(csr.offsets.data() + v - 1, 2));
  }
  return csr;
}

bool KeepsCsrWeights(const std::string& path, bool has, WeightMode mode) {
  if (mode == WeightMode::kWeighted && !has) {
    throw Error(path, "weights were asked for (--weights yes), but this .csr file has none");
  }
  return has && mode != WeightMode::kUnweighted;
}

}  // namespace needle
