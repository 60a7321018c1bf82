#include "engine/interval_io.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "base/error.h"
#include "engine/in_section.h"

namespace needle {

IntervalIo::IntervalIo(IoBackend& io, const ShardSet& set, const EdgeValueFiles& values,
                       bool weights, bool dynamic, bool in_degrees)
    : io_(&io),
      set_(&set),
      values_(&values),
      use_weights_(weights && set.weighted()),
      in_degrees_(in_degrees) {
  auto kind = [dynamic](FileKind k) { return dynamic ? FileKind::kDynamic : k; };
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    adjacency_.push_back(io.Open(set.AdjacencyPath(p), kind(FileKind::kAdjacency), false));
    if (use_weights_) {
      weights_.push_back(io.Open(set.ValuesPath(p), kind(FileKind::kWeights), false));
    }
    scatter_.push_back(io.Open(set.ScatterIndexPath(p), kind(FileKind::kScatterIndex), false));
    scatter_bytes_.push_back(scatter_.back().size());  // padded to 4 KiB: whole for O_DIRECT
  }
  degrees_ = io.Open(set.DegreesPath(), kind(FileKind::kDegrees), false);
  out_bytes_.assign(set.num_intervals(), 0);
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    for (uint32_t q = 0; q < set.num_intervals(); ++q) out_bytes_[p] += values.WindowBytes(q, p);
  }
}

IntervalIo::Cover IntervalIo::CoverOf(uint64_t begin, uint64_t end, uint64_t unit) {
  const uint64_t first = AlignDown(begin, unit);
  return Cover{first, end > begin ? AlignUp(end, unit) - first : 0,
               static_cast<size_t>(begin - first)};
}

IntervalIo::BufferSizes IntervalIo::Sizes(uint32_t p) const {
  BufferSizes sizes;
  sizes.targets = AlignUp(set_->header(p).num_edges * 4);
  sizes.values = AlignUp(values_->FileBytes(p));
  sizes.runs = scatter_bytes_[p];
  const uint64_t vertices = set_->interval_end(p) - set_->interval_begin(p);
  sizes.degrees = 2 * (AlignUp(vertices * 4) + kDirectAlignment);
  return sizes;
}

IntervalIo::BufferSizes IntervalIo::Sizes() const {
  BufferSizes sizes;
  for (uint32_t p = 0; p < set_->num_intervals(); ++p) {
    const BufferSizes s = Sizes(p);
    sizes.degrees = std::max(sizes.degrees, s.degrees);  // a streamed interval's too
    if (Streamed(p)) continue;
    sizes.targets = std::max(sizes.targets, s.targets);
    sizes.values = std::max(sizes.values, s.values);
    sizes.runs = std::max(sizes.runs, s.runs);
    sizes.degrees = std::max(sizes.degrees, s.degrees);
  }
  return sizes;
}

uint64_t IntervalIo::Bytes(const BufferSizes& s) const {
  return s.targets * (use_weights_ ? 2 : 1) + s.values + s.runs + s.degrees;
}

uint64_t IntervalIo::IntervalDataBytes() const { return Bytes(Sizes()); }

uint64_t IntervalIo::IntervalDataBytes(uint32_t p) const { return Bytes(Sizes(p)); }

void IntervalIo::Drain(IntervalData& data) { FinishLoad(data); }

uint64_t IntervalIo::ScatterBytes(uint32_t p) const { return out_bytes_[p]; }

uint64_t IntervalIo::ScatterBytes() const {
  uint64_t largest = 0;
  for (uint32_t p = 0; p < set_->num_intervals(); ++p) {
    if (!Streamed(p)) largest = std::max(largest, ScatterBytes(p));
  }
  return largest;
}

void IntervalIo::ReadWindowInPieces(uint32_t p, uint32_t r, AlignedBuffer& buffer,
                                    const PieceFold& fold) {
  const uint64_t width = values_->width();
  const uint64_t first = set_->Window(p, r).first_edge, last = set_->Window(p, r + 1).first_edge;
  const uint64_t base = values_->WindowOffset(p, r);
  const IoFile& messages = values_->file(p);
  // A piece of k edges takes at most k x width + 2 alignment units of messages (the cover of
  // an unaligned range) and as much for its weights: the buffer is split in two halves.
  const uint64_t half = AlignDown(buffer.size() / 2, kDirectAlignment);
  const uint64_t piece = (half - 2 * kDirectAlignment) / std::max<uint64_t>(width, 4);
  std::byte* weight_bytes = buffer.data() + half;
  for (uint64_t at = first; at < last; at += piece) {
    const uint64_t end = std::min(last, at + piece);
    const Cover m = CoverOf(base + (at - first) * width, base + (end - first) * width,
                            messages.alignment());
    requests_.clear();
    requests_.push_back({&messages, m.offset, buffer.data(), m.length});
    Cover w{0, 0, 0};
    if (use_weights_) {
      w = CoverOf(at * 4, end * 4, weights_[p].alignment());
      requests_.push_back({&weights_[p], w.offset, weight_bytes, w.length});
    }
    io_->Run(requests_);
    fold(buffer.data() + m.skip,
         use_weights_ ? reinterpret_cast<const float*>(weight_bytes + w.skip) : nullptr,
         end - at);
  }
}

void IntervalIo::WriteWindowRepeated(uint32_t q, uint32_t p, const std::byte* message,
                                     AlignedBuffer& buffer) {
  const uint64_t width = values_->width();
  const uint64_t begin = values_->WindowOffset(q, p), end = values_->WindowOffset(q, p + 1);
  if (end == begin) return;
  // Pieces of a whole number of messages and of alignment units (the window starts on one and,
  // on a direct file, is padded to one): the pattern lines up in every piece.
  const uint64_t unit = std::lcm<uint64_t>(width, kDirectAlignment);
  const uint64_t piece = std::min(AlignDown(buffer.size(), unit), AlignUp(end - begin, unit));
  FillMessages(buffer.data(), piece / width, message, width);
  requests_.clear();
  for (uint64_t at = begin; at < end; at += piece) {
    requests_.push_back({&values_->file(q), at, buffer.data(), std::min(piece, end - at),
                         /*write=*/true});
  }
  io_->Run(requests_);
}

void IntervalIo::Allocate(IntervalData& data) const { Allocate(data, Sizes()); }

void IntervalIo::Allocate(IntervalData& data, uint32_t p) const { Allocate(data, Sizes(p)); }

void IntervalIo::Allocate(IntervalData& data, const BufferSizes& sizes) const {
  const uint32_t n = set_->num_intervals();
  data.targets = AlignedBuffer(sizes.targets);
  data.values = AlignedBuffer(sizes.values);
  if (use_weights_) data.weights = AlignedBuffer(sizes.targets);
  data.runs = AlignedBuffer(sizes.runs);
  data.runs_at.assign(n + 1, 0);
  data.loaded.assign(n, 0);
  data.degrees = AlignedBuffer(sizes.degrees);
  // Without in-degrees, InDegrees() is the buffer's second half, which no load writes.
  if (!in_degrees_) {
    const size_t half = data.degrees.size() / 2;  // where AddDegreeRequests points
    std::memset(data.degrees.data() + half, 0, data.degrees.size() - half);
  }
}

void IntervalIo::Allocate(ScatterBuffer& scatter) const {
  scatter.bytes = AlignedBuffer(ScatterBytes());
  scatter.offsets.assign(set_->num_intervals() + 1, 0);
}

void IntervalIo::StartLoad(uint32_t p, IntervalData& data, const uint8_t* wanted,
                           bool windows_only, bool messages, bool all_runs, bool in_sources) {
  const uint32_t n = set_->num_intervals();
  if (!windows_only) Drain(data);  // its buffers are about to be overwritten
  requests_.clear();
  data.interval = p;
  if (!windows_only) data.in_sources = in_sources && in_file_ != nullptr;
  for (uint32_t r = 0; r < n; ++r) {
    if (!windows_only || data.loaded[r] != kWholeWindow) {
      data.loaded[r] = wanted[r] != 0 ? wanted[r] : (windows_only ? data.loaded[r] : 0);
    }
  }
  Tails tail;
  // Edges [first, last) of shard p; their messages [m0, m1) of p's edge value file.
  auto add = [&](uint64_t first, uint64_t last, uint64_t m0, uint64_t m1) {
    PushTargets(p, data, first, last, tail);
    if (messages && m1 > m0) {
      PushJoined(tail, kMessagesTail, &values_->file(p), m0, data.values.data() + m0, m1 - m0);
    }
  };
  // Runs of wanted windows, each read as one aligned range of targets, messages and weights;
  // a chunked window, as one range per run of its marked chunks.
  for (uint32_t r = 0; r < n;) {
    if (wanted[r] == kWindowChunks) {
      ChunkRanges(p, r, [&](uint64_t first, uint64_t last, uint64_t m0, uint64_t m1) {
        add(first, last, m0, m1);
      });
      ++r;
      continue;
    }
    if (wanted[r] == kChunkMessages || wanted[r] == kTargetsOnly) {
      add(set_->Window(p, r).first_edge, set_->Window(p, r + 1).first_edge, 0, 0);
      if (wanted[r] == kChunkMessages) {  // and the marked chunks' messages
        ChunkRanges(p, r,
                    [&](uint64_t, uint64_t, uint64_t m0, uint64_t m1) { add(0, 0, m0, m1); });
      }
      ++r;
      continue;
    }
    if (wanted[r] != kWholeWindow) {
      ++r;
      continue;
    }
    uint32_t end = r;
    while (end < n && wanted[end] == kWholeWindow) ++end;
    add(set_->Window(p, r).first_edge, set_->Window(p, end).first_edge,
        values_->WindowOffset(p, r), values_->WindowOffset(p, end));
    r = end;
  }
  if (windows_only) {
    data.ticket = io_->Submit(requests_);
    data.in_flight = true;
    return;
  }
  for (uint32_t q = 0; q <= n; ++q) data.runs_at[q] = set_->ScatterOffset(q, p);
  data.all_runs = true;
  if (p < held_runs_at_.size() && held_runs_at_[p] != UINT64_MAX) {
    std::memcpy(data.runs.data(), held_runs_.data() + held_runs_at_[p], scatter_bytes_[p]);
  } else if (all_runs) {
    requests_.push_back({&scatter_[p], 0, data.runs.data(), scatter_bytes_[p]});
  } else {
    data.all_runs = false;
    const Cover own = CoverOf(set_->ScatterOffset(p, p), set_->ScatterOffset(p + 1, p),
                              scatter_[p].alignment());
    if (own.length > 0) {
      requests_.push_back({&scatter_[p], own.offset, data.runs.data() + own.offset, own.length});
    }
  }
  AddDegreeRequests(p, data);
  data.ticket = io_->Submit(requests_);
  data.in_flight = true;
}

void IntervalIo::ReadAllRuns(IntervalData& data) {
  FinishLoad(data);
  if (data.all_runs) return;
  requests_.clear();
  requests_.push_back({&scatter_[data.interval], 0, data.runs.data(),
                       scatter_bytes_[data.interval]});
  io_->Run(requests_);
  data.all_runs = true;
}

// Each file's bytes land at the same place of their buffer whatever the request, so a range
// that touches or overlaps the one before it in the same file joins it: the runs of chunks of
// adjacent windows (at page grain) cost one request, as whole windows do.
void IntervalIo::PushJoined(Tails& tail, int kind, const IoFile* file, uint64_t offset,
                            std::byte* buffer, uint64_t length) {
  if (tail[kind] != SIZE_MAX) {
    IoRequest& r = requests_[tail[kind]];
    if (offset >= r.offset && offset <= r.offset + r.length) {
      r.length = std::max(r.length, offset + length - r.offset);
      return;
    }
  }
  tail[kind] = requests_.size();
  requests_.push_back({file, offset, buffer, length});
}

void IntervalIo::PushTargets(uint32_t p, IntervalData& data, uint64_t first, uint64_t last,
                             Tails& tail) {
  if (last <= first) return;
  if (data.in_sources) {  // the in-adjacency's section, in the shard's geometry
    InSection::Of(*set_, p, in_width_).ForEachRange(first, last, [&](uint64_t b0, uint64_t b1) {
      const Cover t = CoverOf(b0, b1, in_file_->alignment());
      PushJoined(tail, kTargetsTail, in_file_, in_sections_[p] + t.offset,
                 data.targets.data() + t.offset, t.length);
    });
    return;
  }
  const uint64_t unit =
      std::max(adjacency_[p].alignment(), use_weights_ ? weights_[p].alignment() : uint32_t{1});
  const Cover t = CoverOf(first * 4, last * 4, unit);
  PushJoined(tail, kTargetsTail, &adjacency_[p], set_->header(p).targets_pos + t.offset,
             data.targets.data() + t.offset, t.length);
  if (use_weights_) {
    PushJoined(tail, kWeightsTail, &weights_[p], t.offset, data.weights.data() + t.offset,
               t.length);
  }
}

void IntervalIo::ReadShardTargets(IntervalData& data) {
  FinishLoad(data);
  if (!data.in_sources) return;
  data.in_sources = false;
  const uint32_t p = data.interval;
  ReadTargets(p, data, {{0, set_->Window(p, set_->num_intervals()).first_edge}});
}

void IntervalIo::ReadTargets(uint32_t p, IntervalData& data,
                             const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
  requests_.clear();
  Tails tail;
  for (const auto& [first, last] : ranges) PushTargets(p, data, first, last, tail);
  if (!requests_.empty()) io_->Run(requests_);
}

// The degrees file holds every vertex's out-degree, then every vertex's in-degree.
uint64_t IntervalIo::HeldDegreesLength() const {
  const uint64_t whole = AlignUp(degrees_.size(), degrees_.alignment());
  if (in_degrees_) return whole;
  return std::min(whole, AlignUp(set_->manifest().num_vertices * 4, degrees_.alignment()));
}

uint64_t IntervalIo::DegreesBytes() const { return AlignUp(HeldDegreesLength()); }

void IntervalIo::HoldDegrees() {
  held_degrees_ = AlignedBuffer(DegreesBytes());
  requests_.clear();
  requests_.push_back({&degrees_, 0, held_degrees_.data(), HeldDegreesLength()});
  io_->Run(requests_);
}

uint64_t IntervalIo::RunsBytes() const {
  uint64_t bytes = 0;
  for (uint32_t p = 0; p < set_->num_intervals(); ++p) {
    if (!Streamed(p)) bytes += scatter_bytes_[p];
  }
  return bytes;
}

void IntervalIo::HoldRuns() {
  held_runs_ = AlignedBuffer(RunsBytes());
  held_runs_at_.assign(set_->num_intervals(), UINT64_MAX);
  requests_.clear();
  uint64_t at = 0;
  for (uint32_t p = 0; p < set_->num_intervals(); ++p) {
    if (Streamed(p)) continue;
    held_runs_at_[p] = at;
    requests_.push_back({&scatter_[p], 0, held_runs_.data() + at, scatter_bytes_[p]});
    at += scatter_bytes_[p];
  }
  io_->Run(requests_);
}

void IntervalIo::AddDegreeRequests(uint32_t p, IntervalData& data) {
  const uint64_t begin = set_->interval_begin(p), end = set_->interval_end(p);
  const uint64_t v = set_->manifest().num_vertices;
  if (held_degrees_.size() > 0) {  // from memory, laid out as a load would
    const uint64_t bytes = (end - begin) * 4;
    data.out_degrees_at = 0;
    std::memcpy(data.degrees.data(), held_degrees_.data() + begin * 4, bytes);
    if (!in_degrees_) {
      data.in_degrees_at = data.degrees.size() / 2;
      return;
    }
    data.in_degrees_at = AlignUp(bytes);
    std::memcpy(data.degrees.data() + data.in_degrees_at, held_degrees_.data() + (v + begin) * 4,
                bytes);
    return;
  }
  const Cover out = CoverOf(begin * 4, end * 4, degrees_.alignment());
  data.out_degrees_at = out.skip;
  requests_.push_back({&degrees_, out.offset, data.degrees.data(), out.length});
  if (!in_degrees_) {
    data.in_degrees_at = data.degrees.size() / 2;
    return;
  }
  const Cover in = CoverOf((v + begin) * 4, (v + end) * 4, degrees_.alignment());
  data.in_degrees_at = out.length + in.skip;
  requests_.push_back({&degrees_, in.offset, data.degrees.data() + out.length, in.length});
}

uint64_t IntervalIo::ColumnBytes() const {
  const uint32_t n = set_->num_intervals();
  uint64_t most = 0;
  for (uint32_t q = 0; q < n; ++q) {
    uint64_t bytes = 0;  // each range's cover: at most 2 units more, 1 more to align its start
    for (uint32_t r = 0; r < n; ++r) {
      bytes += set_->ScatterOffset(q + 1, r) - set_->ScatterOffset(q, r) + 3 * kDirectAlignment;
    }
    most = std::max(most, bytes);
  }
  return most;
}

IntervalIo::ColumnBatch IntervalIo::StartColumn(uint32_t q, const uint8_t* wanted, uint32_t from,
                                                std::byte* buffer, uint64_t size,
                                                uint64_t origin, std::vector<uint64_t>& at) {
  const uint32_t n = set_->num_intervals();
  at.resize(n);
  requests_.clear();
  uint64_t pos = 0;
  uint32_t r = from;
  for (; r < n; ++r) {
    const uint64_t begin = set_->ScatterOffset(q, r), end = set_->ScatterOffset(q + 1, r);
    if (!wanted[r] || end == begin) continue;
    if (r < held_runs_at_.size() && held_runs_at_[r] != UINT64_MAX) {  // from memory
      if (pos + (end - begin) > size) {
        if (r > from) break;  // the next batch
        throw std::logic_error("IntervalIo::StartColumn: a window's runs do not fit the buffer");
      }
      std::memcpy(buffer + pos, held_runs_.data() + held_runs_at_[r] + begin, end - begin);
      at[r] = origin + pos;
      pos += end - begin;
      continue;
    }
    const uint64_t unit = scatter_[r].alignment();
    const Cover c = CoverOf(begin, end, unit);
    const uint64_t place = AlignUp(pos, unit);
    if (place + c.length > size) {
      if (r > from) break;  // the next batch
      throw std::logic_error("IntervalIo::StartColumn: a window's runs do not fit the buffer");
    }
    requests_.push_back({&scatter_[r], c.offset, buffer + place, c.length});
    at[r] = origin + place + c.skip;
    pos = place + c.length;
  }
  return {r, io_->Submit(requests_)};
}

void IntervalIo::LoadDegrees(uint32_t p, IntervalData& data) {
  requests_.clear();
  AddDegreeRequests(p, data);
  io_->Run(requests_);
}

void IntervalIo::FinishLoad(IntervalData& data) {
  if (!data.in_flight) return;
  data.in_flight = false;
  io_->Wait(data.ticket);
}

void IntervalIo::Prepare(uint32_t p, ScatterBuffer& scatter) const {
  scatter.interval = p;
  uint64_t at = 0;
  for (uint32_t q = 0; q < set_->num_intervals(); ++q) {
    scatter.offsets[q] = at;
    at += values_->WindowBytes(q, p);
  }
  scatter.offsets[set_->num_intervals()] = at;
}

void IntervalIo::StartWriteBack(ScatterBuffer& scatter, const std::vector<uint8_t>& write) {
  const uint32_t p = scatter.interval;
  requests_.clear();
  for (uint32_t q = 0; q < set_->num_intervals(); ++q) {
    const uint64_t bytes = values_->WindowBytes(q, p);
    if (bytes == 0 || !write[q]) continue;
    const uint64_t base = values_->WindowOffset(q, p);
    if (write[q] == kWindowChunks) {
      ChunkRanges(q, p, [&](uint64_t, uint64_t, uint64_t m0, uint64_t m1) {
        requests_.push_back({&values_->file(q), m0, scatter.bytes.data() + scatter.offsets[q] +
                                                        (m0 - base), m1 - m0, /*write=*/true});
      });
      continue;
    }
    requests_.push_back({&values_->file(q), base, scatter.bytes.data() + scatter.offsets[q],
                         bytes, /*write=*/true});
  }
  scatter.ticket = io_->Submit(requests_);
  scatter.in_flight = true;
}

void IntervalIo::FinishWriteBack(ScatterBuffer& scatter) {
  if (!scatter.in_flight) return;
  scatter.in_flight = false;
  io_->Wait(scatter.ticket);
}

}  // namespace needle
