#include "apps/cli/app_table.h"

#include <algorithm>
#include <iterator>

#include "apps/programs/connected_components.h"
#include "apps/programs/pagerank.h"
#include "apps/programs/shortest_paths.h"
#include "engine/split_gather.h"

namespace needle::cli {
namespace {

constexpr App kApps[] = {
    {"pagerank", "PageRank, unnormalised, damping 0.85 (ranks start at 0.15)",
     /*symmetrize=*/false, /*takes_sources=*/false, /*takes_tolerance=*/true,
     SplitsGather<apps::PageRank>(), nullptr, &RunPageRank},
    {"cc", "connected components, edges followed both ways (label: smallest id)",
     /*symmetrize=*/true, /*takes_sources=*/false, /*takes_tolerance=*/false,
     SplitsGather<apps::ConnectedComponents>(), nullptr, &RunComponents},
    {"mssp", "shortest paths from up to 32 sources (non-negative weights, 1 when unweighted)",
     /*symmetrize=*/false, /*takes_sources=*/true, /*takes_tolerance=*/false,
     SplitsGather<apps::ShortestPaths<1>>(), &ShortestPathsNeeds, &RunShortestPaths},
};

}  // namespace

std::span<const App> Apps() { return kApps; }

const App* FindApp(std::string_view name) {
  const auto it = std::find_if(std::begin(kApps), std::end(kApps),
                               [&](const App& a) { return name == a.name; });
  return it == std::end(kApps) ? nullptr : &*it;
}

std::string AppNames() {
  std::string names;
  for (const App& a : kApps) names += (names.empty() ? "" : ", ") + std::string(a.name);
  return names;
}

}  // namespace needle::cli
