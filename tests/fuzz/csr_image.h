// The checksums of a .csr image (loaders/csr_file_format.h, docs/csr-format.md), recomputed
// the way WriteCsrFile computes them, so that a mutated image still passes them and reaches
// the structure checks behind them. Shared by the `csr` fuzz target and the seed generator
// (which uses it to repack WriteCsrFile's output into small images).
#pragma once

#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/types.h"
#include "loaders/csr_file_format.h"
#include "tests/fuzz/fuzz_util.h"

namespace needle::fuzz {

struct CsrSection {
  uint64_t pos = 0;
  uint64_t bytes = 0;
};

// The sections the header describes, in chunk-table order (offsets, targets, weights when
// weight_type is 1). False when a size overflows.
NEEDLE_FUZZ_NO_COVERAGE inline bool CsrSections(const CsrFileHeader& h, std::vector<CsrSection>& out) {
  out.clear();
  uint64_t offsets_bytes = 0, edge_bytes = 0;
  if (__builtin_add_overflow(h.num_vertices, uint64_t{1}, &offsets_bytes) ||
      __builtin_mul_overflow(offsets_bytes, sizeof(EdgeIndex), &offsets_bytes) ||
      __builtin_mul_overflow(h.num_edges, sizeof(VertexId), &edge_bytes)) {
    return false;
  }
  out.push_back({h.offsets_pos, offsets_bytes});
  out.push_back({h.targets_pos, edge_bytes});
  if (h.weight_type == static_cast<uint32_t>(CsrWeightType::kFloat32)) {
    out.push_back({h.weights_pos, edge_bytes});
  }
  return true;
}

// Rewrites the chunk table (where every section and the table lie inside the image) and then
// header_hash (XXH3-64 of the header with header_hash zeroed, followed by the table_entries
// hashes at table_pos, where those lie inside the image). Images too short for a header are
// left alone. `max_chunks` bounds the work for tiny chunk sizes.
NEEDLE_FUZZ_NO_COVERAGE inline void RecomputeCsrChecksums(std::vector<uint8_t>& image, uint64_t max_chunks = 1 << 20) {
  if (image.size() < sizeof(CsrFileHeader)) return;
  const uint64_t size = image.size();
  CsrFileHeader h;
  std::memcpy(&h, image.data(), sizeof(h));
  auto inside = [size](uint64_t pos, uint64_t bytes) {
    uint64_t end = 0;
    return !__builtin_add_overflow(pos, bytes, &end) && end <= size;
  };
  std::vector<CsrSection> sections;
  if (h.chunk_bytes > 0 && CsrSections(h, sections)) {
    std::vector<uint64_t> table;
    bool located = true;
    for (const CsrSection& s : sections) {
      if (!inside(s.pos, s.bytes) || s.bytes / h.chunk_bytes > max_chunks) {
        located = false;
        break;
      }
      for (uint64_t off = 0; off < s.bytes; off += h.chunk_bytes) {
        const uint64_t n = std::min(h.chunk_bytes, s.bytes - off);
        table.push_back(XXH3_64bits(image.data() + s.pos + off, n));
      }
    }
    if (located && table.size() <= max_chunks &&
        inside(h.table_pos, table.size() * sizeof(uint64_t))) {
      std::memcpy(image.data() + h.table_pos, table.data(), table.size() * sizeof(uint64_t));
    }
  }
  uint64_t table_bytes = 0;
  if (__builtin_mul_overflow(h.table_entries, sizeof(uint64_t), &table_bytes) ||
      !inside(h.table_pos, table_bytes)) {
    return;
  }
  CsrFileHeader zeroed = h;
  zeroed.header_hash = 0;
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, &zeroed, sizeof(zeroed));
  XXH3_64bits_update(state, image.data() + h.table_pos, table_bytes);
  const uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  std::memcpy(image.data() + kCsrHeaderHashOffset, &hash, sizeof(hash));
}

}  // namespace needle::fuzz
