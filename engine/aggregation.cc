#include "engine/aggregation.h"

#include <array>
#include <utility>

namespace needle {
namespace {

constexpr std::array<std::pair<Aggregation, std::string_view>, 9> kNames{{
    {Aggregation::kSum, "sum"},
    {Aggregation::kMin, "min"},
    {Aggregation::kMax, "max"},
    {Aggregation::kOr, "or"},
    {Aggregation::kAnd, "and"},
    {Aggregation::kProduct, "product"},
    {Aggregation::kFirst, "first"},
    {Aggregation::kLast, "last"},
    {Aggregation::kUser, "user"},
}};

}  // namespace

std::string_view AggregationName(Aggregation a) {
  for (const auto& [value, name] : kNames) {
    if (value == a) return name;
  }
  return "?";
}

std::optional<Aggregation> ParseAggregation(std::string_view name) {
  for (const auto& [value, text] : kNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

}  // namespace needle
