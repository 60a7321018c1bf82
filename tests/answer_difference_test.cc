// needle compare's check of two runs' answers (apps/cli/answer_difference.h): exact answers
// equal or not, ranks by their largest relative difference, and files that cannot be compared
// value for value always far apart — never "agrees" for a missing, short or unreadable answer.
#include "apps/cli/answer_difference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/test_util.h"

namespace needle::cli {
namespace {

class AnswerDifferenceTest : public testing::WithTempDir<> {
 protected:
  std::string Answer(const std::string& name, const std::string& text) {
    const std::string path = File(name);
    testing::WriteFile(path, text);
    return path;
  }
};

TEST_F(AnswerDifferenceTest, ExactAnswersAreEqualOrNot) {
  const std::string a = Answer("a", "# needle cc\nvertex\tlabel\n0\t0\n1\t0\n2\t2\n");
  const std::string same = Answer("same", "vertex\tlabel\n0\t0\n1\t0\n2\t2\n");  // no comment
  const std::string other = Answer("other", "vertex\tlabel\n0\t0\n1\t1\n2\t2\n");
  EXPECT_EQ(AnswerDifference(a, same, false), 0.0);
  EXPECT_EQ(AnswerDifference(a, other, false), 1.0);
  EXPECT_EQ(AnswerDifference(other, a, false), 1.0);
}

TEST_F(AnswerDifferenceTest, RanksByTheirLargestRelativeDifference) {
  const std::string a = Answer("a", "vertex\trank\n0\t0.5\n1\t0.25\n2\t0.25\n");
  const std::string b = Answer("b", "vertex\trank\n0\t0.5\n1\t0.2\n2\t0.2625\n");
  EXPECT_DOUBLE_EQ(AnswerDifference(a, b, true), 0.2);  // vertex 1: 0.05 of 0.25
  EXPECT_EQ(AnswerDifference(a, a, true), 0.0);
  EXPECT_EQ(AnswerDifference(a, b, false), 1.0);
}

TEST_F(AnswerDifferenceTest, WhatCannotBeComparedIsFarApart) {
  const std::string a = Answer("a", "vertex\trank\n0\t0.5\n1\t0.5\n");
  const struct {
    const char* name;
    std::string text;
  } others[] = {
      {"shorter", "vertex\trank\n0\t0.5\n"},
      {"longer", "vertex\trank\n0\t0.5\n1\t0.5\n2\t0.5\n"},
      {"empty", ""},
      {"other vertex", "vertex\trank\n0\t0.5\n2\t0.5\n"},
      {"not a number", "vertex\trank\n0\t0.5\n1\tnan\n"},
      {"infinite", "vertex\trank\n0\t0.5\n1\tinf\n"},
      {"no rank", "vertex\trank\n0\t0.5\n1\n"},
      {"text after the rank", "vertex\trank\n0\t0.5\n1\t0.5x\n"},
      {"out of range", "vertex\trank\n0\t0.5\n1\t1e999\n"},
  };
  for (const auto& other : others) {
    SCOPED_TRACE(other.name);
    const std::string b = Answer("b", other.text);
    EXPECT_TRUE(std::isinf(AnswerDifference(a, b, true)));
    EXPECT_TRUE(std::isinf(AnswerDifference(b, a, true)));
  }
  // Exact answers: a different count of vertices is as far apart, however the lines compare.
  const std::string labels = Answer("labels", "vertex\tlabel\n0\t0\n1\t0\n");
  const std::string fewer = Answer("fewer", "vertex\tlabel\n0\t0\n");
  EXPECT_TRUE(std::isinf(AnswerDifference(labels, fewer, false)));
  EXPECT_TRUE(std::isinf(AnswerDifference(labels, File("missing"), false)));
  EXPECT_TRUE(std::isinf(AnswerDifference(File("missing"), labels, true)));
}

}  // namespace
}  // namespace needle::cli
