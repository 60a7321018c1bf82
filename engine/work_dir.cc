#include "engine/work_dir.h"

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
  LockedTemp temp = CreateLockedTemp(
      shard_dir + "/" + std::string(kPrefix) + std::to_string(getpid()) + "-XXXXXX",
      /*directory=*/true, shard_dir + "/" + std::string(kPrefix) + "*");
  path_ = std::move(temp.path);
  lock_.emplace(std::move(temp.lock));
  cleanup_ = CleanupGuard(path_, CleanupGuard::Kind::kDirectory);
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
    if (name.rfind(kPrefix, 0) == 0 && RemoveIfUnlocked(entry.path().string())) ++removed;
  }
  return removed;
}

}  // namespace needle
