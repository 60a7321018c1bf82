// RunCodec: source runs (shard_layout.h) packed for the scatter index (scatter-PPPP.idx).
//
// The shard files hold a window's runs as (source, count) pairs of 8 bytes. A window usually
// has one edge per run (a vertex's out-edges are spread over many shards), so scatter would
// read 8 bytes of runs per edge. The sharder also writes every window's runs as LEB128
// varints — the source's distance from the previous run's source (from the interval's first
// vertex for the first run of a window) and count − 1 — about 2 bytes a run, gathered per
// destination interval, and the engine's scatter reads those.
#pragma once

#include <cstddef>
#include <cstdint>

#include "shards/shard_layout.h"

namespace needle {

// The most bytes EncodeRuns writes for n runs.
inline constexpr uint64_t MaxEncodedRunBytes(uint64_t n) { return n * 10; }

// Appends one run to out (at most 10 bytes), `previous` being the source of the window's run
// before it (its interval's first vertex for the first run); returns the end.
inline uint8_t* PutRun(uint32_t previous, const SourceRun& run, uint8_t* out) {
  auto put = [&out](uint32_t v) {
    while (v >= 0x80) {
      *out++ = static_cast<uint8_t>(v | 0x80);
      v >>= 7;
    }
    *out++ = static_cast<uint8_t>(v);
  };
  put(run.source - previous);
  put(run.count - 1);
  return out;
}

// Encodes runs[0, n) (sources ascending, all ≥ base) into out (room for
// MaxEncodedRunBytes(n)); returns the bytes written.
inline size_t EncodeRuns(const SourceRun* runs, uint64_t n, uint32_t base, uint8_t* out) {
  uint8_t* at = out;
  uint32_t previous = base;
  for (uint64_t i = 0; i < n; ++i) {
    at = PutRun(previous, runs[i], at);
    previous = runs[i].source;
  }
  return static_cast<size_t>(at - out);
}

// Calls f(source, count) for each of the n runs encoded at `in`.
template <class F>
void DecodeRuns(const uint8_t* in, uint64_t n, uint32_t base, F&& f) {
  auto get = [&in]() {
    uint32_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = *in++;
      v |= static_cast<uint32_t>(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  };
  uint32_t source = base;
  for (uint64_t i = 0; i < n; ++i) {
    source += get();
    f(source, get() + 1);
  }
}

}  // namespace needle
