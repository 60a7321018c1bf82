// needle run cc: a label per vertex (the smallest id of its component), --top K largest
// components, --verify against union-find (compared as a partition).
#include <algorithm>
#include <bit>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apps/cli/app_table.h"
#include "apps/cli/run_program.h"
#include "apps/oracles/oracles.h"
#include "apps/programs/connected_components.h"

namespace needle::cli {
namespace {

void PrintTop(const RunConfig& c, const ShardSet& set,
              RunValues<apps::ConnectedComponents>& values) {
  std::vector<uint32_t> size(set.manifest().num_vertices, 0);
  values.ForEach([&](VertexId, std::span<const uint32_t> labels) {
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
  const size_t singletons = static_cast<size_t>(std::count_if(
      components.begin(), components.end(), [](const auto& x) { return x.first == 1; }));
  const std::string largest = k == 1 ? "the largest" : "the " + std::to_string(k) + " largest";
  std::fprintf(c.report, "%s (%zu of one vertex); %s (label = smallest vertex id):\n",
               Count(components.size(), "component").c_str(), singletons, largest.c_str());
  for (size_t i = 0; i < k; ++i) {
    std::fprintf(c.report, "  %u\t%s\n", components[i].second,
                 Count(components[i].first, "vertex", "vertices").c_str());
  }
  // Sizes by powers of two: how many components of 1, 2-3, 4-7, ... vertices.
  std::vector<uint64_t> histogram;
  for (const auto& [count, label] : components) {
    const size_t bucket = static_cast<size_t>(std::bit_width(count) - 1);
    if (histogram.size() <= bucket) histogram.resize(bucket + 1, 0);
    ++histogram[bucket];
  }
  std::fprintf(c.report, "component sizes:");
  for (size_t b = 0; b < histogram.size(); ++b) {
    if (histogram[b] == 0) continue;
    const unsigned long long lo = 1ull << b, hi = (1ull << (b + 1)) - 1;
    const auto n = static_cast<unsigned long long>(histogram[b]);
    if (lo == hi) {
      std::fprintf(c.report, " %llu: %llu", lo, n);
    } else {
      std::fprintf(c.report, " %llu-%llu: %llu", lo, hi, n);
    }
  }
  std::fprintf(c.report, "\n");
}

}  // namespace

int RunComponents(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
                  RunOutputs& outputs) {
  AppOutput<apps::ConnectedComponents> app;
  app.format = [](uint32_t label, std::string& line) { line += '\t' + std::to_string(label); };
  app.header = "label";
  app.npy_descr = "<u4";
  app.binary = [](uint32_t label, std::string& bytes) {
    bytes.append(reinterpret_cast<const char*>(&label), sizeof label);
  };
  app.top = [&](RunValues<apps::ConnectedComponents>& values) { PrintTop(c, set, values); };
  // A label is the least id of its component in the set's order: made the least input id, so
  // that the output is the same whatever the order.
  app.to_input_ids = [](const RunValues<apps::ConnectedComponents>::Scan& scan,
                        std::span<const VertexId> input_ids) {
    auto least = std::make_shared<std::vector<uint32_t>>(input_ids.size(), kNoVertex);
    scan([&](VertexId first, std::span<const uint32_t> labels) {  // per label of the set
      for (size_t i = 0; i < labels.size(); ++i) {
        uint32_t& l = (*least)[labels[i]];
        l = std::min(l, input_ids[first + i]);
      }
    });
    return std::function<void(uint32_t&)>([least](uint32_t& label) { label = (*least)[label]; });
  };

  app.changed = "label changes";
  app.oracle = "union-find (the same partition)";
  app.oracle_values_per_vertex = 1;  // a uint32 parent and label per vertex: under one double
  app.verify = [](const Csr& g, RunValues<apps::ConnectedComponents>& values) {
    const std::vector<uint32_t> labels = GatherValues(values, [](uint32_t l) { return l; });
    return oracle::ComparePartition(oracle::ConnectedComponents(g), labels);
  };
  return RunProgram(c, set, options, outputs, apps::ConnectedComponents{}, app);
}

}  // namespace needle::cli
