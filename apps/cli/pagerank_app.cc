// needle run pagerank: ranks written one per vertex, --top K highest, --verify against a
// double-precision power iteration.
#include <cstdio>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "apps/cli/app_table.h"
#include "apps/cli/run_program.h"
#include "apps/oracles/oracles.h"
#include "apps/programs/pagerank.h"

namespace needle::cli {
namespace {

// The accuracy the README states: at --tolerance t every rank ends within 12 t, relative, of
// the power iteration's (bench/pagerank_accuracy measures 8.7 to 10.5 t).
constexpr double kStatedBound = 12;

void PrintTop(const RunConfig& c, RunValues<apps::PageRank>& values) {
  using Entry = std::pair<double, VertexId>;  // min-heap of the best K
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> best;
  values.ForEach([&](VertexId first, std::span<const apps::PageRank::VertexValue> v) {
    for (size_t i = 0; i < v.size(); ++i) {
      best.emplace(v[i].rank, static_cast<VertexId>(first + i));
      if (best.size() > c.top.value) best.pop();
    }
  });
  std::vector<Entry> sorted;
  for (; !best.empty(); best.pop()) sorted.push_back(best.top());
  std::fprintf(c.report, "top %u vertices by rank:\n", c.top.value);
  for (auto it = sorted.rbegin(); it != sorted.rend(); ++it) {
    std::fprintf(c.report, "  %u\t%.9g\n", it->second, it->first);
  }
}

}  // namespace

int RunPageRank(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
                RunOutputs& outputs) {
  apps::PageRank program;
  program.tolerance = static_cast<float>(c.tolerance.value);
  const double bound = kStatedBound * c.tolerance.value;
  AppOutput<apps::PageRank> app;
  app.format = [](const apps::PageRank::VertexValue& v, std::string& line) {
    AppendNumber(line, v.rank);
  };
  app.header = "rank";
  char parameters[64];
  std::snprintf(parameters, sizeof parameters, "tolerance=%g damping=0.85", c.tolerance.value);
  app.parameters = parameters;
  app.npy_descr = "<f8";
  app.binary = [](const apps::PageRank::VertexValue& v, std::string& bytes) {
    bytes.append(reinterpret_cast<const char*>(&v.rank), sizeof v.rank);
  };
  app.top = [&](RunValues<apps::PageRank>& values) { PrintTop(c, values); };
  app.changed = "rank updates sent";
  app.oracle = "a double-precision power iteration (ranks within 12 x --tolerance, relative)";
  app.oracle_values_per_vertex = 2;  // the previous and the next ranks
  app.verify = [bound](const Csr& g, RunValues<apps::PageRank>& values) {
    const std::vector<double> ranks =
        GatherValues(values, [](const apps::PageRank::VertexValue& v) { return double{v.rank}; });
    return oracle::CompareValues(oracle::PageRank(g), ranks, bound, 0);
  };
  return RunProgram(c, set, options, outputs, program, app);
}

}  // namespace needle::cli
