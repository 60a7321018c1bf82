// Fuzz target `bvgraph`: a WebGraph BVGraph's bit stream (X.graph) through the native decoder
// (BvGraph::Decode, one sequential pass) and through the block API (GraphReader over the same
// files, ReadEdges in small blocks).
//
// Input: four header bytes, then the .graph bytes.
//   byte 0: bits 0-2 windowsize (0..7); bits 3-4 maxrefcount (0, 1, 3, 7); bits 5-6
//           minintervallength (0, 1, 2, 4); bit 7 zetak 2 instead of 3
//   byte 1: nodes - 1 (1..256)
//   bytes 2-3: arcs, little-endian (0..65535)
// The properties file says these with the default codings; X.offsets is absent, so every read
// decodes from node 0.
//
// Checks:
//  - Decode's contract: a CSR it returns has `nodes` vertices, offsets from 0 non-decreasing
//    to `arcs`, and in every list successors strictly increasing and below `nodes`.
//  - The block API returns exactly `arcs` edges, at the asked positions, never more than asked.
//  - When both succeed they agree on every source and target.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "loaders/bvgraph.h"
#include "loaders/graph_reader.h"
#include "tests/fuzz/fuzz_util.h"

namespace needle::fuzz {
namespace {

struct Edges {
  std::vector<VertexId> sources, targets;
};

// Every edge through the block API, `block` at a time. Throws Error.
Edges ReadBlocks(const std::string& path, uint64_t arcs, uint64_t block) {
  std::unique_ptr<GraphReader> reader = GraphReader::Open(path);
  FUZZ_CHECK(reader->num_edges().value_or(arcs + 1) == arcs, "a BVGraph reader's arc count");
  std::vector<VertexId> sources(block), targets(block);
  const EdgeBuffers buffers{sources, targets, {}};
  Edges out;
  for (uint64_t first = 0;; first += block) {
    const EdgeBlock b = reader->ReadEdges(first, buffers);
    FUZZ_CHECK(b.first_edge == first, "a block at another position than asked");
    FUZZ_CHECK(b.size() <= block, "a block larger than asked");
    if (b.size() == 0) break;
    FUZZ_CHECK(first + b.size() <= arcs, "more edges than the properties' arcs");
    out.sources.insert(out.sources.end(), b.sources.begin(), b.sources.end());
    out.targets.insert(out.targets.end(), b.targets.begin(), b.targets.end());
    if (b.size() < block) break;
  }
  return out;
}

}  // namespace
}  // namespace needle::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace needle;
  using namespace needle::fuzz;
  if (size < 4) return 0;
  static constexpr uint32_t kMaxRef[4] = {0, 1, 3, 7};
  static constexpr uint32_t kMinInterval[4] = {0, 1, 2, 4};
  const uint32_t window = data[0] & 7;
  const uint32_t max_ref = kMaxRef[(data[0] >> 3) & 3];
  const uint32_t min_interval = kMinInterval[(data[0] >> 5) & 3];
  const uint32_t zeta_k = (data[0] & 0x80) != 0 ? 2 : 3;
  const uint64_t nodes = uint64_t{data[1]} + 1;
  const uint64_t arcs = Load<uint16_t>(data + 2);
  const std::string base = ScratchDir() + "/g";
  WriteFileOrDie(base + ".properties",
                 "graphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\ncompressionflags=\n"
                 "nodes=" + std::to_string(nodes) + "\narcs=" + std::to_string(arcs) +
                     "\nwindowsize=" + std::to_string(window) + "\nmaxrefcount=" +
                     std::to_string(max_ref) + "\nminintervallength=" +
                     std::to_string(min_interval) + "\nzetak=" + std::to_string(zeta_k) + "\n");
  WriteFileOrDie(base + ".graph", std::span<const uint8_t>(data + 4, size - 4));

  bool decoded = false;
  Csr csr;
  try {
    const BvGraph graph = BvGraph::Open(base + ".graph");
    csr = graph.Decode(BvDecodeOptions{.threads = 1, .parallel = false});
    decoded = true;
  } catch (const Error&) {
  }
  if (decoded) {
    FUZZ_CHECK(csr.num_vertices == nodes, "a CSR of another vertex count");
    FUZZ_CHECK(csr.offsets[0] == 0 && csr.offsets[nodes] == arcs, "offsets do not span arcs");
    for (uint64_t v = 0; v < nodes; ++v) {
      FUZZ_CHECK(csr.offsets[v] <= csr.offsets[v + 1], "offsets decrease");
      for (uint64_t e = csr.offsets[v]; e < csr.offsets[v + 1]; ++e) {
        FUZZ_CHECK(csr.targets[e] < nodes, "a successor outside the graph");
        FUZZ_CHECK(e == csr.offsets[v] || csr.targets[e - 1] < csr.targets[e],
                   "successors not strictly increasing");
      }
    }
  }
  try {
    const Edges edges = ReadBlocks(base + ".graph", arcs, 1 + data[1] % 7);
    if (decoded) {
      FUZZ_CHECK(edges.targets.size() == arcs, "the block API read another arc count");
      for (uint64_t v = 0, e = 0; v < nodes; ++v) {
        for (; e < csr.offsets[v + 1]; ++e) {
          FUZZ_CHECK(edges.sources[e] == v && edges.targets[e] == csr.targets[e],
                     "the block API and Decode disagree");
        }
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
