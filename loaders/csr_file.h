// Reading and writing needle's binary CSR file (layout in csr_file_format.h).
//
// WriteCsrFile writes under a temporary name in the target directory, fsyncs and renames,
// so a failed or interrupted convert never leaves a file that looks valid. CsrFile opens a
// file after checking its magic, version, header checksum and section layout, and reads any
// vertex or edge range with pread, verifying the XXH3 hash of every chunk the range touches.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loaders/csr.h"
#include "loaders/csr_file_format.h"
#include "loaders/format.h"
#include "loaders/unique_fd.h"

namespace needle {

void WriteCsrFile(const Csr& csr, const std::string& path, int threads = 0);

// Whether `path` is to be read as a .csr file: `requested` is kCsr, or it is kAuto and the
// file starts with the .csr magic or is named *.csr (so a .csr with a damaged magic gets
// CsrFile's "wrong magic" error, not a text parser's). Throws Error if it cannot be opened.
bool IsCsrInput(const std::string& path, GraphFormat requested);

class CsrFile {
 public:
  // Opens and checks the header and chunk table. Throws Error naming the file and byte.
  static CsrFile Open(const std::string& path);

  const std::string& path() const { return path_; }
  uint64_t num_vertices() const { return header_.num_vertices; }
  uint64_t num_edges() const { return header_.num_edges; }
  bool weighted() const {
    return header_.weight_type == static_cast<uint32_t>(CsrWeightType::kFloat32);
  }
  uint64_t file_size() const { return header_.file_size; }

  // Offsets of vertices [first, first + out.size()) (the offset array has num_vertices + 1).
  void ReadOffsets(uint64_t first, std::span<EdgeIndex> out) const;
  // Targets / weights of edges [first, first + out.size()).
  void ReadTargets(uint64_t first, std::span<VertexId> out) const;
  void ReadWeights(uint64_t first, std::span<Weight> out) const;

  // The whole graph, read in parallel and fully verified.
  Csr Load(int threads = 0) const;

 private:
  struct Section {
    const char* name;
    uint64_t pos;
    uint64_t bytes;
    uint64_t first_chunk;  // index of its first hash in the table
  };
  CsrFile() = default;
  // Reads [offset, offset + size) of a section into dst and verifies the chunks it touches.
  void ReadSection(const Section& s, uint64_t offset, void* dst, uint64_t size) const;
  void VerifyChunk(const Section& s, uint64_t chunk, const char* data, uint64_t size) const;

  std::string path_;
  UniqueFd fd_;
  CsrFileHeader header_{};
  std::vector<uint64_t> table_;
  Section offsets_{}, targets_{}, weights_{};
};

}  // namespace needle
