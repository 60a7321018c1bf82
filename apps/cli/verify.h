// `needle run --verify`: the graph a shard set was built from, loaded into an in-memory Csr
// exactly as the set was built (format, weights, symmetrised or not), for the app's serial
// oracle (apps/oracles/oracles.h) to recompute the answer the engine's run is compared with.
#pragma once

#include <cstdint>

#include "loaders/csr.h"
#include "shards/shard_set.h"

namespace needle::cli {

// Bytes the check holds at once, about: the input as the loader reads it, the edge list and
// the Csr built from it, the oracle's `values_per_vertex` doubles per vertex and the run's
// values gathered to compare. The engine has freed its buffers by then (Engine::Run()).
uint64_t VerifyBytes(const Manifest& m, uint64_t values_per_vertex, int threads);

// Called before the run, so that a check that cannot be made fails first: throws UsageError
// when VerifyBytes exceeds `memory_bytes` (--verify is for graphs that fit in memory), and
// Error when the set's input is gone or is no longer the file the set was built from (the
// answer would be checked against another graph).
void CheckCanVerify(const ShardSet& set, uint64_t values_per_vertex, uint64_t memory_bytes,
                    int threads);

// The set's input graph as a Csr, read as the set was built. Throws Error as CheckCanVerify.
Csr LoadVerifyGraph(const ShardSet& set, int threads);

}  // namespace needle::cli
