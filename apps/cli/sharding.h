// What `needle shard` and `needle run` share when they shard a graph: the input options, and
// the progress bar and log lines around ShardGraph.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "apps/cli/cli_common.h"
#include "apps/cli/verbosity.h"
#include "shards/sharder.h"

namespace needle::cli {

// Copies the graph-reading options (format, weights, threads) into `shard`.
void ApplyInputOptions(const GraphInputOptions& input, ShardOptions& shard);

// Where GRAPH's shard sets go by default, as a path prefix: GRAPH itself (GRAPH.shards,
// GRAPH.sym.shards, ...) or, with --shards-dir DIR, DIR/NAME where NAME is GRAPH's file name
// (DIR is created when missing). Throws UsageError when DIR exists and is not a directory.
// When GRAPH's directory is not writable (and no --shards-dir was given), the per-user cache
// (ShardCacheDir) in its place, in a folder named after GRAPH's directory so that graphs of
// one name in different places keep apart; a note on `say` says so.
std::string ShardsPrefix(const std::string& input, const std::string& shards_dir,
                         std::FILE* say);

// $NEEDLE_CACHE_DIR, else $XDG_CACHE_HOME/needle, else $HOME/.cache/needle.
std::string ShardCacheDir();

// The shard sets written away from their graph (needle shard --out DIR, --shards-dir, the
// cache), remembered one line "GRAPH<TAB>SET" each (absolute paths) in ShardCacheDir()/sets,
// so that needle run GRAPH finds them (ShardOptions::reuse_from) wherever the user said to put
// them. Best effort: without a cache directory nothing is remembered.
void RememberShardSet(const std::string& input, const std::string& dir);
// GRAPH's remembered sets that still exist, the most recently remembered first.
std::vector<std::string> RememberedShardSets(const std::string& input);

// ShardGraph with a progress bar on a terminal (not under --quiet), its messages on `say`
// and, with --verbose, the interval rule.
ShardReport ShardWithProgress(const std::string& input, ShardOptions shard, std::FILE* say,
                              const Verbosity& verbosity);

}  // namespace needle::cli
