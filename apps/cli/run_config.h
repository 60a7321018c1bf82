// What `needle run` was asked for (RunConfig) and what it writes (RunOutputs): filled in by the
// command (run_command.cc), read by the app it dispatches to (app_table.h).
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "apps/cli/cli_common.h"
#include "apps/cli/verbosity.h"
#include "apps/cli/run_output.h"
#include "engine/engine_options.h"
#include "io/output_file.h"

namespace needle::cli {

struct RunConfig {
  std::string command;     // "needle run ..." as given, for the --stats summary
  std::string app;
  std::string input;
  Whole<uint32_t> iterations;  // when given: at most this many iterations
  bool iterations_given = false;
  Real tolerance{1e-4};
  MemorySize memory{uint64_t{1} << 30};
  std::string io = "auto";
  CacheChoice cache;  // --direct, --buffered
  std::string transport = "auto";
  std::string gather = "auto";
  std::string windows = "auto";  // --windows: whole, pages or auto (EngineOptions::page_windows)
  bool symmetrize = false;  // every edge both ways, whatever the app
  std::string shards_dir;   // where GRAPH's sets go (empty: next to GRAPH)
  Whole<uint32_t> inner_passes{kDefaultInnerPasses};
  std::string mode = "static";  // --mode: static, ads, ods (EngineOptions::mode)
  Real shadow_below{kDefaultShadowBelow};
  MemorySize delay_buffer{kDefaultDelayBufferBytes};
  std::string push = "auto";  // --push: never, auto or always (EngineOptions::push)
  Real push_below{kDefaultPushBelow};
  std::string pull = "auto";  // --pull: never, auto or always (EngineOptions::pull)
  std::string whole_shards = "auto";  // --whole-shards (EngineOptions::whole)
  Whole<uint32_t> intervals;  // when it shards GRAPH: cut into this many (0: the fewest)
  std::string order = "input";  // when it shards GRAPH: the vertices' numbering (--order)
  bool skip_verify = false;
  bool room_for_dynamic = false;  // --room-for-dynamic (implied by --mode ads, ods, auto)
  bool verify = false;  // --verify: compare with the app's serial oracle after the run
  std::string out;
  std::string stats;
  Whole<uint32_t> top;
  std::string sources;
  Whole<uint32_t> num_sources;
  bool sources_given = false;
  GraphInputOptions input_options;
  Verbosity verbosity;      // --quiet, --verbose
  std::FILE* say = stdout;  // messages for people: stderr when an output is stdout, none if quiet
  std::FILE* report = stdout;  // what was asked for (--top): stderr when an output is stdout
};

// What a run writes, opened before any work so that a bad path fails at once.
struct RunOutputs {
  std::optional<OutputFile> values;  // --out
  RunReporter reporter;              // --stats
};

}  // namespace needle::cli
