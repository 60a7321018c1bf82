// ByteSource: a sequential stream of a file's (decompressed) bytes.
//
// Plain files are read with read(2); gzip (multi-member) through zlib; xz through liblzma.
// A stream that ends before its compressed data says it should is reported as truncated,
// with the compressed byte offset where the input ran out.
//
// Every source hashes the raw file bytes it reads (the compressed bytes of gzip and xz) with
// XXH3-64 as it goes, so a reader that reads a file to its end gets a fingerprint of the whole
// file at no extra pass (FileContentHash in content_hash.h computes the same value alone).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "loaders/format.h"

namespace needle {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `capacity` bytes into `dst`; returns 0 only at the end of the data.
  virtual size_t Read(char* dst, size_t capacity) = 0;
  // Bytes of the underlying file consumed so far (for progress).
  virtual uint64_t FileBytesRead() const = 0;
  // XXH3-64 of the file bytes consumed so far: of the whole file once Read() has returned 0.
  virtual uint64_t ContentHash() const = 0;
};

// Opens `path`, detecting the compression from its magic bytes. Throws Error.
std::unique_ptr<ByteSource> OpenByteSource(const std::string& path,
                                           Compression* compression = nullptr);

}  // namespace needle
