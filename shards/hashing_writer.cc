#include "shards/hashing_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "loaders/error.h"
#include "shards/shard_layout.h"

namespace needle {

HashingWriter::HashingWriter(std::string path, size_t buffer_bytes)
    : path_(std::move(path)), buffer_(buffer_bytes), state_(XXH3_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();
  XXH3_64bits_reset(state_);
  int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) ThrowSystemError(path_, "cannot create");
  fd_ = UniqueFd(fd);
}

HashingWriter::~HashingWriter() { XXH3_freeState(state_); }

void HashingWriter::Write(const void* data, size_t bytes) {
  const char* in = static_cast<const char*>(data);
  XXH3_64bits_update(state_, in, bytes);
  while (bytes > 0) {
    const size_t n = std::min(bytes, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, in, n);
    buffered_ += n;
    in += n;
    bytes -= n;
    if (buffered_ == buffer_.size()) Flush();
  }
}

void HashingWriter::PadTo(uint64_t alignment) {
  static const char kZeros[4096] = {};
  uint64_t pad = (alignment - position() % alignment) % alignment;
  while (pad > 0) {
    const size_t n = std::min<uint64_t>(pad, sizeof(kZeros));
    Write(kZeros, n);
    pad -= n;
  }
}

void HashingWriter::Flush() {
  WriteFully(fd_.get(), path_, buffer_.data(), buffered_, written_);
  written_ += buffered_;
  buffered_ = 0;
}

uint64_t HashingWriter::Finish() {
  PadTo(kShardAlignment);
  Flush();
  if (fsync(fd_.get()) != 0) ThrowSystemError(path_, "cannot fsync");
  fd_.Reset();
  return XXH3_64bits_digest(state_);
}

uint64_t FileDigest(const std::string& path) {
  UniqueFd fd = OpenForReading(path);
  const uint64_t size = FileSize(fd.get(), path);
  std::vector<char> buffer(std::min<uint64_t>(size, uint64_t{4} << 20));
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  try {
    for (uint64_t at = 0; at < size;) {
      const size_t n = std::min<uint64_t>(buffer.size(), size - at);
      ReadFully(fd.get(), path, buffer.data(), n, at);
      XXH3_64bits_update(state, buffer.data(), n);
      at += n;
    }
  } catch (...) {
    XXH3_freeState(state);
    throw;
  }
  const uint64_t digest = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return digest;
}

}  // namespace needle
