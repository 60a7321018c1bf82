// Real graphs from ../shared/datasets (see its README.md), each loaded by the library and by an
// independent reader written here (zlib's gzgets or `xz -dc`, strtoull, one line at a time, no
// library code): vertex and edge counts, the full out- and in-degree sequences and every
// target (and weight) in CSR order must agree, and the README's facts must hold.
//
// A missing dataset fails the test: the suite must not pass by checking nothing.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "loaders/csr_file.h"
#include "loaders/graph_stats.h"
#include "loaders/load_graph.h"
#include "tests/test_util.h"

namespace needle {
namespace {

using testing::CsrEquals;
using testing::PlainCsr;
using testing::SequencesEqual;

enum class Syntax {
  kSnap,          // "u v" 0-based, '#' comments
  kDimacsSp,      // 'c' comments, "p sp N M", "a u v w" 1-based
  kPaceTw,        // 'c' comments, "p tw N M", "u v" 1-based
  kWeightedAsIs,  // "u v w", ids used as written (an edge list keeps its ids)
};

struct Dataset {
  const char* label;
  const char* path;  // relative to NEEDLE_DATASETS
  Syntax syntax;
  GraphFormat format;
  Compression compression;
  bool weighted;
  uint64_t readme_vertices;
  uint64_t readme_edges;
  uint64_t loaded_vertices;  // what the loader must report (see Sydney below)
  int64_t self_loops;        // -1: the README does not say
  int64_t components;        // weakly connected components; -1: the README does not say
  int64_t largest_component;
};

const Dataset kDatasets[] = {
    {"EmailEnron", "email-Enron.txt.gz", Syntax::kSnap, GraphFormat::kEdgeList, Compression::kGzip,
     false, 36692, 183831, 36692, -1, 1065, 33696},
    {"Cnr2000", "cnr-2000/cnr-2000.txt.gz", Syntax::kSnap, GraphFormat::kEdgeList,
     Compression::kGzip, false, 325557, 3216152, 325557, 87442, 1, 325557},
    {"Rome99", "roads/rome99.gr", Syntax::kDimacsSp, GraphFormat::kDimacs, Compression::kNone, true,
     3353, 4444, 3353, -1, -1, -1},
    // Sydney.wel is a 1-based weighted edge list. An edge list carries no id base, so the loader
    // keeps the ids as written: it reports 33,114 vertices, of which vertex 0 is isolated — one
    // more than the README's 33,113.
    {"Sydney", "roads/Sydney.wel", Syntax::kWeightedAsIs, GraphFormat::kEdgeList,
     Compression::kNone, true, 33113, 75379, 33114, -1, -1, -1},
    {"NewYork", "roads/NY.gr.xz", Syntax::kPaceTw, GraphFormat::kDimacs, Compression::kXz, false,
     264346, 365050, 264346, -1, 1, 264346},
};

// --- The independent reader ---------------------------------------------------------------

// Calls on_line for every line of the (decompressed) file. Returns false if it cannot read it.
bool ForEachLine(const std::string& path, const std::function<void(char*)>& on_line) {
  char line[4096];
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".xz") == 0) {
    FILE* pipe = popen(("xz -dc " + testing::ShellQuote(path)).c_str(), "r");
    if (pipe == nullptr) return false;
    while (std::fgets(line, sizeof(line), pipe) != nullptr) on_line(line);
    return pclose(pipe) == 0;
  }
  gzFile file = gzopen(path.c_str(), "rb");  // reads plain files as they are
  if (file == nullptr) return false;
  while (gzgets(file, line, sizeof(line)) != nullptr) on_line(line);
  int error = 0;
  gzerror(file, &error);
  gzclose(file);
  return error == Z_OK || error == Z_STREAM_END;
}

struct OracleGraph {
  uint64_t num_vertices = 0;
  uint64_t declared_edges = 0;  // from a 'p' line
  std::vector<Edge> edges;
  std::vector<Weight> weights;
};

::testing::AssertionResult ReadIndependently(const std::string& path, Syntax syntax,
                                             OracleGraph& g) {
  uint64_t max_id = 0;
  bool declared = false;
  std::string bad;
  auto add = [&](uint64_t u, uint64_t v, const char* weight) {
    if (u > 4294967294u || v > 4294967294u) bad = "id out of range";
    g.edges.push_back(Edge{static_cast<VertexId>(u), static_cast<VertexId>(v)});
    if (weight != nullptr) g.weights.push_back(static_cast<Weight>(std::strtod(weight, nullptr)));
    max_id = std::max({max_id, u, v});
  };
  bool ok = ForEachLine(path, [&](char* line) {
    char* p = line;
    while (*p == ' ' || *p == '\t') ++p;
    if (*p == '\n' || *p == '\r' || *p == '\0' || *p == '#' || *p == '%') return;
    if (syntax != Syntax::kSnap && syntax != Syntax::kWeightedAsIs) {
      if (*p == 'c') return;
      if (*p == 'p') {
        char kind[8] = {};
        unsigned long long n = 0, m = 0;
        if (std::sscanf(p, "p %7s %llu %llu", kind, &n, &m) != 3) bad = line;
        g.num_vertices = n;
        g.declared_edges = m;
        declared = true;
        return;
      }
    }
    if (syntax == Syntax::kDimacsSp) {
      if (*p != 'a') {
        bad = line;
        return;
      }
      ++p;
    }
    char* end = nullptr;
    const uint64_t u = std::strtoull(p, &end, 10);
    const uint64_t v = std::strtoull(end, &end, 10);
    const bool one_based = syntax == Syntax::kDimacsSp || syntax == Syntax::kPaceTw;
    if (one_based && (u == 0 || v == 0)) bad = line;
    const bool weighted = syntax == Syntax::kDimacsSp || syntax == Syntax::kWeightedAsIs;
    add(one_based ? u - 1 : u, one_based ? v - 1 : v, weighted ? end : nullptr);
  });
  if (!ok) return ::testing::AssertionFailure() << "cannot read " << path;
  if (!bad.empty())
    return ::testing::AssertionFailure() << "unexpected line in " << path << ": " << bad;
  if (!declared) g.num_vertices = g.edges.empty() ? 0 : max_id + 1;
  return ::testing::AssertionSuccess();
}

std::vector<uint64_t> Degrees(const PlainCsr& csr) {
  std::vector<uint64_t> d(csr.num_vertices);
  for (uint64_t v = 0; v < csr.num_vertices; ++v) d[v] = csr.offsets[v + 1] - csr.offsets[v];
  return d;
}

// Weakly connected components by union-find: {count, size of the largest}.
std::pair<int64_t, int64_t> Components(uint64_t n, const std::vector<Edge>& edges) {
  std::vector<uint64_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  std::function<uint64_t(uint64_t)> find = [&](uint64_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const Edge& e : edges) parent[find(e.source)] = find(e.target);
  std::vector<int64_t> size(n, 0);
  int64_t count = 0;
  for (uint64_t v = 0; v < n; ++v) {
    if (++size[find(v)] == 1) ++count;
  }
  return {count, n == 0 ? 0 : *std::max_element(size.begin(), size.end())};
}

class DatasetTest : public ::testing::TestWithParam<Dataset> {};

TEST_P(DatasetTest, LoaderAgreesWithAnIndependentReader) {
  const Dataset& d = GetParam();
  const std::string path = testing::DatasetPath(d.path);
  ASSERT_TRUE(std::filesystem::is_regular_file(path))
      << path << " is missing: the datasets of ../shared/datasets are part of the test suite";

  OracleGraph oracle;
  ASSERT_TRUE(ReadIndependently(path, d.syntax, oracle));
  // The README's counts, as the independent reader sees them.
  EXPECT_EQ(oracle.edges.size(), d.readme_edges);
  if (d.syntax == Syntax::kWeightedAsIs) {
    EXPECT_EQ(oracle.num_vertices, d.readme_vertices + 1);  // 1-based ids kept as they are
  } else {
    EXPECT_EQ(oracle.num_vertices, d.readme_vertices);
  }
  if (oracle.declared_edges != 0) {
    EXPECT_EQ(oracle.declared_edges, d.readme_edges);
  }

  LoadReport report;
  Csr csr = LoadGraph(path, LoadOptions{}, &report);
  EXPECT_EQ(report.format, d.format);
  EXPECT_EQ(report.compression, d.compression);
  EXPECT_EQ(report.file_bytes, std::filesystem::file_size(path));
  EXPECT_EQ(csr.weighted, d.weighted);
  EXPECT_EQ(csr.num_vertices, d.loaded_vertices);
  EXPECT_EQ(csr.NumEdges(), d.readme_edges);

  // Every target and weight, in CSR order.
  const PlainCsr expected =
      testing::PlainCsrFromEdges(oracle.num_vertices, oracle.edges, oracle.weights, d.weighted);
  const PlainCsr got = testing::ToPlain(csr);
  EXPECT_TRUE(SequencesEqual("out-degrees", Degrees(got), Degrees(expected)));
  EXPECT_TRUE(CsrEquals(got, expected));

  // In-degrees and in-lists, through the loader's transpose.
  LoadOptions transpose;
  transpose.csr.transpose = true;
  const PlainCsr got_in = testing::ToPlain(LoadGraph(path, transpose));
  std::vector<Edge> reversed(oracle.edges.size());
  std::transform(oracle.edges.begin(), oracle.edges.end(), reversed.begin(), [](const Edge& e) {
    return Edge{e.target, e.source};
  });
  const PlainCsr expected_in =
      testing::PlainCsrFromEdges(oracle.num_vertices, reversed, oracle.weights, d.weighted);
  EXPECT_TRUE(SequencesEqual("in-degrees", Degrees(got_in), Degrees(expected_in)));
  EXPECT_TRUE(CsrEquals(got_in, expected_in));

  // Statistics against the oracle's own counts.
  uint64_t loops = 0;
  for (const Edge& e : oracle.edges) loops += e.source == e.target;
  const std::vector<uint64_t> out = Degrees(expected);
  const std::vector<uint64_t> in = Degrees(expected_in);
  GraphStats stats = ComputeStats(csr);
  EXPECT_EQ(stats.vertices, oracle.num_vertices);
  EXPECT_EQ(stats.edges, oracle.edges.size());
  EXPECT_EQ(stats.self_loops, loops);
  EXPECT_EQ(report.csr.self_loops, loops);
  EXPECT_EQ(stats.max_out_degree, *std::max_element(out.begin(), out.end()));
  EXPECT_EQ(stats.max_in_degree, *std::max_element(in.begin(), in.end()));
  if (d.self_loops >= 0) {
    EXPECT_EQ(stats.self_loops, static_cast<uint64_t>(d.self_loops));
    EXPECT_EQ(report.csr.self_loops, static_cast<uint64_t>(d.self_loops));
  }
  if (d.components >= 0) {
    auto [count, largest] = Components(oracle.num_vertices, oracle.edges);
    EXPECT_EQ(count, d.components);
    EXPECT_EQ(largest, d.largest_component);
  }
  if (d.syntax == Syntax::kWeightedAsIs) {
    // Vertex 0 does not occur in the file: it is there, with no edge at all.
    EXPECT_EQ(csr.Degree(0), 0u);
    EXPECT_EQ(got_in.offsets[1] - got_in.offsets[0], 0u);
    EXPECT_GE(stats.isolated, 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(SharedDatasets, DatasetTest, ::testing::ValuesIn(kDatasets),
                         [](const ::testing::TestParamInfo<Dataset>& p) { return p.param.label; });

// cnr-2000 through the .csr file and the block API: the same graph, the same facts.
TEST(DatasetCsr, Cnr2000ThroughTheBinaryFile) {
  const std::string path = testing::DatasetPath("cnr-2000/cnr-2000.txt.gz");
  ASSERT_TRUE(std::filesystem::is_regular_file(path)) << path << " is missing";
  testing::TempDir dir;
  Csr csr = LoadGraph(path, LoadOptions{});
  const std::string csr_path = dir.File("cnr-2000.csr");
  WriteCsrFile(csr, csr_path);
  LoadOptions options;
  LoadReport report;
  Csr back = LoadGraph(csr_path, options, &report);
  EXPECT_TRUE(CsrEquals(back, csr));
  EXPECT_EQ(report.csr.self_loops, 87442u);
  GraphStats stats = ComputeStats(back);
  EXPECT_EQ(stats.vertices, 325557u);
  EXPECT_EQ(stats.edges, 3216152u);
  EXPECT_EQ(stats.self_loops, 87442u);
}

}  // namespace
}  // namespace needle
