// BucketLog: the sharder's temporary file of edges grouped by target.
//
// The sharder hands it one block of edge records at a time, grouped into at most kBuckets
// buckets by target >> shift (the shift fits the ids seen so far and is kept per block). A
// block is appended to the file as one write, asynchronously, while the next block is read;
// its bucket starts stay in memory (kBuckets + 1 offsets per block). So the records whose
// target lies in an id range [lo, hi) are, in every block, one contiguous stretch that is read
// straight into place, plus at most the two buckets that lo and hi cut, which are read through
// a small staging buffer and filtered. Records are opaque here but for their first four
// bytes: the target (edge_record.h).
//
// The file lives in the shard set's staging directory and is removed by the destructor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loaders/huge_array.h"
#include "loaders/types.h"
#include "shards/io_backend.h"

namespace needle {

class BucketLog {
 public:
  static constexpr uint32_t kBuckets = 4096;

  // Creates `path` for records of `record_bytes`, appended in blocks of at most
  // `block_records`. The backend must outlive the log. Throws Error.
  BucketLog(IoBackend& io, std::string path, size_t record_bytes, uint64_t block_records);
  ~BucketLog();  // waits for the write in flight and removes the file
  BucketLog(const BucketLog&) = delete;
  BucketLog& operator=(const BucketLog&) = delete;

  // The buffer the next block is grouped into (room for block_records), free once the write
  // of the block before last is done (this waits for it).
  std::byte* NextBuffer();
  // Appends NextBuffer()'s records [0, starts.back()): bucket k — targets in
  // [k << shift, (k + 1) << shift) — is records [starts[k], starts[k + 1]). starts has at
  // most kBuckets + 1 entries. Starts the write and returns.
  void Append(int shift, std::vector<uint64_t> starts);
  // Waits for the last write; throws Error if one failed.
  void Finish();

  uint64_t records() const { return records_; }
  // Copies every record whose target lies in [lo, hi) to out (room for `capacity` records),
  // block by block. Returns how many; throws Error if there are more than `capacity`.
  uint64_t Gather(uint64_t lo, uint64_t hi, std::byte* out, uint64_t capacity);
  // Calls f(records, count) for all records in order, a staging buffer at a time.
  template <class F>
  void ForEach(F&& f) {
    const uint64_t piece = staging_records();
    for (uint64_t first = 0; first < records_; first += piece) {
      const uint64_t n = std::min(piece, records_ - first);
      ReadRecords(first, n, staging_.data());
      f(static_cast<const std::byte*>(staging_.data()), n);
    }
  }

 private:
  struct Block {
    uint64_t first;  // record index of the block's first record in the file
    int shift;
    std::vector<uint64_t> starts;
  };
  uint64_t staging_records() const { return staging_.size() / record_bytes_; }
  void ReadRecords(uint64_t first, uint64_t count, std::byte* out);
  // Appends the records of [first, first + count) whose target lies in [lo, hi) to out + at.
  uint64_t Filter(uint64_t first, uint64_t count, uint64_t lo, uint64_t hi, std::byte* out,
                  uint64_t at, uint64_t capacity);

  IoBackend& io_;
  std::string path_;
  IoFile file_;
  size_t record_bytes_;
  HugeArray<std::byte> buffers_[2];
  IoBackend::Ticket tickets_[2] = {0, 0};
  int next_ = 0;
  HugeArray<std::byte> staging_;
  std::vector<Block> blocks_;
  uint64_t records_ = 0;
};

}  // namespace needle
