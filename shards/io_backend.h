// IoBackend: how shard files are read and written — io_uring or pread/pwrite, chosen at run
// time (--io auto|uring|pread).
//
// A backend is used by one thread at a time: threads that do I/O each create their own (one
// ring per thread). Submit() starts a batch of reads/writes and returns at once; Wait() blocks
// until that batch is complete, continuing short transfers and retrying EINTR/EAGAIN, and
// throws needle::Error (path, byte offset, errno) if a request fails. Buffers must stay valid
// until their batch has been waited for; the destructor waits for whatever is in flight.
// So a caller can have the next interval's reads in flight while it computes on the current.
//
// Files opened with direct I/O (O_DIRECT, where the file system allows it) need requests whose
// buffer address, offset and length are multiples of kDirectAlignment (use AlignedBuffer);
// Submit() rejects others. Byte counters per file kind feed the engine's statistics.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "loaders/unique_fd.h"

namespace needle {

inline constexpr size_t kDirectAlignment = 4096;

enum class IoKind { kAuto, kUring, kPread };
std::string_view IoKindName(IoKind kind);       // "auto", "uring", "pread"
IoKind ParseIoKind(std::string_view name);       // throws std::invalid_argument

// What a file holds, for the byte counters.
enum class FileKind : int { kAdjacency = 0, kValues, kDynamic, kVertices, kOther, kCount };
std::string_view FileKindName(FileKind kind);    // "adjacency", "values", ...

struct IoOptions {
  IoKind kind = IoKind::kAuto;
  bool direct = false;           // O_DIRECT where the file system allows it (cold-cache runs)
  unsigned queue_depth = 64;     // io_uring submission queue entries
  bool register_buffers = true;  // io_uring fixed buffers when RLIMIT_MEMLOCK allows
  // Fault injection for tests (also settable by NEEDLE_IO_INJECT=setup-fail,short-io):
  bool inject_setup_failure = false;  // io_uring setup fails as if refused (EPERM)
  bool inject_short_io = false;       // every transfer is cut short and must be continued
};

struct IoCounters {
  std::array<uint64_t, static_cast<size_t>(FileKind::kCount)> read{};
  std::array<uint64_t, static_cast<size_t>(FileKind::kCount)> written{};
  uint64_t TotalRead() const;
  uint64_t TotalWritten() const;
  IoCounters& operator+=(const IoCounters& other);
};

// A file opened for a backend. Move-only; closes on destruction.
class IoFile {
 public:
  IoFile() = default;
  const std::string& path() const { return path_; }
  FileKind kind() const { return kind_; }
  bool direct() const { return direct_; }  // opened with O_DIRECT
  int fd() const { return fd_.get(); }
  uint64_t size() const;                   // current size (fstat)

 private:
  friend class IoBackend;
  std::string path_;
  FileKind kind_ = FileKind::kOther;
  bool direct_ = false;
  UniqueFd fd_;
};

struct IoRequest {
  const IoFile* file = nullptr;
  uint64_t offset = 0;
  void* buffer = nullptr;
  size_t length = 0;
  bool write = false;
};

class IoBackend {
 public:
  using Ticket = uint64_t;

  // Creates the backend `options.kind` asks for. kAuto tries io_uring and falls back to pread
  // when setup is refused (EPERM, ENOSYS: containers, kernel.io_uring_disabled) or the build
  // has no liburing, writing the reason to *note (one line) if given. kUring fails with Error
  // when io_uring is refused.
  static std::unique_ptr<IoBackend> Create(const IoOptions& options, std::string* note = nullptr);
  virtual ~IoBackend() = default;

  virtual std::string_view name() const = 0;  // "io_uring" or "pread"

  // Opens `path`. With options.direct, O_DIRECT is probed and used where the file system
  // accepts it (else the file is opened buffered, and direct() says so). `create` truncates
  // or creates the file for writing. Throws Error.
  IoFile Open(const std::string& path, FileKind kind, bool writable, bool create = false);

  virtual Ticket Submit(std::span<const IoRequest> requests) = 0;
  virtual void Wait(Ticket ticket) = 0;
  void Run(std::span<const IoRequest> requests) { Wait(Submit(requests)); }

  const IoCounters& counters() const { return counters_; }
  const IoOptions& options() const { return options_; }

 protected:
  explicit IoBackend(const IoOptions& options) : options_(options) {}
  void Count(const IoRequest& r) {
    auto k = static_cast<size_t>(r.file->kind());
    (r.write ? counters_.written : counters_.read)[k] += r.length;
  }
  // Throws Error unless the request suits its file (alignment for direct files, non-null).
  static void CheckRequest(const IoRequest& r);

  IoOptions options_;
  IoCounters counters_;
};

// A move-only buffer aligned for direct I/O, its size rounded up to kDirectAlignment.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes);
  ~AlignedBuffer();
  AlignedBuffer(AlignedBuffer&& other) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

inline uint64_t AlignDown(uint64_t x) { return x / kDirectAlignment * kDirectAlignment; }
inline uint64_t AlignUp(uint64_t x) { return (x + kDirectAlignment - 1) / kDirectAlignment * kDirectAlignment; }

// For cold-cache benchmarks: fsyncs `path` and asks the kernel to drop its cached pages
// (posix_fadvise POSIX_FADV_DONTNEED). Throws Error if it cannot open the file.
void EvictFromPageCache(const std::string& path);

}  // namespace needle
