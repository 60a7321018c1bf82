// MemoryPlan: what a run allocates, checked against --memory before anything is read.
//
//   2 × interval buffers   (memory shard targets, messages and weights; window runs; degrees)
//   2 × scatter buffers    (the out-edge messages of an interval, being written back)
//   per-vertex arrays      (accumulator, flags, and the interval's vertex values)
//   index tables           (window index, edge value file offsets)
//   kEngineOverhead        (code, I/O ring, thread stacks, allocator slack)
// and, when the remaining budget holds them, all vertex values in memory (else they are read
// and written interval by interval from a file in the run's work directory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace needle {

class ShardSet;
class IntervalIo;

inline constexpr uint64_t kEngineOverhead = uint64_t{24} << 20;

struct MemoryPlan {
  uint64_t budget = 0;
  uint64_t interval_buffers = 0;  // both
  uint64_t scatter_buffers = 0;   // both
  uint64_t vertex_arrays = 0;
  uint64_t tables = 0;
  uint64_t resident_values = 0;  // 0 when vertex values go through a file
  bool resident = false;
  uint64_t Total() const {
    return interval_buffers + scatter_buffers + vertex_arrays + tables + resident_values +
           kEngineOverhead;
  }
  std::string Describe() const;  // one line
};

// Throws std::invalid_argument, with the figures, when the largest interval does not fit.
// per_vertex_width: the accumulator and outgoing message of one vertex.
// allow_resident: keep all vertex values in memory when they fit.
MemoryPlan PlanMemory(const ShardSet& set, const IntervalIo& io, size_t per_vertex_width,
                      size_t vertex_width, uint64_t budget, bool allow_resident = true);

}  // namespace needle
