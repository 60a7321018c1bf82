// BitReader: a big-endian (most significant bit first) bit stream over a byte range, and the
// instantaneous codes WebGraph writes with it (unary, γ, δ, ζ_k), as used by the BVGraph
// decoder (loaders/bvgraph.h).
//
// The next bits live left-aligned in a 64-bit word; a refill loads 8 bytes at once (one
// byte-swap) while 8 remain, byte by byte near the end. A unary code is one count of leading
// zeros, a short γ code one shift. Bits of the word below `avail_` are either zero or the
// stream's own next bits (a refill ORs in the same bytes at the same places), and no read
// uses them, so the word never has to be masked.
//
// Every read is checked against the end of the range (LevelDB's decoders take an end the same
// way): reading past it, or a code whose value cannot fit 64 bits, throws CorruptBits with the
// bit offset where the code began. The decoder turns that into a needle::Error naming the file
// and the node; nothing here loops for longer than the bits that exist.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace needle {

// A corrupt or truncated bit stream: `bit` is the offset from the start of the range.
class CorruptBits : public std::runtime_error {
 public:
  CorruptBits(uint64_t bit, const std::string& what, bool truncated = false)
      : std::runtime_error(what), bit_(bit), truncated_(truncated) {}
  uint64_t bit() const { return bit_; }
  bool truncated() const { return truncated_; }  // the stream ended inside a code

 private:
  uint64_t bit_;
  bool truncated_;
};

// nat2int: 0, 1, 2, 3, 4 ... → 0, -1, 1, -2, 2 ... (WebGraph's map of integers to naturals).
inline int64_t Nat2Int(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

class BitReader {
 public:
  BitReader() = default;
  // Reads [data, data + size) from bit `start_bit`, which must be at most size * 8.
  BitReader(const uint8_t* data, size_t size, uint64_t start_bit = 0)
      : begin_(data), next_(data), end_(data + size) {
    if (start_bit > uint64_t{size} * 8) {
      throw CorruptBits(start_bit, "starts past the end of the stream (" +
                                       std::to_string(uint64_t{size} * 8) + " bits)");
    }
    next_ = data + start_bit / 8;
    ReadBits(static_cast<int>(start_bit % 8));
  }

  // Bits consumed from the start of the range.
  uint64_t position() const { return static_cast<uint64_t>(next_ - begin_) * 8 - avail_; }
  uint64_t size_bits() const { return static_cast<uint64_t>(end_ - begin_) * 8; }

  // The next n bits (0 ≤ n ≤ 64) as an unsigned number.
  [[gnu::always_inline]] uint64_t ReadBits(int n) {
    if (n > 56) return ReadLongBits(n);
    if (avail_ < n) {
      Refill();
      if (avail_ < n) throw CorruptBits(position(), "the stream ends inside a code", true);
    }
    if (n == 0) return 0;
    const uint64_t v = buffer_ >> (64 - n);
    buffer_ <<= n;
    avail_ -= n;
    return v;
  }

  uint64_t ReadBit() { return ReadBits(1); }

  // Unary: the number of 0s before the next 1. More than `limit` zeros is corrupt.
  [[gnu::always_inline]] uint64_t ReadUnary(uint64_t limit = uint64_t{1} << 32) {
    if (avail_ < 56) Refill();
    const int zeros = std::countl_zero(buffer_);
    if (zeros < avail_) {
      buffer_ <<= zeros + 1;  // zeros + 1 ≤ avail_ ≤ 63
      avail_ -= zeros + 1;
      if (static_cast<uint64_t>(zeros) > limit) Fail(position(), "unary code too long");
      return static_cast<uint64_t>(zeros);
    }
    return ReadUnarySlow(limit);
  }

  // γ: l = unary, then l more bits; value ((1 << l) | bits) - 1. The 2l + 1 bits of the code,
  // read as one number, are the value plus one.
  [[gnu::always_inline]] uint64_t ReadGamma() {
    if (avail_ < 56) Refill();
    const int l = std::countl_zero(buffer_);
    const int length = 2 * l + 1;
    if (length <= avail_) {
      const uint64_t v = buffer_ >> (64 - length);
      buffer_ <<= length;  // length ≤ avail_ ≤ 63
      avail_ -= length;
      return v - 1;
    }
    return ReadGammaSlow();
  }

  // δ: l = γ, then l more bits; value ((1 << l) | bits) - 1.
  uint64_t ReadDelta() {
    const uint64_t start = position();
    const uint64_t l = ReadGamma();
    if (l > 63) Fail(start, "δ code longer than 64 bits");
    return ((uint64_t{1} << l) | ReadBits(static_cast<int>(l))) - 1;
  }

  // ζ_k: h = unary; m = the next h·k + k − 1 bits; m + 2^(hk) − 1 if m < 2^(hk), else one more
  // bit b and 2m + b − 1.
  [[gnu::always_inline]] uint64_t ReadZeta(int k) {
    const uint64_t h = ReadUnary(64);
    const uint64_t width = h * static_cast<uint64_t>(k) + static_cast<uint64_t>(k) - 1;
    if (width > 63) Fail(position() - h - 1, "ζ code longer than 64 bits");
    const uint64_t left = uint64_t{1} << (h * static_cast<uint64_t>(k));
    const uint64_t m = ReadBits(static_cast<int>(width));
    if (m < left) return m + left - 1;
    return (m << 1) + ReadBit() - 1;
  }

  [[noreturn]] static void Fail(uint64_t bit, const std::string& what) {
    throw CorruptBits(bit, what);
  }

 private:
  // ReadBits of 57 to 64 bits, in two reads (never inlined: it is rare, and ReadBits is).
  [[gnu::noinline]] uint64_t ReadLongBits(int n) {
    const uint64_t high = ReadBits(n - 32);
    return (high << 32) | ReadBits(32);
  }

  // Tops the word up to at least 56 valid bits, or to what is left of the range.
  void Refill() {
    if (end_ - next_ >= 8) {
      uint64_t word;
      std::memcpy(&word, next_, 8);
      word = __builtin_bswap64(word);
      buffer_ |= word >> avail_;  // avail_ < 56 here
      const int bytes = (63 - avail_) >> 3;
      next_ += bytes;
      avail_ += bytes * 8;
      return;
    }
    while (avail_ < 56 && next_ < end_) {  // at most 63 valid bits: every shift stays below 64
      buffer_ |= uint64_t{*next_++} << (56 - avail_);
      avail_ += 8;
    }
  }

  uint64_t ReadUnarySlow(uint64_t limit) {
    const uint64_t start = position();
    uint64_t zeros = 0;
    for (;;) {
      if (avail_ == 0) {
        Refill();
        if (avail_ == 0) throw CorruptBits(start, "the stream ends inside a unary code", true);
      }
      const int z = std::countl_zero(buffer_);
      if (z < avail_) {
        zeros += static_cast<uint64_t>(z);
        buffer_ <<= z;
        buffer_ <<= 1;
        avail_ -= z + 1;
        if (zeros > limit) Fail(start, "unary code too long");
        return zeros;
      }
      zeros += static_cast<uint64_t>(avail_);
      buffer_ = 0;  // every valid bit was 0; the bits below were the next bytes, reloaded now
      avail_ = 0;
      if (zeros > limit) Fail(start, "unary code too long");
    }
  }

  uint64_t ReadGammaSlow() {
    const uint64_t start = position();
    const uint64_t l = ReadUnary(63);
    if (l > 63) Fail(start, "γ code longer than 64 bits");
    return ((uint64_t{1} << l) | ReadBits(static_cast<int>(l))) - 1;
  }

  const uint8_t* begin_ = nullptr;
  const uint8_t* next_ = nullptr;  // first byte not yet in buffer_
  const uint8_t* end_ = nullptr;
  uint64_t buffer_ = 0;  // the next avail_ bits, left-aligned
  int avail_ = 0;
};

}  // namespace needle
