// EdgeValueFiles: a run's working edge values — the messages on the edges — one file per shard
// in the run's WorkDir, `width` bytes per edge in the shard's edge order.
//
// With O_DIRECT, each window (the edges of shard p whose source lies in interval q) starts on
// a boundary of the file system's direct I/O alignment (IoFile::alignment(): 512 B on most
// disks, 4 KiB at most) and is padded to one, so a window can be rewritten without touching
// its neighbours. Through the page cache the windows are packed: transfers are exact byte ranges,
// and the kernel keeps a write of one window apart from a read of the next. The files are
// created sparse (reading as zero bytes); a window never written carries no messages by its flag,
// so whatever a read of it returns is either ignored or patched (engine.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "io/io_backend.h"
#include "shards/shard_set.h"

namespace needle {

// Writes `count` copies of one message, `width` bytes, from `dst` on (an identity() window, a
// streamed interval's one message).
inline void FillMessages(std::byte* dst, uint64_t count, const std::byte* message, size_t width) {
  for (uint64_t e = 0; e < count; ++e) std::memcpy(dst + e * width, message, width);
}

class EdgeValueFiles {
 public:
  // Creates DIR/edges-PPPP.val for every shard of `set` (O_DIRECT when the backend's options
  // ask for it and the file system allows it: windows are then padded). Throws Error.
  EdgeValueFiles(IoBackend& io, const ShardSet& set, const std::string& dir, size_t width);

  size_t width() const { return width_; }
  // Byte offset of window (shard, interval) in the shard's file; interval = P gives its size.
  uint64_t WindowOffset(uint32_t shard, uint32_t interval) const {
    return offsets_[static_cast<size_t>(shard) * (num_intervals_ + 1) + interval];
  }
  uint64_t WindowBytes(uint32_t shard, uint32_t interval) const {
    return WindowOffset(shard, interval + 1) - WindowOffset(shard, interval);
  }
  uint64_t FileBytes(uint32_t shard) const { return WindowOffset(shard, num_intervals_); }
  const IoFile& file(uint32_t shard) const { return files_[shard]; }

 private:
  size_t width_;
  uint32_t num_intervals_;
  std::vector<uint64_t> offsets_;  // P × (P + 1)
  std::vector<IoFile> files_;
};

}  // namespace needle
