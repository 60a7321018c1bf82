// VertexStore: a program's vertex values in a shard set — one fixed-width record per vertex in
// DIR/vertices-NAME.val — read and written one interval at a time through an IoBackend, so
// they need not fit in memory (the engine keeps them resident when the budget allows).
//
// The file is padded to 4 KiB. Ranges that are not 4 KiB-aligned are staged through an aligned
// buffer (read-modify-write at the edges), so the same code works on O_DIRECT files.
// Not thread-safe: one store per thread, like the backend it uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "io/io_backend.h"

namespace needle {

class VertexStore {
 public:
  // Creates or truncates DIR/vertices-NAME.val for `count` zero values of `width` bytes.
  static VertexStore Create(IoBackend& io, const std::string& dir, const std::string& name,
                            uint64_t count, size_t width);
  // Opens an existing store; its size must match count × width (padded). Throws Error.
  static VertexStore Open(IoBackend& io, const std::string& dir, const std::string& name,
                          uint64_t count, size_t width);

  // Values of vertices [begin, end) to / from `width × (end − begin)` bytes. Throws Error.
  void Read(uint64_t begin, uint64_t end, void* dst);
  void Write(uint64_t begin, uint64_t end, const void* src);

  const std::string& path() const { return file_.path(); }
  uint64_t count() const { return count_; }
  size_t width() const { return width_; }

 private:
  VertexStore(IoBackend& io, IoFile file, uint64_t count, size_t width)
      : io_(&io), file_(std::move(file)), count_(count), width_(width) {}
  // Makes staging_ cover the aligned byte range around [first, last) and returns its start.
  // Reads the whole range, or (edges_only) only its first and last blocks — the bytes of
  // neighbouring values that a write must keep.
  uint64_t Stage(uint64_t first, uint64_t last, bool edges_only);

  IoBackend* io_;
  IoFile file_;
  uint64_t count_;
  size_t width_;
  AlignedBuffer staging_;
};

}  // namespace needle
