// GenerateRmat: the Graph500 R-MAT generator (see rmat.h for the contract).
//
// Determinism: edge i draws its random numbers from a splitmix64 stream whose start is a hash
// of (seed, i), so no state passes from one edge to the next and any split of [0, m) among
// threads produces the same edges. The edge sequence is cut into one contiguous range per
// part, each part fills its own buffer, and the segments are listed in part order, so walking
// the EdgeList yields edges 0..m-1 in order.
#include "loaders/rmat.h"

#include <omp.h>

#include <atomic>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>

#include "base/parallel.h"

namespace needle {
namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

// splitmix64's output function: a bijection on 64-bit words with good avalanche.
inline uint64_t Mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A splitmix64 stream; one per edge, so it only has to be good for a few dozen draws.
class EdgeRandom {
 public:
  explicit EdgeRandom(uint64_t start) : state_(start) {}
  uint64_t Next() { return Mix(state_ += kGolden); }

 private:
  uint64_t state_;
};

// A probability as a threshold for a uniform 32-bit draw (r < threshold with probability p).
// Kept in 64 bits so that p = 1 (threshold 2^32) is always taken.
uint64_t Threshold(double p) { return static_cast<uint64_t>(std::ldexp(p, 32)); }

// A seeded bijection on [0, 2^scale): every step (odd multiply, add, xor with a right shift,
// all mod 2^scale) is invertible, so distinct ids stay distinct. The multiplies carry low bits
// up and the shifts carry high bits down, so hubs (ids with many zero bits) spread out.
class IdScrambler {
 public:
  IdScrambler(int scale, uint64_t seed)
      : mask_((uint64_t{1} << scale) - 1),
        shift_(scale > 1 ? scale / 2 : 1),
        mul1_(Mix(seed ^ 0x243f6a8885a308d3ULL) | 1),
        add_(Mix(seed ^ 0x13198a2e03707344ULL)),
        mul2_(Mix(seed ^ 0xa4093822299f31d0ULL) | 1) {}

  VertexId operator()(uint64_t v) const {
    v = (v * mul1_) & mask_;
    v = (v + add_) & mask_;
    v ^= v >> shift_;
    v = (v * mul2_) & mask_;
    v ^= v >> shift_;
    return static_cast<VertexId>(v);
  }

 private:
  uint64_t mask_;
  int shift_;
  uint64_t mul1_, add_, mul2_;
};

void Validate(const RmatOptions& o) {
  if (o.scale < 1 || o.scale > 31) {
    throw std::invalid_argument("R-MAT scale must be in 1..31, not " + std::to_string(o.scale));
  }
  if (o.edge_factor < 1) {
    throw std::invalid_argument("R-MAT edge factor must be at least 1, not " +
                                std::to_string(o.edge_factor));
  }
  // Written as !(in range) so that NaN fails too.
  auto probability = [](double p) { return p >= 0.0 && p <= 1.0; };
  if (!probability(o.a) || !probability(o.b) || !probability(o.c) || !(o.a + o.b + o.c <= 1.0)) {
    throw std::invalid_argument("R-MAT probabilities a=" + std::to_string(o.a) +
                                " b=" + std::to_string(o.b) + " c=" + std::to_string(o.c) +
                                " must each lie in [0, 1] with a + b + c <= 1");
  }
}

}  // namespace

EdgeList GenerateRmat(const RmatOptions& options, int threads) {
  Validate(options);
  threads = ThreadCount(threads);
  const int scale = options.scale;
  const uint64_t n = uint64_t{1} << scale;
  const uint64_t m = static_cast<uint64_t>(options.edge_factor) * n;

  // Quadrant q = number of thresholds r reaches: 0 = (0,0) with probability a, 1 = (0,1)
  // with b, 2 = (1,0) with c, 3 = (1,1) with the rest. Source bit q >> 1, target bit q & 1.
  const uint64_t t_a = Threshold(options.a);
  const uint64_t t_ab = Threshold(options.a + options.b);
  const uint64_t t_abc = Threshold(options.a + options.b + options.c);
  const uint64_t stream_key = Mix(options.seed ^ 0x452821e638d01377ULL);
  const IdScrambler scramble(scale, options.seed);
  const bool scramble_ids = options.scramble_ids;
  const bool weighted = options.weighted;

  EdgeList list;
  list.num_vertices = n;
  list.weighted = weighted;
  // More parts than threads would not help (the work per edge is uniform); an empty part
  // would only add an empty segment.
  const uint64_t parts = std::max<uint64_t>(1, std::min<uint64_t>(threads, m));
  list.buffers.resize(parts);
  list.segments.resize(parts);

  std::exception_ptr error;
  std::mutex error_mutex;
  std::atomic<uint64_t> generated{0};
  const bool progress = static_cast<bool>(options.progress);
  constexpr uint64_t kProgressEvery = uint64_t{1} << 20;
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (uint64_t p = 0; p < parts; ++p) {
    try {
      const uint64_t begin = m * p / parts;
      const uint64_t end = m * (p + 1) / parts;
      EdgeBuffer& buffer = list.buffers[p];
      buffer.edges.Resize(end - begin);
      if (weighted) buffer.weights.Resize(end - begin);
      Edge* out = buffer.edges.data();
      Weight* out_w = buffer.weights.data();
      for (uint64_t i = begin; i < end; ++i) {
        if (progress && ((i - begin) & (kProgressEvery - 1)) == kProgressEvery - 1) {
          const uint64_t done = generated.fetch_add(kProgressEvery) + kProgressEvery;
          if (omp_get_thread_num() == 0) options.progress(done, m);
        }
        EdgeRandom random(Mix(stream_key + i * kGolden));
        uint64_t u = 0, v = 0;
        uint64_t bits = 0;
        for (int level = 0; level < scale; ++level) {
          // Two 32-bit draws per 64-bit word: 2^-32 resolution is far finer than needed.
          if ((level & 1) == 0) bits = random.Next();
          const uint64_t r = (level & 1) == 0 ? (bits & 0xffffffffULL) : (bits >> 32);
          const uint64_t q = (r >= t_a) + (r >= t_ab) + (r >= t_abc);
          u = (u << 1) | (q >> 1);
          v = (v << 1) | (q & 1);
        }
        if (scramble_ids) {
          u = scramble(u);
          v = scramble(v);
        }
        out[i - begin] = Edge{static_cast<VertexId>(u), static_cast<VertexId>(v)};
        if (weighted) {
          // A fresh draw (not the unused half of the last word) keeps weights independent of
          // the scale's parity. Multiply-shift maps 32 bits onto [0, 255) with 2^-24 bias.
          const uint64_t r = random.Next() >> 32;
          out_w[i - begin] = static_cast<Weight>(1 + ((r * 255) >> 32));
        }
      }
      list.segments[p] = EdgeSegment{static_cast<uint32_t>(p), 0, end - begin};
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  return list;
}

}  // namespace needle
