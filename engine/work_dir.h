// WorkDir: a run's scratch directory inside the shard set (its working edge values and, when
// they do not stay in memory, its vertex values), on the same disk as the shards.
//
// Named DIR/.run-<pid>-XXXXXX and removed with its contents when the run ends, however it
// ends. A run that was killed leaves one behind; the next run removes the directories of
// processes that no longer exist. The shard set's own files are never touched.
#pragma once

#include <string>

namespace needle {

class WorkDir {
 public:
  // Throws Error when the directory cannot be created.
  explicit WorkDir(const std::string& shard_dir);
  ~WorkDir();
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;

  const std::string& path() const { return path_; }

  // Removes DIR/.run-<pid>-* of processes that are gone. Returns how many were removed.
  static int RemoveStale(const std::string& shard_dir);

 private:
  std::string path_;
};

}  // namespace needle
