#include "base/cleanup.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>
#include <utility>

namespace needle {
namespace {

struct Entry {
  std::string path;
  CleanupGuard::Kind kind;
};

struct Registry {
  std::mutex mutex;
  uint64_t next = 1;
  std::map<uint64_t, Entry> entries;
};

Registry& TheRegistry() {
  static Registry* registry = new Registry;  // never destroyed: a signal may come at exit
  return *registry;
}

}  // namespace

CleanupGuard::CleanupGuard(std::string path, Kind kind) {
  Registry& r = TheRegistry();
  std::lock_guard lock(r.mutex);
  id_ = r.next++;
  r.entries.emplace(id_, Entry{std::move(path), kind});
}

CleanupGuard CleanupGuard::Creating(Kind kind, const std::function<std::string()>& create) {
  Registry& r = TheRegistry();
  std::lock_guard lock(r.mutex);
  CleanupGuard guard;
  std::string path = create();
  guard.id_ = r.next++;
  r.entries.emplace(guard.id_, Entry{std::move(path), kind});
  return guard;
}

CleanupGuard::CleanupGuard(CleanupGuard&& other) noexcept : id_(std::exchange(other.id_, 0)) {}

CleanupGuard& CleanupGuard::operator=(CleanupGuard&& other) noexcept {
  if (this != &other) {
    Release();
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

void CleanupGuard::Release() {
  if (id_ == 0) return;
  Registry& r = TheRegistry();
  std::lock_guard lock(r.mutex);
  r.entries.erase(id_);
  id_ = 0;
}

void CleanupGuard::Finishing(const std::function<void()>& commit) {
  Registry& r = TheRegistry();
  std::lock_guard lock(r.mutex);
  commit();
  r.entries.erase(id_);
  id_ = 0;
}

void RemoveRegistered() {
  Registry& r = TheRegistry();
  r.mutex.lock();  // never unlocked: the process exits next, and nothing registers meanwhile
  for (auto it = r.entries.rbegin(); it != r.entries.rend(); ++it) {
    std::error_code ignored;
    switch (it->second.kind) {
      case CleanupGuard::Kind::kFile:
        ::unlink(it->second.path.c_str());
        break;
      case CleanupGuard::Kind::kDirectory:
        // Files may still appear in it (other threads write on until the process exits).
        for (int attempt = 0; attempt < 5 && std::filesystem::exists(it->second.path, ignored);
             ++attempt) {
          std::filesystem::remove_all(it->second.path, ignored);
        }
        break;
      case CleanupGuard::Kind::kEmptyDirectory:
        ::rmdir(it->second.path.c_str());
        break;
    }
  }
  r.entries.clear();
}

}  // namespace needle
