// What the two I/O backends share: choosing one (Create, with the io_uring → pread fallback
// and the NEEDLE_IO_INJECT fault injection), opening files with the O_DIRECT probe, checking
// requests, the error messages, aligned buffers and page cache eviction.
#include "io/io_backend.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "base/error.h"
#include "io/pread_backend.h"
#include "io/uring_backend.h"

namespace needle {

namespace {

// The alignment direct I/O on `fd` needs: the larger of the file system's memory and offset
// alignments (statx STATX_DIOALIGN), kDirectAlignment when it does not say, raised to
// `at_least`. 0 when it exceeds kDirectAlignment (no layout here is aligned for that).
uint32_t DirectAlignment(int fd, unsigned at_least) {
  uint32_t a = kDirectAlignment;
#ifdef STATX_DIOALIGN  // Linux 6.1 headers; older systems keep the 4 KiB default
  struct statx st {};
  if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &st) == 0 && (st.stx_mask & STATX_DIOALIGN) &&
      st.stx_dio_offset_align != 0) {
    a = std::max(st.stx_dio_mem_align, st.stx_dio_offset_align);
  }
#else
  (void)fd;
#endif
  a = std::max<uint32_t>(a, at_least);
  if (a > kDirectAlignment || (a & (a - 1)) != 0) return 0;
  return a;
}

constexpr unsigned kMaxQueueDepth = 32768;  // IORING_MAX_ENTRIES

// The injection options, plus whatever NEEDLE_IO_INJECT asks for.
IoOptions WithEnvironmentInjection(IoOptions options) {
  const char* inject = std::getenv("NEEDLE_IO_INJECT");
  if (inject != nullptr) {
    std::string_view s = inject;
    if (s.find("setup-fail") != std::string_view::npos) options.inject_setup_failure = true;
    if (s.find("short-io") != std::string_view::npos) options.inject_short_io = true;
  }
  return options;
}

std::string Hex(uintptr_t x) {
  char out[32];
  std::snprintf(out, sizeof out, "0x%jx", static_cast<uintmax_t>(x));
  return out;
}

}  // namespace

std::string_view IoKindName(IoKind kind) {
  switch (kind) {
    case IoKind::kAuto:
      return "auto";
    case IoKind::kUring:
      return "uring";
    case IoKind::kPread:
      return "pread";
  }
  return "?";
}

IoKind ParseIoKind(std::string_view name) {
  if (name == "auto") return IoKind::kAuto;
  if (name == "uring" || name == "io_uring") return IoKind::kUring;
  if (name == "pread") return IoKind::kPread;
  throw std::invalid_argument("unknown I/O backend '" + std::string(name) +
                              "' (expected auto, uring or pread)");
}

std::string_view FileKindName(FileKind kind) {
  switch (kind) {
    case FileKind::kAdjacency:
      return "adjacency";
    case FileKind::kValues:
      return "values";
    case FileKind::kDynamic:
      return "dynamic";
    case FileKind::kVertices:
      return "vertices";
    case FileKind::kOther:
      return "other";
    case FileKind::kScatterIndex:
      return "scatter_index";
    case FileKind::kWeights:
      return "weights";
    case FileKind::kWindowIndex:
      return "window_index";
    case FileKind::kDegrees:
      return "degrees";
    case FileKind::kBuckets:
      return "buckets";
    case FileKind::kOutAdjacency:
      return "out_adjacency";
    case FileKind::kInAdjacency:
      return "in_adjacency";
    case FileKind::kCount:
      break;
  }
  return "?";
}

uint64_t IoCounters::TotalRead() const { return std::accumulate(read.begin(), read.end(), 0ull); }

uint64_t IoCounters::TotalWritten() const {
  return std::accumulate(written.begin(), written.end(), 0ull);
}

IoCounters& IoCounters::operator+=(const IoCounters& other) {
  for (size_t i = 0; i < read.size(); ++i) {
    read[i] += other.read[i];
    written[i] += other.written[i];
  }
  read_requests += other.read_requests;
  write_requests += other.write_requests;
  return *this;
}

IoCounters& IoCounters::operator-=(const IoCounters& other) {
  for (size_t i = 0; i < read.size(); ++i) {
    read[i] -= other.read[i];
    written[i] -= other.written[i];
  }
  read_requests -= other.read_requests;
  write_requests -= other.write_requests;
  return *this;
}

uint64_t IoFile::size() const { return FileSize(fd_.get(), path_); }

std::unique_ptr<IoBackend> IoBackend::Create(const IoOptions& requested, std::string* note) {
  const IoOptions options = WithEnvironmentInjection(requested);
  if (options.queue_depth == 0 || options.queue_depth > kMaxQueueDepth) {
    throw std::invalid_argument("I/O queue depth must be in 1.." + std::to_string(kMaxQueueDepth) +
                                ", not " + std::to_string(options.queue_depth));
  }
  const unsigned a = options.direct_alignment;
  if (a > kDirectAlignment || (a & (a - 1)) != 0) {
    throw std::invalid_argument("direct I/O alignment must be 0 or a power of two up to " +
                                std::to_string(kDirectAlignment) + ", not " + std::to_string(a));
  }
  if (options.kind == IoKind::kPread) return MakePreadBackend(options);

  int setup_errno = 0;
  std::unique_ptr<IoBackend> uring = MakeUringBackend(options, &setup_errno);
  if (uring != nullptr) return uring;
  if (options.kind == IoKind::kUring) {
    throw Error("io_uring",
                "cannot set up a ring of " + std::to_string(options.queue_depth) +
                    " entries (--io uring; --io auto would fall back to pread)",
                setup_errno);
  }
  if (note != nullptr) {
    *note = std::string("io_uring unavailable (") + std::strerror(setup_errno) + "); using pread";
  }
  return MakePreadBackend(options);
}

IoFile IoBackend::Open(const std::string& path, FileKind kind, bool writable, bool create,
                       Caching caching) {
  writable = writable || create;
  int flags = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC;
  if (create) flags |= O_CREAT | O_TRUNC;
  IoFile file;
  file.path_ = path;
  file.kind_ = kind;
  file.writable_ = writable;
  int fd = -1;
  const bool direct =
      caching == Caching::kAsOptions ? options_.direct : caching == Caching::kDirect;
  if (direct) {
    // The probe: file systems without direct I/O (and proc, sysfs, older tmpfs) say EINVAL.
    fd = ::open(path.c_str(), flags | O_DIRECT, 0644);
    if (fd >= 0) {
      file.direct_ = true;
    } else if (errno != EINVAL) {
      ThrowSystemError(path, writable ? "cannot open for writing" : "cannot open");
    }
  }
  if (fd >= 0) {
    file.alignment_ = DirectAlignment(fd, options_.direct_alignment);
    if (file.alignment_ == 0) {  // stricter than any layout here allows: read it buffered
      ::close(fd);
      fd = -1;
      file.direct_ = false;
      file.alignment_ = 1;
    }
  }
  if (fd < 0) fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) ThrowSystemError(path, writable ? "cannot open for writing" : "cannot open");
  file.fd_ = UniqueFd(fd);
  return file;
}

void IoBackend::CheckRequest(const IoRequest& r) {
  if (r.file == nullptr) throw std::invalid_argument("I/O request without a file");
  const IoFile& f = *r.file;
  if (f.fd() < 0) throw Error(f.path(), "file is not open (closed before the request)");
  if (r.write && !f.writable()) {
    throw Error::AtByte(f.path(), r.offset, "write to a file opened read-only");
  }
  if (r.length == 0) return;
  if (r.buffer == nullptr) throw Error::AtByte(f.path(), r.offset, "I/O request without a buffer");
  if (f.direct()) {
    const auto address = reinterpret_cast<uintptr_t>(r.buffer);
    const uint32_t a = f.alignment();
    if (address % a != 0 || r.offset % a != 0 || r.length % a != 0) {
      throw Error::AtByte(f.path(), r.offset,
                          "direct I/O request not aligned to " + std::to_string(a) +
                              " bytes (buffer " + Hex(address) + ", offset " +
                              std::to_string(r.offset) + ", length " + std::to_string(r.length) +
                              "); use AlignedBuffer and aligned offsets");
    }
  }
}

size_t IoBackend::TransferLength(const IoRequest& r, uint64_t done) const {
  const uint64_t rest = r.length - done;
  uint64_t length = std::min<uint64_t>(rest, kMaxTransfer);
  if (options_.inject_short_io) {
    const uint64_t unit = r.file->alignment();
    const uint64_t half = rest / 2 / unit * unit;
    length = std::min(length, std::max(half, unit));
  }
  return static_cast<size_t>(std::min(length, rest));
}

Error IoBackend::TransferError(const IoRequest& r, uint64_t done, int sys_errno) {
  return Error(r.file->path(),
               std::string(r.write ? "write" : "read") + " failed at byte " +
                   std::to_string(r.offset + done) + " (request of " + std::to_string(r.length) +
                   " bytes at byte " + std::to_string(r.offset) + ")",
               sys_errno);
}

Error IoBackend::EndOfFileError(const IoRequest& r, uint64_t done) {
  return Error::AtByte(r.file->path(), r.offset + done,
                       "unexpected end of file (reading " + std::to_string(r.length) +
                           " bytes from byte " + std::to_string(r.offset) + ")");
}

AlignedBuffer::AlignedBuffer(size_t bytes) {
  if (bytes == 0) return;
  const size_t size = AlignUp(bytes);
  void* p = std::aligned_alloc(kDirectAlignment, size);
  if (p == nullptr) throw std::bad_alloc();
  data_ = static_cast<std::byte*>(p);
  size_ = size;
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

AlignedBuffer::AlignedBuffer(AlignedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void EvictFromPageCache(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) ThrowSystemError(path, "cannot open to evict it from the page cache");
  // Dirty pages are not dropped, so write them back first.
  if (::fsync(fd.get()) != 0) ThrowSystemError(path, "fsync failed");
  const int rc = ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  if (rc != 0) throw Error(path, "cannot drop cached pages (posix_fadvise)", rc);
}

}  // namespace needle
