// MessageLogs: the messages push turns send (docs/engine.md, "Push turns"), one log per
// target interval, in memory: (target, message) entries in the order they were appended,
// held in blocks of a fixed arena so that every log grows and empties without reallocating.
// An interval's turn folds its log whole and clears it; a turn that pushes appends to the
// logs of every other interval. Exactly once: an entry is appended once and read by its
// interval's next turn only, which then clears it.
#pragma once

#include <cstdint>
#include <vector>

#include "base/types.h"

namespace needle {

template <class Message>
class MessageLogs {
 public:
  struct Entry {
    VertexId target;
    Message message;
  };
  static constexpr uint32_t kBlockEntries = 1024;

  // Room for about `bytes` of entries.
  MessageLogs(uint32_t num_intervals, uint64_t bytes)
      : blocks_(num_intervals), sizes_(num_intervals, 0) {
    const uint64_t n = std::max<uint64_t>(1, bytes / (sizeof(Entry) * kBlockEntries));
    arena_.resize(n * kBlockEntries);
    free_.reserve(n);
    for (uint64_t b = n; b-- > 0;) free_.push_back(static_cast<uint32_t>(b));
  }
  static constexpr uint64_t BytesPerEntry() { return sizeof(Entry); }

  // Whether `entries` more fit, spread over at most `logs` logs (each may start a block).
  bool Fits(uint64_t entries, uint64_t logs) const {
    return entries / kBlockEntries + logs <= free_.size();
  }
  // Appends to log r; the caller has checked Fits.
  void Append(uint32_t r, VertexId target, const Message& message) {
    const uint64_t at = sizes_[r] % kBlockEntries;
    if (at == 0) {
      blocks_[r].push_back(free_.back());
      free_.pop_back();
    }
    arena_[uint64_t{blocks_[r].back()} * kBlockEntries + at] = Entry{target, message};
    ++sizes_[r];
    ++entries_;
  }
  uint64_t size(uint32_t r) const { return sizes_[r]; }
  uint64_t entries() const { return entries_; }  // in every log
  uint64_t capacity_bytes() const { return arena_.size() * sizeof(Entry); }

  // f(entry) for every entry of log r, in order.
  template <class F>
  void ForEach(uint32_t r, F&& f) const {
    uint64_t left = sizes_[r];
    for (const uint32_t b : blocks_[r]) {
      const Entry* e = arena_.data() + uint64_t{b} * kBlockEntries;
      const uint64_t n = std::min<uint64_t>(left, kBlockEntries);
      for (uint64_t i = 0; i < n; ++i) f(e[i]);
      left -= n;
    }
  }
  void Clear(uint32_t r) {
    for (const uint32_t b : blocks_[r]) free_.push_back(b);
    blocks_[r].clear();
    entries_ -= sizes_[r];
    sizes_[r] = 0;
  }

 private:
  std::vector<Entry> arena_;
  std::vector<std::vector<uint32_t>> blocks_;  // per log, its blocks in order
  std::vector<uint64_t> sizes_;                // per log, its entries
  std::vector<uint32_t> free_;
  uint64_t entries_ = 0;
};

}  // namespace needle
