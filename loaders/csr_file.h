// Reading and writing needle's binary CSR file (layout in csr_file_format.h).
//
// WriteCsrFile writes through an OutputFile: a regular file under a temporary name, fsynced and
// renamed when complete, so a failed or interrupted convert never leaves a file that looks
// valid; a device or a pipe in file order. CsrFile opens a
// file after checking its magic, version, header checksum and section layout, and reads any
// vertex or edge range with pread, verifying the XXH3 hash of every chunk the range touches
// and then the values themselves: a checksum only proves the bytes are the writer's, and a
// crafted file can carry valid checksums, so every offset, target and weight handed out has
// been checked to describe a CSR (offsets monotone within [0, num_edges], targets below
// num_vertices, weights finite).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/unique_fd.h"
#include "io/output_file.h"
#include "loaders/csr.h"
#include "loaders/csr_file_format.h"
#include "loaders/format.h"

namespace needle {

// Writes `csr` into `out` (the caller commits it): a regular file in parallel, a device or a
// pipe in file order.
void WriteCsrFile(const Csr& csr, OutputFile& out, int threads = 0);
// The same into a new file at `path` (io/output_file.h), committed when complete.
void WriteCsrFile(const Csr& csr, const std::string& path, int threads = 0);

// Whether `path` is to be read as a .csr file: `requested` is kCsr, or it is kAuto and the
// file starts with the .csr magic or is named *.csr (so a .csr with a damaged magic gets
// CsrFile's "wrong magic" error, not a text parser's). Throws Error if it cannot be opened.
bool IsCsrInput(const std::string& path, GraphFormat requested);

// Whether a .csr file at `path` read with --weights `mode` keeps its weights (`has`): `no`
// drops them; `yes` on a file that has none throws Error naming the file.
bool KeepsCsrWeights(const std::string& path, bool has, WeightMode mode);

class CsrFile {
 public:
  // Opens and checks the header and chunk table: magic, version, checksum, and that every
  // size and position it gives is consistent with the file (checked arithmetic, sections in
  // order inside the file, the chunk table exactly at its end). Throws Error naming the file
  // and the byte offset of the offending header field.
  static CsrFile Open(const std::string& path);

  const std::string& path() const { return path_; }
  uint64_t num_vertices() const { return header_.num_vertices; }
  uint64_t num_edges() const { return header_.num_edges; }
  bool weighted() const {
    return header_.weight_type == static_cast<uint32_t>(CsrWeightType::kFloat32);
  }
  uint64_t file_size() const { return header_.file_size; }
  // XXH3-64 of the header and the chunk table, which hold a hash of every chunk of every
  // section: a fingerprint of the whole file, known at Open.
  uint64_t header_hash() const { return header_.header_hash; }

  // Range reads verify the checksum of every chunk they touch, then check the values as Load
  // does (below), throwing Error with the byte offset of the first bad value.
  //
  // Offsets of vertices [first, first + out.size()) (the offset array has num_vertices + 1).
  // With check_next, and when the range ends before the last offset, the pair that straddles
  // its end (out.back(), offsets[first + out.size()]) is checked too; that costs nothing
  // unless the range ends on a checksum chunk boundary (then the next chunk is read).
  void ReadOffsets(uint64_t first, std::span<EdgeIndex> out, bool check_next = false) const;
  // Targets / weights of edges [first, first + out.size()).
  void ReadTargets(uint64_t first, std::span<VertexId> out) const;
  void ReadWeights(uint64_t first, std::span<Weight> out) const;

  // The value checks, for values read by a caller (e.g. a pair of offsets from two reads):
  // offsets[first, first + values.size()) are at most num_edges, non-decreasing, and start at
  // 0 and end at num_edges where the range holds offsets[0] or offsets[num_vertices]; targets
  // are below num_vertices; weights are finite. Throw Error at the first bad value's byte.
  void CheckOffsets(uint64_t first, std::span<const EdgeIndex> values) const;
  void CheckTargets(uint64_t first, std::span<const VertexId> values) const;
  void CheckWeights(uint64_t first, std::span<const Weight> values) const;

  // The whole graph, read in parallel and fully verified (checksums and the checks above).
  Csr Load(int threads = 0) const;

 private:
  struct Section {
    const char* name;
    uint64_t pos;
    uint64_t bytes;
    uint64_t first_chunk;  // index of its first hash in the table
  };
  CsrFile() = default;
  // Reads [offset, offset + size) of a section into dst, and the tail_size bytes after it into
  // tail, and verifies every chunk they touch.
  void ReadSection(const Section& s, uint64_t offset, void* dst, uint64_t size,
                   void* tail = nullptr, uint64_t tail_size = 0) const;
  void VerifyChunk(const Section& s, uint64_t chunk, const char* data, uint64_t size) const;
  // Throws unless [first, first + count) lies within [0, limit).
  void CheckRange(uint64_t first, uint64_t count, uint64_t limit, const char* what) const;

  std::string path_;
  UniqueFd fd_;
  CsrFileHeader header_{};
  std::vector<uint64_t> table_;
  Section offsets_{}, targets_{}, weights_{};
};

}  // namespace needle
