#include "engine/out_adjacency.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "base/error.h"
#include "base/parallel.h"
#include "shards/run_codec.h"
#include "shards/shard_layout.h"

namespace needle {
namespace {

// Ranges of the file closer than this are read in one request.
constexpr uint64_t kJoinGap = 4096;

// Where shard q's edge e has its target in the adjacency file.
uint64_t TargetByte(uint64_t e) { return kShardAlignment + e * 4; }

// The build's per-part edge counts: a 4-byte count per vertex of the largest interval, and one
// more, for each part.
uint64_t CountBytes(const ShardSet& set, uint32_t parts) {
  return AlignUp(uint64_t{parts} * (uint64_t{set.largest_interval()} + 1) * 4);
}

// The build of one interval's part of the file (OutAdjacency::Build).
class IntervalBuild {
 public:
  IntervalBuild(IoBackend& io, const ShardSet& set, const IntervalIo& files, IoFile& out,
                AlignedBuffer& buffer, uint32_t parts)
      : io_(io), set_(set), files_(files), out_(out), n_(set.num_intervals()), parts_(parts) {
    uint64_t index = 0, most = 0;
    for (uint32_t p = 0; p < n_; ++p) {
      index = std::max(index, files.scatter_index_bytes(p));
      most = std::max(most, IntervalEdges(p));
    }
    index = AlignUp(index);
    stride_ = uint64_t{set.largest_interval()} + 1;
    const uint64_t counts = CountBytes(set, parts);
    // A block's edges: an area of the buffer, less three alignment units per window (its
    // cover's two ends and the next one's alignment).
    const uint64_t covers = uint64_t{n_} * 3 * kDirectAlignment;
    // Reading ahead takes two scatter indexes and three areas (two staging, one placed);
    // only where every interval's edges fit one block of such an area.
    const uint64_t fixed_ahead = 2 * index + counts;
    if (buffer.size() > fixed_ahead) {
      const uint64_t area = AlignDown((buffer.size() - fixed_ahead) / 3);
      ahead_ = area > covers && (area - covers) / 4 >= most;
    }
    std::byte* at = buffer.data();
    index_slot_[0] = at;
    at += index;
    index_slot_[1] = ahead_ ? at : index_slot_[0];
    if (ahead_) at += index;
    counted_ = reinterpret_cast<uint32_t*>(at);
    at += counts;
    const uint64_t rest = static_cast<uint64_t>(buffer.data() + buffer.size() - at);
    const uint64_t area = AlignDown(rest / (ahead_ ? 3 : 2));
    staging_slot_[0] = at;
    at += area;
    staging_slot_[1] = ahead_ ? at : staging_slot_[0];
    if (ahead_) at += area;
    placed_ = at;
    block_edges_ = (area - covers) / 4;
  }
  ~IntervalBuild() {
    // After a failure, nothing may still be transferring into the caller's buffer.
    try {
      Await(read_);
    } catch (...) {
    }
    try {
      Await(write_);
    } catch (...) {
    }
  }
  IntervalBuild(const IntervalBuild&) = delete;
  IntervalBuild& operator=(const IntervalBuild&) = delete;

  bool ahead() const { return ahead_; }

  // Waits for the last interval's write.
  void Finish() { Await(write_); }

  // Writes p's part at edge `first` of the file; returns p's out-edges.
  uint64_t Run(uint32_t p, uint64_t first) {
    p_ = p;
    begin_ = set_.interval_begin(p);
    const uint32_t count = set_.interval_end(p) - begin_;
    index_ = index_slot_[p % 2];
    staging_ = staging_slot_[p % 2];
    if (ahead_) {
      if (p == 0) Start(0);
      Await(read_);  // p's scatter index and windows
      if (p + 1 < n_) Start(p + 1);
    } else {
      const IoFile& index = files_.scatter_index(p);
      io_.Run(std::vector<IoRequest>{{&index, 0, index_, files_.scatter_index_bytes(p)}});
    }
    // Each part of the windows counts its runs' edges per source; then part k's count of u
    // becomes the edges of u in the parts before k: where part k puts u's first edge.
    InParts([&](uint32_t k) {
      uint32_t* counted = Counted(k);
      std::fill_n(counted, count, 0);
      for (uint32_t q = PartBegin(k); q < PartBegin(k + 1); ++q) {
        Decode(q, [&](uint32_t source, uint64_t n, uint64_t) {
          counted[source - begin_] += static_cast<uint32_t>(n);  // n ≤ the source's out-degree
        });
      }
    });
    start_.assign(uint64_t{count} + 1, 0);
    for (uint32_t u = 0; u < count; ++u) {
      uint32_t before = 0;
      for (uint32_t k = 0; k < parts_; ++k) {
        const uint32_t n = Counted(k)[u];
        Counted(k)[u] = before;
        before += n;
      }
      start_[u + 1] = start_[u] + before;
    }
    first_ = first;
    for (uint32_t u0 = 0; u0 < count;) {
      uint32_t u1 = u0 + 1;
      while (u1 < count && start_[u1 + 1] - start_[u0] <= block_edges_) ++u1;
      if (start_[u1] - start_[u0] > block_edges_) {
        CopyAlone(u0);
      } else {
        PlaceBlock(u0, u1);
      }
      u0 = u1;
    }
    return start_[count];
  }

 private:
  // Interval p's out-edges: its windows' edges.
  uint64_t IntervalEdges(uint32_t p) const {
    uint64_t edges = 0;
    for (uint32_t q = 0; q < n_; ++q) {
      edges += set_.Window(q, p + 1).first_edge - set_.Window(q, p).first_edge;
    }
    return edges;
  }

  // Starts reading p's scatter index and every window of p, whole, into slot p % 2.
  void Start(uint32_t p) {
    const IoFile& index = files_.scatter_index(p);
    requests_.clear();
    requests_.push_back({&index, 0, index_slot_[p % 2], files_.scatter_index_bytes(p)});
    std::vector<const std::byte*> from(n_);
    PlanWhole(p, staging_slot_[p % 2], from);
    read_ = io_.Submit(requests_);
  }

  // Appends to requests_ the reads of every window of p whole into `staging`, one after
  // another; from[q]: where window (q, p)'s first target lands (nullptr: an empty window).
  void PlanWhole(uint32_t p, std::byte* staging, std::vector<const std::byte*>& from) {
    uint64_t at = 0;
    for (uint32_t q = 0; q < n_; ++q) {
      const uint64_t w = set_.Window(q, p).first_edge, end = set_.Window(q, p + 1).first_edge;
      from[q] = w < end ? Read(p, q, 0, end - w, staging, at) : nullptr;
    }
  }

  void Await(std::optional<IoBackend::Ticket>& ticket) {
    if (!ticket) return;
    const IoBackend::Ticket t = *ticket;
    ticket.reset();
    io_.Wait(t);
  }

  // f(source, count, at) for each run of window (q, p), at: its first edge in the window.
  template <class F>
  void Decode(uint32_t q, F&& f) {
    const WindowEntry &first = set_.Window(q, p_), &last = set_.Window(q, p_ + 1);
    const auto* bytes = reinterpret_cast<const uint8_t*>(index_);
    uint64_t at = 0;
    const RunDecodeStatus status = DecodeRuns(
        bytes + set_.ScatterOffset(q, p_), bytes + set_.ScatterOffset(q + 1, p_),
        last.first_run - first.first_run, begin_, set_.interval_end(p_),
        last.first_edge - first.first_edge, [&](uint32_t source, uint64_t n) {
          f(source, n, at);
          at += n;
        });
    if (!status.ok()) {
      throw Error::AtByte(set_.ScatterIndexPath(p_), set_.ScatterOffset(q, p_) + status.at,
                          "window of shard " + std::to_string(q) + ": " + status.error +
                              " (the scatter index is damaged)");
    }
  }

  // Appends to requests_ the read of shard q's edges [e0, e1) of window (q, p) (indexes in
  // the window) into `staging` at byte `at`; returns where the first target will land.
  const std::byte* Read(uint32_t p, uint32_t q, uint64_t e0, uint64_t e1, std::byte* staging,
                        uint64_t& at) {
    const IoFile& file = files_.adjacency(q);
    const uint64_t w = set_.Window(q, p).first_edge;
    const IntervalIo::Cover c =
        IntervalIo::CoverOf(TargetByte(w + e0), TargetByte(w + e1), file.alignment());
    requests_.push_back({&file, c.offset, staging + at, c.length});
    const std::byte* targets = staging + at + c.skip;
    at = AlignUp(at + c.length);
    return targets;
  }

  // Writes `edges` targets at edge `at_edge` of p's part: from placed_, started here and
  // waited for before placed_ is filled again (Finish after the last); else at once.
  void Write(const std::byte* from, uint64_t edges, uint64_t at_edge) {
    if (edges == 0) return;
    const IoRequest request{&out_, (first_ + at_edge) * 4, const_cast<std::byte*>(from),
                            edges * 4, true};
    if (from == placed_) {
      write_ = io_.Submit(std::span(&request, 1));
    } else {
      io_.Run(std::span(&request, 1));
    }
  }

  // Vertices [u0, u1) of p: every window's part of them read, put in place by source, written.
  void PlaceBlock(uint32_t u0, uint32_t u1) {
    const uint32_t lo = begin_ + u0, hi = begin_ + u1;
    std::vector<const std::byte*> from(n_, nullptr);
    std::vector<uint64_t> first(n_, 0);
    requests_.clear();
    uint64_t at = 0;
    const bool whole = lo == begin_ && hi == set_.interval_end(p_);  // most intervals
    if (whole) {
      PlanWhole(p_, staging_, from);
    } else {
      for (uint32_t q = 0; q < n_; ++q) {
        uint64_t a = UINT64_MAX, b = 0;
        Decode(q, [&](uint32_t source, uint64_t n, uint64_t e) {
          if (source < lo || source >= hi) return;
          a = std::min(a, e);
          b = e + n;
        });
        if (a >= b) continue;
        first[q] = a;
        from[q] = Read(p_, q, a, b, staging_, at);
      }
    }
    if (!ahead_ || !whole) io_.Run(requests_);  // else read by Start
    Await(write_);                              // the last block's write, from placed_
    // Each part of the windows puts its edges of u after those of the parts before it
    // (Counted), so the order is the windows' whatever the thread count.
    InParts([&](uint32_t k) {
      uint32_t* placed = Counted(k);
      for (uint32_t q = PartBegin(k); q < PartBegin(k + 1); ++q) {
        if (from[q] == nullptr) continue;
        Decode(q, [&](uint32_t source, uint64_t n, uint64_t e) {
          if (source < lo || source >= hi) return;
          const uint32_t u = source - begin_;
          std::byte* to = placed_ + (start_[u] - start_[u0] + placed[u]) * 4;
          const std::byte* target = from[q] + (e - first[q]) * 4;
          if (n == 1) {
            std::memcpy(to, target, 4);  // most runs: one edge
          } else {
            std::memcpy(to, target, n * 4);
          }
          placed[u] += static_cast<uint32_t>(n);
        });
      }
    });
    Write(placed_, start_[u1] - start_[u0], start_[u0]);
  }

  // Vertex u alone, its edges more than a block holds: window by window, in pieces.
  void CopyAlone(uint32_t u) {
    uint64_t written = start_[u];
    for (uint32_t q = 0; q < n_; ++q) {
      uint64_t a = 0, b = 0;
      Decode(q, [&](uint32_t source, uint64_t n, uint64_t e) {
        if (source != begin_ + u) return;
        a = e;
        b = e + n;
      });
      for (uint64_t e = a; e < b; e += block_edges_) {
        const uint64_t end = std::min(b, e + block_edges_);
        requests_.clear();
        uint64_t at = 0;
        const std::byte* targets = Read(p_, q, e, end, staging_, at);
        io_.Run(requests_);
        Write(targets, end - e, written);
        written += end - e;
      }
    }
  }

  // body(k) for every part k, a thread each; of the parts that throw, the first part's error
  // is thrown, so the window named does not depend on the threads' timing.
  template <class F>
  void InParts(F&& body) {
    ParallelParts(parts_, body);
  }

  // Part k of the windows: shards [PartBegin(k), PartBegin(k + 1)).
  uint32_t PartBegin(uint64_t k) const { return static_cast<uint32_t>(k * n_ / parts_); }
  uint32_t* Counted(uint32_t k) const { return counted_ + k * stride_; }

  IoBackend& io_;
  const ShardSet& set_;
  const IntervalIo& files_;
  IoFile& out_;
  const uint32_t n_;
  const uint32_t parts_;
  bool ahead_ = false;  // interval p + 1 read while p is placed (Start)
  uint32_t* counted_;   // per part, per vertex of p (stride_ apart)
  uint64_t stride_;
  std::byte* index_slot_[2];    // the scatter indexes of even and odd intervals (one if !ahead_)
  std::byte* staging_slot_[2];  // their windows' targets (one if !ahead_)
  std::byte* index_;            // interval p_'s slots
  std::byte* staging_;
  std::byte* placed_;
  uint64_t block_edges_;
  std::optional<IoBackend::Ticket> read_;   // Start's
  std::optional<IoBackend::Ticket> write_;  // the last block's, from placed_
  uint32_t p_ = 0;
  uint32_t begin_ = 0;
  uint64_t first_ = 0;
  std::vector<uint64_t> start_;
  std::vector<IoRequest> requests_;
};

}  // namespace

uint32_t OutAdjacency::BuildParts(const ShardSet& set, int threads) {
  return static_cast<uint32_t>(
      std::clamp<int64_t>(ThreadCount(threads), 1, std::max<uint32_t>(1, set.num_intervals())));
}

uint64_t OutAdjacency::BuildBufferBytes(const ShardSet& set, const IntervalIo& files,
                                        int threads) {
  uint64_t index = 0;
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    index = std::max(index, files.scatter_index_bytes(p));
  }
  // Each half: three alignment units per window and at least 64 KiB of edges.
  return AlignUp(index) + CountBytes(set, BuildParts(set, threads)) +
         2 * (uint64_t{set.num_intervals()} * 3 * kDirectAlignment + 65536);
}

OutAdjacency OutAdjacency::Build(IoBackend& io, const ShardSet& set, const IntervalIo& files,
                                 const std::string& path, AlignedBuffer& buffer, int threads) {
  if (buffer.size() < BuildBufferBytes(set, files, threads)) {
    throw std::invalid_argument("the out-adjacency build needs a buffer of " +
                                std::to_string(BuildBufferBytes(set, files, threads)) + " bytes");
  }
  const uint32_t n = set.num_intervals();
  std::vector<uint64_t> first(uint64_t{n} + 1, 0);
  bool ahead = false;
  {
    IoFile out = io.Open(path, FileKind::kOutAdjacency, true, true, IoBackend::Caching::kBuffered);
    IntervalBuild build(io, set, files, out, buffer, BuildParts(set, threads));
    for (uint32_t p = 0; p < n; ++p) first[p + 1] = first[p] + build.Run(p, first[p]);
    build.Finish();
    ahead = build.ahead();
    // Padded to 4 KiB, so that an aligned cover of the last edges lies inside the file.
    if (::ftruncate(out.fd(), static_cast<off_t>(AlignUp(first[n] * 4))) != 0) {
      ThrowSystemError(path, "cannot extend");
    }
  }
  IoFile file = io.Open(path, FileKind::kOutAdjacency, false);
  return OutAdjacency(io, std::move(file), std::move(first), ahead);
}

void OutAdjacency::ReadSenders(uint32_t p, std::span<const uint32_t> senders,
                               const uint32_t* out_degrees, uint32_t count, AlignedBuffer& buffer,
                               const Visit& f) {
  start_.assign(uint64_t{count} + 1, 0);
  for (uint32_t u = 0; u < count; ++u) start_[u + 1] = start_[u] + out_degrees[u];
  if (first_[p] + start_[count] != first_[p + 1]) {
    throw Error::AtByte(file_.path(), first_[p] * 4,
                        "interval " + std::to_string(p) + " has " + std::to_string(start_[count]) +
                            " out-edges by its degrees but " +
                            std::to_string(first_[p + 1] - first_[p]) + " here");
  }
  const uint64_t unit = file_.alignment();
  const uint64_t cap = AlignDown(buffer.size());
  struct Piece {
    uint32_t u;
    uint64_t at;  // byte in the buffer
    uint64_t n;
  };
  std::vector<Piece> pieces;
  requests_.clear();
  uint64_t last_at = 0;  // where the last request's bytes go in the buffer
  auto flush = [&] {
    if (requests_.empty()) return;
    io_->Run(requests_);
    for (const Piece& piece : pieces) {
      f(piece.u, reinterpret_cast<const uint32_t*>(buffer.data() + piece.at), piece.n);
    }
    requests_.clear();
    pieces.clear();
  };
  for (const uint32_t u : senders) {
    uint64_t e = first_[p] + start_[u];
    const uint64_t end = first_[p] + start_[u + 1];
    while (e < end) {
      const uint64_t b0 = e * 4, b1 = end * 4;
      if (!requests_.empty()) {
        IoRequest& last = requests_.back();
        const uint64_t grown = AlignUp(b1, unit) - last.offset;
        if (b0 <= last.offset + last.length + kJoinGap && last_at + grown <= cap) {
          last.length = std::max<uint64_t>(last.length, grown);
          pieces.push_back({u, last_at + (b0 - last.offset), end - e});
          e = end;
          continue;
        }
      }
      const uint64_t offset = AlignDown(b0, unit);
      const uint64_t at = requests_.empty() ? 0 : AlignUp(last_at + requests_.back().length);
      uint64_t stop = b1;
      if (at + (AlignUp(stop, unit) - offset) > cap) {
        if (!requests_.empty()) {
          flush();
          continue;
        }
        stop = std::min(b1, offset + AlignDown(cap, unit));  // alone, over the buffer: a piece
      }
      requests_.push_back({&file_, offset, buffer.data() + at, AlignUp(stop, unit) - offset});
      last_at = at;
      pieces.push_back({u, at + (b0 - offset), (stop - b0) / 4});
      e = stop / 4;
    }
  }
  flush();
}

}  // namespace needle
