#include "apps/cli/run_program.h"

#include <charconv>
#include <limits>

#include "apps/cli/cli_common.h"

namespace needle::cli {

void AppendNumber(std::string& line, double value) {
  if (value == std::numeric_limits<double>::infinity()) {
    line += "\tinf";
    return;
  }
  // As printf's "%.9g" (std::to_chars' general format with a precision is specified so),
  // without its locale and stream machinery: a large --out is written several times faster.
  char buf[32];
  buf[0] = '\t';
  const std::to_chars_result r =
      std::to_chars(buf + 1, buf + sizeof buf, value, std::chars_format::general, 9);
  line.append(buf, r.ptr);
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
