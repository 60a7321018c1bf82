#include "engine/vertex_store.h"

#include <unistd.h>

#include <cstring>

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

uint64_t VertexStore::Stage(uint64_t first, uint64_t last, bool edges_only) {
  const uint64_t begin = AlignDown(first);
  const uint64_t end = AlignUp(last);
  if (staging_.size() < end - begin) staging_ = AlignedBuffer(end - begin);
  if (!edges_only) {
    const IoRequest read{&file_, begin, staging_.data(), end - begin, /*write=*/false};
    io_->Run({&read, 1});
    return begin;
  }
  IoRequest reads[2];
  size_t n = 0;
  if (first != begin) reads[n++] = {&file_, begin, staging_.data(), kDirectAlignment, false};
  const uint64_t tail = end - kDirectAlignment;
  if (last != end && (n == 0 || tail != begin)) {
    reads[n++] = {&file_, tail, staging_.data() + (tail - begin), kDirectAlignment, false};
  }
  io_->Run({reads, n});
  return begin;
}

void VertexStore::Read(uint64_t begin, uint64_t end, void* dst) {
  if (begin > end || end > count_) throw Error(path(), "vertex range beyond the store");
  if (begin == end) return;
  const uint64_t first = begin * width_, last = end * width_;
  const uint64_t base = Stage(first, last, /*edges_only=*/false);
  std::memcpy(dst, staging_.data() + (first - base), last - first);
}

void VertexStore::Write(uint64_t begin, uint64_t end, const void* src) {
  if (begin > end || end > count_) throw Error(path(), "vertex range beyond the store");
  if (begin == end) return;
  const uint64_t first = begin * width_, last = end * width_;
  const uint64_t base = Stage(first, last, /*edges_only=*/true);  // the neighbours' bytes
  std::memcpy(staging_.data() + (first - base), src, last - first);
  const IoRequest write{&file_, base, staging_.data(), AlignUp(last) - base, /*write=*/true};
  io_->Run({&write, 1});
}

}  // namespace needle
