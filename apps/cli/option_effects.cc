#include "apps/cli/option_effects.h"

namespace needle::cli {

std::string AppIgnores(const App& app, std::string_view option) {
  if (option == "tolerance" && !app.takes_tolerance) return "it runs until no value changes";
  return "";
}

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

std::string UnusedOptionNote(const App& app, ShardMode mode, std::string_view option) {
  const std::string head = "note: --" + std::string(option) + " has no effect ";
  if (const std::string why = AppIgnores(app, option); !why.empty()) {
    return head + "on " + app.name + ": " + why;
  }
  if (const std::string why = ModeIgnores(mode, option); !why.empty()) {
    return head + "with --mode " + std::string(ShardModeName(mode)) + ": " + why;
  }
  return "";
}

}  // namespace needle::cli
