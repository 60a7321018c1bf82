// StagingDir: where a shard set is written before it exists. A temporary sibling directory
// (DIR.tmp-XXXXXX) that is removed with its contents unless Commit() renamed it into place.
// Commit() fsyncs the directory, moves an existing DIR aside (DIR.old-PID), renames the
// staging directory to DIR, fsyncs the parent and removes the old set.
//
// RemoveLeftovers(DIR) removes what killed runs left next to DIR (DIR.tmp-*, DIR.old-*):
// nothing trusts them.
#pragma once

#include <string>

namespace needle {

class StagingDir {
 public:
  // Creates DIR.tmp-XXXXXX next to `final_dir`. Throws Error.
  explicit StagingDir(const std::string& final_dir);
  ~StagingDir();
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;

  const std::string& path() const { return path_; }
  // Puts the staging directory in place of the final one. Throws Error.
  void Commit();

 private:
  std::string final_;
  std::string path_;
  bool committed_ = false;
};

void RemoveLeftovers(const std::string& dir);

}  // namespace needle
