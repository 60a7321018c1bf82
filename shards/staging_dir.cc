#include "shards/staging_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "loaders/error.h"
#include "loaders/unique_fd.h"

namespace needle {
namespace {

namespace fs = std::filesystem;

void SyncDirectory(const std::string& dir) {
  UniqueFd fd(open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.valid()) fsync(fd.get());
}

}  // namespace

StagingDir::StagingDir(const std::string& final_dir) : final_(final_dir) {
  LockedTemp temp = CreateLockedTemp(final_dir + ".tmp-XXXXXX", /*directory=*/true, final_dir);
  path_ = std::move(temp.path);
  lock_.emplace(std::move(temp.lock));
  cleanup_ = CleanupGuard(path_, CleanupGuard::Kind::kDirectory);
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
    std::string pattern = final_ + ".old-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (mkdtemp(name.data()) == nullptr) ThrowSystemError(final_, "cannot make room next to");
    old = name.data();
    if (rename(final_.c_str(), old.c_str()) != 0)
      ThrowSystemError(final_, "cannot move the old shard set aside");
  }
  if (rename(path_.c_str(), final_.c_str()) != 0)
    ThrowSystemError(final_, "cannot rename the shard set into place");
  committed_ = true;
  cleanup_.Release();
  SyncDirectory(fs::path(final_).parent_path().string());
  if (!old.empty()) {
    std::error_code ignored;
    fs::remove_all(old, ignored);
  }
}

void RemoveLeftovers(const std::string& dir) {
  const fs::path target(dir);
  fs::path parent = target.parent_path();
  if (parent.empty()) parent = ".";
  const std::string stem = target.filename().string();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(stem + ".tmp-", 0) == 0 || name.rfind(stem + ".old-", 0) == 0) {
      RemoveIfUnlocked(entry.path().string());
    }
  }
}

}  // namespace needle
