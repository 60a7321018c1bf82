#include "base/open_files.h"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "base/error.h"

namespace needle {
namespace {

constexpr char kWhatToDo[] =
    "raise 'ulimit -n' (up to 'ulimit -Hn') or shard into fewer intervals";

}  // namespace

uint64_t RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  const rlim_t wanted = limit.rlim_max == RLIM_INFINITY
                            ? static_cast<rlim_t>(kMostOpenFiles)
                            : std::min<rlim_t>(limit.rlim_max, kMostOpenFiles);
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    rlimit raised = limit;
    raised.rlim_cur = wanted;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? kMostOpenFiles : limit.rlim_cur;
}

uint64_t OpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  return limit.rlim_cur == RLIM_INFINITY ? kMostOpenFiles : limit.rlim_cur;
}

std::string OpenFileLimitHint() {
  return "this process may hold " + std::to_string(OpenFileLimit()) +
         " files open, a run 3 or 4 per interval (up to 3 times that with dynamic shards): " +
         kWhatToDo;
}

uint64_t OpenFileCount() {
  std::error_code ec;
  uint64_t count = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++count;
  }
  return count > 0 ? count - 1 : 0;  // not the one reading the directory
}

void CheckOpenFiles(const std::string& path, uint64_t needed, const std::string& what) {
  const uint64_t limit = OpenFileLimit(), open = OpenFileCount();
  if (limit == 0 || open + needed <= limit) return;
  throw Error(path, what + " holds about " + std::to_string(needed) +
                        " files open at once, and this process may hold " +
                        std::to_string(limit) + " (" + std::to_string(open) +
                        " open now): " + kWhatToDo);
}

}  // namespace needle
