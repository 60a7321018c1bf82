#include "engine/window_chunks.h"

#include <cstring>
#include <numeric>

namespace needle {
namespace {

constexpr uint64_t kChunkAlignment = 4096;

uint64_t ChunksOf(uint64_t edges, uint64_t chunk_edges) {
  return (edges + chunk_edges - 1) / chunk_edges;
}

}  // namespace

uint64_t WindowChunks::ChunkEdges(size_t width) {
  return std::lcm<uint64_t>(width, kChunkAlignment) / width;
}

uint64_t WindowChunks::Bytes(const ShardSet& set, size_t width) {
  const uint64_t n = set.num_intervals(), c = ChunkEdges(width);
  uint64_t chunks = 0;
  for (uint32_t q = 0; q < n; ++q) {
    for (uint32_t p = 0; p < n; ++p) {
      chunks += ChunksOf(set.Window(q, p + 1).first_edge - set.Window(q, p).first_edge, c);
    }
  }
  return (n * n + 1) * sizeof(uint64_t) + (chunks + 63) / 64 * sizeof(uint64_t);
}

WindowChunks::WindowChunks(const ShardSet& set, size_t width)
    : set_(&set), n_(set.num_intervals()), width_(width), chunk_edges_(ChunkEdges(width)) {
  first_.reserve(static_cast<size_t>(n_) * n_ + 1);
  uint64_t bit = 0;
  for (uint32_t q = 0; q < n_; ++q) {
    for (uint32_t p = 0; p < n_; ++p) {
      first_.push_back(bit);
      bit += ChunksOf(set.Window(q, p + 1).first_edge - set.Window(q, p).first_edge, chunk_edges_);
    }
  }
  first_.push_back(bit);
  bits_.assign((bit + 63) / 64, 0);
}

bool WindowChunks::Mark(uint32_t q, uint32_t p, const std::byte* messages,
                        const std::byte* pattern) {
  const size_t w = Index(q, p);
  const uint64_t bytes =
      (set_->Window(q, p + 1).first_edge - set_->Window(q, p).first_edge) * width_;
  bool any = false;
  for (uint64_t c = 0; c < first_[w + 1] - first_[w]; ++c) {
    const uint64_t at = c * chunk_bytes();
    const bool on = std::memcmp(messages + at, pattern, std::min(chunk_bytes(), bytes - at)) != 0;
    Set(first_[w] + c, on);
    any = any || on;
  }
  return any;
}

void WindowChunks::MarkAll(uint32_t q, uint32_t p) {
  const size_t w = Index(q, p);
  for (uint64_t b = first_[w]; b < first_[w + 1]; ++b) Set(b, true);
}

uint64_t WindowChunks::Marked(uint32_t q, uint32_t p) const {
  const size_t w = Index(q, p);
  uint64_t marked = 0;
  for (uint64_t b = first_[w]; b < first_[w + 1]; ++b) marked += Test(b);
  return marked;
}

void WindowChunks::Clear(uint32_t q, uint32_t p) {
  const size_t w = Index(q, p);
  for (uint64_t b = first_[w]; b < first_[w + 1]; ++b) Set(b, false);
}

}  // namespace needle
