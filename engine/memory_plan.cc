#include "engine/memory_plan.h"

#include <algorithm>
#include <vector>
#include <stdexcept>

#include "engine/interval_io.h"
#include "io/io_backend.h"
#include "shards/intervals.h"
#include "shards/shard_set.h"

namespace needle {

std::string MemoryPlan::Describe() const {
  const std::string buffers =
      transport == TransportChoice::kResident
          ? "shard set in memory " + FormatMiB(shard_data)
          : "interval buffers " + FormatMiB(interval_buffers) + ", scatter buffers " +
                FormatMiB(scatter_buffers);
  const std::string streaming =
      num_streamed == 0 ? std::string()
                        : ", " + std::to_string(num_streamed) + " one-vertex interval" +
                              (num_streamed == 1 ? "" : "s") + " streamed through " +
                              FormatMiB(stream_buffer);
  const std::string dynamic_shards =
      dynamic == 0 ? std::string() : ", delay buffer and dynamic shard builds " + FormatMiB(dynamic);
  const std::string routing =
      (gather == 0 ? std::string() : ", gather buffers " + FormatMiB(gather)) +
      (chunks == 0 ? std::string() : ", page grain marks " + FormatMiB(chunks)) +
      (push == 0 ? std::string() : ", push turns " + FormatMiB(push)) +
      (pull == 0 ? std::string() : ", pull turns " + FormatMiB(pull)) +
      (degrees == 0 ? std::string()
                    : ", degrees in memory " + FormatMiB(degrees) +
                          (degrees_shared ? " (in the builds' room, until the first build)" : "")) +
      (runs == 0 ? std::string()
                 : ", scatter indexes in memory " + FormatMiB(runs) +
                       (runs_shared ? " (in the builds' room, until the first build)" : ""));
  return "memory plan: " + FormatMiB(Total()) + " of " + FormatMiB(budget) + ", transport " +
         std::string(TransportName(transport)) + " (" + buffers + streaming + dynamic_shards + routing +
         ", vertex arrays " +
         FormatMiB(vertex_arrays) + ", tables " + FormatMiB(tables) + ", overhead " +
         FormatMiB(kReservedBytes) + ", vertex values " +
         (!resident ? std::string("on disk")
                    : "in memory " + FormatMiB(resident_values) +
                          (values_shared
                               ? " (in the builds' room, until the first build; then on disk)"
                               : "")) +
         ")";
}

namespace {

// The plan for one transport; vertex values in memory when allowed and within the budget.
MemoryPlan PlanFor(const ShardSet& set, const IntervalIo& io, TransportChoice transport,
                   size_t per_vertex_width, size_t vertex_width, uint64_t budget,
                   bool allow_resident, const std::vector<uint8_t>& streamed = {},
                   uint64_t dynamic_bytes = 0, uint64_t gather_bytes = 0,
                   uint64_t chunk_bytes = 0, uint64_t build_bytes = 0,
                   bool share_values = false) {
  MemoryPlan plan;
  plan.gather = gather_bytes;
  plan.budget = budget;
  plan.transport = transport;
  if (transport == TransportChoice::kStatic) {
    plan.dynamic = dynamic_bytes;
    plan.chunks = chunk_bytes;
  }
  if (transport == TransportChoice::kResident) {
    for (uint32_t p = 0; p < set.num_intervals(); ++p) plan.shard_data += io.IntervalDataBytes(p);
  } else {
    plan.interval_buffers = 2 * io.IntervalDataBytes();
    plan.scatter_buffers = 2 * io.ScatterBytes();
    plan.streamed = streamed;
    plan.num_streamed = static_cast<uint32_t>(std::count(streamed.begin(), streamed.end(), 1));
    if (plan.num_streamed > 0) {
      plan.stream_buffer = StreamBufferBytes(io.values().width());
    }
  }
  const uint64_t largest = set.largest_interval();
  // accumulator + message, touched flag, where its out-edges start in window (p, p) (sweeps,
  // the ordered schedule), and the sweeps' senders by block and in order (frontier) or the
  // ordered schedule's heap (engine/vertex_heap.h)
  plan.vertex_arrays = largest * (per_vertex_width + 1 + sizeof(uint64_t) + 2 * sizeof(uint32_t));
  const uint64_t p = set.num_intervals();
  // window index, edge value file offsets, scatter index offsets; window flags; per-shard state
  plan.tables = EngineTableBytes(p);
  const uint64_t all_values = set.manifest().num_vertices * vertex_width;
  // What only the builds use, lent until the first build; and the budget's headroom that the
  // shared values take until then (Total() counts neither).
  uint64_t room = build_bytes, lent = 0;
  if (allow_resident && plan.Total() + all_values <= budget) {
    plan.resident = true;
    plan.resident_values = all_values;
  } else {
    // VertexStore's two buffers of whole blocks (the interval's values, and the next one's
    // read ahead), and the two blocks around a range that a write reads back
    plan.vertex_arrays += 2 * (AlignUp(largest * vertex_width) + kDirectAlignment) +
                          2 * kDirectAlignment;
    if (share_values && build_bytes > 0 && plan.Total() + all_values <= budget + room) {
      plan.resident = plan.values_shared = true;
      plan.resident_values = all_values;
      const uint64_t from_room = std::min(all_values, room);
      room -= from_room;
      lent = all_values - from_room;
    }
  }
  if (transport == TransportChoice::kStatic) {
    const uint64_t degrees = io.DegreesBytes();
    if (plan.Total() + lent + degrees <= budget) {
      plan.degrees = degrees;
    } else if (degrees <= room && plan.Total() + lent <= budget) {
      plan.degrees = degrees;
      plan.degrees_shared = true;
      room -= degrees;
    }
    const uint64_t runs = io.RunsBytes();
    if (plan.Total() + lent + runs <= budget) {
      plan.runs = runs;
    } else if (runs <= room && plan.Total() + lent <= budget) {
      plan.runs = runs;
      plan.runs_shared = true;
    }
  }
  return plan;
}

}  // namespace

MemoryPlan PlanMemory(const ShardSet& set, IntervalIo& io, size_t per_vertex_width,
                      size_t vertex_width, uint64_t budget, bool allow_resident,
                      TransportChoice transport, bool stream_all, uint64_t dynamic_bytes,
                      uint64_t gather_bytes, uint64_t chunk_bytes, uint64_t build_bytes,
                      bool share_values) {
  if (transport != TransportChoice::kStatic) {
    const MemoryPlan resident = PlanFor(set, io, TransportChoice::kResident, per_vertex_width,
                                        vertex_width, budget, allow_resident, {}, 0,
                                        gather_bytes);
    // auto: resident only with the vertex values in memory too (when they may be), so that
    // nothing is read or written per iteration.
    const bool whole = resident.resident || !allow_resident;
    if (resident.Total() <= budget && (whole || transport == TransportChoice::kResident)) {
      return resident;
    }
    if (transport == TransportChoice::kResident) {
      throw std::invalid_argument("--memory " + FormatMiB(budget) +
                                  " cannot hold this shard set in memory: --transport resident "
                                  "needs --memory " + FormatMiB(resident.Total()) + " or more (" +
                                  resident.Describe() + ")");
    }
  }
  // Intervals of one vertex, costliest first: the ones streaming can take off the buffers.
  const uint32_t n = set.num_intervals();
  std::vector<uint32_t> single;
  std::vector<uint64_t> cost(n, 0);
  for (uint32_t p = 0; p < n; ++p) {
    if (set.interval_end(p) - set.interval_begin(p) != 1) continue;
    single.push_back(p);
    cost[p] = io.IntervalDataBytes(p) + io.ScatterBytes(p);
  }
  std::stable_sort(single.begin(), single.end(),
                   [&](uint32_t a, uint32_t b) { return cost[a] > cost[b]; });
  std::vector<uint8_t> streamed(n, 0);
  size_t next = 0;
  if (stream_all) {
    for (uint32_t p : single) streamed[p] = 1;
    next = single.size();
  }
  io.SetStreamed(streamed);
  MemoryPlan plan = PlanFor(set, io, TransportChoice::kStatic, per_vertex_width, vertex_width,
                            budget, allow_resident, streamed, dynamic_bytes, gather_bytes,
                            chunk_bytes, build_bytes, share_values);
  while (plan.Total() > budget && next < single.size()) {
    streamed[single[next++]] = 1;
    io.SetStreamed(streamed);
    plan = PlanFor(set, io, TransportChoice::kStatic, per_vertex_width, vertex_width, budget,
                   allow_resident, streamed, dynamic_bytes, gather_bytes, chunk_bytes,
                   build_bytes, share_values);
  }
  if (plan.Total() > budget) {
    throw std::invalid_argument("--memory " + FormatMiB(budget) +
                                " is too small for this shard set: give --memory " +
                                FormatMiB(plan.Total()) + " or more (" + plan.Describe() +
                                "), or reshard with a smaller budget");
  }
  return plan;
}

}  // namespace needle
