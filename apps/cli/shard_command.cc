// needle shard: a graph file → a shard set within --memory (reused when it still matches).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/cli/cli_common.h"
#include "apps/cli/commands.h"
#include "apps/cli/memory_option.h"
#include "apps/cli/sharding.h"
#include "engine/run_stats.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"

namespace needle::cli {

int RunShard(const std::vector<std::string>& args) {
  std::string input;
  MemorySize memory{uint64_t{1} << 30};
  std::string io = "auto";
  GraphInputOptions input_options;
  ShardOptions shard;
  po::options_description options("shard options");
  auto add = options.add_options();
  add("input", po::value(&input)->required(), "graph file");
  const MemoryLimits machine = MachineMemory();
  AddMemoryOption(options, memory, machine,
                  "memory budget (e.g. 512M, 4G): sizes the intervals and bounds the sharder");
  add("out,o", po::value(&shard.out_dir),
      "shard set directory (default: GRAPH.shards; GRAPH.sym.shards with --symmetrize)");
  std::string shards_dir;
  add("shards-dir", po::value(&shards_dir),
      "put the set in this directory, named after GRAPH (DIR/NAME.shards; give the same "
      "--shards-dir to needle run); instead of --out");
  add("symmetrize", po::bool_switch(&shard.symmetrize),
      "shard every edge u->v also as v->u (a self-loop once), e.g. for connected components");
  add("order", po::value(&shard.order)->default_value(kInputOrder),
      "how the set numbers the vertices: input (the input's ids) or bfs (breadth-first over "
      "the edges both ways, so that an interval holds a region of the graph: fewer iterations "
      "on road networks; holds the graph in memory once; -> GRAPH.bfs.shards). Runs still "
      "read and write input ids");
  int64_t intervals = 0;  // signed, so that a negative count is refused rather than wrapped
  add("intervals", po::value(&intervals)->default_value(0),
      "cut into this many intervals (GraphChi's nshards; 0: the fewest that fit --memory); "
      "refused when they do not fit");
  add("force", po::bool_switch(&shard.force), "rebuild even if a matching shard set exists");
  add("io", po::value(&io)->default_value("auto"),
      "I/O backend for the shard files: auto, uring, pread");
  CacheChoice cache;
  AddCacheOptions(options, cache);
  Verbosity verbosity;
  AddVerbosityOptions(options, verbosity, "the interval rule");
  AddGraphInputOptions(options, input_options);
  po::positional_options_description positional;
  positional.add("input", 1);
  if (!ParseCommandLine(args,
                        "needle shard GRAPH [--memory SIZE] [-o|--out DIR] [--symmetrize] "
                        "[options]\n\n"
                        "examples:\n"
                        "  needle shard web.txt.gz --memory 2G            (-> web.txt.gz.shards)\n"
                        "  needle shard roads.gr --symmetrize --shards-dir sets/\n"
                        "  needle shard roads.gr --symmetrize --order bfs\n"
                        "                          (-> roads.gr.sym.bfs.shards)\n\n"
                        "Cuts GRAPH into intervals whose shards fit --memory (each interval's "
                        "in-edges, their\nmessages and out-edge runs; a 24 MiB reserve), "
                        "reuses a set that still matches GRAPH\nand these options, and "
                        "prints the rule it applied.",
                        options, positional)) {
    return 0;
  }
  CheckVerbosity(verbosity);
  CheckMemoryBudget(memory.bytes, machine, stderr);
  ApplyInputOptions(input_options, shard);
  std::FILE* say = MessagesTo(stdout, verbosity);
  if (shard.out_dir == "-") {
    throw UsageError("--out -: a shard set is a directory, which standard output cannot hold");
  }
  if (!shards_dir.empty() && !shard.out_dir.empty()) {
    throw UsageError("give --out or --shards-dir, not both");
  }
  if (shard.out_dir.empty()) {
    shard.out_dir =
        DefaultShardDir(ShardsPrefix(input, shards_dir, say), shard.symmetrize, shard.order);
  }
  shard.memory_bytes = memory.bytes;
  if (!IsVertexOrder(shard.order)) {
    throw UsageError("--order must be input or bfs, not '" + shard.order + "'");
  }
  if (intervals < 0 || static_cast<uint64_t>(intervals) > kMaxIntervals) {
    throw UsageError("--intervals must be from 0 (the fewest that fit) to " +
                     std::to_string(kMaxIntervals) + ", not " + std::to_string(intervals));
  }
  shard.intervals = static_cast<uint32_t>(intervals);
  shard.io.direct = ToCachePolicy(cache).direct_shard_writes;
  try {
    shard.io.kind = ParseIoKind(io);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--io: ") + e.what());
  }
  ShardReport report = ShardWithProgress(input, shard, say, verbosity);
  const Manifest& m = report.manifest;
  if (report.reused) return 0;
  std::fprintf(
      say, "sharded %s -> %s: %llu vertices, %llu edges%s, %s, %s written (%s) in %.2f s\n",
      input.c_str(), report.dir.c_str(), static_cast<unsigned long long>(m.num_vertices),
      static_cast<unsigned long long>(m.num_edges), m.choices.symmetrize ? " (symmetrized)" : "",
      Count(m.num_intervals(), "interval").c_str(),
      HumanBytes(static_cast<double>(report.bytes_written)).c_str(),
      report.io_backend.c_str(), report.seconds);
  std::fprintf(say, "passes: read+bucket %.2f s, sort+write %.2f s; peak RSS %s of --memory %s\n",
              report.read_seconds, report.write_seconds,
              BinaryBytes(static_cast<double>(PeakRssBytes())).c_str(),
              BinaryBytes(static_cast<double>(shard.memory_bytes)).c_str());
  return 0;
}

}  // namespace needle::cli
