// ProgressBar: one self-rewriting status line on stderr — phase, done/total, rate, ETA —
// drawn only when stderr is a terminal, at most ten times a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace needle::cli {

class ProgressBar {
 public:
  // `phases` names each phase (1-based in Update), `unit` names what is counted ("edges").
  // `shown` false: draws nothing (--quiet).
  ProgressBar(std::vector<std::string> phases, std::string unit, bool shown = true);
  ~ProgressBar();  // ends the line
  // total == 0: unknown (no percentage or ETA).
  void Update(int phase, uint64_t done, uint64_t total);
  void Finish();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::vector<std::string> phases_;
  std::string unit_;
  int phase_ = 0;
  std::chrono::steady_clock::time_point phase_start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace needle::cli
