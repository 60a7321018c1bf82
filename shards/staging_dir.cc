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
  std::string pattern = final_dir + ".tmp-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr)
    ThrowSystemError(final_dir, "cannot create a temporary directory next to");
  path_ = name.data();
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
    old = final_ + ".old-" + std::to_string(getpid());
    std::error_code ignored;
    fs::remove_all(old, ignored);
    if (rename(final_.c_str(), old.c_str()) != 0)
      ThrowSystemError(final_, "cannot move the old shard set aside");
  }
  if (rename(path_.c_str(), final_.c_str()) != 0)
    ThrowSystemError(final_, "cannot rename the shard set into place");
  committed_ = true;
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
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
}

}  // namespace needle
