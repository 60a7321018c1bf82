// PullColumns: the source runs a pull turn reads (engine.h, "Pull turns"; docs/engine.md) —
// window (q, r)'s runs for every pulled r, each from the scatter index of r, a column of the
// scatter indexes.
//
// One buffer in two halves, so that a turn waits for its runs only where the disk is slower
// than the decoding: the next batch is read into one half while the other's is decoded, and
// the next turn's first batch while this turn computes (Prefetch: the turn's own reads are
// done by then and the buffer is free).
// Not thread-safe: one per engine, like the backend it uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/interval_io.h"
#include "io/io_backend.h"

namespace needle {

class PullColumns {
 public:
  // Bytes of the buffer: each half holds the largest window's runs (`window_runs`) and 3
  // alignment units, and together they hold a quarter of the largest column (`column_bytes`,
  // IntervalIo::ColumnBytes()), which the rest reads in batches.
  static uint64_t Bytes(uint64_t window_runs, uint64_t column_bytes);

  PullColumns(IntervalIo& io, uint32_t num_intervals, uint64_t bytes);
  PullColumns(const PullColumns&) = delete;
  PullColumns& operator=(const PullColumns&) = delete;
  ~PullColumns();  // waits for the reads in flight (a run that threw)

  // decode(from, next) for each batch of column q's wanted windows, in order of r: window
  // (q, r), r in [from, next) with wanted[r], begins at Runs(r) until the next call. The
  // seconds spent waiting are added to *waited.
  template <class Decode>
  void ForEachBatch(uint32_t q, const uint8_t* wanted, double* waited, Decode&& decode);
  const uint8_t* Runs(uint32_t r) const {
    return reinterpret_cast<const uint8_t*>(buffer_.data() + at_[r]);
  }

  // Starts reading column q's first batch for `wanted`, a guess at what q's next pull turn
  // wants: it reads anew if that turn wants a window the guess left out in the batch, or is
  // not q's. Windows the guess wanted needlessly are read for nothing (and counted).
  void Prefetch(uint32_t q, std::vector<uint8_t> wanted);
  // Waits for a prefetch still in flight and forgets it.
  void Drop();

 private:
  struct Batch {
    uint32_t q = 0, from = 0, next = 0;
    bool in_flight = false;
    IoBackend::Ticket ticket = 0;
  };
  // Starts reading column q's windows from r = `from` on into half h (waited for first).
  void Start(uint32_t q, const uint8_t* wanted, uint32_t from, int h);
  void Finish(int h, double* waited);
  // Whether the prefetched batch holds every window of column q that `wanted` asks for.
  bool PrefetchServes(uint32_t q, const uint8_t* wanted) const;

  IntervalIo* io_;
  uint32_t n_;  // intervals
  AlignedBuffer buffer_;
  uint64_t half_;             // bytes of each half, aligned
  std::vector<uint64_t> at_;  // where window (q, r)'s runs begin in buffer_
  Batch halves_[2];           // what each half holds or is being read into
  bool prefetched_ = false;   // half 0 holds a Prefetch's batch, not yet taken
  std::vector<uint8_t> prefetch_wanted_;
};

template <class Decode>
void PullColumns::ForEachBatch(uint32_t q, const uint8_t* wanted, double* waited,
                               Decode&& decode) {
  if (!(prefetched_ && PrefetchServes(q, wanted))) {
    Drop();
    Start(q, wanted, 0, 0);
  }
  prefetched_ = false;
  for (int h = 0;; h = 1 - h) {
    const uint32_t from = halves_[h].from, next = halves_[h].next;
    if (next < n_) Start(q, wanted, next, 1 - h);  // read while this half is decoded
    Finish(h, waited);
    decode(from, next);
    if (next >= n_) return;
  }
}

}  // namespace needle
