// Aggregation functions: how several changes of one vertex are combined into one, e.g. when the
// delay buffer holds more than one entry for a vertex (ATC'16 §4.2). A program names one of
// the built-ins or supplies its own:
//
//   static constexpr needle::Aggregation kAggregation = needle::Aggregation::kSum;
//   // or Aggregation::kUser together with a member
//   EdgeValue aggregate(const EdgeValue& earlier, const EdgeValue& later) const;
//
// Built-ins work on arithmetic values and, element by element, on std::array of them:
//   sum, min, max, product; or, and (bitwise for integers, logical for bool);
//   first (keeps the earlier), last (keeps the later).
// Entries are combined in the order they were recorded: aggregate(aggregate(e1, e2), e3).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

namespace needle {

enum class Aggregation { kSum, kMin, kMax, kOr, kAnd, kProduct, kFirst, kLast, kUser };

std::string_view AggregationName(Aggregation a);  // "sum", "min", ..., "user"
std::optional<Aggregation> ParseAggregation(std::string_view name);

namespace aggregation_detail {

template <Aggregation A, class T>
T Combine(const T& a, const T& b) {
  if constexpr (A == Aggregation::kFirst) {
    return a;
  } else if constexpr (A == Aggregation::kLast) {
    return b;
  } else if constexpr (A == Aggregation::kSum) {
    return static_cast<T>(a + b);
  } else if constexpr (A == Aggregation::kProduct) {
    return static_cast<T>(a * b);
  } else if constexpr (A == Aggregation::kMin) {
    return std::min(a, b);
  } else if constexpr (A == Aggregation::kMax) {
    return std::max(a, b);
  } else if constexpr (A == Aggregation::kOr) {
    if constexpr (std::is_same_v<T, bool>)
      return a || b;
    else
      return static_cast<T>(a | b);
  } else {
    static_assert(A == Aggregation::kAnd, "kUser needs the program's aggregate()");
    if constexpr (std::is_same_v<T, bool>)
      return a && b;
    else
      return static_cast<T>(a & b);
  }
}

template <Aggregation A, class T, size_t N>
std::array<T, N> Combine(const std::array<T, N>& a, const std::array<T, N>& b) {
  std::array<T, N> out;
  for (size_t i = 0; i < N; ++i) out[i] = Combine<A>(a[i], b[i]);
  return out;
}

}  // namespace aggregation_detail

// Combines an earlier and a later change with the program's aggregation function.
template <class Program, class T>
T Aggregate(const Program& program, const T& earlier, const T& later) {
  if constexpr (Program::kAggregation == Aggregation::kUser) {
    return program.aggregate(earlier, later);
  } else {
    return aggregation_detail::Combine<Program::kAggregation>(earlier, later);
  }
}

}  // namespace needle
