// --quiet and --verbose, as shard and run take them. Quiet: no progress and no notes — only
// what was asked for (--top), warnings and errors. Verbose: also the rules and plans behind
// decisions (the interval rule, the memory plan). Progress lines are drawn only on a terminal.
#pragma once

#include <cstdio>
#include <string>

#include "apps/cli/cli_common.h"

namespace needle::cli {

struct Verbosity {
  bool quiet = false;
  bool verbose = false;
};

// `details`: what --verbose adds for this command (empty: nothing; accepted all the same, so
// that scripts may pass it to every command).
void AddVerbosityOptions(po::options_description& options, Verbosity& values,
                         const std::string& details = "");
void CheckVerbosity(const Verbosity& values);  // throws UsageError when both are given

// Where messages for people go: `to`, or a stream that drops them under --quiet.
std::FILE* MessagesTo(std::FILE* to, const Verbosity& values);

// A stream that drops what is written to it (one per process, never closed).
std::FILE* NullStream();

}  // namespace needle::cli
