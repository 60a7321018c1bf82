// Fuzz target `csr`: needle's binary CSR file through CsrFile::Open + Load and through the
// block API (GraphReader: ReadEdges in small blocks, ReadVertexOffsets).
//
// Input: one configuration byte, then a .csr image, with its zero runs collapsed (zero_runs.h:
// every section starts on a 4 KiB boundary, so a small image is mostly zero padding) unless
// bit 4 says it is stored as it is.
//   bits 0-3: edges per ReadEdges block, 1..16 (ReadVertexOffsets reads one more per call)
//   bit 4:    the image is stored as it is
//   bit 5:    Load with 2 threads instead of 1
//   bit 6:    keep the image's checksums as they are (else they are recomputed)
//   bit 7:    set the header's file_size to the image's size (so that length mutations are
//             not all stopped by the truncation check)
// Unless bit 6 is set, the chunk table and header_hash are recomputed as WriteCsrFile computes
// them (csr_image.h) wherever the header locates them inside the image, so that mutations get
// past the checksums to the structure checks.
//
// Checks:
//  - Load's contract: a CSR it returns has offsets[0] = 0, non-decreasing offsets ending at
//    num_edges, every target below num_vertices, and one weight per edge when weighted.
//  - The block API returns blocks at the asked position, never larger than asked, and exactly
//    num_edges edges before the first empty block.
//  - When Load and the block API both succeed, they agree on every source, target, weight and
//    offset.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "base/error.h"
#include "loaders/csr.h"
#include "loaders/csr_file.h"
#include "loaders/graph_reader.h"
#include "tests/fuzz/csr_image.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/zero_runs.h"

namespace needle::fuzz {
namespace {

struct BlockRead {
  uint64_t vertices = 0;
  bool weighted = false;
  std::vector<VertexId> sources, targets;
  std::vector<uint32_t> weight_bits;
  std::vector<EdgeIndex> offsets;
};

uint32_t Bits(Weight w) {
  uint32_t b;
  std::memcpy(&b, &w, sizeof(b));
  return b;
}

// Every edge and every offset through the block API, `block` at a time. Throws Error.
BlockRead ReadBlocks(const std::string& path, uint64_t file_size, size_t block) {
  std::unique_ptr<GraphReader> reader = GraphReader::Open(path);
  const std::optional<uint64_t> n = reader->num_vertices();
  const std::optional<uint64_t> m = reader->num_edges();
  FUZZ_CHECK(n.has_value() && m.has_value(), "a .csr reader without counts");
  // The header passed Open: its sections lie in the file, which bounds the loops below.
  FUZZ_CHECK(*m <= file_size / sizeof(VertexId) && *n < file_size / sizeof(EdgeIndex),
             "Open accepted counts whose sections cannot fit the file");
  BlockRead r;
  r.vertices = *n;
  r.weighted = reader->weighted();
  std::vector<VertexId> sources(block), targets(block);
  std::vector<Weight> weights(r.weighted ? block : 0);
  const EdgeBuffers buffers{sources, targets, weights};
  for (uint64_t first = 0;;) {
    const EdgeBlock b = reader->ReadEdges(first, buffers);
    FUZZ_CHECK(b.first_edge == first, "a block not at the position asked for");
    FUZZ_CHECK(b.size() <= block && b.sources.size() == b.size(), "a block larger than asked");
    FUZZ_CHECK(b.weights.size() == (r.weighted ? b.size() : 0), "weights do not match the block");
    if (b.size() == 0) break;
    FUZZ_CHECK(first + b.size() <= *m, "more edges than num_edges");
    r.sources.insert(r.sources.end(), b.sources.begin(), b.sources.end());
    r.targets.insert(r.targets.end(), b.targets.begin(), b.targets.end());
    for (Weight w : b.weights) r.weight_bits.push_back(Bits(w));
    first += b.size();
  }
  FUZZ_CHECK(r.targets.size() == *m, "the blocks end before num_edges");
  std::vector<EdgeIndex> offsets(block + 1);
  for (uint64_t first = 0; first <= *n;) {
    const uint64_t count = std::min<uint64_t>(offsets.size(), *n + 1 - first);
    reader->ReadVertexOffsets(first, std::span<EdgeIndex>(offsets.data(), count));
    r.offsets.insert(r.offsets.end(), offsets.begin(), offsets.begin() + count);
    first += count;
  }
  reader->Close();
  return r;
}

void CheckCsr(const CsrFile& file, const Csr& csr) {
  const uint64_t n = csr.num_vertices, m = csr.NumEdges();
  FUZZ_CHECK(n == file.num_vertices() && m == file.num_edges(), "Load changed the counts");
  FUZZ_CHECK(csr.offsets.size() == n + 1, "offsets are not num_vertices + 1");
  FUZZ_CHECK(csr.offsets[0] == 0 && csr.offsets[n] == m, "offsets do not span the edges");
  for (uint64_t v = 0; v < n; ++v) {
    FUZZ_CHECK(csr.offsets[v] <= csr.offsets[v + 1], "Load returned decreasing offsets");
  }
  for (uint64_t e = 0; e < m; ++e) {
    FUZZ_CHECK(csr.targets[e] < n, "Load returned a target beyond the vertex count");
  }
  FUZZ_CHECK(csr.weighted == file.weighted(), "Load changed the weightedness");
  FUZZ_CHECK(csr.weights.size() == (csr.weighted ? m : 0), "weights do not match the edges");
}

void CompareWithLoad(const Csr& csr, const BlockRead& r) {
  FUZZ_CHECK(r.vertices == csr.num_vertices && r.targets.size() == csr.NumEdges(),
             "block API and Load disagree on the counts");
  FUZZ_CHECK(r.weighted == csr.weighted, "block API and Load disagree on weights");
  for (uint64_t v = 0; v <= csr.num_vertices; ++v) {
    FUZZ_CHECK(r.offsets[v] == csr.offsets[v], "ReadVertexOffsets and Load disagree");
  }
  for (uint64_t v = 0; v < csr.num_vertices; ++v) {
    for (uint64_t e = csr.offsets[v]; e < csr.offsets[v + 1]; ++e) {
      FUZZ_CHECK(r.sources[e] == v, "block API and Load disagree on a source");
      FUZZ_CHECK(r.targets[e] == csr.targets[e], "block API and Load disagree on a target");
      if (csr.weighted) {
        FUZZ_CHECK(r.weight_bits[e] == Bits(csr.weights[e]),
                   "block API and Load disagree on a weight");
      }
    }
  }
}

}  // namespace
}  // namespace needle::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace needle;
  using namespace needle::fuzz;
  if (size < 1) return 0;
  const uint8_t config = data[0];
  const size_t block = 1 + (config & 15);
  const int threads = (config & 32) ? 2 : 1;
  std::vector<uint8_t> image = (config & 16) ? std::vector<uint8_t>(data + 1, data + size)
                                             : DecodeZeroRuns(data + 1, data + size);
  if ((config & 128) && image.size() >= sizeof(CsrFileHeader)) {
    Store<uint64_t>(image.data() + offsetof(CsrFileHeader, file_size), image.size());
  }
  if (!(config & 64)) RecomputeCsrChecksums(image);
  const std::string path = ScratchDir() + "/graph.csr";
  WriteFileOrDie(path, image);

  static const bool verbose = std::getenv("NEEDLE_FUZZ_VERBOSE") != nullptr;
  std::optional<Csr> loaded;
  try {
    const CsrFile file = CsrFile::Open(path);
    loaded = file.Load(threads);
    CheckCsr(file, *loaded);
    if (verbose) std::fprintf(stderr, "load: ok\n");
  } catch (const Error& e) {
    if (verbose) std::fprintf(stderr, "load: %s\n", e.what());
  }
  std::optional<BlockRead> blocks;
  try {
    blocks = ReadBlocks(path, image.size(), block);
    if (verbose) std::fprintf(stderr, "blocks: ok\n");
  } catch (const Error& e) {
    if (verbose) std::fprintf(stderr, "blocks: %s\n", e.what());
  }
  if (loaded && blocks) CompareWithLoad(*loaded, *blocks);
  return 0;
}
