// The options of `needle run` that change nothing for an app or a shard mode. Given anyway,
// they are said in a note, not refused: `needle compare` passes one set of options to every
// mode, and a script may sweep the modes with one command line.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "apps/cli/app_table.h"
#include "engine/engine_options.h"

namespace needle::cli {

// The options UnusedOptionNote knows (by their long names, without the dashes).
inline constexpr std::string_view kModalOptions[] = {"tolerance", "shadow-below", "delay-buffer",
                                                     "whole-shards", "push-below"};

// "note: --OPTION has no effect on APP: why" where `app` ignores `option`, else "note: --OPTION
// has no effect WHERE: why" where every one of `modes` does (`where` says how the modes were
// given: "with --mode static", "in any of --modes static,auto"); empty where it has an effect.
std::string UnusedOptionNote(const App& app, std::span<const ShardMode> modes,
                             const std::string& where, std::string_view option);

}  // namespace needle::cli
