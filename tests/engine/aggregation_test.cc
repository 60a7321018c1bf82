// The aggregation functions a program names for combining several changes of one vertex:
// each built-in on scalars and element-wise on arrays, in recorded order, and a user-defined one.
#include "engine/aggregation.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

namespace needle {
namespace {

template <Aggregation A>
struct Uses {
  static constexpr Aggregation kAggregation = A;
};

// Folds `values` in order, as the delay buffer does with a vertex's entries.
template <Aggregation A, class T>
T Fold(const std::vector<T>& values) {
  T acc = values.front();
  for (size_t i = 1; i < values.size(); ++i) acc = Aggregate(Uses<A>{}, acc, values[i]);
  return acc;
}

TEST(AggregationTest, BuiltInsOnScalars) {
  const std::vector<int> v{5, -2, 9, 3};
  EXPECT_EQ(Fold<Aggregation::kSum>(v), 15);
  EXPECT_EQ(Fold<Aggregation::kMin>(v), -2);
  EXPECT_EQ(Fold<Aggregation::kMax>(v), 9);
  EXPECT_EQ(Fold<Aggregation::kProduct>(v), -270);
  EXPECT_EQ(Fold<Aggregation::kFirst>(v), 5);
  EXPECT_EQ(Fold<Aggregation::kLast>(v), 3);
  const std::vector<uint32_t> bits{0b1100, 0b1010, 0b1001};
  EXPECT_EQ(Fold<Aggregation::kOr>(bits), 0b1111u);
  EXPECT_EQ(Fold<Aggregation::kAnd>(bits), 0b1000u);
  EXPECT_TRUE(Fold<Aggregation::kOr>(std::vector<bool>{false, true, false}));
  EXPECT_FALSE(Fold<Aggregation::kAnd>(std::vector<bool>{true, false, true}));
  EXPECT_FLOAT_EQ(Fold<Aggregation::kSum>(std::vector<float>{0.5f, 0.25f, -1.0f}), -0.25f);
}

TEST(AggregationTest, BuiltInsOnArraysAreElementWise) {
  using A = std::array<float, 3>;
  const std::vector<A> v{{1, 7, 3}, {4, 2, 6}, {0, 5, 9}};
  EXPECT_EQ(Fold<Aggregation::kMin>(v), (A{0, 2, 3}));
  EXPECT_EQ(Fold<Aggregation::kMax>(v), (A{4, 7, 9}));
  EXPECT_EQ(Fold<Aggregation::kSum>(v), (A{5, 14, 18}));
  EXPECT_EQ(Fold<Aggregation::kLast>(v), (A{0, 5, 9}));
}

struct KeepLarger {  // a user-defined aggregation: the change with the larger magnitude
  static constexpr Aggregation kAggregation = Aggregation::kUser;
  double aggregate(double a, double b) const {
    return (a < 0 ? -a : a) >= (b < 0 ? -b : b) ? a : b;
  }
};

TEST(AggregationTest, UserDefined) {
  EXPECT_EQ(Aggregate(KeepLarger{}, 2.0, -3.0), -3.0);
  EXPECT_EQ(Aggregate(KeepLarger{}, Aggregate(KeepLarger{}, 2.0, -3.0), 1.0), -3.0);
}

TEST(AggregationTest, NamesRoundTrip) {
  for (Aggregation a : {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax, Aggregation::kOr,
                        Aggregation::kAnd, Aggregation::kProduct, Aggregation::kFirst,
                        Aggregation::kLast, Aggregation::kUser}) {
    EXPECT_EQ(ParseAggregation(AggregationName(a)), a);
  }
  EXPECT_EQ(AggregationName(Aggregation::kProduct), "product");
  EXPECT_FALSE(ParseAggregation("median").has_value());
}

}  // namespace
}  // namespace needle
