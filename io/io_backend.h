// IoBackend: how shard files are read and written — io_uring or pread/pwrite, chosen at run
// time (--io auto|uring|pread).
//
// A backend is used by one thread at a time: threads that do I/O each create their own (one
// ring per thread). Submit() starts a batch of reads/writes and returns at once; Wait() blocks
// until that batch is complete, continuing short transfers and retrying EINTR/EAGAIN, and
// throws needle::Error (path, byte offset, errno) if a request fails. Buffers (and files) must
// stay valid until their batch has been waited for; the destructor waits for whatever is in
// flight. So a caller can have the next interval's reads in flight while it computes on the
// current.
//
// The two backends:
//  - io_uring: one ring per backend, at most options.queue_depth requests in the kernel at a
//    time. Submit() queues the batch, puts as much of it in the ring as fits and submits once;
//    the rest goes in as earlier requests complete, while the caller is in Wait() (or in a
//    later Submit()). So a batch larger than the ring is fine: it is submitted in rounds.
//  - pread: one worker thread per backend executes the queued batches in order with
//    pread/pwrite, so reads overlap the caller's computation here too (though not each other).
//
// Contract details both backends keep (the tests check them):
//  - Wait() on a ticket that is unknown, already waited for, or of an empty batch returns at
//    once. Every ticket whose result matters must be waited for: a failed batch reports its
//    error only from its own Wait().
//  - A failing request fails its batch: Wait() throws the first error after the batch's other
//    requests still in the kernel have finished (buffers are never written after Wait()
//    returns or throws); requests of that batch not yet started are dropped. Other batches
//    are not affected, and the backend stays usable.
//  - Reading past the end of a file is an error ("unexpected end of file", at the byte where
//    the file ended). A file meant for direct reads should therefore have a size that is a
//    multiple of kDirectAlignment (pad it).
//  - The destructor waits for the transfers the kernel has started and abandons the rest.
//  - Byte counters count a batch's completed requests once, in the caller's thread, when
//    its Wait() returns or throws: what they hold depends only on the order of the caller's
//    Waits, not on when the kernel finished. A batch never waited for is not counted.
//
// Files opened with direct I/O (O_DIRECT, where the file system allows it) need requests whose
// buffer address, offset and length are multiples of the file's alignment() — at most
// kDirectAlignment, so AlignedBuffer and 4 KiB-aligned layouts always do; Submit() rejects
// others. Byte counters per file kind feed the engine's statistics.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/unique_fd.h"

namespace needle {

class Error;

inline constexpr size_t kDirectAlignment = 4096;

enum class IoKind { kAuto, kUring, kPread };
std::string_view IoKindName(IoKind kind);   // "auto", "uring", "pread"
IoKind ParseIoKind(std::string_view name);  // also takes "io_uring"; throws std::invalid_argument

// What a file holds, for the byte counters (each kind its own; the order is the counters'
// and the statistics', new kinds go last).
enum class FileKind : int {
  kAdjacency = 0,  // a shard set's shard-PPPP.adj (targets)
  kValues,         // a run's edge value files, edges-PPPP.val (the messages)
  kDynamic,        // dynamic shards (none yet)
  kVertices,       // vertex values, vertices-NAME.val
  kOther,          // anything else
  kScatterIndex,   // a shard set's scatter indexes, scatter-PPPP.idx
  kWeights,        // a weighted shard set's input weights, shard-PPPP.val
  kWindowIndex,    // a shard set's window index, windows.idx
  kDegrees,        // a shard set's degrees.bin
  kBuckets,        // the sharder's temporary bucket file
  kOutAdjacency,   // a run's out-adjacency file, out.adj (engine/out_adjacency.h)
  kInAdjacency,    // a run's in-adjacency file, in.adj (engine/in_adjacency.h)
  kCount
};
// "adjacency", "values", "dynamic", "vertices", "other", "scatter_index", "weights",
// "window_index", "degrees", "buckets", "out_adjacency", "in_adjacency".
std::string_view FileKindName(FileKind kind);

struct IoOptions {
  IoKind kind = IoKind::kAuto;
  bool direct = false;           // O_DIRECT where the file system allows it (cold-cache runs)
  unsigned queue_depth = 256;    // io_uring: most requests in the kernel at once (1..32768);
                                 // a PSW turn issues one small write per shard
  bool register_buffers = true;  // io_uring fixed buffers when RLIMIT_MEMLOCK allows
  // Direct files need buffer addresses, offsets and lengths aligned to what their file system
  // asks (statx STATX_DIOALIGN: 512 B on most disks; kDirectAlignment when it does not say).
  // A non-zero value raises that alignment to at least this (a power of two ≤ 4096).
  unsigned direct_alignment = 0;
  // Fault injection for tests (also settable by NEEDLE_IO_INJECT=setup-fail,short-io):
  bool inject_setup_failure = false;  // io_uring setup fails as if refused (EPERM)
  bool inject_short_io = false;       // every transfer is cut short and must be continued
};

struct IoCounters {
  std::array<uint64_t, static_cast<size_t>(FileKind::kCount)> read{};
  std::array<uint64_t, static_cast<size_t>(FileKind::kCount)> written{};
  uint64_t read_requests = 0, write_requests = 0;  // requests completed, of any kind
  uint64_t TotalRead() const;
  uint64_t TotalWritten() const;
  IoCounters& operator+=(const IoCounters& other);
  IoCounters& operator-=(const IoCounters& other);  // what moved since `other` was taken
};

// A file opened for a backend. Move-only; closes on destruction.
class IoFile {
 public:
  IoFile() = default;
  const std::string& path() const { return path_; }
  FileKind kind() const { return kind_; }
  bool direct() const { return direct_; }  // opened with O_DIRECT
  // What requests on this file must be aligned to: the direct I/O alignment (a power of two
  // ≤ kDirectAlignment), or 1 for a buffered file.
  uint32_t alignment() const { return alignment_; }
  bool writable() const { return writable_; }
  int fd() const { return fd_.get(); }
  uint64_t size() const;  // current size (fstat); throws Error
  // Closes the descriptor now; path() stays for error messages. Requests on a closed file
  // are rejected by Submit(). The caller makes sure none is in flight.
  void Close() { fd_.Reset(); }
  // Hands the descriptor over (a file whose fsync is left to a SyncBatch); as Close() after.
  UniqueFd ReleaseFd() { return std::move(fd_); }

 private:
  friend class IoBackend;
  std::string path_;
  FileKind kind_ = FileKind::kOther;
  bool direct_ = false;
  uint32_t alignment_ = 1;
  bool writable_ = false;
  UniqueFd fd_;
};

struct IoRequest {
  const IoFile* file = nullptr;
  uint64_t offset = 0;
  void* buffer = nullptr;
  size_t length = 0;  // 0: nothing to do (the request completes at once)
  bool write = false;
};

class AlignedBuffer;

class IoBackend {
 public:
  using Ticket = uint64_t;

  // Creates the backend `options.kind` asks for. kAuto tries io_uring and falls back to pread
  // when the ring cannot be set up (EPERM, EACCES, ENOSYS: containers,
  // kernel.io_uring_disabled; or any other setup failure), writing the reason to *note (one
  // line, e.g. "io_uring unavailable (Operation not permitted); using pread") if given. kUring
  // fails with Error when io_uring is refused. NEEDLE_IO_INJECT (comma-separated
  // "setup-fail", "short-io") adds to the injection options. Throws std::invalid_argument for
  // a queue depth outside 1..32768.
  static std::unique_ptr<IoBackend> Create(const IoOptions& options, std::string* note = nullptr);
  virtual ~IoBackend() = default;
  IoBackend(const IoBackend&) = delete;
  IoBackend& operator=(const IoBackend&) = delete;

  virtual std::string_view name() const = 0;  // "io_uring" or "pread"

  // Opens `path`. With options.direct, O_DIRECT is probed and used where the file system
  // accepts it (else the file is opened buffered, and direct() says so). `create` truncates
  // or creates the file for writing (and implies `writable`). Throws Error.
  // `caching` overrides options.direct for this file (kDirect still falls back to buffered
  // where the file system refuses O_DIRECT).
  enum class Caching { kAsOptions, kBuffered, kDirect };
  IoFile Open(const std::string& path, FileKind kind, bool writable, bool create = false,
              Caching caching = Caching::kAsOptions);

  // Checks every request (CheckRequest) before starting any, so a rejected batch starts
  // nothing. Throws Error.
  virtual Ticket Submit(std::span<const IoRequest> requests) = 0;
  virtual void Wait(Ticket ticket) = 0;
  void Run(std::span<const IoRequest> requests) { Wait(Submit(requests)); }

  // io_uring: registers `buffers` as the ring's fixed buffers (replacing any earlier set), so
  // that requests on direct files whose buffer lies wholly inside one of them skip the
  // per-request page pinning. Buffered files do not use them: the kernel copies through the
  // page cache either way, and measured slower through fixed buffers. Waits for everything in
  // flight first. Returns false, and nothing is registered, when the backend has no use for
  // it (pread, options.register_buffers off) or the kernel refuses (RLIMIT_MEMLOCK too small,
  // a buffer over 1 GiB); requests then simply use plain reads. The buffers must outlive the
  // registration: call UnregisterBuffers() (or destroy the backend) before freeing one, or a
  // later request at a reused address could land in the old, still pinned pages.
  virtual bool RegisterBuffers(std::span<AlignedBuffer* const> buffers) {
    (void)buffers;
    return false;
  }
  virtual void UnregisterBuffers() {}

  const IoCounters& counters() const { return counters_; }
  // Completed requests that went through registered (fixed) buffers.
  uint64_t fixed_buffer_requests() const { return fixed_buffer_requests_; }
  const IoOptions& options() const { return options_; }

 protected:
  explicit IoBackend(const IoOptions& options) : options_(options) {}
  void Count(const IoRequest& r) {
    auto k = static_cast<size_t>(r.file->kind());
    (r.write ? counters_.written : counters_.read)[k] += r.length;
    ++(r.write ? counters_.write_requests : counters_.read_requests);
  }
  // Throws Error unless the request suits its file (alignment for direct files, non-null,
  // open, writable for writes).
  static void CheckRequest(const IoRequest& r);

  // How many bytes the next transfer of `r` asks for, `done` bytes being done: the rest, at
  // most kMaxTransfer, cut to half the rest (whole alignment units for direct files) when
  // options.inject_short_io is set.
  size_t TransferLength(const IoRequest& r, uint64_t done) const;
  // The errors a failed transfer turns into: a system error at r.offset + done, and the end
  // of the file reached at r.offset + done (a read returned 0, or less than a whole block on
  // a direct file).
  static Error TransferError(const IoRequest& r, uint64_t done, int sys_errno);
  static Error EndOfFileError(const IoRequest& r, uint64_t done);

  // One transfer's limit: the kernel takes at most 2 GiB - 4 KiB per read(2) and a 32-bit
  // length per io_uring request.
  static constexpr size_t kMaxTransfer = size_t{1} << 30;

  IoOptions options_;
  IoCounters counters_;
  uint64_t fixed_buffer_requests_ = 0;
};

// A move-only buffer aligned for direct I/O, its size rounded up to kDirectAlignment. The
// bytes are not initialised. Throws std::bad_alloc.
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

inline uint64_t AlignDown(uint64_t x, uint64_t unit = kDirectAlignment) { return x / unit * unit; }
inline uint64_t AlignUp(uint64_t x, uint64_t unit = kDirectAlignment) {
  return (x + unit - 1) / unit * unit;
}

// For cold-cache benchmarks: fsyncs `path` and asks the kernel to drop its cached pages
// (posix_fadvise POSIX_FADV_DONTNEED). Throws Error if it cannot open the file.
void EvictFromPageCache(const std::string& path);

}  // namespace needle
