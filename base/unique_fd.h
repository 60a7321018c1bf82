// UniqueFd: the one owner of a file descriptor.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace needle {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { Reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// Opens `path` read-only or throws Error naming it ("cannot open: No such file or directory");
// a device, FIFO or socket is refused unopened (a graph is read more than once, at offsets).
UniqueFd OpenForReading(const std::string& path);
// Reads exactly `size` bytes at `offset` (continuing short reads) or throws Error; reading
// past the end of the file is reported as a truncated file at that offset.
void ReadFully(int fd, const std::string& path, void* dst, size_t size, uint64_t offset);
// Writes exactly `size` bytes at `offset` or throws Error (ENOSPC included).
void WriteFully(int fd, const std::string& path, const void* src, size_t size, uint64_t offset);
uint64_t FileSize(int fd, const std::string& path);

}  // namespace needle
