// What `needle shard` and `needle run` share when they shard a graph: the input options, and
// the progress bar and log lines around ShardGraph.
#pragma once

#include <cstdio>
#include <string>

#include "apps/cli/cli_common.h"
#include "shards/sharder.h"

namespace needle::cli {

// Copies the graph-reading options (format, weights, threads) into `shard`.
void ApplyInputOptions(const GraphInputOptions& input, ShardOptions& shard);

// Where GRAPH's shard sets go by default, as a path prefix: GRAPH itself (GRAPH.shards,
// GRAPH.sym.shards, ...) or, with --shards-dir DIR, DIR/NAME where NAME is GRAPH's file name
// (DIR is created when missing). Throws UsageError when DIR exists and is not a directory.
std::string ShardsPrefix(const std::string& input, const std::string& shards_dir);

// ShardGraph with a progress bar on a terminal and its messages on `say`.
ShardReport ShardWithProgress(const std::string& input, ShardOptions shard,
                              std::FILE* say = stdout);

}  // namespace needle::cli
