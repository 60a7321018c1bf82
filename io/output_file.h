// OutputFile: how needle writes every file it produces — converted and generated graphs,
// manifests, `needle run --out` values and `--stats` — so that it never destroys what its path
// names:
//
//   "-", /dev/stdout,        the process's own descriptors (standard output for "-"),
//   /dev/stderr, /dev/fd/N   written directly where they stand.
//   an existing non-regular  (after following symlinks) a device such as /dev/null, a FIFO,
//   file                     a socket or a terminal: opened and written directly, never
//                            replaced or removed.
//   anything else            a regular file, or nothing yet: written under a temporary name
//                            next to the final file (a symlink's target, so that the link
//                            stays a link), then Commit() fsyncs it, renames it over the final
//                            name and fsyncs the directory. Until then the final name is
//                            untouched; without Commit() (an error) the temporary is removed.
//
// The output is opened in the constructor, so an output that cannot be written (a directory, a
// missing or read-only directory) fails before any work starts. Temporaries are named
// FINAL.needle-tmp-XXXXXX, locked while they live (file_lock.h) and registered for removal on
// SIGINT/SIGTERM (cleanup.h); the constructor removes unlocked ones that a killed process left
// (only names of that exact shape: six letters or digits after the prefix).
// Each OutputFile has its own write buffer. Throws Error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/cleanup.h"
#include "base/file_lock.h"

namespace needle {

class OutputFile {
 public:
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // The path as given ("-" for standard output), for messages.
  const std::string& path() const { return path_; }
  // Whether it is written through a temporary (a regular file): then WriteAt() and Resize()
  // may be used; otherwise only the sequential Write().
  bool replaces() const { return !temp_.empty(); }
  int fd() const { return fd_; }
  // Whether it writes to the process's standard output ("-", /dev/stdout, /dev/fd/1): then
  // messages for people belong on stderr.
  bool is_stdout() const { return fd_ == 1; }

  // Appends through the buffer.
  void Write(const void* data, size_t bytes);
  void Write(const std::string& text) { Write(text.data(), text.size()); }
  // Positional, unbuffered writes and sizing (replaces() only; safe from several threads).
  void WriteAt(const void* data, size_t bytes, uint64_t offset);
  void Resize(uint64_t bytes);
  // Flushes the buffer (e.g. to show progress on a FIFO).
  void Flush();
  // Finishes the output: flushes, and for a temporary fsyncs it and renames it into place.
  void Commit();

 private:
  std::string path_;                   // as given
  std::string final_;                  // the file the output ends up as (symlinks followed)
  std::string temp_;                   // the temporary, when replacing a regular file
  std::optional<FileLock> temp_lock_;  // holds the temporary's descriptor
  CleanupGuard cleanup_;
  UniqueFd own_fd_;  // a device or FIFO opened directly
  int fd_ = -1;
  std::vector<char> buffer_;
  size_t buffered_ = 0;
  uint64_t appended_ = 0;  // bytes written through Write()
  bool committed_ = false;
};

// Records the descriptors the process started with, so that /dev/fd/N and /proc/self/fd/N name
// only those — never one the process opened itself. Call first thing in main(); without it
// only 0, 1 and 2 are taken.
void RecordInheritedDescriptors();

// Whether an OutputFile of `path` writes it where it stands, replacing nothing: a descriptor's
// name ("-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N) or an existing device, FIFO
// or socket (after symlinks). Any other path is written through a temporary renamed over it.
bool WrittenInPlace(const std::string& path);

// Where `path` leads after following symbolic links (up to 40), whether or not the last one
// exists; relative link targets are taken from the link's directory.
std::string FollowSymlinks(const std::string& path);

}  // namespace needle
