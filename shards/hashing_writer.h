// HashingWriter: writes a new file sequentially through a buffer, hashing every byte
// (XXH3-64) as it goes, so the manifest gets each file's digest without reading it back.
// Finish() pads the file to a 4 KiB multiple (O_DIRECT readers), fsyncs and closes it.
// FileDigest() computes the same digest of an existing file, for verification.
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <string>
#include <vector>

#include "loaders/unique_fd.h"

namespace needle {

class HashingWriter {
 public:
  explicit HashingWriter(std::string path, size_t buffer_bytes = size_t{4} << 20);  // throws Error
  ~HashingWriter();
  HashingWriter(const HashingWriter&) = delete;
  HashingWriter& operator=(const HashingWriter&) = delete;

  void Write(const void* data, size_t bytes);
  void PadTo(uint64_t alignment);  // zero bytes up to the next multiple of `alignment`
  uint64_t position() const { return written_ + buffered_; }
  // Pads to 4 KiB, flushes, fsyncs, closes. Returns the digest.
  uint64_t Finish();

 private:
  void Flush();
  std::string path_;
  UniqueFd fd_;
  std::vector<char> buffer_;
  size_t buffered_ = 0;
  uint64_t written_ = 0;
  XXH3_state_t* state_ = nullptr;
};

// XXH3-64 of the whole file `path` (read in 4 MiB pieces). Throws Error.
uint64_t FileDigest(const std::string& path);

}  // namespace needle
