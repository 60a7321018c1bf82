// BitWriter: WebGraph's instantaneous codes written MSB first (unary, γ, δ, ζ_k), for
// hand-made BVGraph streams — an encoder independent of loaders/bit_reader.h, shared by the
// decoder's tests and the fuzz seeds.
#pragma once

#include <cstdint>
#include <vector>

#include "loaders/webgraph_properties.h"

namespace needle::testing {

class BitWriter {
 public:
  void Bit(int b) {
    if (bits_ % 8 == 0) bytes_.push_back(0);
    if (b) bytes_.back() = static_cast<uint8_t>(bytes_.back() | (0x80 >> (bits_ % 8)));
    ++bits_;
  }
  void Int(uint64_t v, int width) {
    for (int i = width - 1; i >= 0; --i) Bit(static_cast<int>((v >> i) & 1));
  }
  void Unary(uint64_t v) {
    for (uint64_t i = 0; i < v; ++i) Bit(0);
    Bit(1);
  }
  static int Msb(uint64_t v) { return 63 - __builtin_clzll(v); }
  void Gamma(uint64_t v) {
    const int l = Msb(v + 1);
    Unary(static_cast<uint64_t>(l));
    Int(v + 1, l);  // the low l bits
  }
  void Delta(uint64_t v) {
    const int l = Msb(v + 1);
    Gamma(static_cast<uint64_t>(l));
    Int(v + 1, l);
  }
  void Zeta(uint64_t v, int k) {
    const uint64_t x = v + 1;
    const int h = Msb(x) / k;
    Unary(static_cast<uint64_t>(h));
    const uint64_t left = uint64_t{1} << (h * k);
    if (x - left < left) {
      Int(x - left, h * k + k - 1);
    } else {
      Int(x, h * k + k);
    }
  }
  void Coded(uint64_t v, BvCoding c, int k) {
    switch (c) {
      case BvCoding::kGamma:
        return Gamma(v);
      case BvCoding::kDelta:
        return Delta(v);
      case BvCoding::kUnary:
        return Unary(v);
      case BvCoding::kZeta:
        return Zeta(v, k);
    }
  }
  uint64_t bits() const { return bits_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
  uint64_t bits_ = 0;
};

}  // namespace needle::testing
