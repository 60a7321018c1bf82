#include "engine/work_dir.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "loaders/error.h"

namespace needle {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = ".run-";

}  // namespace

WorkDir::WorkDir(const std::string& shard_dir) {
  RemoveStale(shard_dir);
  std::string pattern =
      shard_dir + "/" + std::string(kPrefix) + std::to_string(getpid()) + "-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr) {
    ThrowSystemError(shard_dir, "cannot create the run's working directory in");
  }
  path_ = name.data();
}

WorkDir::~WorkDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

int WorkDir::RemoveStale(const std::string& shard_dir) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(shard_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    const std::string rest = name.substr(kPrefix.size());
    const size_t dash = rest.find('-');
    if (dash == std::string::npos) continue;
    char* end = nullptr;
    const long pid = std::strtol(rest.c_str(), &end, 10);
    if (end != rest.c_str() + dash || pid <= 0) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // still running
    std::error_code ignored;
    fs::remove_all(entry.path(), ignored);
    ++removed;
  }
  return removed;
}

}  // namespace needle
