// needle run APP GRAPH|SHARDDIR: runs pagerank, cc or mssp on a shard set (sharding GRAPH first,
// or reusing its shard set), then writes the values, the statistics and a summary.
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <vector>

#include "apps/cli/cli_common.h"
#include "apps/cli/commands.h"
#include "apps/cli/run_output.h"
#include "apps/cli/sharding.h"
#include "apps/programs/connected_components.h"
#include "apps/programs/pagerank.h"
#include "apps/programs/shortest_paths.h"
#include "engine/engine.h"
#include "loaders/output_file.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"
#include "shards/weight_check.h"

namespace needle::cli {
namespace {

constexpr size_t kMaxSources = 32;

struct RunConfig {
  std::string app;
  std::string input;
  Whole<uint32_t> iterations;  // when given: at most this many iterations
  bool iterations_given = false;
  Real tolerance{1e-4};
  MemorySize memory{uint64_t{1} << 30};
  std::string io = "auto";
  bool direct = false;
  std::string transport = "auto";
  Whole<uint32_t> inner_passes{kDefaultInnerPasses};
  bool skip_verify = false;
  std::string out;
  std::string stats;
  Whole<uint32_t> top;
  std::string sources;
  Whole<uint32_t> num_sources;
  bool sources_given = false;
  GraphInputOptions input_options;
  std::FILE* say = stdout;  // messages for people: stderr when an output is stdout
};

// What a run writes, opened before any work so that a bad path fails at once.
struct RunOutputs {
  std::optional<OutputFile> values;  // --out
  RunReporter reporter;              // --stats
};

// The shard set to run on: INPUT itself when it is one, else INPUT's (re)built shard set.
// out_dir: where to shard GRAPH (empty: the default directory).
ShardSet OpenOrShard(const RunConfig& c, uint64_t memory, bool symmetrize,
                     const IntervalCosts& costs, const std::string& out_dir, const IoOptions& io) {
  namespace fs = std::filesystem;
  if (fs::is_directory(c.input)) {
    ShardSet set = ShardSet::Open(c.input, !c.skip_verify);
    if (symmetrize && !set.manifest().choices.symmetrize) {
      throw std::invalid_argument(c.input + " is not symmetrized; " + c.app +
                                  " follows edges both ways: shard with 'needle shard GRAPH "
                                  "--symmetrize' or give the graph file");
    }
    return set;
  }
  ShardOptions shard;
  shard.memory_bytes = memory;
  ApplyInputOptions(c.input_options, shard);
  shard.symmetrize = symmetrize;
  shard.costs = costs;
  shard.out_dir = out_dir;
  shard.io = io;
  shard.io.direct = true;  // written once and fsynced: see ShardOptions::io
  shard.reuse_smaller_budget = true;
  shard.keep_open = true;
  ShardReport report = ShardWithProgress(c.input, shard, c.say);
  if (!report.reused) {
    std::fprintf(c.say, "sharded %s -> %s (%u intervals) in %.2f s\n", c.input.c_str(),
                 report.dir.c_str(), report.manifest.num_intervals(), report.seconds);
  }
  return std::move(*report.set);  // just written or verified, and locked since
}

// Whether paths `a` and `b` name one file (after symlinks), existing or not.
bool SameFile(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  struct stat sa {
  }, sb{};
  if (stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  std::error_code ec;
  return fs::weakly_canonical(FollowSymlinks(a), ec) == fs::weakly_canonical(FollowSymlinks(b), ec);
}

// Outputs that would overwrite each other or the input are refused before anything starts.
void CheckOutputPaths(const RunConfig& c) {
  auto is_descriptor = [](const std::string& p) {
    return p == "-" || p.rfind("/dev/", 0) == 0 || p.rfind("/proc/", 0) == 0;
  };
  for (const std::string* out : {&c.out, &c.stats}) {
    if (out->empty() || is_descriptor(*out)) continue;
    if (SameFile(*out, c.input)) {
      throw UsageError(*out + " is the input: an output must not replace it");
    }
  }
  if (!c.out.empty() && !c.stats.empty() && !is_descriptor(c.out) && SameFile(c.out, c.stats)) {
    throw UsageError("--out and --stats name the same file (" + c.out + ")");
  }
}

template <class Program, class Format, class Top>
int RunProgram(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
               RunOutputs& outputs, Program program, Format format, Top top) {
  EngineOptions o = options;
  o.on_iteration = [&](const IterationStats& s) { outputs.reporter.Iteration(s); };
  Engine<Program> engine(set, std::move(program), o);
  RunSummary summary = engine.Run();
  summary.program = c.app;
  outputs.reporter.Finish(summary);
  std::fprintf(c.say, "%s: %s\n", c.app.c_str(), DescribeRun(summary).c_str());
  if (OutputFile* out = outputs.values ? &*outputs.values : nullptr) {
    // A run stopped before it converged says so in the file's first line, not only here.
    if (!summary.converged) out->Write("# " + NotConvergedMarker(c.app, summary) + "\n");
    std::string line;
    engine.ForEachInterval([&](VertexId first, std::span<const typename Program::VertexValue> v) {
      for (size_t i = 0; i < v.size(); ++i) {
        line = std::to_string(first + i);
        format(v[i], line);
        line += '\n';
        out->Write(line);
      }
    });
    out->Commit();
    if (!out->is_stdout()) std::fprintf(c.say, "wrote %s\n", out->path().c_str());
  }
  if (c.top.value > 0) top(engine);
  if (!summary.converged) {
    std::fprintf(stderr, "needle: %s\n", NotConvergedMarker(c.app, summary).c_str());
    return 3;
  }
  return 0;
}

void AppendNumber(std::string& line, double value) {
  char buf[32];
  if (value == std::numeric_limits<double>::infinity()) {
    line += "\tinf";
    return;
  }
  std::snprintf(buf, sizeof buf, "\t%.9g", value);
  line += buf;
}

int RunPageRank(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
                RunOutputs& outputs) {
  apps::PageRank program;
  program.tolerance = static_cast<float>(c.tolerance.value);
  using Value = apps::PageRank::VertexValue;
  return RunProgram(
      c, set, options, outputs, program,
      [](const Value& v, std::string& line) { AppendNumber(line, v.rank); },
      [&](Engine<apps::PageRank>& engine) {
        using Entry = std::pair<double, VertexId>;  // min-heap of the best K
        std::priority_queue<Entry, std::vector<Entry>, std::greater<>> best;
        engine.ForEachInterval([&](VertexId first, std::span<const Value> v) {
          for (size_t i = 0; i < v.size(); ++i) {
            best.emplace(v[i].rank, static_cast<VertexId>(first + i));
            if (best.size() > c.top.value) best.pop();
          }
        });
        std::vector<Entry> sorted;
        for (; !best.empty(); best.pop()) sorted.push_back(best.top());
        std::fprintf(c.say, "top %u vertices by rank:\n", c.top.value);
        for (auto it = sorted.rbegin(); it != sorted.rend(); ++it) {
          std::fprintf(c.say, "  %u\t%.9g\n", it->second, it->first);
        }
      });
}

int RunComponents(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
                  RunOutputs& outputs) {
  return RunProgram(
      c, set, options, outputs, apps::ConnectedComponents{},
      [](uint32_t label, std::string& line) { line += '\t' + std::to_string(label); },
      [&](Engine<apps::ConnectedComponents>& engine) {
        std::vector<uint32_t> size(set.manifest().num_vertices, 0);
        engine.ForEachInterval([&](VertexId, std::span<const uint32_t> labels) {
          for (uint32_t label : labels) ++size[label];
        });
        std::vector<std::pair<uint32_t, VertexId>> components;
        for (VertexId v = 0; v < size.size(); ++v) {
          if (size[v] > 0) components.emplace_back(size[v], v);
        }
        const size_t k = std::min<size_t>(c.top.value, components.size());
        std::partial_sort(components.begin(), components.begin() + k, components.end(),
                          [](const auto& a, const auto& b) {
                            return a.first != b.first ? a.first > b.first : a.second < b.second;
                          });
        std::fprintf(c.say, "%zu components; the %zu largest (label = smallest vertex id):\n",
                     components.size(), k);
        for (size_t i = 0; i < k; ++i) {
          std::fprintf(c.say, "  %u\t%u vertices\n", components[i].second, components[i].first);
        }
      });
}

// --sources "0,5,9": ids, digits only, no repeats (checked before anything is sharded).
std::vector<uint64_t> ParseSources(const std::string& text) {
  std::vector<uint64_t> ids;
  size_t at = 0;
  while (true) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const bool digits =
        !item.empty() && item.size() <= 10 &&
        std::all_of(item.begin(), item.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!digits) throw UsageError("--sources: '" + item + "' is not a vertex id");
    const uint64_t id = std::stoull(item);
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
      throw UsageError("--sources: " + item + " is given twice");
    }
    ids.push_back(id);
    if (comma == text.size()) break;
    at = comma + 1;
  }
  if (ids.size() > kMaxSources) {
    throw UsageError("mssp takes at most " + std::to_string(kMaxSources) + " sources");
  }
  return ids;
}

std::vector<VertexId> PickSources(const RunConfig& c, uint64_t num_vertices) {
  std::vector<VertexId> sources;
  if (c.sources_given) {
    for (uint64_t id : ParseSources(c.sources)) {
      if (id >= num_vertices) {
        throw UsageError("--sources: " + std::to_string(id) + " is not a vertex id below " +
                         std::to_string(num_vertices));
      }
      sources.push_back(static_cast<VertexId>(id));
    }
  } else {
    const uint64_t k = c.num_sources.value == 0 ? 1 : c.num_sources.value;
    if (num_vertices == 0) throw UsageError("mssp needs a source, and the graph has no vertices");
    if (k > num_vertices) throw UsageError("--num-sources is larger than the vertex count");
    for (uint64_t i = 0; i < k; ++i) sources.push_back(static_cast<VertexId>(i * num_vertices / k));
  }
  return sources;
}

template <size_t K>
int RunPaths(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
             RunOutputs& outputs, const std::vector<VertexId>& sources) {
  apps::ShortestPaths<K> program;
  program.sources.fill(kNoVertex);
  std::copy(sources.begin(), sources.end(), program.sources.begin());
  const size_t used = sources.size();
  using Value = typename apps::ShortestPaths<K>::VertexValue;
  return RunProgram(
      c, set, options, outputs, program,
      [used](const Value& d, std::string& line) {
        for (size_t k = 0; k < used; ++k) AppendNumber(line, d[k]);
      },
      [&](Engine<apps::ShortestPaths<K>>& engine) {
        std::vector<std::pair<uint64_t, double>> reach(used, {0, 0.0});  // count, farthest
        engine.ForEachInterval([&](VertexId, std::span<const Value> values) {
          for (const Value& d : values) {
            for (size_t k = 0; k < used; ++k) {
              if (d[k] == apps::ShortestPaths<K>::kInfinity) continue;
              ++reach[k].first;
              reach[k].second = std::max<double>(reach[k].second, d[k]);
            }
          }
        });
        std::vector<size_t> order(used);
        for (size_t k = 0; k < used; ++k) order[k] = k;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return reach[a].first > reach[b].first; });
        order.resize(std::min<size_t>(c.top.value, used));
        std::fprintf(c.say, "sources by reach count:\n");
        for (size_t k : order) {
          std::fprintf(c.say, "  %u\treaches %llu vertices, farthest at distance %.9g\n",
                       sources[k], static_cast<unsigned long long>(reach[k].first),
                       reach[k].second);
        }
      });
}

int RunShortestPaths(const RunConfig& c, const ShardSet& set, const EngineOptions& options,
                     RunOutputs& outputs) {
  CheckNonNegativeWeights(
      set, ("mssp needs non-negative weights (input " + set.manifest().input.path + ")").c_str());
  const std::vector<VertexId> sources = PickSources(c, set.manifest().num_vertices);
  std::fprintf(c.say, "mssp: %zu source%s:", sources.size(), sources.size() == 1 ? "" : "s");
  for (VertexId s : sources) std::fprintf(c.say, " %u", s);
  std::fprintf(c.say, "\n");
  switch (sources.size()) {
    case 1:
      return RunPaths<1>(c, set, options, outputs, sources);
    case 2:
      return RunPaths<2>(c, set, options, outputs, sources);
    case 3:
    case 4:
      return RunPaths<4>(c, set, options, outputs, sources);
    case 5:
    case 6:
    case 7:
    case 8:
      return RunPaths<8>(c, set, options, outputs, sources);
    default:
      if (sources.size() <= 16) return RunPaths<16>(c, set, options, outputs, sources);
      return RunPaths<kMaxSources>(c, set, options, outputs, sources);
  }
}

// The per-edge and per-vertex bytes `needle run` plans intervals with, so that a program with
// wide values still fits --memory: the sharder's defaults unless the program needs more.
IntervalCosts CostsFor(size_t edge_bytes, size_t accumulator_bytes, size_t vertex_bytes,
                       bool weights) {
  IntervalCosts costs;
  const uint64_t in_edge = 4 + edge_bytes + (weights ? 4 : 0);
  const uint64_t out_edge = sizeof(SourceRun) + edge_bytes;
  const uint64_t vertex = 8 + accumulator_bytes + edge_bytes + 1 + vertex_bytes;
  if (in_edge > costs.in_edge || out_edge > costs.out_edge) {  // the per-vertex part has slack
    costs.in_edge = std::max(costs.in_edge, in_edge);
    costs.out_edge = std::max(costs.out_edge, out_edge);
    costs.vertex = std::max(costs.vertex, vertex);
  }
  return costs;
}

}  // namespace

int RunRun(const std::vector<std::string>& args) {
  RunConfig c;
  std::string io;
  po::options_description options("run options");
  auto add = options.add_options();
  add("app", po::value(&c.app)->required(), "pagerank, cc or mssp");
  add("input", po::value(&c.input)->required(), "graph file or shard set directory");
  add("iters", po::value(&c.iterations),
      "stop after this many iterations even if not converged (default: run until converged; "
      "a run stopped before converging exits with status 3 and its --out says so)");
  add("tolerance", po::value(&c.tolerance)->default_value(Real{1e-4}, "1e-4"),
      "pagerank: a vertex sends when its rank moved by more than this fraction since it last "
      "sent; the run stops when none does");
  add("memory", po::value(&c.memory)->default_value(MemorySize{uint64_t{1} << 30}, "1G"),
      "memory budget for sharding and for the run (e.g. 512M, 4G)");
  add("io", po::value(&io)->default_value("auto"), "I/O backend: auto, uring, pread");
  add("direct", po::bool_switch(&c.direct), "read and write shard files with O_DIRECT");
  add("transport", po::value(&c.transport)->default_value("auto"),
      "how messages move: resident (the shard set is read once and the run stays in memory), "
      "static (every iteration reads the shards and writes messages to disk), or auto: "
      "resident when --memory holds the set");
  add("inner-passes",
      po::value(&c.inner_passes)
          ->default_value(Whole<uint32_t>{kDefaultInnerPasses}, std::to_string(kDefaultInnerPasses)),
      "asynchronous intervals: recompute an interval on the messages its vertices sent each "
      "other, at most this many extra times per turn (0: one pass per turn)");
  add("out", po::value(&c.out),
      "write one line per vertex: id<TAB>value (FILE, a device or FIFO, or - for stdout)");
  add("stats", po::value(&c.stats), "write per-iteration statistics as JSON lines");
  add("top", po::value(&c.top)->default_value(Whole<uint32_t>{0}, "0"),
      "print the K highest ranks / largest components / sources by reach");
  add("sources", po::value(&c.sources), "mssp: comma-separated source ids (at most 32)");
  add("num-sources", po::value(&c.num_sources)->default_value(Whole<uint32_t>{0}, "0"),
      "mssp: K sources spread evenly over the ids (i * V / K), when --sources is not given");
  add("skip-verify", po::bool_switch(&c.skip_verify),
      "do not checksum a given shard set's files before the run (sizes and structure are "
      "still checked)");
  AddGraphInputOptions(options, c.input_options);
  po::positional_options_description positional;
  positional.add("app", 1).add("input", 1);
  const std::optional<po::variables_map> given =
      ParseCommandLine(args,
                       "needle run pagerank|cc|mssp GRAPH|SHARDDIR [--memory 1G] [--out FILE] "
                       "[--stats FILE] [options]",
                       options, positional);
  if (!given) return 0;
  if (c.app != "pagerank" && c.app != "cc" && c.app != "mssp") {
    throw UsageError("unknown app '" + c.app + "' (pagerank, cc, mssp)");
  }
  ToReadOptions(c.input_options);  // checked now, also when the input is a shard set
  if (c.tolerance.value < 1e-6 || c.tolerance.value > 1) {
    throw UsageError(
        "--tolerance must be from 1e-6 to 1 (below 1e-6, float messages cannot "
        "settle and a run may never converge)");
  }
  CheckOutputPaths(c);
  // What was given comes from the parsed options: Boost also takes unambiguous prefixes
  // (--source for --sources, --iter for --iters).
  c.sources_given = given->count("sources") > 0;
  c.iterations_given = given->count("iters") > 0;
  if (c.sources_given && c.num_sources.value != 0) {
    throw UsageError("give --sources or --num-sources, not both");
  }
  if (c.app != "mssp" && (c.sources_given || c.num_sources.value != 0)) {
    throw UsageError("--sources and --num-sources are for mssp");
  }
  if (c.num_sources.value > kMaxSources) {
    throw UsageError("mssp takes at most " + std::to_string(kMaxSources) + " sources");
  }
  const size_t num_sources =
      c.sources_given ? ParseSources(c.sources).size() : std::max<size_t>(c.num_sources.value, 1);
  // The outputs exist (as temporaries) before any work: a bad path fails now.
  RunOutputs outputs{std::nullopt, RunReporter(c.stats, c.app)};
  if (!c.out.empty()) outputs.values.emplace(c.out);
  const bool values_to_stdout = outputs.values && outputs.values->is_stdout();
  if (values_to_stdout && outputs.reporter.is_stdout()) {
    throw UsageError("--out and --stats cannot both be standard output");
  }
  if (values_to_stdout || outputs.reporter.is_stdout()) c.say = stderr;  // stdout is data
  EngineOptions engine;
  engine.memory_bytes = c.memory.bytes;
  if (c.iterations_given) engine.max_iterations = c.iterations.value;
  engine.threads = static_cast<int>(c.input_options.threads.value);
  try {
    engine.io.kind = ParseIoKind(io);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--io: ") + e.what());
  }
  engine.io.direct = c.direct;
  try {
    engine.transport = ParseTransport(c.transport);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--transport ") + e.what());
  }
  engine.max_inner_passes = c.inner_passes.value;
  std::FILE* say = c.say;
  engine.log = [say](const std::string& line) {
    std::fprintf(say, "%s\n", line.c_str());
    std::fflush(say);
  };
  // mssp's values are 4 bytes per source: its intervals are planned for that, in a shard set
  // of its own (GRAPH.mssp-K.shards), so that the other apps' set stays as it is.
  IntervalCosts costs;
  std::string out_dir;
  if (c.app == "mssp") {
    const size_t slots = std::bit_ceil(num_sources);
    costs = CostsFor(4 * slots, 4 * slots, 4 * slots, /*weights=*/true);
    if (!costs.is_default()) out_dir = c.input + ".mssp-" + std::to_string(slots) + ".shards";
  }
  const ShardSet set =
      OpenOrShard(c, engine.memory_bytes, c.app == "cc", costs, out_dir, engine.io);
  if (c.app == "pagerank") return RunPageRank(c, set, engine, outputs);
  if (c.app == "cc") return RunComponents(c, set, engine, outputs);
  return RunShortestPaths(c, set, engine, outputs);
}

}  // namespace needle::cli
