#include "shards/weight_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"

namespace needle {

float CheckNonNegativeWeights(const ShardSet& set, const char* why) {
  if (!set.weighted()) return 1;  // every weight is 1: there are no value files
  float largest = 0;
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
        if (buffer[i] >= 0 && std::isfinite(buffer[i])) {  // false for NaN too
          largest = std::max(largest, buffer[i]);
          continue;
        }
        const float w = buffer[i];
        const char* what = std::isnan(w) ? "not a number" : w < 0 ? "negative" : "not finite";
        char weight[32];
        std::snprintf(weight, sizeof weight, "%g", static_cast<double>(w));
        throw Error::AtByte(path, (first + i) * sizeof(float),
                            std::string("edge weight ") + weight + " is " + what + "; " + why);
      }
    }
  }
  return largest;
}

}  // namespace needle
