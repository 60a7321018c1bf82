#include "engine/resident_shards.h"

#include <algorithm>
#include <chrono>

namespace needle {

ResidentShards::ResidentShards(const ShardSet& set, IntervalIo& io, const EdgeValueFiles& edges,
                               IterationStats& stats)
    : Transport(set.num_intervals()), io_(&io), edges_(&edges), stats_(&stats) {
  shards_.resize(set.num_intervals());
  for (uint32_t p = 0; p < set.num_intervals(); ++p) io.Allocate(shards_[p], p);
}

ResidentShards::~ResidentShards() {
  try {
    Finish();
  } catch (...) {  // a run that threw has reported its error already
  }
}

void ResidentShards::Load() {
  if (loaded_) return;
  const auto t = std::chrono::steady_clock::now();
  const std::vector<uint8_t> every(n_, 1);
  // Every interval's reads are submitted before the first wait, so the backend keeps its queue
  // full; messages are not read (no window carries any yet).
  for (uint32_t p = 0; p < n_; ++p) {
    io_->StartLoad(p, shards_[p], every.data(), /*windows_only=*/false, /*messages=*/false);
  }
  for (auto& d : shards_) io_->FinishLoad(d);
  loaded_ = true;
  stats_->io_wait_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

const IntervalData& ResidentShards::Degrees(uint32_t p) {
  Load();
  return shards_[p];
}

void ResidentShards::Start(uint32_t) {
  Load();
  std::fill(carries_.begin(), carries_.end(), 0);
}

const IntervalData& ResidentShards::BeginCompute(uint32_t p, uint32_t) {
  current_ = p;
  return shards_[p];
}

void ResidentShards::EndCompute(const uint8_t* carries) {
  for (uint32_t q = 0; q < n_; ++q) {
    carries_[Index(q, current_)] = carries != nullptr ? carries[q] : 0;
  }
  current_ = kNoInterval;
}

void ResidentShards::Clear(uint32_t p) {
  for (uint32_t q = 0; q < n_; ++q) carries_[Index(q, p)] = 0;
}

void ResidentShards::Finish() {
  for (auto& d : shards_) io_->Drain(d);
}

}  // namespace needle
