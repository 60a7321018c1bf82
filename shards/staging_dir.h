// StagingDir: where a shard set is written before it exists. A temporary sibling directory
// (DIR.needle-tmp-XXXXXX), locked by its writer while it lives and registered for removal on
// SIGINT/SIGTERM (base/file_lock.h, base/cleanup.h), that is removed with its contents
// unless Commit() renamed it into place. Commit() fsyncs the directory, moves an existing DIR
// aside (DIR.needle-old-XXXXXX), renames the staging directory to DIR, fsyncs the parent and
// removes the old set. The caller holds DIR's exclusive lock (set_lock.h) throughout.
//
// RemoveLeftovers(DIR) removes what killed sharders left next to DIR (DIR.needle-tmp-XXXXXX,
// DIR.needle-old-XXXXXX, of exactly that shape) and no live process holds: nothing trusts them.
#pragma once

#include <optional>
#include <string>

#include "base/cleanup.h"
#include "base/file_lock.h"

namespace needle {

inline constexpr const char* kStagingInfix = ".needle-tmp-";
inline constexpr const char* kOldInfix = ".needle-old-";

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
  std::optional<FileLock> lock_;
  CleanupGuard cleanup_;
  bool committed_ = false;
};

void RemoveLeftovers(const std::string& dir);

}  // namespace needle
