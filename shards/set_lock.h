// The lock on a shard set directory (an flock, loaders/file_lock.h): processes reading a set
// hold it shared — ShardSet::Open takes it, and a run keeps it while it runs — and a sharder
// that builds or replaces the set holds it exclusively. So a set in use is never replaced or
// deleted under its readers, and two sharders of one set do not remove each other's files: the
// second waits for the first and then reuses what it built.
//
// A lock is on the directory's inode. A sharder replaces DIR by renaming, so whoever waited
// on the old inode finds, once it has the lock, that DIR names another directory, and locks
// that one instead (LockSetDir checks and retries).
#pragma once

#include <optional>
#include <string>

#include "loaders/file_lock.h"

namespace needle {

// Locks the directory `dir` names, in `mode`; waits for conflicting holders when `wait`, else
// returns nullopt when there are some. Throws Error when `dir` cannot be opened.
std::optional<FileLock> LockSetDir(const std::string& dir, FileLock::Mode mode, bool wait);

// For reading the set: a shared lock, or Error when a sharder is writing it right now.
FileLock LockSetForReading(const std::string& dir);

}  // namespace needle
