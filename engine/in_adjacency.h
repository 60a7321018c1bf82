// InAdjacency: every interval's in-edges from the other intervals grouped by target, for pull
// turns (docs/engine.md, "Pull turns"). A shard holds an interval's in-edges by source, so a
// pull turn that reads them there decodes every window's runs to put each source's message on
// its edges, and every thread then scans every edge for the targets it owns. Grouped by target,
// a thread folds its own targets' messages straight from the array of messages, in the order a
// scan would (ascending source), and reads no runs.
//
// One file, in.adj in the run's work directory. For each shard p in turn, a section with the
// geometry of the targets of shard-PPPP.adj (in_section.h; padded to 4 KiB), so that a turn
// reads it into the buffer the targets go to:
//   - where window (p, p)'s edges are, their targets, as the shard has them;
//   - in the places of the other windows' edges, the sources of those edges ("cross" edges),
//     target by target in ascending order, each target's in ascending order, packed in as few
//     bytes as number every vertex (InSection::CrossByte says where cross edge i is).
// Then, for each shard p in turn, its starts: count + 1 4-byte numbers (count: p's vertices),
// vertex v's cross edges being [start[v], start[v + 1]), each shard's padded to 4 KiB.
//
// Built once from the shard set, shard by shard: its targets and the runs of its windows (from
// every scatter index) read whole, each cross edge counted by target, then put in place, each
// thread doing a part of the windows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/interval_io.h"
#include "io/io_backend.h"
#include "shards/shard_set.h"

namespace needle {

class InAdjacency {
 public:
  // The smallest buffer Build takes for `set` on `threads` threads (ThreadCount): the largest
  // shard's targets twice (read, and put in place), its column of runs
  // (IntervalIo::ColumnBytes), and a start and, for each part of the windows the threads take,
  // a count per vertex of the largest interval.
  static uint64_t BuildBufferBytes(const ShardSet& set, const IntervalIo& files, int threads);
  // A buffer with which Build reads the next shard while it puts one in place: the targets
  // and column once more.
  static uint64_t OverlappedBufferBytes(const ShardSet& set, const IntervalIo& files,
                                        int threads);
  // Bytes of a buffer that holds any interval's starts (StartsRequest).
  static uint64_t StartsBytes(const ShardSet& set);

  // Writes `path` from `set` (its files as `files` opened them) through `buffer` (at least
  // BuildBufferBytes), counting and placing on `threads` threads (the file is the same at any
  // count), then opens it for reading as `io`'s options say (O_DIRECT with --direct). Throws
  // Error: a damaged scatter index (named, with the byte), a target outside its interval (the
  // shard file named, with the byte), or a failed transfer; std::invalid_argument for a
  // buffer under BuildBufferBytes or a shard of 2^32 edges or more.
  // `width`: the bytes of a cross source (in_section.h), at least InSourceWidth of the set's
  // vertices (0: that least; std::invalid_argument for fewer).
  static InAdjacency Build(IoBackend& io, const ShardSet& set, IntervalIo& files,
                           const std::string& path, AlignedBuffer& buffer, int threads,
                           uint32_t width = 0);

  const IoFile& file() const { return file_; }
  uint32_t width() const { return width_; }  // bytes a cross source
  // Byte of the file where shard p's section begins (4 KiB aligned).
  uint64_t section(uint32_t p) const { return section_[p]; }
  // The read of interval p's starts into `buffer` (StartsBytes or more, aligned), and where
  // they begin there once it is done.
  IoRequest StartsRequest(uint32_t p, std::byte* buffer) const;
  static const uint32_t* Starts(const std::byte* buffer) {
    return reinterpret_cast<const uint32_t*>(buffer);
  }
  uint64_t disk_bytes() const { return starts_.back(); }

 private:
  InAdjacency(IoFile file, std::vector<uint64_t> section, std::vector<uint64_t> starts,
              uint32_t width)
      : file_(std::move(file)),
        section_(std::move(section)),
        starts_(std::move(starts)),
        width_(width) {}

  IoFile file_;
  std::vector<uint64_t> section_;  // per shard, where its section begins
  std::vector<uint64_t> starts_;   // per shard, where its starts begin; then the file's end
  uint32_t width_;
};

// The starts of the turns' intervals in one buffer of InAdjacency::StartsBytes: the next
// turn's read while the turn after the gather computes. Not thread-safe; waits for a read in
// flight when destroyed.
class InStarts {
 public:
  InStarts(IoBackend& io, const InAdjacency& in, uint64_t bytes);
  InStarts(const InStarts&) = delete;
  InStarts& operator=(const InStarts&) = delete;
  ~InStarts();

  // Starts reading interval p's starts (those Take returned before are no longer valid).
  void Prefetch(uint32_t p);
  // Interval p's starts (valid until the next Prefetch or Take), read now when they are not
  // being read; the seconds spent waiting are added to *waited. Throws Error.
  const uint32_t* Take(uint32_t p, double* waited);

 private:
  void Finish(double* waited);

  IoBackend* io_;
  const InAdjacency* in_;
  AlignedBuffer buffer_;
  uint32_t p_ = UINT32_MAX;  // the interval it holds or is being read for
  bool busy_ = false;
  IoBackend::Ticket ticket_ = 0;
};

}  // namespace needle
