#include "shards/set_lock.h"

#include "loaders/error.h"

namespace needle {

std::optional<FileLock> LockSetDir(const std::string& dir, FileLock::Mode mode, bool wait) {
  for (;;) {
    std::optional<FileLock> lock = FileLock::Open(dir, mode, wait);
    if (!lock || lock->StillNames(dir)) return lock;
    // DIR was replaced while we waited for its old inode: lock the new one.
  }
}

FileLock LockSetForReading(const std::string& dir) {
  std::optional<FileLock> lock = LockSetDir(dir, FileLock::Mode::kShared, /*wait=*/false);
  if (!lock) {
    throw Error(dir, "is being written by another needle process (a sharder); try again when it "
                     "has finished");
  }
  return std::move(*lock);
}

}  // namespace needle
