// How many files this process may hold open. A run keeps every shard file of its set open
// (an adjacency file, a scatter index and a message file per interval; a dynamic set as many
// again), so a set of a few hundred intervals passes the usual soft limit of 1,024 while the
// hard limit is far above it. main() raises the soft limit to the hard one; the engine refuses
// a run whose files do not fit under it (CheckOpenFiles), and an open that still fails for lack
// of descriptors says what the limit is and how to raise it (ThrowSystemError).
#pragma once

#include <cstdint>
#include <string>

namespace needle {

// Raises RLIMIT_NOFILE's soft limit to its hard limit (at most kMostOpenFiles). Returns the
// soft limit in force afterwards. Process-wide: for main(), not for library code.
inline constexpr uint64_t kMostOpenFiles = uint64_t{1} << 20;
uint64_t RaiseOpenFileLimit();

// The current soft limit on open files (0 if it cannot be read).
uint64_t OpenFileLimit();

// What to add to a message about EMFILE: "this process may hold N files open; ...".
std::string OpenFileLimitHint();

// Descriptors open in this process now (the entries of /proc/self/fd; 0 if unreadable).
uint64_t OpenFileCount();

// Throws Error(path, ...) when `needed` more open files (for `what`, e.g. "a run over its 40
// intervals") do not fit under the soft limit beside those open now: refused before the work,
// with the numbers and what to do, rather than at the one file that would not open.
void CheckOpenFiles(const std::string& path, uint64_t needed, const std::string& what);

}  // namespace needle
