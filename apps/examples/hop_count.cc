// hop_count: hops from vertex 0 along directed edges — an out-of-tree needle program, and the
// template for your own. It builds against the installed package (find_package(needle)) and
// uses only the public API, as any user program would:
//
//   1. a struct satisfying needle::GasProgram (engine/program.h states the contract);
//   2. needle::ShardGraph (shards/sharder.h) cuts the graph file into a shard set on disk;
//   3. needle::ShardSet::Open checks it, needle::Engine<Program> runs the program over it;
//   4. the values are read with ForEachInterval before the engine is destroyed.
//
// HopCount is min-selection (no extract(), edges carry values): a vertex's value is the fewest
// hops from the source it has heard of, and it offers its out-neighbours one hop more.
// Unreached vertices keep kUnreached (printed as "inf"), which is also identity(): "no news".
//
// Usage: hop_count GRAPH SHARD_DIR   — prints "id<TAB>hops" for every vertex, in id order.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <span>

#include "base/open_files.h"
#include "engine/engine.h"
#include "engine/program.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"

namespace {

struct HopCount {
  using VertexValue = uint32_t;
  using EdgeValue = uint32_t;
  static constexpr needle::Aggregation kAggregation = needle::Aggregation::kMin;
  static constexpr bool kUsesWeights = false;  // hops, not distances: weights are ignored
  static constexpr bool kUsesInDegree = false;  // loads skip in-degrees (program.h)
  static constexpr uint32_t kUnreached = UINT32_MAX;

  needle::VertexId source = 0;

  uint32_t identity() const { return kUnreached; }
  uint32_t init(const needle::VertexContext& v) const { return v.id == source ? 0 : kUnreached; }
  uint32_t gather(uint32_t acc, uint32_t offered, float) const { return std::min(acc, offered); }
  uint32_t apply(const needle::VertexContext&, uint32_t hops, uint32_t heard) const {
    return std::min(hops, heard);
  }
  bool changed(uint32_t old_hops, uint32_t hops) const { return hops < old_hops; }
  uint32_t scatter(const needle::VertexContext&, uint32_t, uint32_t hops) const {
    return hops == kUnreached ? kUnreached : hops + 1;
  }
  // Optional: the fewest hops heard first (breadth-first order inside an interval; without it
  // the engine sweeps, with the same result: engine/program.h, "Ordered schedule").
  uint32_t priority(uint32_t, uint32_t heard) const { return heard; }
};
static_assert(needle::GasProgram<HopCount>);
static_assert(needle::OrderedProgram<HopCount>);

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s GRAPH SHARD_DIR\n", argv[0]);
    return 2;
  }
  // The engine holds a few files per interval open: the soft limit goes up to the hard one.
  needle::RaiseOpenFileLimit();
  try {
    needle::ShardOptions shard;
    shard.out_dir = argv[2];
    shard.costs = needle::IntervalCostsFor(needle::WidthsOf<HopCount>());  // its value widths
    needle::ShardGraph(argv[1], shard);
    const needle::ShardSet set = needle::ShardSet::Open(argv[2]);

    needle::EngineOptions options;
    options.max_iterations = UINT32_MAX;  // min-selection always converges: run until it does
    needle::Engine<HopCount> engine(set, HopCount{}, options);
    const needle::RunSummary summary = engine.Run();
    std::fprintf(stderr, "hop_count: %u iterations\n", summary.iterations);

    engine.ForEachInterval([](needle::VertexId first, std::span<const uint32_t> hops) {
      for (size_t i = 0; i < hops.size(); ++i) {
        const auto id = static_cast<unsigned long>(first + i);
        if (hops[i] == HopCount::kUnreached) {
          std::printf("%lu\tinf\n", id);
        } else {
          std::printf("%lu\t%u\n", id, hops[i]);
        }
      }
    });
  } catch (const std::exception& e) {  // needle::Error names the file, line or byte, errno
    std::fprintf(stderr, "hop_count: %s\n", e.what());
    return 1;
  }
  return 0;
}
