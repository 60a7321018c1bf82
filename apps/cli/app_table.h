// The apps `needle run` knows, one row each: how the graph is sharded for the app and the
// function that runs it (its program, how its values are written and summarised, and how
// --verify checks them against the app's serial oracle). A new app is a program
// (apps/programs/), a row in app_table.cc, and its run function (apps/cli/*_app.cc, built on
// run_program.h).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "apps/cli/run_config.h"
#include "engine/engine_options.h"
#include "shards/intervals.h"
#include "shards/shard_set.h"

namespace needle::cli {

// The interval costs an app's values need, when wider than the sharder's defaults, and the
// shard set directory they get (so that the default set of GRAPH stays as it is).
struct ShardNeeds {
  IntervalCosts costs;
  // The set's name after GRAPH's (".mssp-8.shards"); empty: the default, ".shards" (or
  // ".sym.shards" for a symmetrized set).
  std::string suffix;
  uint64_t message_bytes = 4;   // the program's EdgeValue (dynamic shards' delay buffer)
};

struct App {
  const char* name;
  const char* summary;  // one line, for --help
  bool symmetrize;      // follows every edge both ways: its shard set is symmetrised
  bool takes_sources;   // --sources / --num-sources
  bool takes_tolerance;  // --tolerance
  bool splits_gather;   // its program allows --gather split (SplitsGather, split_gather.h)
  // nullptr: the sharder's default costs and directory.
  ShardNeeds (*shard_needs)(const RunConfig& c);
  // Runs the app on `set`, writes what `c` asks for; returns the exit status (0, or 3 when
  // the run stopped before it converged, 4 when --verify found a difference).
  int (*run)(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
             RunOutputs& outputs);
};

std::span<const App> Apps();
const App* FindApp(std::string_view name);  // nullptr when unknown
std::string AppNames();                     // "pagerank, cc, mssp"

// The apps' run functions (apps/cli/*_app.cc) and needs.
int RunPageRank(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
                RunOutputs& outputs);
int RunComponents(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
                  RunOutputs& outputs);
int RunShortestPaths(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
                     RunOutputs& outputs);
ShardNeeds ShortestPathsNeeds(const RunConfig& c);

}  // namespace needle::cli
