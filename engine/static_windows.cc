#include "engine/static_windows.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

namespace needle {
namespace {

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

StaticWindows::StaticWindows(const ShardSet& set, IntervalIo& io, const EdgeValueFiles& edges,
                             std::vector<std::byte> identity, IterationStats& stats,
                             WindowChunks* chunks, bool own_targets, double sparse_share,
                             uint64_t sparse_min_edges)
    : Transport(set.num_intervals()),
      set_(&set),
      io_(&io),
      edges_(&edges),
      identity_(std::move(identity)),
      stats_(&stats),
      wanted_(set.num_intervals(), 0),
      write_(set.num_intervals(), 0),
      chunks_(chunks),
      own_targets_(own_targets),
      sparse_share_(sparse_share),
      sparse_min_edges_(sparse_min_edges),
      segments_at_(set.num_intervals() + 1, 0) {
  if (chunks_) {
    pattern_.resize(chunks_->chunk_bytes());
    FillMessages(pattern_.data(), chunks_->chunk_edges(), identity_.data(), identity_.size());
    io.SetChunks(chunks_);
  }
  for (auto& d : data_) io.Allocate(d);
  for (auto& s : scatter_) io.Allocate(s);
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    if (io.Streamed(p)) {
      stream_ = AlignedBuffer(StreamBufferBytes(edges.width()));
      break;
    }
  }
}

StaticWindows::~StaticWindows() {
  try {
    Finish();
  } catch (...) {  // a run that threw has reported its error already
  }
  if (chunks_ && io_->chunks() == chunks_) io_->SetChunks(nullptr);
}

std::vector<AlignedBuffer*> StaticWindows::Buffers() {
  std::vector<AlignedBuffer*> buffers;
  for (auto& d : data_) {
    for (AlignedBuffer* b : {&d.targets, &d.values, &d.weights, &d.runs, &d.degrees}) {
      buffers.push_back(b);
    }
  }
  for (auto& s : scatter_) buffers.push_back(&s.bytes);
  return buffers;
}

const IntervalData& StaticWindows::Degrees(uint32_t p) {
  io_->LoadDegrees(p, data_[1]);
  return data_[1];
}

void StaticWindows::Start(uint32_t first) {
  std::fill(carries_.begin(), carries_.end(), 0);  // the files start without messages
  if (first != kNoInterval && !Streamed(first)) {
    const uint8_t* wanted = Wanted(first, kNoInterval);
    io_->StartLoad(first, data_[0], wanted, false, true, true, wanted_in_);
  }
}

void StaticWindows::Resume(uint32_t first, std::vector<uint8_t> carries) {
  carries_ = std::move(carries);
  if (chunks_) {  // written whole by the transport before
    for (uint32_t q = 0; q < n_; ++q) {
      for (uint32_t p = 0; p < n_; ++p) {
        if (Carries(q, p)) chunks_->MarkAll(q, p);
      }
    }
  }
  if (first != kNoInterval && !Streamed(first)) {
    const uint8_t* wanted = Wanted(first, kNoInterval);
    io_->StartLoad(first, data_[0], wanted, false, true, true, wanted_in_);
  }
}

void StaticWindows::Finish() {
  for (auto& d : data_) {
    io_->Drain(d);
    d.interval = kNoInterval;
  }
  for (auto& s : scatter_) io_->FinishWriteBack(s);
}

const uint8_t* StaticWindows::Wanted(uint32_t q, uint32_t current) {
  // From the in-adjacency, whose places of the other windows hold their sources: all of them,
  // where none of those windows carries messages.
  wanted_in_ = in_ != nullptr && (*in_)[q] != 0;
  for (uint32_t r = 0; r < n_ && wanted_in_; ++r) {
    if (r != q && carries_[Index(q, r)]) wanted_in_ = false;
  }
  for (uint32_t r = 0; r < n_; ++r) {
    // The window `current` may fill: its messages will come from current's scatter buffer
    // (Patch, BeginTurn), so at page grain only its targets are read.
    if (r == current) {
      wanted_[r] = chunks_ ? kTargetsOnly : kWholeWindow;
    } else if (carries_[Index(q, r)]) {
      wanted_[r] = Grain(q, r);
    } else {
      // The targets of a pulled window, and those of (q, q) that LoadOwnWindow would read
      // (its messages were all consumed in q's last turn).
      const bool own = r == q && own_targets_ && !Sparse(q);
      wanted_[r] = Pulled(q, r) || own || (wanted_in_ && r != q) ? kTargetsOnly : 0;
    }
  }
  return wanted_.data();
}

IntervalData& StaticWindows::Acquire(uint32_t p) {
  for (auto& d : data_) {
    if (d.interval == p) {
      const auto t = Clock::now();
      io_->FinishLoad(d);
      stats_->io_wait_seconds += Since(t);
      return d;
    }
  }
  // Not prefetched (the guess was wrong): drop what is in flight and read p now.
  const auto t = Clock::now();
  for (auto& d : data_) {
    io_->FinishLoad(d);
    d.interval = kNoInterval;
  }
  const uint8_t* wanted = Wanted(p, kNoInterval);
  io_->StartLoad(p, data_[0], wanted, /*windows_only=*/false, /*messages=*/true, AllRuns(p),
                 wanted_in_);
  io_->FinishLoad(data_[0]);
  stats_->io_wait_seconds += Since(t);
  return data_[0];
}

// Reads the windows of data's memory shard that carry messages but were not loaded, and the
// targets of pulled windows that were not.
void StaticWindows::LoadMissing(IntervalData& data) {
  const uint32_t p = data.interval;
  bool any = false;
  for (uint32_t r = 0; r < n_; ++r) {
    if (carries_[Index(p, r)]) {
      wanted_[r] = !data.loaded[r] ? Grain(p, r) : 0;
    } else {
      wanted_[r] = Pulled(p, r) && !AllTargets(data.loaded[r]) ? kTargetsOnly : 0;
    }
    any = any || wanted_[r] != 0;
  }
  if (!any) return;
  const auto t = Clock::now();
  io_->StartLoad(p, data, wanted_.data(), /*windows_only=*/true);
  io_->FinishLoad(data);
  stats_->io_wait_seconds += Since(t);
}

void StaticWindows::UseShardTargets() {
  const auto t = Clock::now();
  io_->ReadShardTargets(*current_);
  stats_->io_wait_seconds += Since(t);
}

void StaticWindows::LoadAllRuns() {
  if (current_ == nullptr || current_->all_runs) return;
  const auto t = Clock::now();
  io_->ReadAllRuns(*current_);
  stats_->io_wait_seconds += Since(t);
}

// Windows of p written by an interval whose write-back may have been in flight when p's reads
// were issued come from that interval's scatter buffer instead (older buffer first).
void StaticWindows::Patch(IntervalData& data) {
  const uint32_t p = data.interval;
  const int order[2] = {sequence_[0] <= sequence_[1] ? 0 : 1, sequence_[0] <= sequence_[1] ? 1 : 0};
  for (int i : order) {
    const ScatterBuffer& s = scatter_[i];
    if (s.interval == kNoInterval) continue;
    const uint64_t bytes = edges_->WindowBytes(p, s.interval);
    if (bytes == 0) continue;
    std::memcpy(data.values.data() + edges_->WindowOffset(p, s.interval),
                s.bytes.data() + s.offsets[p], bytes);
  }
}

// Starts interval p's turn: the scatter buffer it will fill (whose older write-back is waited
// for first, so that no read issued from here on can see a write in progress that no buffer
// still holds), and the interval whose reads StartPrefetch issues (kNoInterval: none).
ScatterBuffer& StaticWindows::BeginTurn(uint32_t p, uint32_t prefetch) {
  const int mine = sequence_[0] <= sequence_[1] ? 0 : 1;
  ScatterBuffer& out = scatter_[mine];
  const auto t = Clock::now();
  io_->FinishWriteBack(out);
  stats_->write_back_seconds += Since(t);
  // A prefetched interval's reads may have run while this buffer was being written: patch
  // them from it now, before its contents are gone.
  for (auto& d : data_) {
    if (d.interval == kNoInterval || d.interval == p || out.interval == kNoInterval) continue;
    io_->FinishLoad(d);
    const uint64_t bytes = edges_->WindowBytes(d.interval, out.interval);
    if (bytes == 0) continue;
    std::memcpy(d.values.data() + edges_->WindowOffset(d.interval, out.interval),
                out.bytes.data() + out.offsets[d.interval], bytes);
  }
  out.interval = kNoInterval;  // its old contents are on disk now
  prefetch_ = prefetch != kNoInterval && prefetch != p && !Streamed(prefetch) ? prefetch
                                                                              : kNoInterval;
  io_->Prepare(p, out);
  sequence_[mine] = ++turns_;
  return out;
}

// Issued once the turn's own reads are done (StartPrefetch), so that they do not wait behind
// it, and before its write-back (whose windows into the prefetched interval it leaves to the
// scatter buffer: Wanted's `current`).
void StaticWindows::StartPrefetch() {
  const uint32_t next = std::exchange(prefetch_, kNoInterval);
  if (next == kNoInterval || current_ == nullptr) return;
  const uint32_t p = current_->interval;
  IntervalData* slot = nullptr;
  for (auto& d : data_) {
    if (d.interval != p && !d.in_flight) slot = &d;
  }
  if (slot != nullptr && data_[0].interval != next && data_[1].interval != next) {
    const uint8_t* wanted = Wanted(next, p);
    io_->StartLoad(next, *slot, wanted, /*windows_only=*/false, /*messages=*/true,
                   AllRuns(next), wanted_in_);
  }
}

void StaticWindows::FindSegments(const IntervalData& data) {
  const uint32_t p = data.interval;
  segments_.clear();
  for (uint32_t r = 0; r < n_; ++r) {
    segments_at_[r] = segments_.size();
    if (!Carries(p, r)) continue;
    // A window read by chunks holds those marked now: its marks change only at r's turn, and
    // a window r writes after the load was issued is patched whole from r's scatter buffer.
    // (Runs of chunks are maximal; those of two windows are not joined: their messages lie
    // apart in the edge value file when windows are padded.)
    chunks_->ForEachRun(p, r, [&](uint64_t first, uint64_t last) {
      segments_.push_back({first, last});
    });
  }
  segments_at_[n_] = segments_.size();
}

bool StaticWindows::Sparse(uint32_t q) const {
  if (!chunks_ || !own_targets_) return false;
  const uint64_t own = set_->Window(q, q + 1).first_edge - set_->Window(q, q).first_edge;
  if (own < sparse_min_edges_) return false;
  const double bound = sparse_share_ * static_cast<double>(own);
  uint64_t marked = 0;
  for (uint32_t r = 0; r < n_ && static_cast<double>(marked) < bound; ++r) {
    if (!Carries(q, r)) continue;
    const uint64_t edges = set_->Window(q, r + 1).first_edge - set_->Window(q, r).first_edge;
    marked += std::min(edges, chunks_->Marked(q, r) * chunks_->chunk_edges());
  }
  return static_cast<double>(marked) < bound;
}

const IntervalData& StaticWindows::BeginCompute(uint32_t p, uint32_t next) {
  IntervalData& data = Acquire(p);
  LoadMissing(data);
  Patch(data);
  if (chunks_) FindSegments(data);
  out_ = &BeginTurn(p, next);
  current_ = &data;
  sparse_ = !AllTargets(data.loaded[p]) && Sparse(p);
  if (sparse_) {  // the targets read are those under (p, p)'s marked chunks, if any
    const uint64_t first = set_->Window(p, p).first_edge;
    const uint64_t edges = set_->Window(p, p + 1).first_edge - first;
    const uint64_t chunk = chunks_->chunk_edges();
    own_present_.assign(((edges + chunk - 1) / chunk + 63) / 64, 0);
    if (data.loaded[p] == kWindowChunks) {
      for (const EdgeRange& s : Segments(p)) {
        for (uint64_t c = (s.first - first) / chunk; c * chunk < s.last - first; ++c) {
          own_present_[c / 64] |= uint64_t{1} << (c % 64);
        }
      }
    }
  }
  return data;
}

bool StaticWindows::OwnTargetsSparse() const { return sparse_; }

bool StaticWindows::OwnEdgesHeld(uint64_t from, uint64_t to) const {
  const uint64_t chunk = chunks_->chunk_edges();
  for (uint64_t c = from / chunk; c * chunk < to; ++c) {
    if ((own_present_[c / 64] & (uint64_t{1} << (c % 64))) == 0) return false;
  }
  return true;
}

void StaticWindows::LoadOwnRuns(std::span<const uint32_t> sources, const uint64_t* own_start) {
  const uint32_t p = current_->interval;
  const uint64_t first = set_->Window(p, p).first_edge, last = set_->Window(p, p + 1).first_edge;
  const uint64_t chunk = chunks_->chunk_edges();
  const auto t = Clock::now();
  own_reads_.clear();
  for (const uint32_t u : sources) {
    if (own_start[u + 1] == own_start[u]) continue;  // no edge in (p, p)
    for (uint64_t c = own_start[u] / chunk; c * chunk < own_start[u + 1]; ++c) {
      uint64_t& word = own_present_[c / 64];
      const uint64_t bit = uint64_t{1} << (c % 64);
      if ((word & bit) != 0) continue;
      word |= bit;
      const uint64_t from = first + c * chunk, to = std::min(last, from + chunk);
      if (!own_reads_.empty() && own_reads_.back().second == from) {
        own_reads_.back().second = to;
        continue;
      }
      if (own_reads_.size() == kOwnReads) {
        io_->ReadTargets(p, *current_, own_reads_);
        own_reads_.clear();
      }
      own_reads_.emplace_back(from, to);
    }
  }
  if (!own_reads_.empty()) io_->ReadTargets(p, *current_, own_reads_);
  stats_->io_wait_seconds += Since(t);
}

void StaticWindows::LoadOwnWindow() {
  const uint32_t p = current_->interval;
  sparse_ = false;
  if (AllTargets(current_->loaded[p])) return;
  std::fill(wanted_.begin(), wanted_.end(), 0);
  wanted_[p] = kWholeWindow;  // every target: the sweeps follow every run of (p, p)
  const auto t = Clock::now();
  // Not its messages: those of this turn are in the scatter buffer.
  io_->StartLoad(p, *current_, wanted_.data(), /*windows_only=*/true, /*messages=*/false);
  io_->FinishLoad(*current_);
  stats_->io_wait_seconds += Since(t);
}

void StaticWindows::WriteQuiet() {
  const uint32_t p = out_->interval;
  const size_t width = identity_.size();
  for (uint32_t q = 0; q < n_; ++q) {
    // At page grain nothing is cleared: a window without marks is not read (but one into a
    // streamed interval, read whole, is).
    write_[q] = carries_[Index(q, p)] && (!chunks_ || Streamed(q)) ? kWholeWindow : 0;
    carries_[Index(q, p)] = 0;
    // At page grain a window without marks is never gathered, so its bytes need not be
    // identity unless they are written.
    if (chunks_) {
      chunks_->Clear(q, p);
      if (write_[q] == 0) continue;
    }
    // Every window, written or not: a prefetched interval is patched from all of them.
    std::byte* window = OutWindow(q);
    const uint64_t edges = set_->Window(q, p + 1).first_edge - set_->Window(q, p).first_edge;
    FillMessages(window, edges, identity_.data(), width);
  }
  io_->StartWriteBack(*out_, write_);
}

void StaticWindows::EndCompute(const uint8_t* carries) {
  StartPrefetch();  // if the engine did not
  if (carries == nullptr) {
    WriteQuiet();
  } else {
    const uint32_t p = out_->interval;
    for (uint32_t q = 0; q < n_; ++q) {
      if (chunks_ && !Streamed(q)) {
        const bool any = carries[q] && chunks_->Mark(q, p, OutWindow(q), pattern_.data());
        if (!carries[q]) chunks_->Clear(q, p);
        write_[q] = any ? kWindowChunks : 0;
        carries_[Index(q, p)] = any;
        continue;
      }
      write_[q] = carries[q] || carries_[Index(q, p)] ? kWholeWindow : 0;
      carries_[Index(q, p)] = carries[q];
      if (chunks_ && carries[q]) chunks_->MarkAll(q, p);
      if (chunks_ && !carries[q]) chunks_->Clear(q, p);
    }
    io_->StartWriteBack(*out_, write_);
  }
  current_->interval = kNoInterval;  // consumed: the next turn of p reads it again
  current_ = nullptr;
  sparse_ = false;
  out_ = nullptr;
}

void StaticWindows::Quiesce() {
  const auto t = Clock::now();
  for (auto& d : data_) {
    io_->FinishLoad(d);
    d.interval = kNoInterval;
  }
  for (auto& s : scatter_) {
    io_->FinishWriteBack(s);
    s.interval = kNoInterval;  // on disk: nothing left to patch from
  }
  stats_->io_wait_seconds += Since(t);
}

const IntervalData& StaticWindows::BeginStreamed(uint32_t p) {
  Quiesce();
  streaming_ = p;
  io_->LoadDegrees(p, data_[0]);
  return data_[0];
}

void StaticWindows::StreamIn(uint32_t r, const IntervalIo::PieceFold& fold) {
  const auto t = Clock::now();
  io_->ReadWindowInPieces(streaming_, r, stream_, fold);
  stats_->io_wait_seconds += Since(t);
}

void StaticWindows::EndStreamed(const std::byte* message, const uint8_t* carries) {
  const uint32_t p = streaming_;
  const auto t = Clock::now();
  for (uint32_t q = 0; q < n_; ++q) {
    const bool now = carries != nullptr && carries[q];
    if (now || carries_[Index(q, p)]) {
      io_->WriteWindowRepeated(q, p, now ? message : identity_.data(), stream_);
    }
    carries_[Index(q, p)] = now;
    if (chunks_ && now) chunks_->MarkAll(q, p);
    if (chunks_ && !now) chunks_->Clear(q, p);
  }
  stats_->write_back_seconds += Since(t);
  streaming_ = kNoInterval;
}

void StaticWindows::Clear(uint32_t p) {
  if (Streamed(p)) {
    Quiesce();
    streaming_ = p;
    EndStreamed(nullptr, nullptr);
    return;
  }
  out_ = &BeginTurn(p, kNoInterval);
  WriteQuiet();
  out_ = nullptr;
}

}  // namespace needle
