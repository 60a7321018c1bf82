// Cleanup on interruption: the temporaries a process is writing — outputs under temporary
// names, shard sets being built, a run's working directory — registered while they exist, so
// that an interrupted process can remove them before it exits.
//
// Their owners remove them as usual when they are done or fail (destructors); the registry is
// for the one case destructors do not cover: a signal. The command line blocks SIGINT, SIGTERM
// and SIGHUP in every thread and waits for them on a thread of its own, which calls
// RemoveRegistered() and exits with 128 + the signal (apps/cli/signals.cc). What a process
// killed with SIGKILL leaves is locked by no one, and the next process that writes the same
// thing removes it (file_lock.h, RemoveIfUnlocked).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace needle {

// Registers `path` for as long as it lives. Move-only.
class CleanupGuard {
 public:
  enum class Kind {
    kFile,
    kDirectory,       // removed with its contents
    kEmptyDirectory,  // removed only if empty (a placeholder that may become something real)
  };
  CleanupGuard() = default;
  CleanupGuard(std::string path, Kind kind);
  // Runs `create`, which makes a temporary and returns its path, and registers the path, with
  // no removal on interruption in between (RemoveRegistered waits for both): a signal that
  // comes while it is created still removes it.
  static CleanupGuard Creating(Kind kind, const std::function<std::string()>& create);
  ~CleanupGuard() { Release(); }
  CleanupGuard(CleanupGuard&& other) noexcept;
  CleanupGuard& operator=(CleanupGuard&& other) noexcept;
  CleanupGuard(const CleanupGuard&) = delete;
  CleanupGuard& operator=(const CleanupGuard&) = delete;
  // Unregisters it (done with it: committed, or removed by its owner).
  void Release();
  // Runs `commit` (which puts the temporary in place, e.g. by renaming it) and unregisters it,
  // with no removal on interruption in between: a signal that comes meanwhile waits for both.
  void Finishing(const std::function<void()>& commit);

 private:
  uint64_t id_ = 0;
};

// Removes every registered path, newest first, best effort. For the thread that handles a
// signal, just before the process exits: registrations and releases block from here on.
void RemoveRegistered();

}  // namespace needle
