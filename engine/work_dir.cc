#include "engine/work_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "base/error.h"

namespace needle {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPrefix = ".needle-run-";

}  // namespace

WorkDir::WorkDir(const std::string& shard_dir) {
  RemoveStale(shard_dir);
  LockedTemp temp;
  cleanup_ = CleanupGuard::Creating(CleanupGuard::Kind::kDirectory, [&] {
    temp = CreateLockedTemp(shard_dir + "/" + kPrefix + "XXXXXX", /*directory=*/true,
                            shard_dir + "/" + kPrefix + "*");
    return temp.path;
  });
  path_ = std::move(temp.path);
  lock_.emplace(std::move(temp.lock));
}

WorkDir::~WorkDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

int WorkDir::RemoveStale(const std::string& shard_dir) {
  return RemoveUnlockedTemps(shard_dir, kPrefix);
}

}  // namespace needle
