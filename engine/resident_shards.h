// ResidentShards: the transport for a shard set that fits in memory. Every interval's memory
// shard (targets, and weights when the program uses them), scatter index and degrees are read
// once, when the run starts; the messages live in one array per shard, laid out like the edge
// value files, and a turn writes window (q, p) of shard q's array in place. Nothing is read
// again and no message is written to disk.
//
// Exactly once: window (q, p) is written at p's turn and read at q's next turn, the same
// schedule as the static windows; as turns run one after another there is nothing in flight to
// patch. A window that carries no message is never read, so clearing a consumed window is
// dropping its flag, and a turn whose vertices did not change writes nothing at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/edge_value_files.h"
#include "engine/interval_io.h"
#include "engine/run_stats.h"
#include "engine/transport.h"
#include "shards/shard_set.h"

namespace needle {

class ResidentShards final : public Transport {
 public:
  // Allocates every interval's buffers (IntervalIo::IntervalDataBytes(p) each); reads them at
  // the first Degrees() or Start(). Read waits are added to stats.io_wait_seconds.
  ResidentShards(const ShardSet& set, IntervalIo& io, const EdgeValueFiles& edges,
                 IterationStats& stats);
  ~ResidentShards() override;

  TransportChoice kind() const override { return TransportChoice::kResident; }
  const IntervalData& Degrees(uint32_t p) override;
  void Start(uint32_t first) override;
  const IntervalData& BeginCompute(uint32_t p, uint32_t next) override;
  void LoadOwnWindow() override {}  // everything is loaded
  std::byte* OutWindow(uint32_t q) override {
    return shards_[q].values.data() + edges_->WindowOffset(q, current_);
  }
  void EndCompute(const uint8_t* carries) override;
  void Clear(uint32_t p) override;
  void Finish() override;
  uint64_t WindowOffset(uint32_t p, uint32_t r) const override {
    return edges_->WindowOffset(p, r);
  }

 private:
  void Load();  // reads the whole set, once

  IntervalIo* io_;
  const EdgeValueFiles* edges_;
  IterationStats* stats_;
  std::vector<IntervalData> shards_;
  bool loaded_ = false;
  uint32_t current_ = kNoInterval;
};

}  // namespace needle
