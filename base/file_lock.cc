#include "base/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <system_error>
#include <vector>

#include "base/error.h"

namespace needle {

std::optional<FileLock> FileLock::Take(UniqueFd fd, const std::string& path, Mode mode, bool wait) {
  const int operation = (mode == Mode::kShared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB);
  while (flock(fd.get(), operation) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK && !wait) return std::nullopt;
    ThrowSystemError(path, "cannot lock");
  }
  return FileLock(std::move(fd));
}

std::optional<FileLock> FileLock::Open(const std::string& path, Mode mode, bool wait) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) ThrowSystemError(path, "cannot open");
  return Take(std::move(fd), path, mode, wait);
}

bool FileLock::StillNames(const std::string& path) const {
  struct stat held {
  }, named{};
  if (!fd_.valid() || fstat(fd_.get(), &held) != 0 || stat(path.c_str(), &named) != 0) {
    return false;
  }
  return held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

LockedTemp CreateLockedTemp(const std::string& pattern, bool directory,
                            const std::string& what_for) {
  for (int attempt = 0;; ++attempt) {
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    UniqueFd fd;
    if (directory) {
      if (mkdtemp(name.data()) == nullptr) {
        ThrowSystemError(what_for, "cannot create a temporary directory in its directory");
      }
      fd = UniqueFd(::open(name.data(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (!fd.valid()) ThrowSystemError(name.data(), "cannot open");
    } else {
      fd = UniqueFd(mkostemp(name.data(), O_CLOEXEC));
      if (!fd.valid()) {
        ThrowSystemError(what_for, "cannot create a temporary file in its directory");
      }
    }
    std::optional<FileLock> lock =
        FileLock::Take(std::move(fd), name.data(), FileLock::Mode::kExclusive, /*wait=*/true);
    if (lock->StillNames(name.data())) return LockedTemp{name.data(), std::move(*lock)};
    if (attempt == 100) throw Error(what_for, "temporary files keep disappearing next to it");
  }
}

bool RemoveIfUnlocked(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return false;  // gone already, or not ours to open
  std::optional<FileLock> lock;
  try {
    lock = FileLock::Take(std::move(fd), path, FileLock::Mode::kExclusive, /*wait=*/false);
  } catch (const Error&) {
    return false;
  }
  // Locked: its owner is alive. Unlocked but renamed in between: not the leftover we saw.
  if (!lock || !lock->StillNames(path)) return false;
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);  // while holding the lock: no one claims it meanwhile
  return !ignored;
}

bool IsTempName(std::string_view name, std::string_view prefix) {
  if (name.size() != prefix.size() + 6 || name.substr(0, prefix.size()) != prefix) return false;
  for (char c : name.substr(prefix.size())) {
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum) return false;
  }
  return true;
}

int RemoveUnlockedTemps(const std::string& dir, const std::string& prefix) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec)) {
    if (IsTempName(entry.path().filename().string(), prefix) &&
        RemoveIfUnlocked(entry.path().string())) {
      ++removed;
    }
  }
  return removed;
}

}  // namespace needle
