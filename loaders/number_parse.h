// Hand-written number parsers for the text reader's inner loop (GVEL §4.1.6).
//
// They work on [p, end) without a terminating NUL, never read past `end`, and return the
// position after the token or nullptr when the token is not a number of the expected kind.
// The caller decides what may follow (blank, line end).
#pragma once

#include <cstdint>
#include <cstring>

namespace needle::parse {

inline bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
inline bool IsBlank(char c) { return c == ' ' || c == '\t'; }
// A token ends at a blank, a line end or the end of the input.
inline bool IsTokenEnd(const char* p, const char* end) {
  return p == end || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
}

// Unsigned decimal integer. Sets *overflow when it has more than 19 digits (the value is
// then meaningless); callers compare the value against their own limit.
inline const char* ParseUnsigned(const char* p, const char* end, uint64_t* value, bool* overflow) {
  const char* start = p;
  uint64_t v = 0;
  while (p != end && IsDigit(*p)) {
    v = v * 10 + static_cast<uint64_t>(*p - '0');
    ++p;
  }
  if (p == start) return nullptr;
  *overflow = (p - start) > 19;
  *value = v;
  return p;
}

// ParseUnsigned for the hot path: when 8 bytes can be loaded it finds the digit run and
// converts up to 8 digits at once with SWAR arithmetic (no per-digit branches); longer runs
// and the last bytes of the input go through the plain loop.
inline const char* ParseUnsignedFast(const char* p, const char* end, uint64_t* value,
                                     bool* overflow) {
  if (end - p >= 8) {
    uint64_t chunk;
    std::memcpy(&chunk, p, 8);                         // little-endian: p[0] is the lowest byte
    const uint64_t t = chunk ^ 0x3030303030303030ULL;  // digits become 0..9
    // A byte is a non-digit when t >= 10: adding 0x76 sets its high bit (or it was set).
    const uint64_t non_digit = ((t + 0x7676767676767676ULL) | t) & 0x8080808080808080ULL;
    if (non_digit != 0) {
      const int len = __builtin_ctzll(non_digit) / 8;  // leading digits, 0..7
      if (len == 0) return nullptr;
      uint64_t v = t << (8 * (8 - len));  // digits to the top, leading zeros below
      v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFULL;
      v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFULL;
      v = (v * 10000 + (v >> 32)) & 0x00000000FFFFFFFFULL;
      *value = v;
      *overflow = false;
      return p + len;
    }
  }
  return ParseUnsigned(p, end, value, overflow);
}

// Decimal floating-point number: [+-]digits[.digits][(e|E)[+-]digits], or [+-].digits.
// *nonzero (when given) says whether the number as written is non-zero, so that a caller can
// tell a written 0 from a value that underflowed. The value is ±inf when the number is beyond
// double's range and ±0 when it is below it; an exponent of any length costs O(1).
inline const char* ParseReal(const char* p, const char* end, double* value,
                             bool* nonzero = nullptr) {
  bool negative = false;
  if (p != end && (*p == '+' || *p == '-')) negative = (*p++ == '-');
  uint64_t mantissa = 0;
  int digits = 0;
  int64_t exponent = 0;  // int64: no line is long enough to overflow it with digit counts
  bool any = false;
  for (; p != end && IsDigit(*p); ++p, any = true) {
    if (digits < 19) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(*p - '0');
      if (mantissa != 0) ++digits;
    } else {
      ++exponent;  // digits beyond double precision only scale the value
    }
  }
  if (p != end && *p == '.') {
    ++p;
    for (; p != end && IsDigit(*p); ++p, any = true) {
      if (digits < 19) {
        mantissa = mantissa * 10 + static_cast<uint64_t>(*p - '0');
        if (mantissa != 0) ++digits;
        --exponent;
      }
    }
  }
  if (!any) return nullptr;
  if (p != end && (*p == 'e' || *p == 'E')) {
    ++p;
    bool exp_negative = false;
    if (p != end && (*p == '+' || *p == '-')) exp_negative = (*p++ == '-');
    if (p == end || !IsDigit(*p)) return nullptr;
    int64_t e = 0;
    for (; p != end && IsDigit(*p); ++p) {
      // Saturates: from 10^17 on, the value is ±inf or 0 whatever the digits say.
      if (e < 100'000'000'000'000'000) e = e * 10 + (*p - '0');
    }
    exponent += exp_negative ? -e : e;
  }
  if (nonzero != nullptr) *nonzero = mantissa != 0;
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  double v = static_cast<double>(mantissa);
  if (mantissa == 0) {
    v = 0;
  } else if (exponent > 400) {  // mantissa >= 1: beyond double's 1.8e308
    v = __builtin_inf();
  } else if (exponent < -400) {  // mantissa < 1e19: below double's 4.9e-324
    v = 0;
  } else {
    auto x = static_cast<int>(exponent);
    while (x > 22) {
      v *= 1e22;
      x -= 22;
    }
    while (x < -22) {
      v /= 1e22;
      x += 22;
    }
    v = x >= 0 ? v * kPow10[x] : v / kPow10[-x];
  }
  *value = negative ? -v : v;
  return p;
}

}  // namespace needle::parse
