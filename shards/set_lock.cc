#include "shards/set_lock.h"

#include <fcntl.h>

#include <cerrno>

#include "base/error.h"
#include "shards/shard_layout.h"

namespace needle {
namespace {

// Locks what `path` names in `mode`, retrying when it was replaced while we waited. nullopt
// when !wait and the lock is held elsewhere, or (with `missing_ok`) when there is no `path`.
std::optional<FileLock> LockPath(const std::string& path, FileLock::Mode mode, bool wait,
                                 bool missing_ok) {
  for (;;) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
      if (missing_ok && errno == ENOENT) return std::nullopt;
      ThrowSystemError(path, "cannot open");
    }
    std::optional<FileLock> lock = FileLock::Take(std::move(fd), path, mode, wait);
    if (!lock || lock->StillNames(path)) return lock;
  }
}

std::string ManifestOf(const std::string& dir) { return dir + "/" + kManifestName; }

}  // namespace

FileLock LockSetForReading(const std::string& dir) {
  const std::string manifest = ManifestOf(dir);
  std::optional<FileLock> lock =
      LockPath(manifest, FileLock::Mode::kShared, /*wait=*/false, /*missing_ok=*/true);
  if (!lock) {
    if (access(manifest.c_str(), F_OK) != 0) {
      throw Error(dir, "not a (complete) shard set: it has no manifest");
    }
    throw Error(dir,
                "is being rebuilt by another needle process (a sharder); try again when it "
                "has finished");
  }
  return std::move(*lock);
}

FileLock LockSetForSharding(const std::string& dir,
                            const std::function<void(const std::string&)>& log) {
  std::optional<FileLock> lock =
      LockPath(dir, FileLock::Mode::kExclusive, /*wait=*/false, /*missing_ok=*/false);
  if (lock) return std::move(*lock);
  if (log) log("waiting: another needle process is sharding into " + dir);
  return std::move(*LockPath(dir, FileLock::Mode::kExclusive, /*wait=*/true, false));
}

std::optional<FileLock> LockSetForReplacing(const std::string& dir) {
  const std::string manifest = ManifestOf(dir);
  if (access(manifest.c_str(), F_OK) != 0) return FileLock();
  std::optional<FileLock> lock =
      LockPath(manifest, FileLock::Mode::kExclusive, /*wait=*/false, /*missing_ok=*/true);
  if (!lock && access(manifest.c_str(), F_OK) != 0) return FileLock();  // gone meanwhile
  return lock;
}

}  // namespace needle
