#include "engine/vertex_store.h"

#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <utility>

#include "base/error.h"

namespace needle {
namespace {

std::string StorePath(const std::string& dir, const std::string& name) {
  return dir + "/vertices-" + name + ".val";
}

}  // namespace

VertexStore VertexStore::Create(IoBackend& io, const std::string& dir, const std::string& name,
                                uint64_t count, size_t width) {
  IoFile file =
      io.Open(StorePath(dir, name), FileKind::kVertices, /*writable=*/true, /*create=*/true);
  if (ftruncate(file.fd(), static_cast<off_t>(AlignUp(count * width))) != 0) {
    ThrowSystemError(file.path(), "cannot size the vertex value file");
  }
  return VertexStore(io, std::move(file), count, width);
}

VertexStore VertexStore::Open(IoBackend& io, const std::string& dir, const std::string& name,
                              uint64_t count, size_t width) {
  IoFile file = io.Open(StorePath(dir, name), FileKind::kVertices, /*writable=*/true);
  if (file.size() != AlignUp(count * width)) {
    throw Error(file.path(), "vertex value file has " + std::to_string(file.size()) +
                                 " bytes, expected " + std::to_string(AlignUp(count * width)));
  }
  return VertexStore(io, std::move(file), count, width);
}

VertexStore::VertexStore(VertexStore&& other) noexcept
    : io_(other.io_),
      file_(std::move(other.file_)),
      count_(other.count_),
      width_(other.width_),
      slots_{std::move(other.slots_[0]), std::move(other.slots_[1])},
      current_(other.current_),
      ahead_(std::exchange(other.ahead_, -1)),
      ticket_(other.ticket_),
      edges_(std::move(other.edges_)) {}

VertexStore::~VertexStore() {
  try {
    DropAhead();
  } catch (...) {  // a read ahead that failed: nothing uses it now
  }
}

VertexStore::Slot& VertexStore::Cover(int slot, uint64_t begin, uint64_t end) {
  if (begin > end || end > count_) throw Error(path(), "vertex range beyond the store");
  Slot& s = slots_[slot];
  s.begin = begin;
  s.end = end;
  s.base = AlignDown(begin * width_);
  const uint64_t bytes = AlignUp(end * width_) - s.base;
  if (s.buffer.size() < bytes) s.buffer = AlignedBuffer(bytes);
  return s;
}

void VertexStore::DropAhead() {
  if (ahead_ < 0) return;
  const int slot = std::exchange(ahead_, -1);
  slots_[slot].end = slots_[slot].begin;  // holds nothing a Load could take
  io_->Wait(ticket_);
}

void VertexStore::DropAheadOver(uint64_t begin, uint64_t end) {
  if (ahead_ >= 0 && slots_[ahead_].begin < end && begin < slots_[ahead_].end) DropAhead();
}

std::byte* VertexStore::Load(uint64_t begin, uint64_t end) {
  if (ahead_ >= 0 && slots_[ahead_].begin == begin && slots_[ahead_].end == end &&
      begin < end) {
    current_ = std::exchange(ahead_, -1);
    io_->Wait(ticket_);
    return At(slots_[current_]);
  }
  DropAhead();
  Slot& s = Cover(current_, begin, end);
  if (begin < end) {
    const IoRequest read{&file_, s.base, s.buffer.data(), AlignUp(end * width_) - s.base,
                         /*write=*/false};
    io_->Run({&read, 1});
  }
  return At(s);
}

std::byte* VertexStore::Fresh(uint64_t begin, uint64_t end) {
  DropAheadOver(begin, end);
  return At(Cover(current_, begin, end));
}

void VertexStore::Prefetch(uint64_t begin, uint64_t end) {
  DropAhead();
  const int slot = 1 - current_;
  Slot& s = Cover(slot, begin, end);
  if (begin == end) return;
  const IoRequest read{&file_, s.base, s.buffer.data(), AlignUp(end * width_) - s.base,
                       /*write=*/false};
  ticket_ = io_->Submit({&read, 1});
  ahead_ = slot;
}

void VertexStore::Store(uint64_t begin, uint64_t end) {
  Slot& s = slots_[current_];
  if (s.begin != begin || s.end != end) {
    throw std::logic_error("VertexStore::Store: the range is not the one loaded last");
  }
  if (begin == end) return;
  DropAheadOver(begin, end);
  const uint64_t first = begin * width_, last = end * width_;
  const uint64_t tail = AlignDown(last), stop = AlignUp(last);
  // The neighbours' bytes in the first and last blocks, as the file has them now.
  if (edges_.size() == 0) edges_ = AlignedBuffer(2 * kDirectAlignment);
  IoRequest reads[2];
  size_t n = 0;
  if (first != s.base) reads[n++] = {&file_, s.base, edges_.data(), kDirectAlignment, false};
  if (last != stop && (n == 0 || tail != s.base)) {
    reads[n++] = {&file_, tail, edges_.data() + kDirectAlignment, kDirectAlignment, false};
  }
  io_->Run({reads, n});
  std::byte* buffer = s.buffer.data();
  if (first != s.base) std::memcpy(buffer, edges_.data(), first - s.base);
  if (last != stop) {
    // The last block's tail; where it is also the first block, that read holds it.
    const std::byte* from = tail == s.base && first != s.base ? edges_.data()
                                                              : edges_.data() + kDirectAlignment;
    std::memcpy(buffer + (last - s.base), from + (last - tail), stop - last);
  }
  const IoRequest write{&file_, s.base, buffer, stop - s.base, /*write=*/true};
  io_->Run({&write, 1});
}

void VertexStore::Read(uint64_t begin, uint64_t end, void* dst) {
  const std::byte* values = Load(begin, end);
  if (begin < end) std::memcpy(dst, values, (end - begin) * width_);
}

void VertexStore::Write(uint64_t begin, uint64_t end, const void* src) {
  std::byte* values = Fresh(begin, end);
  if (begin == end) return;
  std::memcpy(values, src, (end - begin) * width_);
  Store(begin, end);
}

}  // namespace needle
