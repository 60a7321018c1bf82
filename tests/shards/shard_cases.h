// The inputs the sharder tests shard: a graph file and the oracle it must shard into, the
// ways to make one (written out, R-MAT, a dataset), the parametrised-test case around them,
// and the budgets (one shard, about a dozen) the cases are sharded at.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <utility>

#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"
#include "loaders/text_reader.h"
#include "tests/shards/shard_test_util.h"

namespace needle::testing {

struct Input {
  std::string path;
  OracleGraph oracle;  // the input's edges, as read
  WeightMode weights = WeightMode::kAuto;
  std::string weights_name = "auto";
};

inline Input Written(const std::string& dir, const std::string& name, const std::string& text,
                     OracleGraph oracle) {
  const std::string path = dir + "/" + name;
  WriteFile(path, text);
  return Input{path, std::move(oracle)};
}

// An R-MAT graph written as a text edge list (seeded by scale, weights and `seed_factor`).
inline Input Rmat(const std::string& dir, int scale, bool weighted, int edge_factor,
                  uint64_t seed_factor) {
  RmatOptions r;
  r.scale = scale;
  r.edge_factor = edge_factor;
  r.weighted = weighted;
  r.seed = static_cast<uint64_t>(scale) * seed_factor + (weighted ? 1 : 0);
  const EdgeList list = GenerateRmat(r);
  const std::string path = dir + "/rmat" + std::to_string(scale) + (weighted ? "w.wel" : ".el");
  WriteEdgeListText(list, path);
  return Input{path, OracleFromEdgeListFile(list)};
}

// A real dataset, read in place; its oracle comes from LoadGraph (cached across tests).
inline Input Dataset(const std::string& relative) {
  const std::string path = DatasetPath(relative);
  return Input{path, DatasetOracle(path)};
}

// The graph of tests/data/README.md: 6 vertices (3 isolated), 9 edges.
inline OracleGraph TinyOracle(bool weighted) {
  return MakeOracle(6, weighted,
                    {{0, 1, 1.5f},
                     {0, 2, 2},
                     {1, 2, 0.5f},
                     {2, 0, 3},
                     {4, 4, 1},
                     {2, 5, 1e3f},
                     {5, 4, -2},
                     {0, 1, 7},
                     {4, 0, 4.25f}});
}

// Self-loops (one repeated) and duplicate edges, unweighted.
inline Input LoopsAndDuplicates(const std::string& dir) {
  return Written(dir, "loops.el", "3 3\n3 3\n0 3\n0 3\n3 0\n1 1\n2 3\n0 3\n",
                 MakeOracle(4, false,
                            {{3, 3, 1},
                             {3, 3, 1},
                             {0, 3, 1},
                             {0, 3, 1},
                             {3, 0, 1},
                             {1, 1, 1},
                             {2, 3, 1},
                             {0, 3, 1}}));
}

struct GraphCase {
  std::string name;
  std::function<Input(const std::string& dir)> make;
};

inline void PrintTo(const GraphCase& c, std::ostream* os) { *os << c.name; }

// How much of the budget is left for intervals.
enum class Budget {
  kOneShard,  // usable = the total cost exactly: everything fits one interval, just
  kMany,      // usable = total cost / 12, at least the largest vertex: about a dozen intervals
              // (one vertex per interval on tiny graphs, where the largest vertex dominates)
};

inline std::string BudgetName(Budget b) {
  return b == Budget::kOneShard ? "one_shard" : "many_shards";
}

inline void PrintTo(Budget b, std::ostream* os) { *os << BudgetName(b); }

// Usable bytes for intervals on graph g (as sharded, with the cost factors f).
inline uint64_t UsableFor(const OracleGraph& g, Budget b, const CostFactors& f = {}) {
  const CostSummary c = CostsOf(g, f);
  if (b == Budget::kOneShard) return std::max<uint64_t>(c.total, 1);
  return std::max<uint64_t>({c.max_vertex, (c.total + 11) / 12, 1});
}

}  // namespace needle::testing
