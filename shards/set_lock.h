// The locks of a shard set (flocks, base/file_lock.h), which say who uses it without trusting
// process ids:
//
//   readers   — every open ShardSet, so every run — hold DIR/manifest shared;
//   sharders  hold DIR itself exclusively from the reuse check to the end of a rebuild, so that
//             sharders of one set take turns: the second waits, then finds the set the first
//             built and reuses it;
//   a sharder replaces the set only while it also holds DIR/manifest exclusively, which it takes
//             without waiting: a set that runs are reading is never rebuilt under them.
//
// A lock is on an inode. A sharder replaces DIR (and its manifest) by renaming, so whoever
// waited on the old inode finds, once it has the lock, that the path names another file now,
// and locks that one instead (the functions below check and retry). A sharder keeps the new
// DIR locked through the rename (its staging directory's lock) until it has opened the new set.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "base/file_lock.h"

namespace needle {

// A reader's lock: DIR/manifest shared. Throws Error when DIR has no manifest, or when a
// sharder is replacing the set right now.
FileLock LockSetForReading(const std::string& dir);

// A sharder's lock: DIR exclusively, waiting for other sharders (saying so through `log`, when
// given). Throws Error when DIR cannot be opened.
FileLock LockSetForSharding(const std::string& dir,
                            const std::function<void(const std::string&)>& log = {});

// The lock a sharder needs to replace the set in DIR: DIR/manifest exclusively, taken without
// waiting. nullopt when readers hold it; a lock that holds nothing when DIR has no manifest
// (no set to protect).
std::optional<FileLock> LockSetForReplacing(const std::string& dir);

}  // namespace needle
