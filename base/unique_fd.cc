#include "base/unique_fd.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>

#include "base/error.h"

namespace needle {

UniqueFd OpenForReading(const std::string& path) {
  // Looked at before it is opened: opening a FIFO would wait for a writer.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    throw Error(path,
                "is not a regular file (a device, FIFO or socket): a graph is read more than "
                "once and at offsets; save it to a file first");
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) ThrowSystemError(path, "cannot open");
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(path, "is a directory, expected a graph file");
  }
  return UniqueFd(fd);
}

void ReadFully(int fd, const std::string& path, void* dst, size_t size, uint64_t offset) {
  auto* out = static_cast<char*>(dst);
  while (size > 0) {
    ssize_t n = ::pread(fd, out, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::AtByte(path, offset, "read failed", errno);
    }
    if (n == 0) throw Error::AtByte(path, offset, "file is truncated (unexpected end of file)");
    out += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
}

void WriteFully(int fd, const std::string& path, const void* src, size_t size, uint64_t offset) {
  const auto* in = static_cast<const char*>(src);
  while (size > 0) {
    ssize_t n = ::pwrite(fd, in, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::AtByte(path, offset, "write failed", errno);
    }
    in += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
}

uint64_t FileSize(int fd, const std::string& path) {
  struct stat st {};
  if (fstat(fd, &st) != 0) ThrowSystemError(path, "cannot stat");
  return static_cast<uint64_t>(st.st_size);
}

}  // namespace needle
