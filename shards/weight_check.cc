#include "shards/weight_check.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"

namespace needle {

void CheckNonNegativeWeights(const ShardSet& set, const char* why) {
  if (!set.weighted()) return;  // every weight is 1: there are no value files
  constexpr size_t kChunk = size_t{1} << 18;
  std::vector<float> buffer(kChunk);
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    const std::string path = set.ValuesPath(p);
    const UniqueFd fd = OpenForReading(path);
    const uint64_t edges = set.header(p).num_edges;
    for (uint64_t first = 0; first < edges; first += kChunk) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, edges - first));
      ReadFully(fd.get(), path, buffer.data(), n * sizeof(float), first * sizeof(float));
      for (size_t i = 0; i < n; ++i) {
        if (buffer[i] >= 0) continue;  // false for NaN too
        char weight[32];
        std::snprintf(weight, sizeof weight, "%g", static_cast<double>(buffer[i]));
        throw Error::AtByte(path, (first + i) * sizeof(float),
                            std::string("edge weight ") + weight + " is " +
                                (std::isnan(buffer[i]) ? "not a number" : "negative") + "; " + why);
      }
    }
  }
}

}  // namespace needle
