#include "shards/staging_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"

namespace needle {
namespace {

namespace fs = std::filesystem;

void SyncDirectory(const std::string& dir) {
  UniqueFd fd(open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.valid()) fsync(fd.get());
}

}  // namespace

StagingDir::StagingDir(const std::string& final_dir) : final_(final_dir) {
  LockedTemp temp;
  cleanup_ = CleanupGuard::Creating(CleanupGuard::Kind::kDirectory, [&] {
    temp = CreateLockedTemp(final_dir + kStagingInfix + "XXXXXX", /*directory=*/true, final_dir);
    return temp.path;
  });
  path_ = std::move(temp.path);
  lock_.emplace(std::move(temp.lock));
  chmod(path_.c_str(), 0755);  // mkdtemp makes it private
}

StagingDir::~StagingDir() {
  if (!committed_) {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
}

void StagingDir::Commit() {
  SyncDirectory(path_);
  std::string old;
  if (fs::exists(final_)) {
    // An empty directory of a fresh name, which the rename replaces.
    std::string pattern = final_ + kOldInfix + "XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (mkdtemp(name.data()) == nullptr) ThrowSystemError(final_, "cannot make room next to");
    old = name.data();
  }
  // The two renames as one step for an interruption: it never finds DIR moved aside and the new
  // set not yet in its place (it would remove the new set and leave no DIR). A failed second
  // rename puts the old set back.
  cleanup_.Finishing([&] {
    if (!old.empty() && rename(final_.c_str(), old.c_str()) != 0) {
      const int e = errno;
      rmdir(old.c_str());
      errno = e;
      ThrowSystemError(final_, "cannot move the old shard set aside");
    }
    if (rename(path_.c_str(), final_.c_str()) != 0) {
      const int e = errno;
      if (!old.empty()) rename(old.c_str(), final_.c_str());
      errno = e;
      ThrowSystemError(final_, "cannot rename the shard set into place");
    }
  });
  committed_ = true;
  SyncDirectory(fs::path(final_).parent_path().string());
  if (!old.empty()) {
    std::error_code ignored;
    fs::remove_all(old, ignored);
  }
}

void RemoveLeftovers(const std::string& dir) {
  const fs::path target(dir);
  const std::string parent = target.parent_path().string();
  const std::string stem = target.filename().string();
  RemoveUnlockedTemps(parent, stem + kStagingInfix);
  RemoveUnlockedTemps(parent, stem + kOldInfix);
}

}  // namespace needle
