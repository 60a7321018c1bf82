#include "base/open_files.h"

#include <sys/resource.h>

#include <algorithm>

namespace needle {

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
         " files open, a run about 3 per interval (6 with dynamic shards): raise 'ulimit -n' "
         "(up to 'ulimit -Hn') or shard into fewer intervals";
}

}  // namespace needle
