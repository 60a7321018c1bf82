// VertexStore: a program's vertex values in a shard set — one fixed-width record per vertex in
// DIR/vertices-NAME.val — read and written one interval at a time through an IoBackend, so
// they need not fit in memory (the engine keeps them resident when the budget allows).
//
// The file is padded to 4 KiB. Ranges are held in aligned buffers of whole blocks (read-modify-
// write at the edges), so the same code works on O_DIRECT files.
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

  VertexStore(VertexStore&& other) noexcept;
  VertexStore& operator=(VertexStore&&) = delete;
  ~VertexStore();  // waits for a read ahead still in flight

  // Two aligned buffers take turns holding an interval's values, each at its byte offset in
  // the file's 4 KiB blocks, so that the next interval's can be read while the current one's
  // are used:
  // - Load: the values of [begin, end), read ahead by Prefetch of the same range or read
  //   now. Fresh: the buffer for [begin, end) without reading it (values written whole).
  //   Either is valid until the next Load or Fresh of another range, and Prefetch does not
  //   touch it.
  // - Prefetch: starts reading [begin, end) into the other buffer. A Load of another range
  //   or a write that overlaps it drops it.
  // - Store: writes back what the last Load or Fresh returned, if of [begin, end), keeping
  //   the neighbours' bytes of its first and last blocks.
  // Read and Write copy to and from `width × (end − begin)` bytes (through Load's buffer).
  // Throws Error.
  std::byte* Load(uint64_t begin, uint64_t end);
  std::byte* Fresh(uint64_t begin, uint64_t end);
  void Prefetch(uint64_t begin, uint64_t end);
  void Store(uint64_t begin, uint64_t end);
  void Read(uint64_t begin, uint64_t end, void* dst);
  void Write(uint64_t begin, uint64_t end, const void* src);

  const std::string& path() const { return file_.path(); }
  uint64_t count() const { return count_; }
  size_t width() const { return width_; }

 private:
  VertexStore(IoBackend& io, IoFile file, uint64_t count, size_t width)
      : io_(&io), file_(std::move(file)), count_(count), width_(width) {}
  struct Slot {
    AlignedBuffer buffer;
    uint64_t begin = 0, end = 0;  // the vertices it holds
    uint64_t base = 0;            // the file offset of buffer[0]
  };
  // Points `slot` at [begin, end) (checked), growing its buffer to the range's blocks.
  Slot& Cover(int slot, uint64_t begin, uint64_t end);
  std::byte* At(Slot& s) { return s.buffer.data() + (s.begin * width_ - s.base); }
  void DropAhead();  // waits for the read ahead in flight, if any, and forgets it
  void DropAheadOver(uint64_t begin, uint64_t end);  // if it overlaps [begin, end)

  IoBackend* io_;
  IoFile file_;
  uint64_t count_;
  size_t width_;
  Slot slots_[2];
  int current_ = 0;  // the slot Load or Fresh returned last
  int ahead_ = -1;   // the slot a Prefetch reads into (ticket_), until loaded or dropped
  IoBackend::Ticket ticket_ = 0;
  AlignedBuffer edges_;  // the first and last blocks around a range, read back by Store
};

}  // namespace needle
