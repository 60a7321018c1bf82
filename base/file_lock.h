// FileLock: an advisory lock (flock(2)) on a file or directory, held while the object lives.
//
// needle uses them to tell live files from leftovers without trusting process ids (which say
// nothing across containers sharing a directory): whoever writes a temporary file or
// directory holds an exclusive lock on it for as long as it exists, and a later process
// removes only what it can lock (RemoveIfUnlocked). A shard set is locked shared by the runs
// reading it and exclusively by a sharder replacing it (shards/set_lock.h).
//
// flock locks belong to an open file description, so two opens in one process exclude each
// other too, and the kernel drops a lock when its holder dies, however it dies.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/unique_fd.h"

namespace needle {

class FileLock {
 public:
  enum class Mode { kShared, kExclusive };

  FileLock() = default;
  // Takes `mode` on the open file `fd` (owned from here on), waiting for conflicting holders
  // when `wait`. Returns nullopt when !wait and another holder conflicts. Throws Error
  // (naming `path`) when flock itself fails.
  static std::optional<FileLock> Take(UniqueFd fd, const std::string& path, Mode mode, bool wait);
  // Opens `path` (a file or a directory) read-only and takes `mode` on it. Returns nullopt when
  // !wait and the lock is held elsewhere; throws Error when the path cannot be opened.
  static std::optional<FileLock> Open(const std::string& path, Mode mode, bool wait);

  bool held() const { return fd_.valid(); }
  int fd() const { return fd_.get(); }
  // Whether `path` still names the file this lock is on (it was not renamed or removed, and
  // nothing else took its name since).
  bool StillNames(const std::string& path) const;
  void Release() { fd_.Reset(); }

 private:
  explicit FileLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

// A new temporary file or directory, locked exclusively by its creator.
struct LockedTemp {
  std::string path;
  FileLock lock;  // for a file, lock.fd() is the file, open for reading and writing
};
// Creates a file (mkostemp) or a directory (mkdtemp) named `pattern` with its trailing
// "XXXXXX" made unique, and locks it; when a cleaner removed it before the lock was taken,
// tries another name. Throws Error naming `what_for` (the path the temporary stands in for).
LockedTemp CreateLockedTemp(const std::string& pattern, bool directory,
                            const std::string& what_for);

// Whether `name` is PREFIX followed by the six letters or digits that mkstemp and mkdtemp put
// in place of a pattern's "XXXXXX": the shape of a temporary needle made.
bool IsTempName(std::string_view name, std::string_view prefix);

// Removes `path` (a file, or a directory with its contents) when no process holds a lock on
// it: a leftover of a process that died. Returns whether it removed it.
bool RemoveIfUnlocked(const std::string& path);

// Removes the entries of `dir` named like needle's temporaries with `prefix` (IsTempName) that
// no process holds; nothing else is touched. Returns how many it removed.
int RemoveUnlockedTemps(const std::string& dir, const std::string& prefix);

}  // namespace needle
