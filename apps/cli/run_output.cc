#include "apps/cli/run_output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "apps/cli/cli_common.h"
#include "loaders/error.h"

namespace needle::cli {

AtomicOutput::AtomicOutput(const std::string& path) : path_(path) {
  std::string pattern = path + ".tmp-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) ThrowSystemError(path, "cannot create the output file next to");
  temp_ = name.data();
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);  // mkstemp makes it private; an output is an ordinary file
  file_ = fdopen(fd, "w");
  if (file_ == nullptr) {
    close(fd);
    unlink(temp_.c_str());
    ThrowSystemError(temp_, "cannot open");
  }
  static char buffer[1 << 20];
  std::setvbuf(file_, buffer, _IOFBF, sizeof buffer);
}

AtomicOutput::~AtomicOutput() {
  if (file_ != nullptr) {
    std::fclose(file_);
    unlink(temp_.c_str());
  }
}

void AtomicOutput::Commit() {
  // ferror: a write that failed earlier (ENOSPC) may leave nothing for fflush to report.
  const bool ok = !std::ferror(file_) && std::fflush(file_) == 0 && fsync(fileno(file_)) == 0;
  const int saved = errno;
  std::fclose(file_);
  file_ = nullptr;
  if (!ok) {
    unlink(temp_.c_str());
    errno = saved;
    ThrowSystemError(path_, "cannot write");
  }
  if (rename(temp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    unlink(temp_.c_str());
    errno = e;
    ThrowSystemError(path_, "cannot rename the output into place");
  }
}

RunReporter::RunReporter(const std::string& stats_path, std::string app)
    : stats_path_(stats_path), app_(std::move(app)), terminal_(isatty(STDERR_FILENO) != 0) {
  if (stats_path.empty()) return;
  stats_ = std::fopen(stats_path.c_str(), "w");
  if (stats_ == nullptr) ThrowSystemError(stats_path, "cannot create the statistics file");
}

RunReporter::~RunReporter() {
  if (stats_ != nullptr) std::fclose(stats_);
}

void RunReporter::Iteration(const IterationStats& s) {
  if (stats_ != nullptr) {
    std::fprintf(stats_, "%s\n", ToJson(s).c_str());
    std::fflush(stats_);
  }
  if (terminal_) {
    std::fprintf(stderr,
                 "%s: iteration %u: %.2f s, %llu vertices computed, %llu edges changed, read %s, "
                 "wrote %s\n",
                 app_.c_str(), s.iteration, s.seconds,
                 static_cast<unsigned long long>(s.active_vertices),
                 static_cast<unsigned long long>(s.edges_changed),
                 HumanBytes(static_cast<double>(s.io.TotalRead())).c_str(),
                 HumanBytes(static_cast<double>(s.io.TotalWritten())).c_str());
  }
}

void RunReporter::Finish(const RunSummary& s) {
  if (stats_ == nullptr) return;
  std::fprintf(stats_, "%s\n", ToJson(s).c_str());
  if (std::ferror(stats_) || std::fflush(stats_) != 0) {
    ThrowSystemError(stats_path_, "cannot write");
  }
}

std::string DescribeRun(const RunSummary& s) {
  char line[512];
  std::snprintf(line, sizeof line,
                "%u iterations (%s) in %.2f s: read %s, wrote %s, %s; peak RSS %s of --memory %s "
                "(%s%s)",
                s.iterations, s.converged ? "converged" : "iteration limit reached", s.seconds,
                HumanBytes(static_cast<double>(s.io.TotalRead())).c_str(),
                HumanBytes(static_cast<double>(s.io.TotalWritten())).c_str(),
                (std::to_string(s.num_intervals) + " intervals").c_str(),
                HumanBytes(static_cast<double>(s.peak_rss_bytes)).c_str(),
                HumanBytes(static_cast<double>(s.memory_budget)).c_str(), s.io_backend.c_str(),
                s.direct ? ", O_DIRECT" : "");
  return line;
}

}  // namespace needle::cli
