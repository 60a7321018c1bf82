#include "engine/in_adjacency.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "base/error.h"
#include "base/parallel.h"
#include "engine/in_section.h"
#include "shards/run_codec.h"
#include "shards/shard_layout.h"

namespace needle {
namespace {

// Shard p's edges: window (p, r) holds its edges [Window(p, r), Window(p, r + 1)).
uint64_t ShardEdges(const ShardSet& set, uint32_t p) {
  return set.Window(p, set.num_intervals()).first_edge;
}

uint64_t LargestShard(const ShardSet& set) {
  uint64_t most = 0;
  for (uint32_t p = 0; p < set.num_intervals(); ++p) most = std::max(most, ShardEdges(set, p));
  return most;
}

// Per part of the windows, a 4-byte count per vertex of the largest interval and one more.
uint64_t CountBytes(const ShardSet& set) {
  return AlignUp(4 * (uint64_t{set.largest_interval()} + 1));
}

// The build of one shard's section (InAdjacency::Build), through the caller's buffer: one or
// two read areas (the shard's targets as read, with a unit on each side for the aligned cover,
// and its column of runs), the section put in place, its starts, and each part's counts. With
// two read areas the next shard's reads go on while this one is put in place; a shard's
// writes go on while the next one is read and counted. Each part of the windows (one a thread)
// counts and places its own cross edges, a target's after those of the parts before it: the
// section is the same at any thread count.
class ShardBuild {
 public:
  // The bytes of one read area, and of the rest.
  static uint64_t AreaBytes(const ShardSet& set, const IntervalIo& files) {
    return AlignUp(4 * LargestShard(set)) + 2 * kDirectAlignment + AlignUp(files.ColumnBytes());
  }
  static uint64_t RestBytes(const ShardSet& set, uint32_t parts) {
    return AlignUp(4 * LargestShard(set)) + (uint64_t{parts} + 1) * CountBytes(set);
  }

  ShardBuild(IoBackend& io, const ShardSet& set, IntervalIo& files, IoFile& out,
             AlignedBuffer& buffer, uint32_t parts, uint32_t width)
      : io_(io),
        set_(set),
        files_(files),
        out_(out),
        n_(set.num_intervals()),
        parts_(parts),
        width_(width) {
    const uint64_t area = AreaBytes(set, files);
    const int areas = buffer.size() >= 2 * area + RestBytes(set, parts) ? 2 : 1;
    std::byte* at = buffer.data();
    for (int a = 0; a < areas; ++a, at += area) {
      areas_.emplace_back();
      areas_.back().read = at;
      areas_.back().column = at + area - AlignUp(files.ColumnBytes());
    }
    column_bytes_ = files.ColumnBytes();
    placed_ = at;
    at += AlignUp(4 * LargestShard(set));
    starts_ = reinterpret_cast<uint32_t*>(at);
    stride_ = CountBytes(set) / 4;
    counts_ = starts_ + stride_;
  }
  ShardBuild(const ShardBuild&) = delete;
  ShardBuild& operator=(const ShardBuild&) = delete;
  ~ShardBuild() {  // (a build that threw: nothing may land in the buffer after it is freed)
    for (Area& a : areas_) {
      Settle(a.targets, true);
      Settle(a.runs, true);
    }
    Settle(written_, true);
  }

  // Writes shard p's section at byte `section` and its starts at byte `starts`; then waits
  // for what is still being written.
  void Run(uint32_t p, uint64_t section, uint64_t starts) {
    const uint64_t edges = ShardEdges(set_, p);
    const VertexId begin = set_.interval_begin(p), end = set_.interval_end(p);
    const uint32_t count = end - begin;
    const InSection layout = InSection::Of(set_, p, width_);
    const uint64_t own_first = layout.own_first;
    const uint64_t own_edges = layout.own_end - own_first;
    Area& area = areas_[p % areas_.size()];
    if (area.shard != p) StartReads(p, area);
    Settle(area.targets, false);
    Settle(area.runs, false);
    if (areas_.size() > 1 && p + 1 < n_) StartReads(p + 1, areas_[(p + 1) % areas_.size()]);
    const auto* targets = reinterpret_cast<const uint32_t*>(area.read + area.skip);
    const uint64_t base = set_.header(p).targets_pos;
    column_ = area.column;
    at_ = area.at;
  // Each part counts its cross edges by target; then part k's count of v becomes where its
    // first edge of v goes.
    Split(p);
    // (From the targets alone: a part's windows are a range of the shard's edges.)
    InParts([&](uint32_t k) {
      uint32_t* counted = Counted(k);
      std::fill_n(counted, count, 0);
      for (uint32_t r = PartBegin(k); r < PartBegin(k + 1); ++r) {
        if (r == p) continue;
        for (uint64_t e = set_.Window(p, r).first_edge; e < set_.Window(p, r + 1).first_edge;
             ++e) {
          const uint32_t target = targets[e];
          if (target - begin >= count) {
            throw Error::AtByte(set_.AdjacencyPath(p), base + 4 * e,
                                "target " + std::to_string(target) + " lies outside interval " +
                                    std::to_string(p) + " (the shard file is damaged)");
          }
          ++counted[target - begin];
        }
      }
    });
    Settle(written_, false);  // the last shard's starts and section
    starts_[0] = 0;
    for (uint32_t v = 0; v < count; ++v) {
      uint32_t at = starts_[v];
      for (uint32_t k = 0; k < parts_; ++k) {
        const uint32_t n = Counted(k)[v];
        Counted(k)[v] = at;
        at += n;
      }
      starts_[v + 1] = at;
    }
    InParts([&](uint32_t k) {
      uint32_t* next = Counted(k);
      Cross(p, k, [&](uint32_t source, uint64_t e) {
        layout.Put(placed_, next[targets[e] - begin]++, source);
      });
    });
    std::memcpy(placed_ + 4 * own_first, targets + own_first, 4 * own_edges);
    // The places before window (p, p) hold their sources in their first bytes; the rest of
    // them is left a hole of the file, never read.
    std::vector<IoRequest> writes{
        {&out_, starts, reinterpret_cast<std::byte*>(starts_), 4 * (uint64_t{count} + 1), true},
        {&out_, section, placed_, width_ * own_first, true}};
    const uint64_t own_byte = 4 * own_first;
    if (edges > own_first) {
      writes.push_back({&out_, section + own_byte, placed_ + own_byte,
                        layout.Bytes(edges) - own_byte, true});
    }
    written_ = {io_.Submit(writes), true};
  }

  void Finish() { Settle(written_, false); }

 private:
  // f(source, edge) for each cross edge of part k of shard p's windows, window by window
  // (ascending source).
  template <class F>
  void Cross(uint32_t p, uint32_t k, F&& f) {
    for (uint32_t r = PartBegin(k); r < PartBegin(k + 1); ++r) {
      if (r == p) continue;
      const WindowEntry &first = set_.Window(p, r), &last = set_.Window(p, r + 1);
      const uint64_t length = set_.ScatterOffset(p + 1, r) - set_.ScatterOffset(p, r);
      const auto* bytes = reinterpret_cast<const uint8_t*>(column_ + at_[r]);
      uint64_t e = first.first_edge;
      const RunDecodeStatus status = DecodeRuns(
          bytes, bytes + length, last.first_run - first.first_run, set_.interval_begin(r),
          set_.interval_end(r), last.first_edge - first.first_edge,
          [&](uint32_t source, uint64_t n) {
            for (const uint64_t stop = e + n; e < stop; ++e) f(source, e);
          });
      if (!status.ok()) {
        throw Error::AtByte(set_.ScatterIndexPath(r), set_.ScatterOffset(p, r) + status.at,
                            "window of shard " + std::to_string(p) + ": " + status.error +
                                " (the scatter index is damaged)");
      }
    }
  }

  // body(k) for every part k, a thread each; of the parts that throw, the first part's error
  // is thrown, so the window named does not depend on the threads' timing.
  template <class F>
  void InParts(F&& body) {
    ParallelParts(parts_, body);
  }

  // Part k of shard p's windows: source intervals [PartBegin(k), PartBegin(k + 1)), the parts
  // of about equal edges (Split).
  uint32_t PartBegin(uint64_t k) const { return part_begin_[k]; }
  void Split(uint32_t p) {
    part_begin_.assign(parts_ + 1, n_);
    const uint64_t total = ShardEdges(set_, p);
    uint32_t k = 1;
    part_begin_[0] = 0;
    for (uint32_t r = 0; r < n_ && k < parts_; ++r) {
      while (k < parts_ && set_.Window(p, r).first_edge * parts_ >= k * total) {
        part_begin_[k++] = r;
      }
    }
  }
  uint32_t* Counted(uint32_t k) const { return counts_ + k * stride_; }

  struct Pending {
    IoBackend::Ticket ticket = 0;
    bool busy = false;
  };
  // A read area: the shard it holds or is being read for, its targets' cover at `read` (the
  // first target `skip` bytes in), its column at `column` (window (p, r)'s runs at at[r]).
  struct Area {
    std::byte* read = nullptr;
    std::byte* column = nullptr;
    uint32_t shard = UINT32_MAX;
    uint64_t skip = 0;
    std::vector<uint64_t> at;
    Pending targets, runs;
  };
  void StartReads(uint32_t p, Area& area) {
    const uint64_t edges = ShardEdges(set_, p);
    const IoFile& adjacency = files_.adjacency(p);
    const uint64_t base = set_.header(p).targets_pos;
    const IntervalIo::Cover c = IntervalIo::CoverOf(base, base + 4 * edges, adjacency.alignment());
    area.shard = p;
    area.skip = c.skip;
    std::vector<IoRequest> requests;
    if (edges > 0) requests.push_back({&adjacency, c.offset, area.read, c.length});
    area.targets = {io_.Submit(requests), true};
    std::vector<uint8_t> wanted(n_, 1);
    wanted[p] = 0;
    const IntervalIo::ColumnBatch batch =
        files_.StartColumn(p, wanted.data(), 0, area.column, column_bytes_, 0, area.at);
    area.runs = {batch.ticket, true};
    if (batch.next < n_) throw std::logic_error("InAdjacency: a column does not fit its buffer");
  }
  // Waits for `pending` (quiet: swallows its error).
  void Settle(Pending& pending, bool quiet) {
    if (!pending.busy) return;
    pending.busy = false;
    if (!quiet) {
      io_.Wait(pending.ticket);
      return;
    }
    try {
      io_.Wait(pending.ticket);
    } catch (...) {  // the error that unwinds the build is the one to report
    }
  }

  IoBackend& io_;
  const ShardSet& set_;
  IntervalIo& files_;
  IoFile& out_;
  const uint32_t n_;
  const uint32_t parts_;
  const uint32_t width_;  // bytes a cross source (in_section.h)
  std::vector<Area> areas_;
  std::byte* placed_;  // the section, put in place
  const std::byte* column_ = nullptr;  // the current shard's column
  std::vector<uint64_t> at_;  // where window (p, r)'s runs begin in column_
  uint64_t column_bytes_;
  uint32_t* starts_;
  uint32_t* counts_;  // per part, per vertex of p (stride_ apart)
  uint64_t stride_;
  std::vector<uint32_t> part_begin_;
  Pending written_;
};

uint32_t Parts(const ShardSet& set, int threads) {
  return static_cast<uint32_t>(
      std::clamp<int64_t>(ThreadCount(threads), 1, std::max<uint32_t>(1, set.num_intervals())));
}

}  // namespace

uint64_t InAdjacency::BuildBufferBytes(const ShardSet& set, const IntervalIo& files,
                                       int threads) {
  return ShardBuild::AreaBytes(set, files) + ShardBuild::RestBytes(set, Parts(set, threads));
}

uint64_t InAdjacency::OverlappedBufferBytes(const ShardSet& set, const IntervalIo& files,
                                            int threads) {
  return BuildBufferBytes(set, files, threads) + ShardBuild::AreaBytes(set, files);
}

uint64_t InAdjacency::StartsBytes(const ShardSet& set) {
  return AlignUp(4 * (uint64_t{set.largest_interval()} + 1));
}

InAdjacency InAdjacency::Build(IoBackend& io, const ShardSet& set, IntervalIo& files,
                               const std::string& path, AlignedBuffer& buffer, int threads,
                               uint32_t width) {
  const uint32_t least = InSourceWidth(set.manifest().num_vertices);
  if (width == 0) width = least;
  if (width < least || width > 4) {
    throw std::invalid_argument("in-adjacency sources of " +
                                std::to_string(set.manifest().num_vertices) + " vertices take " +
                                std::to_string(least) + " to 4 bytes, not " +
                                std::to_string(width));
  }
  if (buffer.size() < BuildBufferBytes(set, files, threads)) {
    throw std::invalid_argument("the in-adjacency build needs a buffer of " +
                                std::to_string(BuildBufferBytes(set, files, threads)) +
                                " bytes");
  }
  if (LargestShard(set) > UINT32_MAX) {
    throw std::invalid_argument("the in-adjacency numbers a shard's edges in 32 bits");
  }
  const uint32_t n = set.num_intervals();
  std::vector<uint64_t> section(n), starts(uint64_t{n} + 1);
  uint64_t end = 0;
  for (uint32_t p = 0; p < n; ++p) {
    section[p] = end;
    end += AlignUp(InSection::Of(set, p, width).Bytes(ShardEdges(set, p)));
  }
  for (uint32_t p = 0; p < n; ++p) {
    starts[p] = end;
    end += AlignUp(4 * (uint64_t{set.interval_end(p) - set.interval_begin(p)} + 1));
  }
  starts[n] = end;
  {
    IoFile out = io.Open(path, FileKind::kInAdjacency, true, true, IoBackend::Caching::kBuffered);
    ShardBuild build(io, set, files, out, buffer, Parts(set, threads), width);
    for (uint32_t p = 0; p < n; ++p) build.Run(p, section[p], starts[p]);
    build.Finish();
    // Padded to 4 KiB, so that an aligned cover of the last bytes lies inside the file.
    if (::ftruncate(out.fd(), static_cast<off_t>(end)) != 0) {
      ThrowSystemError(path, "cannot extend");
    }
  }
  IoFile file = io.Open(path, FileKind::kInAdjacency, false);
  return InAdjacency(std::move(file), std::move(section), std::move(starts), width);
}

IoRequest InAdjacency::StartsRequest(uint32_t p, std::byte* buffer) const {
  return IoRequest{&file_, starts_[p], buffer, starts_[p + 1] - starts_[p], false};
}

InStarts::InStarts(IoBackend& io, const InAdjacency& in, uint64_t bytes)
    : io_(&io), in_(&in), buffer_(bytes) {}

InStarts::~InStarts() {
  try {
    Finish(nullptr);
  } catch (...) {  // a read that failed: nothing uses it now
  }
}

void InStarts::Finish(double* waited) {
  if (!busy_) return;
  busy_ = false;
  const auto t = std::chrono::steady_clock::now();
  try {
    io_->Wait(ticket_);
  } catch (...) {
    p_ = UINT32_MAX;
    throw;
  }
  if (waited != nullptr) {
    *waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
}

void InStarts::Prefetch(uint32_t p) {
  if (p_ == p) return;
  Finish(nullptr);
  const IoRequest request = in_->StartsRequest(p, buffer_.data());
  ticket_ = io_->Submit({&request, 1});
  busy_ = true;
  p_ = p;
}

const uint32_t* InStarts::Take(uint32_t p, double* waited) {
  Prefetch(p);
  Finish(waited);
  return InAdjacency::Starts(buffer_.data());
}

}  // namespace needle
