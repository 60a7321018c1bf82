// The options of `needle run` that change nothing for an app or a shard mode. Given anyway,
// they are said in a note, not refused: `needle compare` passes one set of options to every
// mode, and a script may sweep the modes with one command line.
#pragma once

#include <string>
#include <string_view>

#include "apps/cli/app_table.h"
#include "engine/engine_options.h"

namespace needle::cli {

// The options these know (by their long names, without the dashes).
inline constexpr std::string_view kModalOptions[] = {"tolerance", "shadow-below", "delay-buffer",
                                                     "whole-shards", "push-below"};

// Why `app` ignores `option`, or empty where it does not.
std::string AppIgnores(const App& app, std::string_view option);
// Why a run in `mode` ignores `option`, or empty where it does not.
std::string ModeIgnores(ShardMode mode, std::string_view option);

// "note: --OPTION has no effect on APP: why" or "... with --mode MODE: why" for a run of `app`
// in `mode`, or empty where the option has an effect there.
std::string UnusedOptionNote(const App& app, ShardMode mode, std::string_view option);

}  // namespace needle::cli
