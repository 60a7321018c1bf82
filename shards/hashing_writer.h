// HashingWriter: writes a new shard file sequentially through an I/O backend (io_uring or
// pread/pwrite, O_DIRECT when asked and allowed), hashing every byte (XXH3-64) as it goes so
// the manifest gets each file's digest without reading it back. Two aligned buffers
// alternate: one is being written by the backend while the other fills. Finish() pads the
// file to a 4 KiB multiple (O_DIRECT readers and writers need it), waits, fsyncs and closes —
// or, given a SyncBatch, leaves the fsync to it: a set of many small files is synced together.
// FileDigest() computes the same digest of an existing file, for verification.
#pragma once

#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/huge_array.h"
#include "io/io_backend.h"

namespace needle {

// The two buffers a writer alternates between. A caller writing many files one after another
// lends the same pair to each writer, so that no file costs fresh pages.
struct WriteBuffers {
  static constexpr size_t kBytes = size_t{4} << 20;
  WriteBuffers();
  HugeArray<std::byte> slots[2];  // mmap-backed: page-aligned (O_DIRECT)
};

// Files written whose fsync is still owed. Sync() fsyncs them all at once from several threads
// (so the device takes them together rather than one round trip each), then closes them; a
// batch that holds kMaxFiles syncs them before it takes another. Destroyed unsynced (an error
// is being reported), it closes them only. A set is durable once Sync() returns.
class SyncBatch {
 public:
  static constexpr size_t kMaxFiles = 64;
  static constexpr size_t kThreads = 8;

  SyncBatch() = default;
  SyncBatch(const SyncBatch&) = delete;
  SyncBatch& operator=(const SyncBatch&) = delete;

  void Add(UniqueFd fd, std::string path);
  // Throws Error naming the first file (in the order added) that could not be synced.
  void Sync();
  size_t size() const { return files_.size(); }

 private:
  std::vector<std::pair<UniqueFd, std::string>> files_;
};

class HashingWriter {
 public:
  static constexpr size_t kBufferBytes = WriteBuffers::kBytes;

  // Creates (truncates) `path`. The backend (and `buffers`, if given: else the writer has its
  // own) must outlive the writer, and `buffers` serve one writer at a time. Throws Error.
  HashingWriter(IoBackend& backend, std::string path, FileKind kind,
                WriteBuffers* buffers = nullptr);
  ~HashingWriter();  // waits for writes in flight
  HashingWriter(const HashingWriter&) = delete;
  HashingWriter& operator=(const HashingWriter&) = delete;

  void Write(const void* data, size_t bytes);
  void PadTo(uint64_t alignment);  // zero bytes up to the next multiple of `alignment`
  uint64_t position() const { return written_ + buffered_; }
  // Pads to 4 KiB, writes, fsyncs (or hands the file to `batch`, which does), closes. Returns
  // the digest of all bytes written.
  uint64_t Finish(SyncBatch* batch = nullptr);

 private:
  void Flush();
  void WaitFor(int slot);

  IoBackend& backend_;
  std::string path_;
  IoFile file_;
  std::unique_ptr<WriteBuffers> own_buffers_;
  HugeArray<std::byte>* buffers_;
  IoBackend::Ticket tickets_[2] = {0, 0};
  bool pending_[2] = {false, false};
  int current_ = 0;
  size_t buffered_ = 0;
  uint64_t written_ = 0;
  XXH3_state_t* state_ = nullptr;
};

// XXH3-64 of the whole file `path` (read in 4 MiB pieces). Throws Error.
uint64_t FileDigest(const std::string& path);

}  // namespace needle
