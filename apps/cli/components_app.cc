// needle run cc: a label per vertex (the smallest id of its component), --top K largest
// components, --verify against union-find (compared as a partition).
#include <algorithm>
#include <utility>
#include <vector>

#include "apps/cli/app_table.h"
#include "apps/cli/run_program.h"
#include "apps/oracles/oracles.h"
#include "apps/programs/connected_components.h"

namespace needle::cli {
namespace {

void PrintTop(const RunConfig& c, const ShardSet& set, Engine<apps::ConnectedComponents>& engine) {
  std::vector<uint32_t> size(set.manifest().num_vertices, 0);
  engine.ForEachInterval([&](VertexId, std::span<const uint32_t> labels) {
    for (uint32_t label : labels) ++size[label];
  });
  std::vector<std::pair<uint32_t, VertexId>> components;
  for (VertexId v = 0; v < size.size(); ++v) {
    if (size[v] > 0) components.emplace_back(size[v], v);
  }
  const size_t k = std::min<size_t>(c.top.value, components.size());
  std::partial_sort(components.begin(), components.begin() + k, components.end(),
                    [](const auto& a, const auto& b) {
                      return a.first != b.first ? a.first > b.first : a.second < b.second;
                    });
  std::fprintf(c.say, "%zu components; the %zu largest (label = smallest vertex id):\n",
               components.size(), k);
  for (size_t i = 0; i < k; ++i) {
    std::fprintf(c.say, "  %u\t%u vertices\n", components[i].second, components[i].first);
  }
}

}  // namespace

int RunComponents(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
                  RunOutputs& outputs) {
  AppOutput<apps::ConnectedComponents> app;
  app.format = [](uint32_t label, std::string& line) { line += '\t' + std::to_string(label); };
  app.header = "label";
  app.top = [&](Engine<apps::ConnectedComponents>& engine) { PrintTop(c, set, engine); };
  app.oracle = "union-find (the same partition)";
  app.oracle_values_per_vertex = 1;  // a uint32 parent and label per vertex: under one double
  app.verify = [](const Csr& g, Engine<apps::ConnectedComponents>& engine) {
    const std::vector<uint32_t> labels = GatherValues(engine, [](uint32_t l) { return l; });
    return oracle::ComparePartition(oracle::ConnectedComponents(g), labels);
  };
  return RunProgram(c, set, options, outputs, apps::ConnectedComponents{}, app);
}

}  // namespace needle::cli
