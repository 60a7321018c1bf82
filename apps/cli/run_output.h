// What `needle run` writes: the per-vertex output file (written to a temporary name and renamed
// into place, so a failed run leaves nothing that looks like a result), the per-iteration
// statistics as JSON lines, and a progress line per iteration on a terminal.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "engine/run_stats.h"

namespace needle::cli {

// A file written under "<path>.tmp-XXXXXX" and renamed to `path` by Commit(); removed if never
// committed. Throws Error.
class AtomicOutput {
 public:
  explicit AtomicOutput(const std::string& path);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  std::FILE* file() { return file_; }
  void Commit();

 private:
  std::string path_, temp_;
  std::FILE* file_ = nullptr;
};

// Appends JSON lines to --stats FILE (when given) and draws the progress line.
class RunReporter {
 public:
  RunReporter(const std::string& stats_path, std::string app);
  ~RunReporter();
  void Iteration(const IterationStats& s);
  void Finish(const RunSummary& s);

 private:
  std::FILE* stats_ = nullptr;
  std::string stats_path_;
  std::string app_;
  bool terminal_;
};

// "12.3 s, read 1.20 GB, wrote 0.40 GB" style summary of a run, one line.
std::string DescribeRun(const RunSummary& s);

}  // namespace needle::cli
