#include "apps/cli/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace needle::cli {

ProgressBar::ProgressBar(std::vector<std::string> phases, std::string unit, bool shown)
    : enabled_(shown && isatty(STDERR_FILENO) != 0),
      phases_(std::move(phases)),
      unit_(std::move(unit)) {}

ProgressBar::~ProgressBar() { Finish(); }

void ProgressBar::Finish() {
  if (drawn_) std::fprintf(stderr, "\n");
  drawn_ = false;
}

void ProgressBar::Update(int phase, uint64_t done, uint64_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (phase != phase_) {
    phase_ = phase;
    phase_start_ = now;
  } else if (now - last_draw_ < std::chrono::milliseconds(100) && done != total) {
    return;
  }
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - phase_start_).count();
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  const std::string& name =
      phase >= 1 && phase <= static_cast<int>(phases_.size()) ? phases_[phase - 1] : unit_;
  char line[160];
  if (total > 0) {
    const double eta = rate > 0 ? static_cast<double>(total - std::min(done, total)) / rate : 0;
    std::snprintf(line, sizeof(line), "[%d/%zu] %-22s %5.1f%%  %.1fM %s/s  ETA %.0fs", phase,
                  phases_.size(), name.c_str(),
                  100.0 * static_cast<double>(done) / static_cast<double>(total), rate / 1e6,
                  unit_.c_str(), eta);
  } else if (done == 0) {  // nothing counted: how long the phase has run
    std::snprintf(line, sizeof(line), "[%d/%zu] %-22s %.0f s", phase, phases_.size(),
                  name.c_str(), seconds);
  } else {
    std::snprintf(line, sizeof(line), "[%d/%zu] %-22s %.1fM %s  %.1fM %s/s", phase, phases_.size(),
                  name.c_str(), static_cast<double>(done) / 1e6, unit_.c_str(), rate / 1e6,
                  unit_.c_str());
  }
  std::fprintf(stderr, "\r%-79s", line);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace needle::cli
