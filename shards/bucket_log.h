// BucketLog: the sharder's temporary file of edges grouped by target.
//
// The sharder hands it one block of edge records at a time, grouped into at most kBuckets
// buckets by target >> shift (the shift fits the ids seen so far and is kept per block). A
// block is appended as one write, asynchronously, while the next block is read; its bucket
// starts stay in memory (kBuckets + 1 offsets per block). So the records whose target lies in
// an id range [lo, hi) are, in every block, one contiguous stretch, plus at most the two
// buckets that lo and hi cut, which are filtered. Records are opaque here but for their first
// four bytes: the target (edge_record.h).
//
// The file is scratch, written once and read once: it bypasses the page cache (O_DIRECT where
// the file system allows it), so neither pass pays the kernel for copies nor fills memory with
// pages nobody reads again. Every block starts on a 4 KiB boundary; reads go through two
// aligned staging buffers, one in flight while the other is copied out. The file lives in the
// shard set's staging directory and is removed by the destructor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "base/huge_array.h"
#include "base/types.h"
#include "io/io_backend.h"

namespace needle {

class BucketLog {
 public:
  static constexpr uint32_t kBuckets = 4096;

  // Creates `path` for records of `record_bytes`, appended in blocks of at most
  // `block_records`, read back through two staging buffers of `staging_bytes` (at least
  // 16 KiB). The backend must outlive the log. Throws Error.
  BucketLog(IoBackend& io, std::string path, size_t record_bytes, uint64_t block_records,
            uint64_t staging_bytes);
  ~BucketLog();  // waits for the I/O in flight and removes the file
  BucketLog(const BucketLog&) = delete;
  BucketLog& operator=(const BucketLog&) = delete;

  // The buffer the next block is grouped into (room for block_records), free once the write
  // of the block before last is done (this waits for it).
  std::byte* NextBuffer();
  // Appends NextBuffer()'s records [0, starts.back()): bucket k — targets in
  // [k << shift, (k + 1) << shift) — is records [starts[k], starts[k + 1]). starts has at
  // most kBuckets + 1 entries. Starts the write and returns.
  void Append(int shift, std::vector<uint64_t> starts);
  // Waits for the last write and frees the block buffers (no Append after it); throws Error
  // if a write failed.
  void Finish();

  uint64_t records() const { return records_; }
  bool direct() const { return file_.direct(); }
  // Copies every record whose target lies in [lo, hi) to out (room for `capacity` records).
  // Returns how many; throws Error if there are more than `capacity`.
  uint64_t Gather(uint64_t lo, uint64_t hi, std::byte* out, uint64_t capacity);
  // Calls f(records, count) for all records, in pieces.
  void ForEach(const std::function<void(const std::byte*, uint64_t)>& f);

 private:
  struct Block {
    uint64_t offset;  // byte offset in the file (4 KiB-aligned)
    int shift;
    std::vector<uint64_t> starts;
  };
  // `count` records from byte `offset`; filtered by target unless whole.
  struct Stretch {
    uint64_t offset;
    uint64_t count;
    bool whole;
  };
  // Reads the stretches and hands each piece of records to f(records, count, whole).
  void Read(std::span<const Stretch> stretches,
            const std::function<void(const std::byte*, uint64_t, bool)>& f);

  IoBackend& io_;
  std::string path_;
  IoFile file_;
  size_t record_bytes_;
  HugeArray<std::byte> buffers_[2];  // blocks being grouped / written
  IoBackend::Ticket tickets_[2] = {0, 0};
  int next_ = 0;
  HugeArray<std::byte> staging_[2];  // pieces being read / copied out
  std::vector<Block> blocks_;
  uint64_t records_ = 0;
  uint64_t size_ = 0;  // bytes in the file
};

}  // namespace needle
