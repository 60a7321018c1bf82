// RunCodec: source runs (shard_layout.h) packed for the scatter index (scatter-PPPP.idx), the
// only place a shard set keeps them.
//
// A window usually has one edge per run (a vertex's out-edges are spread over many shards), so
// (source, count) pairs of 8 bytes would cost scatter 8 bytes per edge. The sharder writes every
// window's runs as LEB128 varints instead — the source's distance from the previous run's
// source (from the interval's first vertex for the first run of a window) and count − 1 —
// about 2 bytes a run, gathered per destination interval, and the engine's scatter reads those.
//
// Decoding trusts nothing it reads (LevelDB's GetVarint32Ptr is the model): every varint is
// read against an end pointer and at most 5 bytes, and a window's runs are checked against
// what the window index says of them before the caller sees a run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

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

// Reads one varint of at most 5 bytes from [p, limit) into *v. Returns the byte after it, or
// nullptr when it runs past `limit`, is longer than 5 bytes or does not fit 32 bits.
inline const uint8_t* GetVarint32(const uint8_t* p, const uint8_t* limit, uint32_t* v) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28 && p < limit; shift += 7) {
    const uint32_t byte = *p++;
    if (shift == 28 && byte > 0x0f) return nullptr;  // a 5th byte holds only 4 bits
    result |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

// What went wrong decoding a window's runs: `error` is null when nothing did; else it says
// what, and `at` is the byte (from the start of the window's runs) where it was found.
struct RunDecodeStatus {
  const char* error = nullptr;
  uint64_t at = 0;
  bool ok() const { return error == nullptr; }
};

// Decodes the `runs` runs of one window from [in, limit) and calls f(source, count) for each
// (count a uint64_t: a run may hold 2^32 edges),
// in order. Before f sees a run it checks that the run's varints end inside [in, limit), that
// its source lies in [base, end) and above the previous run's, and that the counts so far stay
// within `edges`; after the last run, that the counts sum to `edges` and that the runs took
// exactly the bytes [in, limit). The first failure ends the decoding (f has seen only the
// runs before it) and is returned. An f that returns bool stops the decoding by returning
// false (what is left is not checked).
template <class F>
RunDecodeStatus DecodeRuns(const uint8_t* in, const uint8_t* limit, uint64_t runs, uint32_t base,
                           uint32_t end, uint64_t edges, F&& f) {
  const uint8_t* p = in;
  uint64_t source = base;
  uint64_t total = 0;
  auto fail = [&](const char* what) {
    return RunDecodeStatus{what, static_cast<uint64_t>(p - in)};
  };
  for (uint64_t i = 0; i < runs; ++i) {
    uint32_t delta = 0, count = 0;
    const uint8_t* next;
    if (limit - p >= 2 && ((p[0] | p[1]) & 0x80) == 0) {
      // Both varints one byte long: most runs (one edge, a source a few vertices on).
      delta = p[0];
      count = p[1];
      next = p + 2;
    } else {
      next = GetVarint32(p, limit, &delta);
      if (next != nullptr) next = GetVarint32(next, limit, &count);
      if (next == nullptr) return fail("a run's varint is cut off or too long");
    }
    if (i > 0 && delta == 0) return fail("run sources do not increase");
    source += delta;
    if (source >= end) return fail("a run's source lies outside its interval");
    total += uint64_t{count} + 1;
    if (total > edges) return fail("the runs hold more edges than the window");
    p = next;
    if constexpr (std::is_same_v<decltype(f(uint32_t{}, uint64_t{})), bool>) {
      if (!f(static_cast<uint32_t>(source), uint64_t{count} + 1)) return {};
    } else {
      f(static_cast<uint32_t>(source), uint64_t{count} + 1);
    }
  }
  if (total != edges) return fail("the runs hold fewer edges than the window");
  if (p != limit) return fail("the window's runs do not fill its bytes");
  return {};
}

}  // namespace needle
