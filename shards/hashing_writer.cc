#include "shards/hashing_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"
#include "shards/shard_layout.h"

namespace needle {

WriteBuffers::WriteBuffers() {
  for (auto& slot : slots) slot.Resize(kBytes);
}

HashingWriter::HashingWriter(IoBackend& backend, std::string path, FileKind kind,
                             WriteBuffers* buffers)
    : backend_(backend),
      path_(std::move(path)),
      own_buffers_(buffers == nullptr ? std::make_unique<WriteBuffers>() : nullptr),
      buffers_(buffers == nullptr ? own_buffers_->slots : buffers->slots),
      state_(XXH3_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();
  XXH3_64bits_reset(state_);
  file_ = backend_.Open(path_, kind, /*writable=*/true, /*create=*/true);
}

HashingWriter::~HashingWriter() {
  for (int slot = 0; slot < 2; ++slot) {
    try {
      WaitFor(slot);
    } catch (...) {  // the error was or will be reported by Finish(); nothing may escape here
    }
  }
  XXH3_freeState(state_);
}

void HashingWriter::WaitFor(int slot) {
  if (!pending_[slot]) return;
  pending_[slot] = false;
  backend_.Wait(tickets_[slot]);
}

void HashingWriter::Write(const void* data, size_t bytes) {
  const char* in = static_cast<const char*>(data);
  XXH3_64bits_update(state_, in, bytes);
  while (bytes > 0) {
    const size_t n = std::min(bytes, kBufferBytes - buffered_);
    std::memcpy(buffers_[current_].data() + buffered_, in, n);
    buffered_ += n;
    in += n;
    bytes -= n;
    if (buffered_ == kBufferBytes) Flush();
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

// Hands the current buffer to the backend and switches to the other one, first waiting
// until the backend is done with it.
void HashingWriter::Flush() {
  if (buffered_ == 0) return;
  const IoRequest request{&file_, written_, buffers_[current_].data(), buffered_, /*write=*/true};
  tickets_[current_] = backend_.Submit({&request, 1});
  pending_[current_] = true;
  written_ += buffered_;
  buffered_ = 0;
  current_ ^= 1;
  WaitFor(current_);
}

uint64_t HashingWriter::Finish(SyncBatch* batch) {
  PadTo(kShardAlignment);
  Flush();
  WaitFor(0);
  WaitFor(1);
  if (batch != nullptr) {
    batch->Add(file_.ReleaseFd(), path_);
  } else {
    if (fsync(file_.fd()) != 0) ThrowSystemError(path_, "cannot fsync");
    file_.Close();
  }
  return XXH3_64bits_digest(state_);
}

void SyncBatch::Add(UniqueFd fd, std::string path) {
  if (files_.size() == kMaxFiles) Sync();
  files_.emplace_back(std::move(fd), std::move(path));
}

void SyncBatch::Sync() {
  std::vector<int> errors(files_.size(), 0);
  auto sync_from = [&](size_t first) {
    for (size_t i = first; i < files_.size(); i += kThreads) {
      if (fsync(files_[i].first.get()) != 0) errors[i] = errno;
    }
  };
  {
    std::vector<std::jthread> threads;
    const size_t count = std::min(kThreads, files_.size());
    for (size_t t = 1; t < count; ++t) threads.emplace_back(sync_from, t);
    sync_from(0);
  }  // (joined)
  std::vector<std::pair<UniqueFd, std::string>> files = std::move(files_);
  files_.clear();
  for (size_t i = 0; i < files.size(); ++i) {
    if (errors[i] != 0) {
      errno = errors[i];
      ThrowSystemError(files[i].second, "cannot fsync");
    }
  }
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
