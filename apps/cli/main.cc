// needle: the command line. Dispatches to a subcommand; the only place that prints errors
// and chooses exit codes: 0 ok, 1 bad input or I/O failure, 2 usage error, 3 a run stopped by
// --iters before it converged, 4 an answer --verify found wrong (both run_program.h), 128 + N
// killed by signal N (signals.h).
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "apps/cli/cli_common.h"
#include "apps/cli/commands.h"
#include "apps/cli/signals.h"
#include "base/error.h"
#include "base/open_files.h"
#include "base/version.h"
#include "io/output_file.h"

namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>&);
};

constexpr Command kCommands[] = {
    {"generate", "generate a synthetic graph (R-MAT, Graph500 parameters)",
     needle::cli::RunGenerate},
    {"convert", "convert a graph to needle's binary .csr (or to a text edge list)",
     needle::cli::RunConvert},
    {"shard", "split a graph into a shard set for out-of-core processing, within --memory",
     needle::cli::RunShard},
    {"run", "run pagerank, cc or mssp on a graph or shard set, within --memory",
     needle::cli::RunRun},
    {"compare", "run an app in the static and dynamic shard modes and compare what they moved",
     needle::cli::RunCompare},
    {"info", "describe a graph file (vertices, edges, degrees, format) or a shard set",
     needle::cli::RunInfo},
};

void PrintUsage(std::FILE* out) {
  std::fprintf(out,
               "needle: out-of-core graph processing\n\n"
               "usage: needle <command> [options]   (needle <command> --help for details)\n"
               "       needle --version\n\n"
               "commands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
}

// What a command printed on standard output (a table, --top, info) must have got there: a
// write that failed (a full disk, a closed pipe's reader gone) is an I/O failure, status 1.
int Finished(int status) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && !std::ferror(stdout)) return status;
  std::fprintf(stderr, "needle: standard output: write failed%s%s\n", error != 0 ? ": " : "",
               error != 0 ? std::strerror(error) : "");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  // How idle OpenMP threads wait. libgomp's default spins for milliseconds, taking the cores
  // the kernel's I/O workers need while the main thread waits for I/O (3-8x slower runs on
  // two cores); sleeping at once makes every barrier a futex wake, which doubled the compute
  // of runs with many inner passes. So: spin about 10,000 pauses (a few hundred microseconds,
  // longer than a pass's barriers are apart, far shorter than a read), then sleep.
  // libgomp reads these when it loads, before main(), so set them and start again (once; a
  // policy the user chose is kept).
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    setenv("GOMP_SPINCOUNT", "10000", 1);
    execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
  }
  // Large buffers come and go per shard and per chunk. A fixed mmap threshold (which also
  // turns off glibc's dynamic raising of it) returns each to the kernel when freed, so heap
  // fragmentation cannot make the resident set creep past --memory.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  needle::RecordInheritedDescriptors();
  // A run holds its set's files open, a few per interval: the usual soft limit (1,024) is too
  // low for sets of some hundreds of intervals, the hard one is not (base/open_files.h).
  needle::RaiseOpenFileLimit();
  needle::cli::HandleInterruptions();
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintUsage(stdout);
    return Finished(0);
  }
  if (name == "--version" || name == "version") {
    std::printf("needle %s\n", std::string(needle::Version()).c_str());
    return Finished(0);
  }
  for (const Command& c : kCommands) {
    if (name != c.name) continue;
    std::vector<std::string> args(argv + 2, argv + argc);
    try {
      return Finished(c.run(args));
    } catch (const needle::cli::UsageError& e) {
      std::fprintf(stderr, "needle %s: %s (see 'needle %s --help')\n", c.name, e.what(), c.name);
      return 2;
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "needle %s: %s\n", c.name, e.what());
      return 2;
    } catch (const needle::Error& e) {
      std::fprintf(stderr, "needle: %s\n", e.what());
      return 1;
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "needle %s: out of memory\n", c.name);
      return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "needle %s: %s\n", c.name, e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "needle: unknown command '%s'\n\n", name.c_str());
  PrintUsage(stderr);
  return 2;
}
