// Checks on the input weights a shard set holds, for programs that need them in a range
// (shortest paths need non-negative weights).
#pragma once

#include "shards/shard_set.h"

namespace needle {

// Throws Error naming the shard's value file, the byte offset and the weight when any edge
// weight of `set` is negative, infinite or NaN; else returns the largest weight. Reads every
// value file of a weighted set once; an unweighted set has none (every weight is 1) and
// passes without a read.
float CheckNonNegativeWeights(const ShardSet& set, const char* why);

}  // namespace needle
