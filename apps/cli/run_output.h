// What `needle run` writes: the per-vertex output (--out), the per-iteration statistics as
// JSON lines (--stats), both through io/output_file.h (created before the run, so a bad
// path fails before any work; a regular file appears only when complete; a device, FIFO or
// "-" is written as it goes), and a progress line per iteration on a terminal.
#pragma once

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "engine/engine_options.h"
#include "engine/run_stats.h"
#include "io/output_file.h"

namespace needle::cli {

// Writes JSON lines to --stats FILE (when given) and, on a terminal (`shown`: not --quiet),
// a line per iteration with its convergence measure, and a self-rewriting line inside an
// iteration: intervals done of P, bytes moved, the rate.
class RunReporter {
 public:
  RunReporter(const std::string& stats_path, std::string app, bool shown = true);
  // How the app's measure reads: "rank updates sent", "label changes"; `largest_change`:
  // the program reports change() (IterationStats::largest_change).
  void DescribeMeasure(std::string changed, bool largest_change);
  void Interval(const IntervalProgress& p);
  void Iteration(const IterationStats& s);
  // Writes the summary and completes the statistics file (also for a run that did not
  // converge: the summary says so).
  void Finish(const RunSummary& s);
  bool is_stdout() const { return stats_ && stats_->is_stdout(); }
  bool draws() const { return terminal_; }  // Interval() draws something

 private:
  void ClearLine();

  std::optional<OutputFile> stats_;
  std::string app_;
  bool terminal_;
  std::string changed_ = "vertices changed";
  bool largest_change_ = false;
  bool line_drawn_ = false;
  std::chrono::steady_clock::time_point iteration_start_{};
  std::chrono::steady_clock::time_point last_draw_{};
};

// "12 iterations (converged) in 1.23 s: read ..., wrote ..." — one line.
std::string DescribeRun(const RunSummary& s);

// The line that opens an --out file of a run that did not converge, and the warning for
// stderr; both say that the values are not the answer.
std::string NotConvergedMarker(const std::string& app, const RunSummary& s);

// numpy's .npy header (format 1.0) for a C-order array of `rows` (× `columns`; 0: a 1-D
// array) of `descr` ("<f8", "<u4", "<f4"): magic, length, the dict padded to 64 bytes.
std::string NpyHeader(const std::string& descr, uint64_t rows, uint64_t columns);

}  // namespace needle::cli
