#include "io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include "base/error.h"

namespace needle {
namespace {

namespace fs = std::filesystem;

constexpr size_t kBufferBytes = size_t{1} << 20;

void SyncDirectoryOf(const std::string& file) {
  const std::string dir = fs::path(file).parent_path().string();
  UniqueFd fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.valid()) fsync(fd.get());
}

constexpr const char* kTempInfix = ".needle-tmp-";

// The descriptor an output name stands for: "-" and /dev/stdout are 1, /dev/stderr 2,
// /dev/fd/N and /proc/self/fd/N are N; -1 for any other name. These are written through the
// open descriptor (at its offset), never by opening the file behind it anew.
std::optional<std::set<int>>& Inherited() {
  static std::optional<std::set<int>> inherited;
  return inherited;
}

// The descriptor `path` names ("-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N),
// or -1.
int DescriptorNumber(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::string p(prefix);
    if (path.size() > p.size() && path.compare(0, p.size(), p) == 0 &&
        path.find_first_not_of("0123456789", p.size()) == std::string::npos &&
        path.size() - p.size() <= 9) {
      return std::stoi(path.substr(p.size()));
    }
  }
  return -1;
}

// DescriptorNumber, refused (Error) for a descriptor needle was not started with.
int DescriptorNamed(const std::string& path) {
  const int fd = DescriptorNumber(path);
  if (fd < 0) return -1;
  const bool inherited = Inherited() ? Inherited()->count(fd) > 0 : fd <= 2;
  if (!inherited) {
    throw Error(path,
                "names descriptor " + std::to_string(fd) + ", which needle was not started with");
  }
  return fd;
}

// The process's umask, read without changing it (umask(2) would, for every thread at once).
mode_t CurrentUmask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Umask:", 0) == 0)
      return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;
}

}  // namespace

void RecordInheritedDescriptors() {
  std::set<int> fds;  // asked of each descriptor, so that the asking opens none
  for (int fd = 0; fd < 4096; ++fd) {
    if (fcntl(fd, F_GETFD) >= 0) fds.insert(fd);
  }
  Inherited() = std::move(fds);
}

bool WrittenInPlace(const std::string& path) {
  if (DescriptorNumber(path) >= 0) return true;
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

std::string FollowSymlinks(const std::string& path) {
  fs::path at(path);
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(at, ec))) return at.string();
    const fs::path target = fs::read_symlink(at, ec);
    if (ec) return at.string();
    at = target.is_absolute() ? target : at.parent_path() / target;
  }
  throw Error(path, "too many levels of symbolic links");
}

OutputFile::OutputFile(std::string path) : path_(std::move(path)), buffer_(kBufferBytes) {
  if (const int fd = DescriptorNamed(path_); fd >= 0) {
    if (fcntl(fd, F_GETFD) < 0) ThrowSystemError(path_, "cannot write to");
    fd_ = fd;  // written where it stands, like a shell's redirection; never closed here
    return;
  }
  if (path_.empty()) throw Error(path_, "an output needs a file name");
  final_ = FollowSymlinks(path_);
  struct stat st {};
  if (stat(final_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(path_, "is a directory; give a file name for the output");
    if (!S_ISREG(st.st_mode)) {  // a device, FIFO, socket or terminal: written, never replaced
      own_fd_ = UniqueFd(::open(final_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
      if (!own_fd_.valid()) ThrowSystemError(path_, "cannot open for writing");
      fd_ = own_fd_.get();
      return;
    }
  }
  const fs::path target(final_);
  RemoveUnlockedTemps(target.parent_path().string(), target.filename().string() + kTempInfix);
  LockedTemp temp;
  cleanup_ = CleanupGuard::Creating(CleanupGuard::Kind::kFile, [&] {
    temp = CreateLockedTemp(final_ + kTempInfix + "XXXXXX", /*directory=*/false, path_);
    return temp.path;
  });
  temp_ = std::move(temp.path);
  temp_lock_.emplace(std::move(temp.lock));
  fd_ = temp_lock_->fd();
  // mkstemp makes the file private; an output is an ordinary file (mode 0666 less the umask),
  // or keeps the mode of the file it replaces.
  fchmod(fd_, stat(final_.c_str(), &st) == 0 ? (st.st_mode & 07777) : (0666 & ~CurrentUmask()));
}

OutputFile::~OutputFile() {
  if (!temp_.empty() && !committed_) ::unlink(temp_.c_str());
}

void OutputFile::Write(const void* data, size_t bytes) {
  const auto* in = static_cast<const char*>(data);
  while (bytes > 0) {
    if (buffered_ == buffer_.size()) Flush();
    const size_t n = std::min(bytes, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, in, n);
    buffered_ += n;
    in += n;
    bytes -= n;
  }
}

void OutputFile::Flush() {
  size_t done = 0;
  while (done < buffered_) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffered_ - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::AtByte(path_ == "-" ? "standard output" : path_, appended_ + done,
                          "write failed", errno);
    }
    done += static_cast<size_t>(n);
  }
  appended_ += buffered_;
  buffered_ = 0;
}

void OutputFile::WriteAt(const void* data, size_t bytes, uint64_t offset) {
  if (!replaces()) throw Error(path_, "positional writes need a regular file");
  WriteFully(fd_, path_, data, bytes, offset);
}

void OutputFile::Resize(uint64_t bytes) {
  if (!replaces()) throw Error(path_, "sizing needs a regular file");
  if (ftruncate(fd_, static_cast<off_t>(bytes)) != 0) ThrowSystemError(path_, "cannot size");
}

void OutputFile::Commit() {
  Flush();
  if (temp_.empty()) return;  // written in place: nothing to rename
  if (fsync(fd_) != 0) ThrowSystemError(path_, "cannot write (fsync)");
  cleanup_.Finishing([&] {
    if (rename(temp_.c_str(), final_.c_str()) != 0) {
      ThrowSystemError(path_, "cannot rename the output into place");
    }
  });
  committed_ = true;
  temp_lock_.reset();
  SyncDirectoryOf(final_);
}

}  // namespace needle
