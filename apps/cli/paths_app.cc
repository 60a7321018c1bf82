// needle run mssp: distances from each source written per vertex (inf when unreachable),
// --top K sources by reach, --verify against Dijkstra. The program's values are 4 bytes per
// source, so its intervals are planned for that in a shard set of their own.
#include <algorithm>
#include <bit>
#include <limits>
#include <vector>

#include "apps/cli/app_table.h"
#include "apps/cli/run_program.h"
#include "apps/cli/sharding.h"
#include "apps/oracles/oracles.h"
#include "apps/programs/shortest_paths.h"
#include "shards/weight_check.h"

namespace needle::cli {
namespace {

constexpr size_t kMaxSources = 32;

// Float distances are sums of float weights along a path: each hop may round by 2^-24
// relative, so a long path drifts from Dijkstra's double sums by up to hops x 6e-8 — 1e-4
// covers paths of well over a thousand hops.
constexpr double kRelativeTolerance = 1e-4;
constexpr double kAbsoluteTolerance = 1e-4;

// --sources "0,5,9": ids, digits only, no repeats (checked before anything is sharded).
std::vector<uint64_t> ParseSources(const std::string& text) {
  std::vector<uint64_t> ids;
  size_t at = 0;
  while (true) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const bool digits =
        !item.empty() && item.size() <= 10 &&
        std::all_of(item.begin(), item.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!digits) throw UsageError("--sources: '" + item + "' is not a vertex id");
    const uint64_t id = std::stoull(item);
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
      throw UsageError("--sources: " + item + " is given twice");
    }
    ids.push_back(id);
    if (comma == text.size()) break;
    at = comma + 1;
  }
  if (ids.size() > kMaxSources) {
    throw UsageError("mssp takes at most " + std::to_string(kMaxSources) + " sources");
  }
  return ids;
}

std::vector<VertexId> PickSources(const RunConfig& c, uint64_t num_vertices) {
  std::vector<VertexId> sources;
  if (c.sources_given) {
    for (uint64_t id : ParseSources(c.sources)) {
      if (id >= num_vertices) {
        throw UsageError("--sources: " + std::to_string(id) + " is not a vertex id below " +
                         std::to_string(num_vertices));
      }
      sources.push_back(static_cast<VertexId>(id));
    }
  } else {
    const uint64_t k = c.num_sources.value == 0 ? 1 : c.num_sources.value;
    if (num_vertices == 0) throw UsageError("mssp needs a source, and the graph has no vertices");
    if (k > num_vertices) throw UsageError("--num-sources is larger than the vertex count");
    for (uint64_t i = 0; i < k; ++i) sources.push_back(static_cast<VertexId>(i * num_vertices / k));
  }
  return sources;
}

// Why a distance may not be what Dijkstra would find, where float cannot hold it: a finite
// distance d that `largest` (the largest weight) takes past the float range (d + largest is
// inf) may have sent an overflowed sum that reads as unreachable. Below n x largest no sum
// can, and nothing is read. Empty when none.
template <size_t K>
std::string DistancesInRange(RunValues<apps::ShortestPaths<K>>& values, size_t used,
                             uint64_t num_vertices, float largest) {
  constexpr float kMax = std::numeric_limits<float>::max();
  if (2.0 * static_cast<double>(largest) * static_cast<double>(num_vertices) < kMax) return "";
  std::string why;
  values.ForEach([&](VertexId first, std::span<const std::array<float, K>> piece) {
    for (size_t i = 0; i < piece.size() && why.empty(); ++i) {
      for (size_t k = 0; k < used; ++k) {
        const float d = piece[i][k];
        if (d <= kMax && d + largest > kMax) {
          char text[128];
          std::snprintf(text, sizeof text,
                        "vertex %llu is at distance %g, past which an edge of %g leaves the "
                        "float range",
                        static_cast<unsigned long long>(first + i), static_cast<double>(d),
                        static_cast<double>(largest));
          why = std::string(text) + ": a vertex shown unreachable (inf) may be reachable";
          break;
        }
      }
    }
  });
  return why;
}

template <size_t K>
int RunPaths(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
             RunOutputs& outputs, const std::vector<VertexId>& sources, float largest) {
  apps::ShortestPaths<K> program;
  program.sources.fill(kNoVertex);
  const std::vector<VertexId> set_sources = SetIds(set, sources);  // the same, in input order
  std::copy(set_sources.begin(), set_sources.end(), program.sources.begin());
  const size_t used = sources.size();
  using Value = typename apps::ShortestPaths<K>::VertexValue;
  AppOutput<apps::ShortestPaths<K>> app;
  app.format = [used](const Value& d, std::string& line) {
    for (size_t k = 0; k < used; ++k) AppendNumber(line, d[k]);
  };
  for (size_t k = 0; k < used; ++k) {
    app.header += (k == 0 ? "d_" : "\td_") + std::to_string(sources[k]);
  }
  app.parameters = "sources=";
  for (size_t k = 0; k < used; ++k) {
    if (k > 0) app.parameters += ',';
    app.parameters += std::to_string(sources[k]);
  }
  app.npy_descr = "<f4";
  app.npy_columns = used;
  app.binary = [used](const Value& d, std::string& bytes) {
    bytes.append(reinterpret_cast<const char*>(d.data()), used * sizeof(float));
  };
  app.changed = "distance improvements";
  app.oracle = "Dijkstra (distances within 1e-4, relative)";
  app.oracle_values_per_vertex = used + 1;  // the distances and Dijkstra's heap
  app.verify = [&sources, used](const Csr& g, RunValues<apps::ShortestPaths<K>>& values) {
    const std::vector<std::vector<double>> expected = oracle::ShortestPaths(g, sources);
    for (size_t k = 0; k < used; ++k) {
      const std::vector<double> actual =
          GatherValues(values, [k](const Value& d) { return double{d[k]}; });
      const std::string difference =
          oracle::CompareValues(expected[k], actual, kRelativeTolerance, kAbsoluteTolerance);
      if (!difference.empty()) return "source " + std::to_string(sources[k]) + ": " + difference;
    }
    return std::string();
  };
  app.representable = [&](RunValues<apps::ShortestPaths<K>>& values) {
    return DistancesInRange<K>(values, used, set.manifest().num_vertices, largest);
  };
  app.top = [&](RunValues<apps::ShortestPaths<K>>& values) {
    std::vector<std::pair<uint64_t, double>> reach(used, {0, 0.0});  // count, farthest
    values.ForEach([&](VertexId, std::span<const Value> piece) {
      for (const Value& d : piece) {
        for (size_t k = 0; k < used; ++k) {
          if (d[k] == apps::ShortestPaths<K>::kInfinity) continue;
          ++reach[k].first;
          reach[k].second = std::max<double>(reach[k].second, d[k]);
        }
      }
    });
    std::vector<size_t> order(used);
    for (size_t k = 0; k < used; ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return reach[a].first > reach[b].first; });
    order.resize(std::min<size_t>(c.top.value, used));
    std::fprintf(c.report, "sources by reach count:\n");
    for (size_t k : order) {
      std::fprintf(c.report, "  %u\treaches %s, farthest at distance %.9g\n", sources[k],
                   Count(reach[k].first, "vertex", "vertices").c_str(), reach[k].second);
    }
  };
  return RunProgram(c, set, options, outputs, program, app);
}

}  // namespace

ShardNeeds ShortestPathsNeeds(const RunConfig& c) {
  if (c.sources_given && c.num_sources.value != 0) {
    throw UsageError("give --sources or --num-sources, not both");
  }
  if (c.num_sources.value > kMaxSources) {
    throw UsageError("mssp takes at most " + std::to_string(kMaxSources) + " sources");
  }
  const size_t num_sources =
      c.sources_given ? ParseSources(c.sources).size() : std::max<size_t>(c.num_sources.value, 1);
  const size_t slots = std::bit_ceil(num_sources);
  ShardNeeds needs;
  // The program's widths (WidthsOf<ShortestPaths<slots>>); a weighted set's weights are
  // charged by the planner.
  needs.costs = IntervalCostsFor({4 * slots, 4 * slots, 4 * slots, 4});
  needs.message_bytes = 4 * slots;
  if (!needs.costs.is_default()) {
    needs.suffix = std::string(c.symmetrize ? ".sym" : "") + ".mssp-" + std::to_string(slots) +
                   ".shards";
  }
  return needs;
}

int RunShortestPaths(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
                     RunOutputs& outputs) {
  const float largest = CheckNonNegativeWeights(
      set, ("mssp needs non-negative weights (input " + set.manifest().input.path + ")").c_str());
  const std::vector<VertexId> sources = PickSources(c, set.manifest().num_vertices);
  std::fprintf(c.say, "mssp: %zu source%s:", sources.size(), sources.size() == 1 ? "" : "s");
  for (VertexId s : sources) std::fprintf(c.say, " %u", s);
  std::fprintf(c.say, "\n");
  switch (sources.size()) {
    case 1:
      return RunPaths<1>(c, set, options, outputs, sources, largest);
    case 2:
      return RunPaths<2>(c, set, options, outputs, sources, largest);
    case 3:
    case 4:
      return RunPaths<4>(c, set, options, outputs, sources, largest);
    case 5:
    case 6:
    case 7:
    case 8:
      return RunPaths<8>(c, set, options, outputs, sources, largest);
    default:
      if (sources.size() <= 16) return RunPaths<16>(c, set, options, outputs, sources, largest);
      return RunPaths<kMaxSources>(c, set, options, outputs, sources, largest);
  }
}

}  // namespace needle::cli
