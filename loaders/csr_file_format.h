// The on-disk layout of needle's binary CSR file (.csr). Documented in docs/csr-format.md.
//
//   [0, 128)        CsrFileHeader (little-endian)
//   offsets_pos     (num_vertices + 1) × uint64 edge offsets      ┐ each section starts on a
//   targets_pos     num_edges × uint32 target ids                  │ 4 KiB boundary, so any
//   weights_pos     num_edges × float32 weights (when weighted)    │ vertex or edge range can
//   table_pos       table_entries × uint64 XXH3-64 chunk hashes    ┘ be mapped or read alone
//
// Every section is hashed in chunks of chunk_bytes (the last chunk may be short), so a reader
// of any range can verify exactly the chunks it touches. Sections start on 4 KiB boundaries,
// in the order above, without overlap; the table ends the file. header_hash covers the header (with
// header_hash zeroed) followed by the chunk table.
#pragma once

#include <cstddef>
#include <cstdint>

namespace needle {

inline constexpr char kCsrMagic[8] = {'N', 'E', 'E', 'D', 'L', 'C', 'S', 'R'};
inline constexpr uint32_t kCsrVersion = 1;
inline constexpr uint64_t kCsrChunkBytes = uint64_t{1} << 20;  // what the writer uses
inline constexpr uint64_t kCsrAlignment = 4096;
// A reader accepts chunk_bytes that are a multiple of kCsrAlignment (so no id, offset or weight
// straddles two chunks and every chunk starts aligned) and at most this (a chunk is read whole).
inline constexpr uint64_t kCsrMaxChunkBytes = uint64_t{1} << 30;

enum class CsrWeightType : uint32_t { kNone = 0, kFloat32 = 1 };

struct CsrFileHeader {
  char magic[8];
  uint32_t version;
  uint32_t weight_type;  // CsrWeightType
  uint64_t num_vertices;
  uint64_t num_edges;
  uint64_t chunk_bytes;
  uint64_t offsets_pos;
  uint64_t targets_pos;
  uint64_t weights_pos;  // 0 when unweighted
  uint64_t table_pos;
  uint64_t table_entries;
  uint64_t file_size;
  uint64_t reserved[4];
  uint64_t header_hash;
};
static_assert(sizeof(CsrFileHeader) == 128);
inline constexpr size_t kCsrHeaderHashOffset = offsetof(CsrFileHeader, header_hash);

}  // namespace needle
