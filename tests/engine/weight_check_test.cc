// The weight check shortest paths run before they start (shards/weight_check.h): the largest
// weight of a set whose weights are all finite and non-negative, else the value file and byte
// of the first that is not — negative, NaN or infinite (a set sharded from text never holds
// the last two, but a set's files can be changed under --skip-verify).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include "base/error.h"
#include "engine_test_util.h"
#include "shards/weight_check.h"

namespace needle {
namespace {

class WeightCheckTest : public WithTempDir<::testing::Test> {};

TEST_F(WeightCheckTest, ReturnsTheLargestWeightOrNamesTheFirstThatIsNotFiniteAndNonNegative) {
  const std::string input = File("w.txt");
  WriteFile(input, "0 1 2.5\n1 2 7\n2 0 0\n2 1 0.5\n");
  const ShardSet set = ShardInto(input, File("w.shards"), 1);
  EXPECT_EQ(CheckNonNegativeWeights(set, "why"), 7.0f);

  const std::string values = set.ValuesPath(0);
  const std::string original = testing::ReadFile(values);
  const float bad[] = {-1.0f, std::numeric_limits<float>::quiet_NaN(),
                       std::numeric_limits<float>::infinity()};
  const char* said[] = {"is negative", "is not a number", "is not finite"};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(said[i]);
    std::string bytes = original;
    std::memcpy(bytes.data() + 8, &bad[i], 4);  // the third edge's weight
    WriteFile(values, bytes);
    try {
      CheckNonNegativeWeights(set, "mssp needs them");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.path(), values);
      EXPECT_EQ(e.byte_offset(), 8u);
      EXPECT_NE(std::string(e.what()).find(said[i]), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("mssp needs them"), std::string::npos) << e.what();
    }
  }
  WriteFile(values, original);

  // An unweighted set: every weight is 1, and nothing is read.
  const std::string plain = File("p.txt");
  WriteFile(plain, "0 1\n1 2\n");
  EXPECT_EQ(CheckNonNegativeWeights(ShardInto(plain, File("p.shards"), 1), "why"), 1.0f);
}

}  // namespace
}  // namespace needle
