#include "engine/pull_columns.h"

#include <algorithm>
#include <chrono>

namespace needle {

uint64_t PullColumns::Bytes(uint64_t window_runs, uint64_t column_bytes) {
  const uint64_t half = std::max(window_runs + 3 * kDirectAlignment, column_bytes / 8);
  return 2 * AlignUp(half, kDirectAlignment);
}

PullColumns::PullColumns(IntervalIo& io, uint32_t num_intervals, uint64_t bytes)
    : io_(&io),
      n_(num_intervals),
      buffer_(bytes),
      half_(AlignDown(bytes / 2, kDirectAlignment)),
      at_(num_intervals, 0) {}

PullColumns::~PullColumns() {
  try {
    Drop();
  } catch (...) {  // a read that failed: nothing uses it now
  }
}

void PullColumns::Start(uint32_t q, const uint8_t* wanted, uint32_t from, int h) {
  Finish(h, nullptr);
  const auto batch = io_->StartColumn(q, wanted, from, buffer_.data() + h * half_, half_,
                                      h * half_, at_);
  halves_[h] = {q, from, batch.next, true, batch.ticket};
}

void PullColumns::Finish(int h, double* waited) {
  if (!halves_[h].in_flight) return;
  halves_[h].in_flight = false;
  const auto t = std::chrono::steady_clock::now();
  io_->backend().Wait(halves_[h].ticket);
  if (waited != nullptr) {
    *waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
}

void PullColumns::Prefetch(uint32_t q, std::vector<uint8_t> wanted) {
  Drop();
  if (std::none_of(wanted.begin(), wanted.end(), [](uint8_t w) { return w != 0; })) return;
  prefetch_wanted_ = std::move(wanted);
  Start(q, prefetch_wanted_.data(), 0, 0);
  prefetched_ = true;
}

void PullColumns::Drop() {
  prefetched_ = false;
  Finish(0, nullptr);
  Finish(1, nullptr);
}

bool PullColumns::PrefetchServes(uint32_t q, const uint8_t* wanted) const {
  if (halves_[0].q != q || halves_[0].from != 0) return false;
  for (uint32_t r = 0; r < halves_[0].next; ++r) {
    if (wanted[r] && !prefetch_wanted_[r]) return false;
  }
  return true;
}

}  // namespace needle
