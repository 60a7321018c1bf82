// RunCodec: source runs (shard_layout.h) packed for the engine's scatter index.
//
// The shard files hold a window's runs as (source, count) pairs of 8 bytes. A window usually
// has one edge per run (a vertex's out-edges are spread over many shards), so scatter would
// read 8 bytes of runs per edge. The engine re-encodes each window's runs once, in the first
// iteration, as LEB128 varints — the source's distance from the previous run's source (from
// the interval's first vertex for the first run) and count − 1 — about 2 bytes a run.
#pragma once

#include <cstddef>
#include <cstdint>

#include "shards/shard_layout.h"

namespace needle {

// The most bytes EncodeRuns writes for n runs.
inline constexpr uint64_t MaxEncodedRunBytes(uint64_t n) { return n * 10; }

// True when every run of runs[0, n) encodes in at most 8 bytes (source distance and count − 1
// below 2^28), so that EncodeRuns can write over its own input.
inline bool EncodesInPlace(const SourceRun* runs, uint64_t n, uint32_t base) {
  constexpr uint32_t kLimit = uint32_t{1} << 28;
  uint32_t previous = base;
  for (uint64_t i = 0; i < n; ++i) {
    if (runs[i].source - previous >= kLimit || runs[i].count - 1 >= kLimit) return false;
    previous = runs[i].source;
  }
  return true;
}

// Encodes runs[0, n) (sources ascending, all ≥ base) into out; returns the bytes written.
// `out` may be `runs` itself (or any address at or below it) when EncodesInPlace() holds:
// each run is read before its bytes are written, and never takes more than its 8 bytes.
inline size_t EncodeRuns(const SourceRun* runs, uint64_t n, uint32_t base, uint8_t* out) {
  uint8_t* at = out;
  auto put = [&at](uint32_t v) {
    while (v >= 0x80) {
      *at++ = static_cast<uint8_t>(v | 0x80);
      v >>= 7;
    }
    *at++ = static_cast<uint8_t>(v);
  };
  uint32_t previous = base;
  for (uint64_t i = 0; i < n; ++i) {
    const SourceRun run = runs[i];
    put(run.source - previous);
    put(run.count - 1);
    previous = run.source;
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
