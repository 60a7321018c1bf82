// needle compare APP GRAPH|SHARDDIR: runs the app once per shard mode (static, pages — static
// at page grain —, push — pages with push turns —, pull — push with pull turns too —, ads,
// ods, auto) on the same shard set and
// the same budget, each as its own `needle run` process (so each peak RSS is its own), with
// the static windows transport (the dynamic modes apply to it), the set dropped from the page
// cache before every run unless --direct; checks that the answers agree and prints one table
// of what each mode read, wrote, loaded and took.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

// Boost 1.74's JSON parser includes the old boost/bind.hpp, which asks for this (else a note
// on every build).
#define BOOST_BIND_GLOBAL_PLACEHOLDERS
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <optional>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "apps/cli/answer_difference.h"
#include "apps/cli/app_table.h"
#include "apps/cli/cli_common.h"
#include "apps/cli/commands.h"
#include "apps/cli/compare_plot.h"
#include "apps/cli/memory_option.h"
#include "apps/cli/option_effects.h"
#include "apps/cli/output_paths.h"
#include "base/error.h"
#include "engine/engine_options.h"
#include "io/output_file.h"
#include "shards/shard_set.h"

namespace needle::cli {
namespace {

namespace fs = std::filesystem;
namespace pt = boost::property_tree;

struct CompareConfig {
  std::string app, input, modes = "static,pages,push,pull,ads,ods,auto";
  std::string json, csv, plot;
  bool direct = false;
  // Passed to every `needle run` as given (it checks them).
  std::map<std::string, std::string> pass;
};

// One mode's run: its summary and iterations as JSON, its values' file.
struct ModeRun {
  std::string mode;
  pt::ptree summary;
  std::vector<pt::ptree> iterations;
  std::vector<std::string> iteration_lines;
  std::string values;
};

// Runs this executable with `args`; stdout and stderr go to `log`. Returns the exit status.
int RunSelf(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  std::string self = fs::read_symlink("/proc/self/exe").string();
  argv.push_back(self.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw Error(self, "cannot start a run", error);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) ThrowSystemError(self, "cannot wait for a run");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

double Number(const pt::ptree& t, const std::string& key) { return t.get<double>(key, 0.0); }

std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  return parts;
}

}  // namespace

int RunCompare(const std::vector<std::string>& args) {
  CompareConfig c;
  po::options_description options("compare options");
  auto add = options.add_options();
  add("app", po::value(&c.app)->required(), ("the app: " + AppNames()).c_str());
  add("input", po::value(&c.input)->required(), "graph file or shard set directory");
  add("modes", po::value(&c.modes)->default_value(c.modes),
      "the shard modes to run, comma-separated: static, pages (static, reading and writing "
      "windows at page grain: needle run --windows pages --push never --pull never), push "
      "(pages with push turns where they pay: --push auto), pull (push with pull turns where "
      "many send: --pull auto), ads, ods, auto (at page grain with push and pull turns too, "
      "as needle run --mode auto; static first: the others are compared with it)");
  add("direct", po::bool_switch(&c.direct),
      "O_DIRECT for every run (cold); else the shard set is dropped from the page cache "
      "before each run");
  add("json", po::value(&c.json), "write every mode's per-iteration statistics as JSON lines");
  add("csv", po::value(&c.csv), "write every mode's per-iteration numbers as CSV");
  add("plot", po::value(&c.plot),
      "draw bytes read and time per iteration for every mode into this SVG file");
  std::map<std::string, std::string>& pass = c.pass;
  for (const char* name : {"memory", "threads", "io", "tolerance", "iters", "inner-passes",
                           "shadow-below", "delay-buffer", "whole-shards", "sources", "num-sources",
                           "shards-dir", "order", "intervals"}) {
    add(name, po::value<std::string>()->notifier([&pass, name](const std::string& v) {
      pass[name] = v;
    }),
        "as for needle run");
  }
  po::positional_options_description positional;
  positional.add("app", 1).add("input", 1);
  const std::string usage =
      "needle compare APP GRAPH|SHARDDIR [--modes static,pages,push,pull,ads,ods,auto]\n"
      "                [--memory SIZE] [--direct] [--csv F] [--json F] [--plot F.svg]\n"
      "Runs APP once per mode on the same shard set (--transport static), checks that the\n"
      "answers agree (cc, mssp: identical; pagerank: within 10 x its tolerance) and prints\n"
      "per mode: iterations, shadow iterations, time, bytes read and written (and in shadow\n"
      "iterations), with ratios to static; edges loaded, the share of them that carried a\n"
      "message (utilisation) and their ratio to the ideal (the edges that carried a message\n"
      "in the static run); the delay buffer's and the dynamic shards' peak sizes; peak RSS.\n"
      "Exit status 4 when an answer differs.\n\n"
      "examples:\n"
      "  needle compare pagerank web.txt.gz --memory 256M --plot modes.svg\n"
      "  needle compare cc web.sym.shards --modes static,ods --direct --csv cc.csv\n\n"
      "--memory sizes the intervals as for needle run (each mode also needs its dynamic\n"
      "shards' buffers); the modes differ most where the shard set is several times --memory.";
  if (!ParseCommandLine(args, usage, options, positional)) return 0;
  // One budget for every mode: each run would otherwise take its own default from the memory
  // available when it starts.
  if (c.pass.count("memory") == 0) {
    c.pass["memory"] = std::to_string(DefaultMemoryBudget(MachineMemory()));
  }
  if (FindApp(c.app) == nullptr) {
    throw UsageError("unknown app '" + c.app + "' (" + AppNames() + ")");
  }
  const std::vector<std::string> modes = Split(c.modes);
  if (modes.empty() || modes[0] != "static") {
    throw UsageError("--modes must start with static (the others are compared with it)");
  }
  std::vector<ShardMode> shard_modes;  // what each run's --mode is
  for (const std::string& m : modes) {
    if (m == "pages" || m == "push" || m == "pull") {
      shard_modes.push_back(ShardMode::kStatic);
      continue;
    }
    try {
      shard_modes.push_back(ParseShardMode(m));
    } catch (const std::invalid_argument& e) {
      throw UsageError("--modes: " + m + " " + e.what());
    }
  }
  // An option that none of the runs uses is said once here (each run's log says it too).
  for (const std::string_view option : kModalOptions) {
    if (c.pass.count(std::string(option)) == 0) continue;
    const std::string note =
        UnusedOptionNote(*FindApp(c.app), shard_modes, "in any of --modes " + c.modes, option);
    if (!note.empty()) std::fprintf(stderr, "%s\n", note.c_str());
  }
  CheckOutputs({{"--json", c.json}, {"--csv", c.csv}, {"--plot", c.plot}}, {c.input});
  std::optional<OutputFile> json, csv, plot;
  if (!c.json.empty()) json.emplace(c.json);
  if (!c.csv.empty()) csv.emplace(c.csv);
  if (!c.plot.empty()) plot.emplace(c.plot);
  const int to_stdout = (json && json->is_stdout()) + (csv && csv->is_stdout()) +
                        (plot && plot->is_stdout());
  if (to_stdout > 1) {
    throw UsageError("only one of --json, --csv and --plot can go to standard output");
  }
  // The table goes to stderr when an output is standard output (stdout is data then).
  std::FILE* table = to_stdout > 0 ? stderr : stdout;

  const fs::path work = fs::temp_directory_path() / ("needle-compare-" + std::to_string(getpid()));
  fs::create_directories(work);
  struct Remove {
    fs::path dir;
    ~Remove() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } remove{work};

  std::string shard_dir = fs::is_directory(c.input) ? c.input : "";
  std::vector<ModeRun> runs;
  for (const std::string& mode : modes) {
    ModeRun run;
    run.mode = mode;
    const std::string stats = (work / (mode + ".jsonl")).string();
    run.values = (work / (mode + ".out")).string();
    const bool pages = mode == "pages" || mode == "push" || mode == "pull";
    std::vector<std::string> child = {"run",   c.app,  c.input, "--transport", "static",
                                      "--mode", pages ? "static" : mode, "--stats", stats,
                                      "--out", run.values};
    // static, ads and ods read the static shards' windows whole; auto at page grain
    child.push_back("--windows");
    child.push_back(pages ? "pages" : mode == "auto" ? "auto" : "whole");
    child.push_back("--push");
    child.push_back(mode == "pages" ? "never" : "auto");
    child.push_back("--pull");
    child.push_back(mode == "pull" || mode == "auto" ? "auto" : "never");
    if (c.direct) child.push_back("--direct");
    // One set for every mode, static included (a set given is what it is).
    if (!std::filesystem::is_directory(c.input)) child.push_back("--room-for-dynamic");
    for (const auto& [name, value] : c.pass) {
      child.push_back("--" + name);
      child.push_back(value);
    }
    if (!c.direct && !shard_dir.empty()) EvictShardSet(shard_dir);
    std::fprintf(stderr, "needle compare: %s ...\n", mode.c_str());
    const std::string log = (work / (mode + ".log")).string();
    const int status = RunSelf(child, log);
    if (status != 0 && status != 3) {
      std::fprintf(stderr, "%s", ReadAll(log).c_str());
      throw std::runtime_error("the " + mode + " run failed (exit status " +
                               std::to_string(status) + ")");
    }
    std::ifstream in(stats);
    for (std::string line; std::getline(in, line);) {
      std::istringstream text(line);
      pt::ptree row;
      pt::read_json(text, row);
      if (row.get<std::string>("type") == "summary") {
        run.summary = row;
      } else {
        run.iterations.push_back(row);
        run.iteration_lines.push_back(line);
      }
    }
    if (shard_dir.empty()) shard_dir = run.summary.get<std::string>("shard_set", "");
    runs.push_back(std::move(run));
  }

  const double tolerance = c.pass.count("tolerance") ? std::stod(c.pass["tolerance"]) : 1e-4;
  const double allowed = c.app == "pagerank" ? 10 * tolerance : 0;
  bool agree = true;
  const pt::ptree& base = runs[0].summary;
  const double base_seconds = Number(base, "seconds");
  const double base_io = Number(base, "bytes_read") + Number(base, "bytes_written");
  // The ideal dynamic shard holds the edges that carried a message: static's edges_used.
  const double ideal = Number(base, "edges_used");
  std::fprintf(table, "%-7s %5s %6s %8s %7s %8s %8s %6s %8s %8s %5s %7s %8s %8s %7s  %s\n",
               "mode", "iters", "shadow", "time s", "speedup", "read MB", "writ MB", "I/O x",
               "shdw MB", "edges M", "util", "x ideal", "delay KB", "disk MB", "RSS MB",
               "answer");
  std::vector<PlotSeries> series;
  for (const ModeRun& run : runs) {
    const pt::ptree& s = run.summary;
    const double io = Number(s, "bytes_read") + Number(s, "bytes_written");
    const double edges = Number(s, "edges_loaded");
    double difference = 0;
    std::string answer = "reference";
    if (&run != &runs[0]) {
      difference = AnswerDifference(runs[0].values, run.values, c.app == "pagerank");
      const bool ok = difference <= allowed;
      agree = agree && ok;
      char text[64];
      std::snprintf(text, sizeof text, "%s (%.1e)", ok ? "agrees" : "DIFFERS", difference);
      answer = text;
    }
    if (!s.get<bool>("converged", false)) answer += ", NOT converged";
    std::fprintf(table,
                 "%-7s %5.0f %6.0f %8.2f %7.2f %8.1f %8.1f %6.2f %8.1f %8.2f %5.2f %7.2f %8.1f "
                 "%8.1f %7.1f  %s\n",
                 run.mode.c_str(), Number(s, "iterations"), Number(s, "shadow_iterations"),
                 Number(s, "seconds"), base_seconds / std::max(Number(s, "seconds"), 1e-9),
                 Number(s, "bytes_read") / 1e6, Number(s, "bytes_written") / 1e6,
                 io / std::max(base_io, 1.0),
                 (Number(s, "shadow_bytes_read") + Number(s, "shadow_bytes_written")) / 1e6,
                 edges / 1e6, Number(s, "edges_used") / std::max(edges, 1.0),
                 edges / std::max(ideal, 1.0), Number(s, "delay_buffer_max_bytes") / 1e3,
                 Number(s, "dynamic_disk_peak") / 1e6, Number(s, "peak_rss_bytes") / 1e6,
                 answer.c_str());
    PlotSeries curve{run.mode, {}};
    for (const pt::ptree& it : run.iterations) {
      curve.points.push_back({Number(it, "iteration"), Number(it, "bytes_read"),
                             Number(it, "seconds"), it.get<bool>("shadow", false)});
    }
    series.push_back(std::move(curve));
    if (json) {
      for (const std::string& line : run.iteration_lines) {
        json->Write("{\"mode\":\"" + run.mode + "\"," + line.substr(1) + "\n");
      }
    }
    if (csv) {
      if (&run == &runs[0]) {
        csv->Write("mode,iteration,shadow,seconds,bytes_read,bytes_written,edges_loaded,"
                   "edges_used,edges_changed,dynamic_edges,delayed,delayed_vertices,"
                   "dynamic_disk_bytes\n");
      }
      for (const pt::ptree& it : run.iterations) {
        char line[512];
        std::snprintf(line, sizeof line,
                      "%s,%.0f,%d,%.6f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\n",
                      run.mode.c_str(), Number(it, "iteration"), it.get<bool>("shadow", false),
                      Number(it, "seconds"), Number(it, "bytes_read"),
                      Number(it, "bytes_written"), Number(it, "edges_loaded"),
                      Number(it, "edges_used"), Number(it, "edges_changed"),
                      Number(it, "dynamic_edges"), Number(it, "delayed"),
                      Number(it, "delayed_vertices"), Number(it, "dynamic_disk_bytes"));
        csv->Write(line);
      }
    }
  }
  if (plot) {
    plot->Write(CompareSvg("needle compare " + c.app + " " + c.input +
                               (c.direct ? " (O_DIRECT)" : " (page cache dropped)"),
                           series));
  }
  std::fprintf(table,
               "edges: in-edges loaded; util: share of them that carried a message; x ideal: "
               "edges loaded / edges that carried a message in the static run; delay, disk: "
               "peak delay buffer and dynamic shard files; %s\n",
               c.direct ? "O_DIRECT runs" : "page cache dropped before each run");
  if (json) json->Commit();
  if (csv) csv->Commit();
  if (plot) plot->Commit();
  return agree ? 0 : 4;
}

}  // namespace needle::cli
