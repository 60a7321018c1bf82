// WorkDir: a run's scratch directory inside the shard set (its working edge values and, when
// they do not stay in memory, its vertex values), on the same disk as the shards.
//
// Named DIR/.needle-run-XXXXXX, locked by its run while it lives (base/file_lock.h) and
// registered for removal on SIGINT/SIGTERM (base/cleanup.h), and removed with its contents
// when the run ends. A run killed outright leaves one behind; the next run removes the ones
// that no process holds (never judging by process ids, which say nothing across containers
// sharing the directory). The shard set's own files are never touched.
#pragma once

#include <optional>
#include <string>

#include "base/cleanup.h"
#include "base/file_lock.h"

namespace needle {

class WorkDir {
 public:
  // Throws Error when the directory cannot be created.
  explicit WorkDir(const std::string& shard_dir);
  ~WorkDir();
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;

  const std::string& path() const { return path_; }

  // Removes DIR/.needle-run-XXXXXX that no process holds. Returns how many were removed.
  static int RemoveStale(const std::string& shard_dir);

 private:
  std::string path_;
  std::optional<FileLock> lock_;
  CleanupGuard cleanup_;
};

}  // namespace needle
