#include "apps/cli/run_output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "apps/cli/cli_common.h"
#include "base/error.h"

namespace needle::cli {

RunReporter::RunReporter(const std::string& stats_path, std::string app, bool shown)
    : app_(std::move(app)), terminal_(shown && isatty(STDERR_FILENO) != 0) {
  if (!stats_path.empty()) stats_.emplace(stats_path);
  iteration_start_ = std::chrono::steady_clock::now();
}

void RunReporter::DescribeMeasure(std::string changed, bool largest_change) {
  changed_ = std::move(changed);
  largest_change_ = largest_change;
}

void RunReporter::ClearLine() {
  if (!line_drawn_) return;
  std::fprintf(stderr, "\r%79s\r", "");
  line_drawn_ = false;
}

void RunReporter::Interval(const IntervalProgress& p) {
  if (!terminal_ || p.intervals < 2) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100) || p.intervals_done == p.intervals) {
    return;
  }
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - iteration_start_).count();
  const double moved = static_cast<double>(p.bytes_read + p.bytes_written);
  std::fprintf(stderr, "\r%s: iteration %u: interval %u of %u, read %s, wrote %s, %s/s",
               app_.c_str(), p.iteration, p.intervals_done, p.intervals,
               HumanBytes(static_cast<double>(p.bytes_read)).c_str(),
               HumanBytes(static_cast<double>(p.bytes_written)).c_str(),
               HumanBytes(seconds > 0 ? moved / seconds : 0).c_str());
  std::fflush(stderr);
  line_drawn_ = true;
}

void RunReporter::Iteration(const IterationStats& s) {
  if (stats_) {
    stats_->Write(ToJson(s) + "\n");
    stats_->Flush();  // a FIFO or terminal sees each iteration as it ends
  }
  iteration_start_ = std::chrono::steady_clock::now();  // the next iteration's rate from here
  if (terminal_) {
    ClearLine();
    std::string measure = std::to_string(s.changed_vertices) + " " + changed_;
    if (largest_change_) {
      char change[64];
      std::snprintf(change, sizeof change, ", largest change %.2g", s.largest_change);
      measure += change;
    }
    std::fprintf(stderr, "%s: iteration %u: %.2f s, %s, read %s, wrote %s\n", app_.c_str(),
                 s.iteration, s.seconds, measure.c_str(),
                 HumanBytes(static_cast<double>(s.io.TotalRead())).c_str(),
                 HumanBytes(static_cast<double>(s.io.TotalWritten())).c_str());
  }
}

void RunReporter::Finish(const RunSummary& s) {
  ClearLine();
  if (!stats_) return;
  stats_->Write(ToJson(s) + "\n");
  stats_->Commit();
}

std::string DescribeRun(const RunSummary& s) {
  char line[512];
  std::snprintf(line, sizeof line,
                "%s (%s) in %.2f s: read %s, wrote %s, %s; peak RSS %s of --memory %s "
                "(transport %s%s, %s%s)",
                Count(s.iterations, "iteration").c_str(),
                s.converged ? "converged" : "NOT converged: stopped by --iters",
                s.seconds, HumanBytes(static_cast<double>(s.io.TotalRead())).c_str(),
                HumanBytes(static_cast<double>(s.io.TotalWritten())).c_str(),
                Count(s.num_intervals, "interval").c_str(),
                BinaryBytes(static_cast<double>(s.peak_rss_bytes)).c_str(),
                BinaryBytes(static_cast<double>(s.memory_budget)).c_str(), s.transport.c_str(),
                s.page_windows ? " at page grain" : "", s.io_backend.c_str(),
                s.direct ? ", O_DIRECT" : "");
  std::string out = line;
  if (s.mode != "static") {
    out += "; mode " + s.mode + ": " + Count(s.shadow_iterations, "shadow iteration") + ", " +
           Count(s.dynamic_builds, "dynamic shard set") +
           (s.whole_shards > 0 ? " (" + Count(s.whole_shards, "shard") + " kept whole)" : "") +
           ", " + Count(s.delayed, "scatter") + " delayed";
  }
  return out;
}

std::string NotConvergedMarker(const std::string& app, const RunSummary& s) {
  return "needle run " + app + ": NOT CONVERGED: stopped by --iters " +
         std::to_string(s.iteration_limit) + " after " + std::to_string(s.iterations) +
         " iterations, while messages were still travelling; these values are not the answer";
}

std::string NpyHeader(const std::string& descr, uint64_t rows, uint64_t columns) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                     std::to_string(rows) +
                     (columns == 0 ? std::string(",") : ", " + std::to_string(columns)) + "), }";
  const size_t fixed = 6 + 2 + 2;  // magic, version, header length
  dict.append((64 - (fixed + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

}  // namespace needle::cli
