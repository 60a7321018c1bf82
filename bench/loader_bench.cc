// loader_bench: how close the loaders come to the memory bandwidth of the page cache.
//
// It generates an R-MAT graph, writes it as a text edge list in generator order (scrambled
// ids: every line goes to a random row) and in source order, and as a .csr. For each file the
// ceiling is a parallel mmap byte-sum of the already cached file; the loaders are measured
// against it: text → edges (ReadTextGraph), edges → CSR (BuildCsr), and .csr → CSR
// (CsrFile::Load). Every figure is the median of --repeats runs on a warm page cache, so
// the numbers say what the code costs, not what the disk costs.
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "bench/bench_main.h"
#include "bench/byte_sum.h"
#include "bench/timing.h"
#include "io/mapped_file.h"
#include "loaders/csr.h"
#include "loaders/csr_file.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"
#include "loaders/text_reader.h"

namespace {

using needle::Csr;
using needle::EdgeList;

// The targets the loaders are held to (docs: parse ≥ 1.5 GB/s, CSR build no slower than
// 1.5× the parse, .csr load at least half the byte-sum rate).
constexpr double kParseTargetGBps = 1.5;
constexpr double kBuildToParseTarget = 1.5;
constexpr double kCsrLoadToSumTarget = 0.5;

struct BenchOptions {
  int scale = 22;
  int edge_factor = 16;
  int threads = 0;
  int repeats = 3;
  std::string dir = "/tmp/needle-bench";
  bool weighted = false;
  bool keep = false;
};

namespace po = boost::program_options;
using needle::bench::MedianTime;
using needle::bench::TimeIt;

// Parses the command line; returns false after printing --help.
bool ParseArgs(int argc, char** argv, BenchOptions& o) {
  po::options_description options("loader_bench options");
  auto add = options.add_options();
  add("help,h", "show this help");
  add("scale", po::value(&o.scale)->default_value(o.scale), "R-MAT scale (log2 vertices)");
  add("edge-factor", po::value(&o.edge_factor)->default_value(o.edge_factor), "edges per vertex");
  add("threads", po::value(&o.threads)->default_value(o.threads), "threads (0: OpenMP default)");
  add("repeats", po::value(&o.repeats)->default_value(o.repeats), "runs per figure (median)");
  add("dir", po::value(&o.dir)->default_value(o.dir), "where the generated files go");
  add("weighted", po::bool_switch(&o.weighted), "give the graph integer weights in [1, 255]");
  add("keep", po::bool_switch(&o.keep), "leave the generated files in --dir");
  if (!needle::bench::ParseOrHelp(argc, argv, options)) return false;
  if (o.scale < 1 || o.scale > 31 || o.edge_factor < 1 || o.threads < 0 || o.repeats < 1) {
    throw po::error("--scale must be 1..31, --edge-factor and --repeats at least 1");
  }
  return true;
}

// The ceiling for anything that reads a file: map it as the text reader does and sum it.
uint64_t ByteSum(const std::string& path, int threads) {
  return needle::bench::ByteSum(needle::MappedFile(path), threads);
}

double GB(double bytes) { return bytes / 1e9; }

struct TextResult {
  std::string name;
  uint64_t bytes = 0;
  uint64_t edges = 0;
  double sum_s = 0;
  double parse_s = 0;
  double build_s = 0;
  double dups_s = 0;
  uint64_t duplicates = 0;
};

TextResult BenchText(const std::string& path, const BenchOptions& o, uint64_t expected_edges) {
  TextResult r;
  r.name = std::filesystem::path(path).filename().string();
  r.bytes = std::filesystem::file_size(path);
  volatile uint64_t sink = ByteSum(path, o.threads);  // warms the page cache
  r.sum_s = MedianTime(o.repeats, [&] { sink = ByteSum(path, o.threads); });

  needle::ReadOptions read;
  read.threads = o.threads;
  EdgeList edges;
  r.parse_s = MedianTime(
      o.repeats, [&] { edges = EdgeList(); }, [&] { edges = needle::ReadTextGraph(path, read); });
  r.edges = edges.NumEdges();
  if (r.edges != expected_edges) {
    throw needle::Error(path, "read " + std::to_string(r.edges) + " edges, wrote " +
                                  std::to_string(expected_edges));
  }

  needle::CsrOptions csr_options;
  csr_options.count_duplicates = false;
  csr_options.threads = o.threads;
  Csr csr;
  r.build_s = MedianTime(
      o.repeats, [&] { csr = Csr(); }, [&] { csr = needle::BuildCsr(edges, csr_options); });
  edges = EdgeList();
  r.dups_s = MedianTime(o.repeats, [&] { r.duplicates = needle::CountDuplicates(csr, o.threads); });
  return r;
}

long PeakRssKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;  // KiB on Linux
}

const char* Verdict(bool ok) { return ok ? "ok  " : "MISS"; }

int Run(const BenchOptions& o) {
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  BenchOptions opts = o;
  opts.threads = threads;
  std::filesystem::create_directories(o.dir);
  const std::string stem =
      o.dir + "/rmat" + std::to_string(o.scale) + "-" + std::to_string(o.edge_factor);
  const std::string ext = o.weighted ? ".wel" : ".el";
  const std::string input_order = stem + ext;
  const std::string sorted = stem + "-sorted" + ext;
  const std::string binary = stem + ".csr";

  std::printf("loader_bench: R-MAT scale %d, edge factor %d%s, %d threads, median of %d\n", o.scale,
              o.edge_factor, o.weighted ? ", weighted" : "", threads, o.repeats);

  // Prepare the three files. The generator's graph is dropped before measuring so that the
  // peak RSS reflects the loaders.
  uint64_t m = 0;
  {
    needle::RmatOptions rmat;
    rmat.scale = o.scale;
    rmat.edge_factor = o.edge_factor;
    rmat.weighted = o.weighted;
    EdgeList edges;
    const double gen_s = TimeIt([&] { edges = needle::GenerateRmat(rmat, threads); });
    m = edges.NumEdges();
    const std::string comment = "R-MAT scale " + std::to_string(o.scale) + " edge factor " +
                                std::to_string(o.edge_factor) + ", needle loader_bench";
    const double write_s =
        TimeIt([&] { needle::WriteEdgeListText(edges, input_order, comment, threads); });
    needle::CsrOptions csr_options;
    csr_options.threads = threads;
    csr_options.count_duplicates = false;
    Csr csr = needle::BuildCsr(edges, csr_options);
    edges = EdgeList();
    const double write_sorted_s =
        TimeIt([&] { needle::WriteCsrAsEdgeListText(csr, sorted, comment, threads); });
    const double write_csr_s = TimeIt([&] { needle::WriteCsrFile(csr, binary, threads); });
    std::printf(
        "prepared %llu vertices, %llu edges: generate %.2f s, write text %.2f s "
        "(%.2f GB/s), sorted text %.2f s, .csr %.2f s\n\n",
        static_cast<unsigned long long>(uint64_t{1} << o.scale), static_cast<unsigned long long>(m),
        gen_s, write_s, GB(static_cast<double>(std::filesystem::file_size(input_order))) / write_s,
        write_sorted_s, write_csr_s);
  }

  std::vector<TextResult> text;
  text.push_back(BenchText(input_order, opts, m));
  text.push_back(BenchText(sorted, opts, m));

  const uint64_t csr_bytes = std::filesystem::file_size(binary);
  volatile uint64_t sink = ByteSum(binary, threads);
  const double csr_sum_s = MedianTime(o.repeats, [&] { sink = ByteSum(binary, threads); });
  Csr loaded;
  const double csr_load_s = MedianTime(
      o.repeats, [&] { loaded = Csr(); },
      [&] { loaded = needle::CsrFile::Open(binary).Load(threads); });
  if (loaded.NumEdges() != m) throw needle::Error(binary, "loaded a different edge count");
  loaded = Csr();

  std::printf("%-24s %9s %10s %8s %9s %9s %7s %8s %7s %8s\n", "file", "size", "byte-sum", "parse",
              "parse", "parse", "vs sum", "build", "b/p", "dups");
  std::printf("%-24s %9s %10s %8s %9s %9s %7s %8s %7s %8s\n", "", "GB", "GB/s", "s", "GB/s",
              "Medge/s", "", "s", "", "s");
  for (const TextResult& r : text) {
    const double size = GB(static_cast<double>(r.bytes));
    std::printf("%-24s %9.3f %10.2f %8.3f %9.2f %9.1f %6.0f%% %8.3f %7.2f %8.3f\n", r.name.c_str(),
                size, size / r.sum_s, r.parse_s, size / r.parse_s,
                static_cast<double>(r.edges) / 1e6 / r.parse_s, 100 * r.sum_s / r.parse_s,
                r.build_s, r.build_s / r.parse_s, r.dups_s);
  }
  const double csr_size = GB(static_cast<double>(csr_bytes));
  std::printf("%-24s %9.3f %10.2f %8.3f %9.2f %9.1f %6.0f%%   (CsrFile::Load)\n",
              std::filesystem::path(binary).filename().c_str(), csr_size, csr_size / csr_sum_s,
              csr_load_s, csr_size / csr_load_s, static_cast<double>(m) / 1e6 / csr_load_s,
              100 * csr_sum_s / csr_load_s);
  std::printf("duplicate edges: %llu of %llu\n\n",
              static_cast<unsigned long long>(text[0].duplicates),
              static_cast<unsigned long long>(m));

  std::printf("targets:\n");
  for (const TextResult& r : text) {
    const double rate = GB(static_cast<double>(r.bytes)) / r.parse_s;
    std::printf("  [%s] %-22s parse %.2f GB/s >= %.1f GB/s\n", Verdict(rate >= kParseTargetGBps),
                r.name.c_str(), rate, kParseTargetGBps);
    const double ratio = r.build_s / r.parse_s;
    std::printf("  [%s] %-22s CSR build %.2fx parse <= %.1fx\n",
                Verdict(ratio <= kBuildToParseTarget), r.name.c_str(), ratio, kBuildToParseTarget);
  }
  const double load_ratio = csr_sum_s / csr_load_s;
  std::printf("  [%s] %-22s .csr load %.0f%% of byte-sum >= %.0f%%\n",
              Verdict(load_ratio >= kCsrLoadToSumTarget),
              std::filesystem::path(binary).filename().c_str(), 100 * load_ratio,
              100 * kCsrLoadToSumTarget);
  std::printf("peak RSS: %.1f MiB\n", static_cast<double>(PeakRssKiB()) / 1024);

  if (!o.keep) {
    std::filesystem::remove(input_order);
    std::filesystem::remove(sorted);
    std::filesystem::remove(binary);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return needle::bench::BenchMain<BenchOptions>("loader_bench", argc, argv, ParseArgs, Run);
}
