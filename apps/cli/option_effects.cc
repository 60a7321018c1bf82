#include "apps/cli/option_effects.h"

namespace needle::cli {
namespace {

// Why `app` ignores `option`, or empty where it does not.
std::string AppIgnores(const App& app, std::string_view option) {
  if (option == "tolerance" && !app.takes_tolerance) return "it runs until no value changes";
  return "";
}

// Why a run in `mode` ignores `option`, or empty where it does not.
std::string ModeIgnores(ShardMode mode, std::string_view option) {
  const bool dynamic = mode == ShardMode::kAds || mode == ShardMode::kOds;
  if (option == "shadow-below" && !dynamic) {
    return "it sets when ads and ods start their shadow iterations";
  }
  if ((option == "delay-buffer" || option == "whole-shards") && mode == ShardMode::kStatic) {
    return "it is for the modes that build dynamic shards (ads, ods, auto)";
  }
  if (option == "push-below" && dynamic) return "push and pull turns are for static and auto";
  return "";
}

}  // namespace

std::string UnusedOptionNote(const App& app, std::span<const ShardMode> modes,
                             const std::string& where, std::string_view option) {
  const std::string head = "note: --" + std::string(option) + " has no effect ";
  if (const std::string why = AppIgnores(app, option); !why.empty()) {
    return head + "on " + app.name + ": " + why;
  }
  std::string why;
  for (const ShardMode mode : modes) {
    why = ModeIgnores(mode, option);
    if (why.empty()) return "";
  }
  return why.empty() ? "" : head + where + ": " + why;
}

}  // namespace needle::cli
