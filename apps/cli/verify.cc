#include "apps/cli/verify.h"

#include <cstdio>
#include <string>
#include <string_view>

#include "apps/cli/cli_common.h"
#include "base/error.h"
#include "base/parallel.h"
#include "loaders/format.h"
#include "loaders/load_graph.h"

namespace needle::cli {

namespace {

LoadOptions VerifyLoadOptions(const Manifest& m, int threads) {
  GraphInputOptions input;
  input.format = m.choices.format;
  input.weights = m.choices.weights;
  input.threads.value = static_cast<uint32_t>(threads);
  LoadOptions options;
  options.read = ToReadOptions(input);
  options.csr.symmetrize = m.choices.symmetrize;
  options.csr.threads = threads;
  return options;
}

void CheckSameInput(const ShardSet& set, GraphFormat format) {
  const Manifest& m = set.manifest();
  const std::string changed =
      InputDifference(m.input, InputFingerprint::Stat(m.input.path), format);
  if (!changed.empty()) {
    throw Error(m.input.path, "--verify: not the graph " + set.dir() + " was built from (" +
                                  changed + "); rebuild the set or verify another run");
  }
}

}  // namespace

uint64_t VerifyBytes(const Manifest& m, uint64_t values_per_vertex, int threads) {
  const uint64_t weight = m.weighted ? 4 : 0;
  const uint64_t edge_list = m.num_edges * (8 + weight);  // (source, target[, weight])
  const uint64_t csr = 8 * (m.num_vertices + 1) + m.num_edges * (4 + weight);
  const uint64_t counts = 4 * m.num_vertices * ThreadCount(threads);  // per-thread degrees
  // The input as the loader holds it: a compressed file through its 64 MiB text buffer, a
  // text file mapped whole, a .csr read into the arrays counted above.
  uint64_t input = 0;
  char head[64] = {};
  if (std::FILE* f = std::fopen(m.input.path.c_str(), "rb")) {
    const size_t got = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    const std::string_view start(head, got);
    if (DetectCompression(head, got) != Compression::kNone) {
      input = uint64_t{64} << 20;
    } else if (DetectFormat(m.input.path, start) != GraphFormat::kCsr) {
      input = m.input.size;
    }
  }
  // The oracle's values, and the run's values gathered for the comparison.
  const uint64_t values = 8 * m.num_vertices * (values_per_vertex + 1);
  return edge_list + csr + counts + input + values;
}

void CheckCanVerify(const ShardSet& set, uint64_t values_per_vertex, uint64_t memory_bytes,
                    int threads) {
  const Manifest& m = set.manifest();
  const uint64_t need = VerifyBytes(m, values_per_vertex, threads);
  if (need > memory_bytes) {
    throw UsageError("--verify holds the graph and the oracle's answer in memory: about " +
                     HumanBytes(static_cast<double>(need)) + " for " +
                     std::to_string(m.num_vertices) + " vertices and " +
                     std::to_string(m.num_edges) + " edges, more than --memory (" +
                     HumanBytes(static_cast<double>(memory_bytes)) + ")");
  }
  CheckSameInput(set, VerifyLoadOptions(m, 0).read.format);
}

Csr LoadVerifyGraph(const ShardSet& set, int threads) {
  const LoadOptions options = VerifyLoadOptions(set.manifest(), threads);
  CheckSameInput(set, options.read.format);
  return LoadGraph(set.manifest().input.path, options);
}

}  // namespace needle::cli
