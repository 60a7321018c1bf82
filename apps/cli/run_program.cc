#include "apps/cli/run_program.h"

#include <limits>

#include "apps/cli/cli_common.h"

namespace needle::cli {

void AppendNumber(std::string& line, double value) {
  if (value == std::numeric_limits<double>::infinity()) {
    line += "\tinf";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "\t%.9g", value);
  line += buf;
}

void CheckCanReorder(const ShardSet& set, uint64_t bytes_per_vertex, uint64_t min_piece_bytes,
                     uint64_t memory_bytes) {
  if (!set.reordered()) return;
  const uint64_t n = set.manifest().num_vertices;
  const uint64_t need = n * bytes_per_vertex + min_piece_bytes;
  if (need > memory_bytes) {
    throw UsageError(set.dir() + " numbers its vertices in " + set.manifest().choices.order +
                     " order: --out, --top and --verify map its " + std::to_string(n) +
                     " vertices to input ids in memory, about " +
                     HumanBytes(static_cast<double>(need)) + ", more than --memory (" +
                     HumanBytes(static_cast<double>(memory_bytes)) +
                     "): raise --memory or shard in input order");
  }
}

std::vector<VertexId> SetIds(const ShardSet& set, const std::vector<VertexId>& ids) {
  if (!set.reordered()) return ids;
  const std::vector<VertexId> input_ids = set.InputIds();
  std::vector<VertexId> out(ids.size(), kNoVertex);
  for (VertexId v = 0; v < input_ids.size(); ++v) {
    for (size_t k = 0; k < ids.size(); ++k) {
      if (input_ids[v] == ids[k]) out[k] = v;
    }
  }
  return out;
}

}  // namespace needle::cli
