// needle run APP GRAPH|SHARDDIR: parses the options, opens or builds the shard set the app
// needs (app_table.h), and hands both to the app, which runs and writes its results.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "apps/cli/app_table.h"
#include "apps/cli/cli_common.h"
#include "apps/cli/commands.h"
#include "apps/cli/memory_option.h"
#include "apps/cli/option_effects.h"
#include "apps/cli/output_paths.h"
#include "apps/cli/run_config.h"
#include "apps/cli/sharding.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"

namespace needle::cli {
namespace {

// The shard set to run on: INPUT itself when it is one, else INPUT's (re)built shard set: the
// one next to GRAPH (or in --shards-dir, or the cache), or one needle shard wrote elsewhere,
// when it matches; else a new one.
ShardSet OpenOrShard(const RunConfig& c, uint64_t memory, bool symmetrize,
                     const ShardNeeds& needs, bool dynamic, const IoOptions& io) {
  const IntervalCosts& costs = needs.costs;
  std::string suffix =
      !needs.suffix.empty() ? needs.suffix : symmetrize ? ".sym.shards" : ".shards";
  if (c.order != kInputOrder) suffix.insert(suffix.size() - 7, "." + c.order);  // .bfs.shards
  namespace fs = std::filesystem;
  if (fs::is_directory(c.input)) {
    if (c.intervals.value != 0) {
      throw UsageError("--intervals cuts a graph file as needle run shards it; " + c.input +
                       " is a shard set (cut it anew with 'needle shard GRAPH --intervals N')");
    }
    if (c.order != kInputOrder) {
      throw UsageError("--order numbers a graph file's vertices as needle run shards it; " +
                       c.input + " is a shard set (shard anew with 'needle shard GRAPH --order " +
                       c.order + "')");
    }
    if (c.input_options.format != "auto") {
      throw UsageError("--format says how to read a graph file; " + c.input +
                       " is a shard set, read as one");
    }
    if (!c.shards_dir.empty()) {
      throw UsageError("--shards-dir says where a graph file's shard sets are; " + c.input +
                       " is a shard set itself");
    }
    if (c.room_for_dynamic) {
      std::fprintf(c.say,
                   "note: --room-for-dynamic has no effect on a shard set: it plans the "
                   "intervals when needle run shards a graph file\n");
    }
    // --weights chooses what is sharded from a graph file; a set holds what it was given
    // (told from its manifest, before its files are checksummed).
    const WeightMode weights = ToReadOptions(c.input_options).weights;
    if (weights != WeightMode::kAuto) {
      const bool weighted = ReadManifest(c.input).weighted;
      if (weighted != (weights == WeightMode::kWeighted)) {
        throw UsageError("--weights " + c.input_options.weights + ": " + c.input + " is " +
                         (weighted ? "weighted" : "unweighted") +
                         " (shard anew with 'needle shard GRAPH --weights " +
                         c.input_options.weights + "', or give the graph file)");
      }
    }
    ShardSet set = ShardSet::Open(c.input, !c.skip_verify);
    if (symmetrize && !set.manifest().choices.symmetrize) {
      throw std::invalid_argument(c.input + " is not symmetrized; " + c.app +
                                  (c.symmetrize ? " --symmetrize" : "") +
                                  " follows edges both ways: shard with 'needle shard GRAPH "
                                  "--symmetrize' or give the graph file");
    }
    if (!symmetrize && set.manifest().choices.symmetrize) {
      std::fprintf(c.say,
                   "note: %s is symmetrized: %s follows every edge both ways, as on an "
                   "undirected graph\n",
                   c.input.c_str(), c.app.c_str());
    }
    return set;
  }
  ShardOptions shard;
  shard.memory_bytes = memory;
  ApplyInputOptions(c.input_options, shard);
  shard.symmetrize = symmetrize;
  shard.costs = costs;
  shard.out_dir = ShardsPrefix(c.input, c.shards_dir, c.say) + suffix;
  shard.io = io;
  shard.io.direct = ToCachePolicy(c.cache).direct_shard_writes;  // see AddCacheOptions
  shard.reuse_other_budget = true;
  // With --shards-dir the user said where the set is: only there. Without, next to GRAPH (when
  // the set goes to the cache), then where needle shard --out or --shards-dir put one.
  if (c.shards_dir.empty()) {
    shard.reuse_from = RememberedShardSets(c.input);
    shard.reuse_from.insert(shard.reuse_from.begin(), c.input + suffix);
  }
  if (dynamic) shard.dynamic_message_bytes = needs.message_bytes;
  shard.keep_open = true;
  if (c.intervals.value > kMaxIntervals) {
    throw UsageError("--intervals must be from 0 (the fewest that fit) to " +
                     std::to_string(kMaxIntervals) + ", not " +
                     std::to_string(c.intervals.value));
  }
  shard.intervals = c.intervals.value;
  shard.order = c.order;
  ShardReport report = ShardWithProgress(c.input, shard, c.say, c.verbosity);
  if (!report.reused) {
    std::fprintf(c.say, "sharded %s -> %s (%s) in %.2f s\n", c.input.c_str(), report.dir.c_str(),
                 Count(report.manifest.num_intervals(), "interval").c_str(), report.seconds);
  }
  return std::move(*report.set);  // just written or verified, and locked since
}

}  // namespace

int RunRun(const std::vector<std::string>& args) {
  RunConfig c;
  c.command = "needle run";
  for (const std::string& a : args) c.command += " " + a;
  std::string io;
  po::options_description options("run options");
  auto add = options.add_options();
  add("app", po::value(&c.app)->required(), ("the app: " + AppNames()).c_str());
  add("input", po::value(&c.input)->required(), "graph file or shard set directory");
  add("iters", po::value(&c.iterations),
      "stop after this many iterations even if not converged (default: run until converged; "
      "a run stopped before converging exits with status 3 and its --out says so)");
  add("tolerance", po::value(&c.tolerance)->default_value(Real{1e-4}, "1e-4"),
      "pagerank: a vertex sends when its rank moved by more than this fraction since it last "
      "sent; the run stops when none does");
  const MemoryLimits machine = MachineMemory();
  AddMemoryOption(options, c.memory, machine,
                  "memory budget for sharding and for the run (e.g. 512M, 4G)");
  add("io", po::value(&io)->default_value("auto"), "I/O backend: auto, uring, pread");
  AddCacheOptions(options, c.cache);
  add("transport", po::value(&c.transport)->default_value("auto"),
      "how messages move: resident (the shard set is read once and the run stays in memory), "
      "static (every iteration reads the shards and writes messages to disk), or auto: "
      "resident when --memory holds the set");
  add("gather", po::value(&c.gather)->default_value("auto"),
      (std::string("how several threads gather a pass's messages: scan (every thread reads "
                   "every in-edge), route (each edge read once, its message handed to its "
                   "target's thread), split (cc, mssp: each thread folds a share of the "
                   "edges, then the shares are combined) or auto: split where the app allows "
                   "it and a pass gathers 4 or more edges a vertex, else route from ") +
       std::to_string(kRouteFromThreads) + " threads on, else scan; the same results every way")
          .c_str());
  add("windows", po::value(&c.windows)->default_value("auto"),
      "what a run reads and writes of a window of messages in the static shards: whole, or "
      "pages: only its 4 KiB pages that hold messages (and the targets under them; nothing is "
      "cleared) — less I/O where few sources send, more, smaller requests (bench/RESULTS.md); "
      "auto: pages with --mode auto, else whole. Dynamic shards are read whole; a resident run "
      "reads nothing either way");
  add("inner-passes",
      po::value(&c.inner_passes)
          ->default_value(Whole<uint32_t>{kDefaultInnerPasses},
                          std::to_string(kDefaultInnerPasses)),
      "asynchronous intervals: recompute an interval on the messages its vertices sent each "
      "other, at most this many extra times per turn (cc, mssp: apply at most 1 + this many "
      "vertices per vertex of the interval per turn, in priority order; 0: one pass per turn)");
  add("mode", po::value(&c.mode)->default_value("auto"),
      "which edges an iteration reads: static (all of them), ads (dynamic shards rebuilt after "
      "every iteration from the edges that carried messages), ods (dynamic shards rebuilt "
      "only in shadow iterations) or auto (the static shards read at page grain, dynamic shards "
      "built only where the budget has room for their buffers and the I/O cost model, fed "
      "with what the run measured, says they pay); the dynamic modes apply to the static "
      "transport");
  add("shadow-below",
      po::value(&c.shadow_below)->default_value(Real{kDefaultShadowBelow}, "0.3"),
      "ads, ods: the first shadow iteration (and dynamic shards) come once the share of the "
      "edges that carried a message in an iteration drops below this (0 to 1): is below it "
      "and below the iteration before's");
  add("delay-buffer",
      po::value(&c.delay_buffer)
          ->default_value(MemorySize{kDefaultDelayBufferBytes}, "100000"),
      "ads, ods: a shadow iteration comes when the delay buffer holds more than this many "
      "bytes (4 bytes and a message per delayed vertex)");
  add("push", po::value(&c.push)->default_value("auto"),
      "push turns (static windows at page grain, mode static or auto, unweighted use): a turn "
      "reads its senders' out-edges from an out-adjacency file built once in the run's "
      "directory and keeps their messages in memory for the intervals they go to, instead of "
      "writing them into the windows: never, auto (once fewer than --push-below of the edges "
      "carried a message in an iteration and the I/O cost model says the build pays) or "
      "always");
  add("push-below", po::value(&c.push_below)->default_value(Real{kDefaultPushBelow}, "0.2"),
      "--push auto: the share of the edges (0 to 1) below which the next iteration pushes; "
      "--pull auto: at or above which it pulls");
  add("whole-shards", po::value(&c.whole_shards)->default_value("auto"),
      "the choice per interval: which shards of a dynamic set hold every edge of the static "
      "shard (its files linked, nothing written for it) instead of only the kept sources': "
      "never, auto (mode auto: where the I/O cost model says reading the left-out edges costs "
      "less than writing the kept ones; ads and ods, which follow ATC'16, keep none) or "
      "always (every shard: the set reads what the static shards hold, and only the kept "
      "sources send)");
  add("pull", po::value(&c.pull)->default_value("auto"),
      "pull turns (static windows at page grain, mode static or auto): a turn keeps each "
      "vertex's message to other intervals once, in memory, instead of on every out-edge in "
      "the windows, and the target interval's next turn reads its windows' targets and "
      "source runs only: never, auto (in the first iteration and after one in which at least "
      "--push-below of the edges between intervals carried a message) or always (every "
      "iteration that does not push)");
  add("out,o", po::value(&c.out),
      "write a header line (vertex<TAB>rank, label or d_SRC...), then one line per vertex: "
      "id<TAB>value (FILE, a device or FIFO, or - for stdout)");
  add("stats", po::value(&c.stats), "write per-iteration statistics as JSON lines");
  add("top", po::value(&c.top)->default_value(Whole<uint32_t>{0}, "0"),
      "print the K highest ranks / largest components / sources by reach");
  add("verify", po::bool_switch(&c.verify),
      "after the run, recompute the answer with the app's serial in-memory oracle (power "
      "iteration, union-find, Dijkstra) on the input graph and compare; exit status 4 when "
      "they differ. The graph must fit in --memory");
  add("sources", po::value(&c.sources), "mssp: comma-separated source ids (at most 32)");
  add("num-sources", po::value(&c.num_sources)->default_value(Whole<uint32_t>{0}, "0"),
      "mssp: K sources spread evenly over the ids (i * V / K), when --sources is not given");
  add("shards-dir", po::value(&c.shards_dir),
      "where the run looks for GRAPH's shard set, and nowhere else, and writes it when it shards "
      "(DIR/NAME.shards, as needle shard --shards-dir; default: next to GRAPH, or a set needle "
      "shard wrote elsewhere)");
  add("symmetrize", po::bool_switch(&c.symmetrize),
      "follow every edge both ways (an undirected graph listed once per edge, e.g. a road "
      "network for mssp): the run shards GRAPH.sym.shards (cc always does)");
  add("intervals", po::value(&c.intervals)->default_value(Whole<uint32_t>{0}, "0"),
      "when it shards GRAPH: cut into this many intervals (GraphChi's nshards; 0: the fewest "
      "that fit --memory); refused if they do not fit, or for a shard set directory");
  add("order", po::value(&c.order)->default_value("input"),
      "when it shards GRAPH: number the vertices input (the input's ids) or bfs (breadth-first, "
      "so that an interval holds a region of the graph: fewer iterations on road networks; "
      "-> GRAPH.bfs.shards); --out, --sources and --verify stay in input ids");
  add("room-for-dynamic", po::bool_switch(&c.room_for_dynamic),
      "when it shards GRAPH: plan the intervals with room for dynamic shards (a byte per "
      "vertex, the delay buffer, build buffers), as --mode ads and ods do, so that one set "
      "serves every mode and auto can build them (needle compare passes it)");
  add("skip-verify", po::bool_switch(&c.skip_verify),
      "do not checksum a given shard set's files before the run (sizes and structure are "
      "still checked; not related to --verify)");
  AddVerbosityOptions(options, c.verbosity, "the interval rule, the memory plan");
  AddGraphInputOptions(options, c.input_options);
  po::positional_options_description positional;
  positional.add("app", 1).add("input", 1);
  std::string usage =
      "needle run APP GRAPH|SHARDDIR [--memory SIZE] [--out FILE] [--stats FILE] [options]\n"
      "apps:";
  for (const App& a : Apps()) {
    const size_t pad = 10 - std::min<size_t>(9, std::strlen(a.name));
    usage += "\n  " + std::string(a.name) + std::string(pad, ' ') + a.summary;
  }
  usage +=
      "\n\nexamples:\n"
      "  needle run pagerank web.txt.gz --memory 2G --top 10 -o ranks.tsv\n"
      "  needle run mssp roads.gr --symmetrize --num-sources 8 -o dist.tsv --stats s.jsonl\n"
      "  needle run cc web.txt.gz --shards-dir sets/   (uses or makes sets/web.txt.gz.sym.shards)\n"
      "\n"
      "memory: --memory bounds what the run allocates (interval and scatter buffers, per-vertex\n"
      "arrays, tables, a 24 MiB reserve); too small a budget is refused before any work with the\n"
      "smallest one that works. Where the budget holds the whole shard set, the run reads it\n"
      "once and iterates in memory (--transport auto). The default is 3/4 of the memory this\n"
      "process may use (the cgroup's limit, or what is available); a budget above the cgroup's\n"
      "limit is refused. Shard sets go next to GRAPH (GRAPH.shards, GRAPH.sym.shards for cc or\n"
      "--symmetrize) unless --shards-dir says where, or to ~/.cache/needle when GRAPH's\n"
      "directory is not writable.\n"
      "output: -o writes a header line (vertex<TAB>rank | label | d_SRC...) and a line per\n"
      "vertex; '#' lines first when the run did not converge or failed --verify. A name\n"
      "ending in .npy gets numpy's format (written only for an answer).\n"
      "pagerank: r(v) = 0.15 + 0.85 * sum of r(u)/outdeg(u) over in-neighbours u (unnormalised:\n"
      "ranks sum to about the vertex count), to within --tolerance.";
  const std::optional<po::variables_map> given = ParseCommandLine(args, usage, options, positional);
  if (!given) return 0;
  const App* app = FindApp(c.app);
  if (app == nullptr) throw UsageError("unknown app '" + c.app + "' (" + AppNames() + ")");
  ToReadOptions(c.input_options);  // checked now, also when the input is a shard set
  if (c.tolerance.value < 1e-6 || c.tolerance.value > 1) {
    throw UsageError(
        "--tolerance must be from 1e-6 to 1 (below 1e-6, float messages cannot "
        "settle and a run may never converge)");
  }
  // Outputs that would overwrite each other, the input or a shard set's files are refused
  // before anything starts.
  CheckOutputs({{"--out", c.out}, {"--stats", c.stats}}, {c.input});
  CheckVerbosity(c.verbosity);
  CheckMemoryBudget(c.memory.bytes, machine, stderr);
  // What was given comes from the parsed options: Boost also takes unambiguous prefixes
  // (--source for --sources, --iter for --iters).
  c.sources_given = given->count("sources") > 0;
  c.iterations_given = given->count("iters") > 0;
  if (!app->takes_sources && (c.sources_given || c.num_sources.value != 0)) {
    throw UsageError("--sources and --num-sources are for mssp");
  }
  // Checked before anything is sharded or written: an app's own options, and the shard set
  // its values need (mssp: 4 bytes per source, planned in GRAPH.mssp-K.shards).
  const ShardNeeds needs = app->shard_needs ? app->shard_needs(c) : ShardNeeds{};
  // The outputs exist (as temporaries) before any work: a bad path fails now.
  RunOutputs outputs{std::nullopt, RunReporter(c.stats, c.app, !c.verbosity.quiet)};
  if (!c.out.empty()) outputs.values.emplace(c.out);
  const bool values_to_stdout = outputs.values && outputs.values->is_stdout();
  if (values_to_stdout && outputs.reporter.is_stdout()) {
    throw UsageError("--out and --stats cannot both be standard output");
  }
  if (values_to_stdout || outputs.reporter.is_stdout()) c.say = stderr;  // stdout is data
  c.report = c.say;
  c.say = MessagesTo(c.say, c.verbosity);
  EngineOptions engine;
  engine.memory_bytes = c.memory.bytes;
  if (c.iterations_given) engine.max_iterations = c.iterations.value;
  engine.threads = static_cast<int>(c.input_options.threads.value);
  try {
    engine.io.kind = ParseIoKind(io);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--io: ") + e.what());
  }
  const CachePolicy cache = ToCachePolicy(c.cache);
  engine.io.direct = cache.direct_run_files;
  try {
    engine.transport = ParseTransport(c.transport);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--transport ") + e.what());
  }
  engine.max_inner_passes = c.inner_passes.value;
  try {
    engine.gather = ParseGather(c.gather);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--gather ") + e.what());
  }
  if (engine.gather == GatherChoice::kSplit && !app->splits_gather) {
    throw UsageError("--gather split is for cc and mssp: " + c.app +
                     " sums its messages, and a float sum depends on its order; use scan or "
                     "route");
  }
  try {
    engine.mode = ParseShardMode(c.mode);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--mode ") + e.what());
  }
  if (!IsVertexOrder(c.order)) {
    throw UsageError("--order must be input or bfs, not '" + c.order + "'");
  }
  if (c.windows != "whole" && c.windows != "pages" && c.windows != "auto") {
    throw UsageError("--windows is whole, pages or auto, not '" + c.windows + "'");
  }
  engine.page_windows =
      c.windows == "pages" || (c.windows == "auto" && engine.mode == ShardMode::kAuto);
  if (!(c.shadow_below.value >= 0 && c.shadow_below.value <= 1)) {
    throw UsageError("--shadow-below must lie between 0 and 1, not " +
                     std::to_string(c.shadow_below.value));
  }
  engine.shadow_below = c.shadow_below.value;
  try {
    engine.push = ParseTurnChoice(c.push);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--push ") + e.what());
  }
  if (!(c.push_below.value >= 0 && c.push_below.value <= 1)) {
    throw UsageError("--push-below must lie between 0 and 1, not " +
                     std::to_string(c.push_below.value));
  }
  engine.push_below = c.push_below.value;
  try {
    engine.pull = ParseTurnChoice(c.pull);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--pull ") + e.what());
  }
  try {
    engine.whole = ParseTurnChoice(c.whole_shards);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--whole-shards ") + e.what());
  }
  engine.delay_buffer_bytes = c.delay_buffer.bytes;
  // Options given that this app or mode ignores: said (option_effects.h).
  for (const std::string_view option : kModalOptions) {
    const auto it = given->find(std::string(option));
    if (it == given->end() || it->second.defaulted()) continue;
    const std::string note =
        UnusedOptionNote(*app, {&engine.mode, 1}, "with --mode " + c.mode, option);
    if (!note.empty()) std::fprintf(c.say, "%s\n", note.c_str());
  }
  std::FILE* say = c.say;
  engine.log = [say](const std::string& line) {
    std::fprintf(say, "%s\n", line.c_str());
    std::fflush(say);
  };
  if (c.verbosity.verbose) engine.detail = engine.log;
  // ads and ods need the room; auto uses what the budget leaves (or --room-for-dynamic).
  const bool dynamic = c.room_for_dynamic || engine.mode == ShardMode::kAds ||
                       engine.mode == ShardMode::kOds;
  const ShardSet set = OpenOrShard(c, engine.memory_bytes, app->symmetrize || c.symmetrize,
                                   needs, dynamic, engine.io);
  return app->run(c, set, engine, outputs);
}

}  // namespace needle::cli
