// The sharder (shards/sharder.h) against its contract:
//
//  - round trip: hand-drawn graphs (every tests/data format, empty, edgeless, self-loops and
//    duplicates, isolated vertices), R-MAT graphs and real datasets, sharded with a budget that
//    gives one shard and one that gives many, read back with the independent reader of
//    shard_test_util.h and compared with an oracle of the input;
//  - determinism: byte-identical sets at 1, 2 and 3 threads, and from .csr and text input;
//  - reuse: a matching set is reused untouched; every kind of change rebuilds, saying why;
//  - crash safety: a sharder killed at random points never leaves a set that claims to be
//    valid, a rerun finishes the job, the next run removes what killed runs left, and errors
//    leave nothing behind (and an existing set intact);
//  - bad input: malformed lines, a missing file and budgets that cannot work.
#include "shards/sharder.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "loaders/csr_file.h"
#include "loaders/edge_list_writer.h"
#include "loaders/format.h"
#include "loaders/load_graph.h"
#include "loaders/rmat.h"
#include "shards/shard_set.h"
#include "tests/shards/shard_cases.h"
#include "tests/shards/shard_test_util.h"

#ifndef NEEDLE_BINARY
#error "NEEDLE_BINARY must name the needle executable (see tests/CMakeLists.txt)"
#endif

namespace needle {
namespace {

namespace fs = std::filesystem;
using testing::Budget;
using testing::BudgetName;
using testing::CheckShardSet;
using testing::CostsOf;
using testing::Dataset;
using testing::GraphCase;
using testing::Input;
using testing::Leftovers;
using testing::MemoryFor;
using testing::OracleGraph;
using testing::ReadFile;
using testing::SameFiles;
using testing::ShardSetSummary;
using testing::UsableFor;
using testing::WriteFile;
using testing::Written;

// ---------------------------------------------------------------------------------------------
// Inputs: a graph file and the oracle it must shard into.

Input DataFile(const std::string& dir, const std::string& name, bool weighted) {
  const std::string path = dir + "/" + name;
  fs::copy_file(testing::TestDataPath(name), path);
  return Input{path, testing::TinyOracle(weighted)};
}

Input Rmat(const std::string& dir, int scale, bool weighted, int edge_factor = 16) {
  return testing::Rmat(dir, scale, weighted, edge_factor, 7);
}

std::vector<GraphCase> HandDrawnCases() {
  return {
      {"tiny_txt", [](const std::string& d) { return DataFile(d, "tiny.txt", true); }},
      {"tiny_wel", [](const std::string& d) { return DataFile(d, "tiny.wel", true); }},
      {"tiny_el", [](const std::string& d) { return DataFile(d, "tiny.el", false); }},
      {"tiny_gr", [](const std::string& d) { return DataFile(d, "tiny.gr", true); }},
      {"tiny_tw_gr", [](const std::string& d) { return DataFile(d, "tiny_tw.gr", false); }},
      {"tiny_mtx", [](const std::string& d) { return DataFile(d, "tiny.mtx", true); }},
      {"tiny_pattern_mtx",
       [](const std::string& d) { return DataFile(d, "tiny_pattern.mtx", false); }},
      {"tiny_crlf_wel", [](const std::string& d) { return DataFile(d, "tiny_crlf.wel", true); }},
      {"tiny_txt_weights_no",
       [](const std::string& d) {
         Input in = DataFile(d, "tiny.txt", false);
         in.weights = WeightMode::kUnweighted;
         in.weights_name = "no";
         return in;
       }},
      {"tiny_sym_mtx",
       [](const std::string& d) {
         // The symmetric file shards as its written-out twin loads.
         Input in = DataFile(d, "tiny_sym.mtx", true);
         in.oracle =
             testing::OracleFromCsr(LoadGraph(testing::TestDataPath("tiny_sym_expanded.mtx"), {}));
         return in;
       }},
      {"empty",
       [](const std::string& d) {
         return Written(d, "empty.el", "# no edges at all\n", testing::MakeOracle(0, false, {}));
       }},
      {"edgeless",
       [](const std::string& d) {
         return Written(d, "edgeless.gr", "c five vertices, no arcs\np sp 5 0\n",
                        testing::MakeOracle(5, true, {}));
       }},
      {"loops_and_duplicates", testing::LoopsAndDuplicates},
      {"duplicates_with_weights",
       [](const std::string& d) {
         // Equal (source, target) pairs ordered by the weight's bits: 2 < 5 < -1 < -3.
         return Written(d, "dups.wel", "1 0 5\n1 0 -1\n1 0 2\n0 0 0.25\n1 0 -3\n1 0 2\n1 1 5\n",
                        testing::MakeOracle(2, true,
                                            {{1, 0, 5},
                                             {1, 0, -1},
                                             {1, 0, 2},
                                             {0, 0, 0.25f},
                                             {1, 0, -3},
                                             {1, 0, 2},
                                             {1, 1, 5}}));
       }},
      {"isolated_vertices",
       [](const std::string& d) {
         // 1-based; vertices 0, 2, 3, 5, 6, 7 and 9 (the last one) have no edges.
         return Written(
             d, "isolated.mtx",
             "%%MatrixMarket matrix coordinate pattern general\n10 10 3\n2 9\n9 2\n5 5\n",
             testing::MakeOracle(10, false, {{1, 8, 1}, {8, 1, 1}, {4, 4, 1}}));
       }},
  };
}

std::vector<GraphCase> GeneratedCases() {
  return {
      {"rmat10", [](const std::string& d) { return Rmat(d, 10, false); }},
      {"rmat10_weighted", [](const std::string& d) { return Rmat(d, 10, true); }},
      {"rmat12", [](const std::string& d) { return Rmat(d, 12, false); }},
      {"rmat14_weighted", [](const std::string& d) { return Rmat(d, 14, true, 8); }},
      {"rmat12_weighted_gzip",
       [](const std::string& d) {
         // A compressed input is decompressed once, as it is read.
         Input in = Rmat(d, 12, true);
         in.path = testing::Compress(in.path, "gzip");
         return in;
       }},
  };
}

std::vector<GraphCase> DatasetCases() {
  return {
      {"email_Enron", [](const std::string&) { return Dataset("email-Enron.txt.gz"); }},
      {"rome99", [](const std::string&) { return Dataset("roads/rome99.gr"); }},
      {"Sydney", [](const std::string&) { return Dataset("roads/Sydney.wel"); }},
      {"cnr_2000", [](const std::string&) { return Dataset("cnr-2000/cnr-2000.txt.gz"); }},
  };
}

GraphCase CaseNamed(const std::string& name) {
  for (const auto& cases : {HandDrawnCases(), GeneratedCases(), DatasetCases()}) {
    for (const GraphCase& c : cases) {
      if (c.name == name) return c;
    }
  }
  throw std::logic_error("no graph case " + name);
}

ShardOptions OptionsFor(const Input& in, uint64_t usable, const std::string& out, int threads = 0) {
  ShardOptions o;
  o.memory_bytes = MemoryFor(in.oracle, usable);
  if (const uint32_t parts = testing::IntervalsFor(in.oracle, usable); parts > 1) o.intervals = parts;
  o.read.weights = in.weights;
  o.weights_name = in.weights_name;
  o.read.threads = threads;
  o.threads = threads;
  o.out_dir = out;
  return o;
}

// ---------------------------------------------------------------------------------------------
// Round trip.

class RoundTripTest
    : public testing::WithTempDir<::testing::TestWithParam<std::tuple<GraphCase, Budget>>> {};

TEST_P(RoundTripTest, EveryEdgeOnceInItsTargetsShardSortedWithWindowsAndDegrees) {
  const auto& [graph, budget] = GetParam();
  const Input in = graph.make(dir().string());
  const uint64_t usable = UsableFor(in.oracle, budget);
  ShardOptions o = OptionsFor(in, usable, File("set"));
  std::vector<std::string> log, detail;
  o.log = [&](const std::string& line) { log.push_back(line); };
  o.detail = [&](const std::string& line) { detail.push_back(line); };

  const ShardReport report = ShardGraph(in.path, o);

  ShardSetSummary summary;
  CheckShardSet(File("set"), in.oracle, true, &summary);
  if (HasFatalFailure()) return;
  if (budget == Budget::kOneShard) {
    EXPECT_EQ(summary.num_intervals, 1u);
  } else if (CostsOf(in.oracle).total > usable) {
    EXPECT_GT(summary.num_intervals, 1u) << "the many-shard budget gave one shard";
  }

  // The report tells what was done.
  EXPECT_FALSE(report.reused);
  EXPECT_EQ(report.rebuild_reason, "");
  EXPECT_EQ(report.dir, File("set"));
  EXPECT_EQ(report.manifest.num_vertices, in.oracle.num_vertices);
  EXPECT_EQ(report.manifest.num_edges, in.oracle.edges.size());
  EXPECT_EQ(report.manifest.weighted, in.oracle.weighted);
  EXPECT_EQ(std::vector<uint64_t>(report.plan.bounds.begin(), report.plan.bounds.end()),
            summary.bounds);
  EXPECT_LE(report.plan.engine_bytes, report.manifest.choices.memory_bytes);
  EXPECT_EQ(report.plan.max_cost, summary.max_interval_cost);
  EXPECT_EQ(report.plan.rule.rfind("intervals: " + std::to_string(summary.num_intervals), 0), 0u)
      << report.plan.rule;
  // The rule goes to `detail` (needle shard --verbose), not to the log everyone sees.
  EXPECT_EQ(detail, std::vector<std::string>{report.plan.rule});
  for (const std::string& line : log) {
    EXPECT_EQ(line.find(report.plan.rule), std::string::npos) << "the rule in the log: " << line;
  }
  uint64_t set_bytes = 0;
  for (const std::string& name : testing::ListDir(File("set"))) {
    if (name != "manifest") set_bytes += fs::file_size(File("set") + "/" + name);
  }
  EXPECT_GE(report.bytes_written, set_bytes);

  // The library's own reader sees what the independent one saw.
  const ShardSet set = ShardSet::Open(File("set"));
  ASSERT_EQ(set.num_intervals(), summary.num_intervals);
  const std::string windows = ReadFile(File("set/windows.idx"));
  const uint32_t P = set.num_intervals();
  for (uint32_t p = 0; p < P; ++p) {
    EXPECT_EQ(set.interval_begin(p), summary.bounds[p]);
    EXPECT_EQ(set.interval_end(p), summary.bounds[p + 1]);
    for (uint32_t q = 0; q <= P; ++q) {
      const uint64_t at = 16 * (uint64_t{p} * (P + 1) + q);
      EXPECT_EQ(set.Window(p, q).first_run, testing::Load<uint64_t>(windows, at));
      EXPECT_EQ(set.Window(p, q).first_edge, testing::Load<uint64_t>(windows, at + 8));
    }
  }
}

std::string RoundTripName(const ::testing::TestParamInfo<std::tuple<GraphCase, Budget>>& p) {
  return std::get<0>(p.param).name + "_" + BudgetName(std::get<1>(p.param));
}

INSTANTIATE_TEST_SUITE_P(HandDrawn, RoundTripTest,
                         ::testing::Combine(::testing::ValuesIn(HandDrawnCases()),
                                            ::testing::Values(Budget::kOneShard, Budget::kMany)),
                         RoundTripName);
INSTANTIATE_TEST_SUITE_P(Rmat, RoundTripTest,
                         ::testing::Combine(::testing::ValuesIn(GeneratedCases()),
                                            ::testing::Values(Budget::kOneShard, Budget::kMany)),
                         RoundTripName);
INSTANTIATE_TEST_SUITE_P(Datasets, RoundTripTest,
                         ::testing::Combine(::testing::ValuesIn(DatasetCases()),
                                            ::testing::Values(Budget::kOneShard, Budget::kMany)),
                         RoundTripName);

// ---------------------------------------------------------------------------------------------
// Determinism: the thread count and the input's format do not change a byte.

class ThreadsTest : public testing::WithTempDir<::testing::TestWithParam<GraphCase>> {};

TEST_P(ThreadsTest, OneAndTwoThreadsWriteIdenticalSets) {
  const Input in = GetParam().make(dir().string());
  const uint64_t usable = UsableFor(in.oracle, Budget::kMany);
  ShardGraph(in.path, OptionsFor(in, usable, File("t1"), 1));
  ShardGraph(in.path, OptionsFor(in, usable, File("t2"), 2));
  ShardGraph(in.path, OptionsFor(in, usable, File("t3"), 3));
  CheckShardSet(File("t1"), in.oracle, true);
  EXPECT_TRUE(SameFiles(File("t1"), File("t2")));
  EXPECT_TRUE(SameFiles(File("t1"), File("t3")));
}

INSTANTIATE_TEST_SUITE_P(Graphs, ThreadsTest,
                         ::testing::Values(CaseNamed("loops_and_duplicates"),
                                           CaseNamed("duplicates_with_weights"),
                                           CaseNamed("rmat10_weighted"),
                                           CaseNamed("rmat14_weighted"), CaseNamed("email_Enron")),
                         [](const ::testing::TestParamInfo<GraphCase>& p) { return p.param.name; });

// Both backends, O_DIRECT on and off (for the shard files; the sharder's bucket file always
// asks for it) and transfers cut short write the same bytes as plain pread/pwrite. Small
// budgets make the bucket file's staging buffers small, so records straddle the pieces read.
struct IoCase {
  std::string name;
  IoKind kind;
  bool direct;
  bool short_io;
};

class SharderIoTest
    : public testing::WithTempDir<::testing::TestWithParam<std::tuple<GraphCase, IoCase>>> {};

TEST_P(SharderIoTest, EveryBackendAndCachingWritesTheSameSet) {
  const auto& [graph, io] = GetParam();
  const Input in = graph.make(dir().string());
  const uint64_t usable = UsableFor(in.oracle, Budget::kMany);
  ShardOptions reference = OptionsFor(in, usable, File("reference"));
  reference.io.kind = IoKind::kPread;
  reference.io.direct = false;
  ShardGraph(in.path, reference);
  ShardOptions o = OptionsFor(in, usable, File("set"));
  o.io.kind = io.kind;
  o.io.direct = io.direct;
  o.io.inject_short_io = io.short_io;
  const ShardReport report = ShardGraph(in.path, o);
  CheckShardSet(File("set"), in.oracle, true);
  EXPECT_TRUE(SameFiles(File("reference"), File("set")));
  EXPECT_GT(report.io_counters.TotalWritten(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Graphs, SharderIoTest,
    ::testing::Combine(::testing::Values(CaseNamed("rmat14_weighted"), CaseNamed("email_Enron")),
                       ::testing::Values(IoCase{"uring_direct", IoKind::kAuto, true, false},
                                         IoCase{"uring_buffered", IoKind::kAuto, false, false},
                                         IoCase{"pread_direct", IoKind::kPread, true, false},
                                         IoCase{"uring_direct_short", IoKind::kAuto, true, true},
                                         IoCase{"pread_direct_short", IoKind::kPread, true, true})),
    [](const ::testing::TestParamInfo<std::tuple<GraphCase, IoCase>>& p) {
      return std::get<0>(p.param).name + "_" + std::get<1>(p.param).name;
    });

class CsrInputTest
    : public testing::WithTempDir<::testing::TestWithParam<std::tuple<bool, Budget>>> {};

TEST_P(CsrInputTest, CsrAndTextOfTheSameGraphGiveIdenticalShards) {
  const auto [weighted, budget] = GetParam();
  const Input text = Rmat(dir().string(), 12, weighted);
  const std::string csr_path = File("rmat.csr");
  WriteCsrFile(LoadGraph(text.path, {}), csr_path);
  Input csr = text;
  csr.path = csr_path;
  const uint64_t usable = UsableFor(text.oracle, budget);
  ShardGraph(text.path, OptionsFor(text, usable, File("from_text")));
  ShardGraph(csr.path, OptionsFor(csr, usable, File("from_csr")));
  CheckShardSet(File("from_csr"), text.oracle, true);
  // The manifests differ in what they were built from; everything else is the same.
  EXPECT_TRUE(SameFiles(File("from_text"), File("from_csr"), {"manifest"}));
}

INSTANTIATE_TEST_SUITE_P(Rmat12, CsrInputTest,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(Budget::kOneShard, Budget::kMany)),
                         [](const ::testing::TestParamInfo<std::tuple<bool, Budget>>& p) {
                           return std::string(std::get<0>(p.param) ? "weighted_" : "unweighted_") +
                                  BudgetName(std::get<1>(p.param));
                         });

TEST(ShardDirTest, DefaultDirectoryIsTheInputWithShardsAppended) {
  testing::TempDir dir;
  const Input in = DataFile(dir.path().string(), "tiny.txt", true);
  ShardOptions o = OptionsFor(in, 1 << 20, "");
  const ShardReport report = ShardGraph(in.path, o);
  EXPECT_EQ(DefaultShardDir(in.path), in.path + ".shards");
  EXPECT_EQ(report.dir, in.path + ".shards");
  CheckShardSet(in.path + ".shards", in.oracle, true);
}

// ---------------------------------------------------------------------------------------------
// Reuse and rebuild.

// A weighted R-MAT graph sharded into a few intervals, with a marker file dropped into the set:
// the marker survives a reuse and disappears with a rebuild (which renames a new directory in).
// It is named as needle's temporaries are: a file of any other name would stop the rebuild
// (sharder_target_test.cc).
class ReuseTest : public testing::WithTempDir<> {
 protected:
  void SetUp() override {
    WithTempDir::SetUp();
    input_ = Rmat(dir().string(), 10, true);
    usable_ = std::max(CostsOf(input_.oracle).total / 3, CostsOf(input_.oracle).max_vertex);
    options_ = OptionsFor(input_, usable_, File("set"));
    options_.log = [this](const std::string& line) { log_.push_back(line); };
    const ShardReport first = ShardGraph(input_.path, options_);
    ASSERT_FALSE(first.reused);
    ASSERT_GT(first.manifest.num_intervals(), 1u);
    WriteFile(Marker(), "still the old directory\n");
    log_.clear();
  }
  std::string Set() const { return File("set"); }
  std::string Marker() const { return File("set/marker.needle-tmp-000000"); }

  Input input_;
  uint64_t usable_ = 0;
  ShardOptions options_;
  std::vector<std::string> log_;
};

TEST_F(ReuseTest, MatchingSetIsReusedWithoutRewritingAnything) {
  const auto before = testing::StampsOf(Set());
  ShardOptions o = options_;
  o.threads = 2;  // not one of the choices that change the shards
  o.read.threads = 2;
  const ShardReport again = ShardGraph(input_.path, o);
  EXPECT_TRUE(again.reused);
  EXPECT_EQ(again.rebuild_reason, "");
  EXPECT_EQ(again.dir, Set());
  EXPECT_EQ(again.manifest.num_edges, input_.oracle.edges.size());
  EXPECT_EQ(again.manifest.num_vertices, input_.oracle.num_vertices);
  EXPECT_GT(again.manifest.num_intervals(), 1u);
  EXPECT_TRUE(fs::exists(Marker()));
  EXPECT_EQ(testing::StampsOf(Set()), before) << "a reused set's files were rewritten";
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_NE(log_[0].find("reusing"), std::string::npos) << log_[0];
}

// A touched input, or one rewritten with the same bytes, is the same input: its new times
// make the sharder hash it again, and the hash decides.
TEST_F(ReuseTest, TouchedInputWithTheSameBytesIsReused) {
  fs::last_write_time(input_.path, fs::last_write_time(input_.path) + std::chrono::seconds(2));
  EXPECT_TRUE(ShardGraph(input_.path, options_).reused);
  WriteFile(input_.path, ReadFile(input_.path));
  EXPECT_TRUE(ShardGraph(input_.path, options_).reused);
  EXPECT_TRUE(fs::exists(Marker()));
}

struct Change {
  std::string name;
  std::string reason;  // what the rebuild reason must mention
  // Changes the input, the options or the set; returns the input to shard next.
  std::function<std::string(const std::string& input, const std::string& set, ShardOptions& o)>
      apply;
};

void PrintTo(const Change& c, std::ostream* os) { *os << c.name; }

class RebuildTest : public ReuseTest, public ::testing::WithParamInterface<Change> {};

TEST_P(RebuildTest, ChangeRebuildsAndSaysWhy) {
  ShardOptions o = options_;
  const std::string input = GetParam().apply(input_.path, Set(), o);
  if (HasFatalFailure()) return;
  const ShardReport report = ShardGraph(input, o);
  EXPECT_FALSE(report.reused);
  EXPECT_NE(report.rebuild_reason.find(GetParam().reason), std::string::npos)
      << "rebuild reason: '" << report.rebuild_reason << "'";
  EXPECT_FALSE(fs::exists(Marker())) << "the old directory is still in place";
  EXPECT_TRUE(Leftovers(Set()).empty());
  // The rebuilt set is what a fresh sharding of the same input with the same options writes.
  ShardOptions fresh = o;
  fresh.out_dir = File("fresh");
  fresh.log = nullptr;
  ShardGraph(input, fresh);
  EXPECT_TRUE(SameFiles(Set(), File("fresh")));
  EXPECT_NO_THROW(ShardSet::Open(Set()));
}

std::string ReplaceManifestVersion(const std::string& set, const std::string& version) {
  const std::string text = ReadFile(set + "/manifest");
  std::string body = testing::ManifestBody(text);
  const size_t eol = body.find('\n');
  body = "needle-shards " + version + body.substr(eol);
  return testing::WithManifestHash(body);
}

std::vector<Change> Changes() {
  using S = const std::string&;
  return {
      {"input_grew", "size",
       [](S in, S, ShardOptions&) {
         std::ofstream(in, std::ios::app) << "0\t1\t3\n";
         return in;
       }},
      {"input_edited_same_size_and_mtime", "content",
       [](S in, S, ShardOptions&) {
         // A weight digit on the first line: same size; the old mtime is put back.
         const auto mtime = fs::last_write_time(in);
         std::string text = ReadFile(in);
         const size_t eol = text.find('\n');
         text[eol - 1] = text[eol - 1] == '9' ? '8' : '9';
         WriteFile(in, text);
         fs::last_write_time(in, mtime);
         return in;
       }},
      {"input_edited_past_the_head_same_size_and_mtime", "content",
       [](S in, S, ShardOptions&) {
         // The last weight digit, far past the first 64 KiB: same size, old mtime put back.
         const auto mtime = fs::last_write_time(in);
         std::string text = ReadFile(in);
         EXPECT_GT(text.size(), 2u << 16);
         text[text.size() - 2] = text[text.size() - 2] == '9' ? '8' : '9';
         WriteFile(in, text);
         fs::last_write_time(in, mtime);
         return in;
       }},
      {"other_input", "built from",
       [](S in, S, ShardOptions&) {
         const std::string copy = in + ".copy.wel";
         fs::copy_file(in, copy);
         return copy;
       }},
      {"memory", "memory",
       [](S in, S, ShardOptions& o) {
         o.memory_bytes += 4096;
         return in;
       }},
      {"format", "format",
       [](S in, S, ShardOptions& o) {
         o.format_name = "snap";
         o.read.format = GraphFormat::kEdgeList;
         return in;
       }},
      {"weights", "weights",
       [](S in, S, ShardOptions& o) {
         o.weights_name = "yes";
         o.read.weights = WeightMode::kWeighted;
         return in;
       }},
      {"symmetrize", "symmetrize differs",
       [](S in, S, ShardOptions& o) {
         o.symmetrize = true;
         return in;
       }},
      {"interval_costs", "interval costs differ",
       [](S in, S, ShardOptions& o) {
         o.costs.vertex = 24;
         return in;
       }},
      {"force", "force",
       [](S in, S, ShardOptions& o) {
         o.force = true;
         return in;
       }},
      {"corrupt_manifest", "manifest",
       [](S in, S set, ShardOptions&) {
         testing::FlipByte(set + "/manifest", 40);
         return in;
       }},
      {"missing_manifest", "manifest",
       [](S in, S set, ShardOptions&) {
         fs::remove(set + "/manifest");
         return in;
       }},
      {"newer_manifest_version", "version",
       [](S in, S set, ShardOptions&) {
         WriteFile(set + "/manifest",
                   ReplaceManifestVersion(set, std::to_string(kShardFormatVersion + 1)));
         return in;
       }},
      {"older_manifest_version", "version",  // a version-1 set has no scatter indexes
       [](S in, S set, ShardOptions&) {
         WriteFile(set + "/manifest", ReplaceManifestVersion(set, "1"));
         return in;
       }},
      {"corrupt_adjacency", "shard-0001.adj",
       [](S in, S set, ShardOptions&) {
         testing::FlipByte(set + "/shard-0001.adj", 4096 + 4);
         return in;
       }},
      {"missing_values", "shard-0000.val",
       [](S in, S set, ShardOptions&) {
         fs::remove(set + "/shard-0000.val");
         return in;
       }},
      {"short_windows", "windows.idx",
       [](S in, S set, ShardOptions&) {
         testing::Truncate(set + "/windows.idx", fs::file_size(set + "/windows.idx") - 1);
         return in;
       }},
      {"long_degrees", "degrees.bin",
       [](S in, S set, ShardOptions&) {
         std::ofstream(set + "/degrees.bin", std::ios::app | std::ios::binary) << '\0';
         return in;
       }},
  };
}

INSTANTIATE_TEST_SUITE_P(Changes, RebuildTest, ::testing::ValuesIn(Changes()),
                         [](const ::testing::TestParamInfo<Change>& p) { return p.param.name; });

// ---------------------------------------------------------------------------------------------
// Crash safety.

// Starts `needle ARGS...` with its output discarded; returns its pid.
pid_t SpawnNeedle(const std::vector<std::string>& args) {
  std::vector<std::string> all{NEEDLE_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// Waits for `pid` for `seconds`, then kills it with SIGKILL. Returns -1 if it was killed, else
// how long it ran before it exited by itself (with status 0, checked).
double KillAfter(pid_t pid, double seconds) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(seconds));
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "needle shard failed";
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) {  // it finished between the last poll and the kill
    EXPECT_EQ(WEXITSTATUS(status), 0) << "needle shard failed";
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the sharder was not killed";
  return -1;
}

int RunNeedle(const std::vector<std::string>& args) {
  const pid_t pid = SpawnNeedle(args);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class CrashTest : public testing::WithTempDir<> {};

// A previous set (built for another budget) stands at DIR. `needle shard --force` is killed at
// five seeded random points spread over its run time; after each kill DIR is either absent,
// refused by ShardSet::Open, or a complete set — the previous one or the new one, byte for
// byte. A last run without --force then leaves exactly the reference set.
TEST_F(CrashTest, KilledSharderNeverLeavesAHalfWrittenSetAndARerunCompletes) {
  const Input in = Rmat(dir().string(), 16, false);
  const uint64_t usable = std::max(CostsOf(in.oracle).total / 8, CostsOf(in.oracle).max_vertex);
  const std::string memory = std::to_string(MemoryFor(in.oracle, usable));
  const std::string set = File("set");

  ShardGraph(in.path, OptionsFor(in, uint64_t{1} << 30, File("previous")));
  fs::copy(File("previous"), set);

  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(RunNeedle({"shard", in.path, "--memory", memory, "--out", File("reference")}), 0);
  const double run_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CheckShardSet(File("reference"), in.oracle, true);
  if (HasFatalFailure()) return;

  // After a kill, DIR is absent, refused, or a complete set: the previous one or the new one.
  auto check_state = [&] {
    if (!fs::exists(set)) return;
    try {
      ShardSet::Open(set);
    } catch (const Error&) {
      return;
    }
    EXPECT_TRUE(SameFiles(set, File("previous")) || SameFiles(set, File("reference")))
        << "a set that validates is neither the previous one nor the new one";
  };
  testing::Rng rng(20240617);
  constexpr int kKills = 5;
  int killed = 0;
  double estimate = run_seconds;  // shrinks if a run finishes before its kill point
  for (int k = 0; k < kKills; ++k) {
    // Kill point k lies in the k-th fifth of the run.
    const double fraction = (k + static_cast<double>(rng.Below(1000)) / 1000.0) / kKills;
    for (int attempt = 0; attempt < 3; ++attempt) {
      SCOPED_TRACE("kill " + std::to_string(k) + " at " + std::to_string(fraction * estimate) +
                   " s of " + std::to_string(estimate) + " s");
      const pid_t pid =
          SpawnNeedle({"shard", in.path, "--memory", memory, "--out", set, "--force"});
      ASSERT_GT(pid, 0);
      const double ran = KillAfter(pid, fraction * estimate);
      check_state();
      if (ran < 0) {
        ++killed;
        break;
      }
      estimate = std::min(estimate, ran);
    }
  }
  EXPECT_GE(killed, 3) << "the kill points missed the runs";

  // Whether this run reuses or rebuilds depends on where the last kills fell; either way it
  // must leave the reference set (LeftoversTest checks the temporaries deterministically).
  ASSERT_EQ(RunNeedle({"shard", in.path, "--memory", memory, "--out", set}), 0);
  EXPECT_TRUE(SameFiles(set, File("reference")));
  EXPECT_NO_THROW(ShardSet::Open(set));
}

// What killed runs leave next to DIR (a DIR.needle-tmp-XXXXXX with partial files, a
// DIR.needle-old-XXXXXX moved aside) is removed by the next run, whether that run rebuilds or
// reuses the set; what merely looks similar (the user's DIR.old-backup) is not.
enum class NextRun { kFresh, kRebuild, kReuse };

std::string NextRunName(NextRun r) {
  return r == NextRun::kFresh ? "fresh" : r == NextRun::kRebuild ? "rebuild" : "reuse";
}

void PrintTo(NextRun r, std::ostream* os) { *os << NextRunName(r); }

class LeftoversTest : public testing::WithTempDir<::testing::TestWithParam<NextRun>> {};

TEST_P(LeftoversTest, NextRunRemovesTheTemporariesOfKilledRuns) {
  const Input in = DataFile(dir().string(), "tiny.txt", true);
  ShardOptions o = OptionsFor(in, 1 << 20, File("set"));
  if (GetParam() != NextRun::kFresh) {
    ShardGraph(in.path, o);
    fs::copy(File("set"), File("set.needle-old-4242ab"));
  }
  fs::create_directory(File("set.needle-tmp-Ab12Cd"));
  WriteFile(File("set.needle-tmp-Ab12Cd/bucket-0"), std::string(4096, 'x'));
  WriteFile(File("set.needle-tmp-Ab12Cd/shard-0000.adj"), "NEEDLADJ");
  fs::create_directory(File("set.needle-tmp-zz99ZZ"));
  fs::create_directory(File("set.old-backup"));
  WriteFile(File("set.old-backup/mine.txt"), "the user's");
  ASSERT_FALSE(Leftovers(File("set")).empty());
  if (GetParam() == NextRun::kRebuild) o.memory_bytes += 4096;

  const ShardReport report = ShardGraph(in.path, o);
  EXPECT_EQ(report.reused, GetParam() == NextRun::kReuse);
  EXPECT_TRUE(Leftovers(File("set")).empty())
      << "left behind: " << ::testing::PrintToString(Leftovers(File("set")));
  EXPECT_EQ(ReadFile(File("set.old-backup/mine.txt")), "the user's");
  CheckShardSet(File("set"), in.oracle, true);
}

INSTANTIATE_TEST_SUITE_P(Runs, LeftoversTest,
                         ::testing::Values(NextRun::kFresh, NextRun::kRebuild, NextRun::kReuse),
                         [](const ::testing::TestParamInfo<NextRun>& p) {
                           return NextRunName(p.param);
                         });

// A text input with a malformed line near its end, big enough to be read in several chunks
// (the budget below makes the sharder read 1 MiB of text at a time).
class MidwayErrorTest : public testing::WithTempDir<> {
 protected:
  void SetUp() override {
    WithTempDir::SetUp();
    good_ = Rmat(dir().string(), 15, false);
    bad_line_ = good_.oracle.edges.size() - 10;
    std::string text = ReadFile(good_.path);
    size_t at = 0;
    for (uint64_t line = 1; line < bad_line_; ++line) at = text.find('\n', at) + 1;
    text.insert(at, "17 x\n");
    bad_text_ = text;
    ASSERT_GT(bad_text_.size(), size_t{4} << 20);
  }
  ShardOptions Options(const std::string& out) const {
    ShardOptions o = OptionsFor(good_, 16 << 20, out);
    o.memory_bytes = testing::kReserve + (16 << 20);
    return o;
  }

  Input good_;
  uint64_t bad_line_ = 0;
  std::string bad_text_;
};

TEST_F(MidwayErrorTest, ErrorLeavesNoDirectoryAndNoTemporaries) {
  WriteFile(good_.path, bad_text_);
  EXPECT_TRUE(testing::ThrowsError([&] { ShardGraph(good_.path, Options(File("set"))); },
                                   good_.path, testing::AtLine(bad_line_), "x"));
  EXPECT_FALSE(fs::exists(File("set")));
  EXPECT_TRUE(Leftovers(File("set")).empty());
  EXPECT_EQ(testing::ListDir(dir().string()), std::vector<std::string>{"rmat15.el"});
}

TEST_F(MidwayErrorTest, FailedRebuildLeavesTheExistingSetIntact) {
  ShardGraph(good_.path, Options(File("set")));
  fs::copy(File("set"), File("copy"));
  const auto before = testing::StampsOf(File("set"));
  WriteFile(good_.path, bad_text_);
  EXPECT_TRUE(testing::ThrowsError([&] { ShardGraph(good_.path, Options(File("set"))); },
                                   good_.path, testing::AtLine(bad_line_), "x"));
  EXPECT_TRUE(SameFiles(File("set"), File("copy")));
  EXPECT_EQ(testing::StampsOf(File("set")), before);
  EXPECT_NO_THROW(ShardSet::Open(File("set")));
  EXPECT_TRUE(Leftovers(File("set")).empty());
}

// ---------------------------------------------------------------------------------------------
// Bad input and budgets that cannot work.

struct BadText {
  std::string name;
  std::string file;
  std::string text;
  uint64_t line;
};

void PrintTo(const BadText& b, std::ostream* os) { *os << b.name; }

class BadInputTest : public testing::WithTempDir<::testing::TestWithParam<BadText>> {};

TEST_P(BadInputTest, MalformedLineIsAnErrorWithPathAndLine) {
  const std::string path = File(GetParam().file);
  WriteFile(path, GetParam().text);
  ShardOptions o;
  o.out_dir = File("set");
  EXPECT_TRUE(testing::ThrowsError([&] { ShardGraph(path, o); }, path,
                                   testing::AtLine(GetParam().line), ""));
  EXPECT_FALSE(fs::exists(File("set")));
  EXPECT_TRUE(Leftovers(File("set")).empty());
}

INSTANTIATE_TEST_SUITE_P(Texts, BadInputTest,
                         ::testing::Values(BadText{"letter_id", "g.el", "0 1\n1 2\nx 3\n2 0\n", 3},
                                           BadText{"negative_id", "g.el", "# c\n0 1\n1 -2\n", 3},
                                           BadText{"missing_target", "g.el", "0 1\n1\n2 0\n", 2},
                                           BadText{"bad_weight", "g.wel", "0 1 1.5\n1 2 abc\n", 2},
                                           BadText{"arc_out_of_range", "g.gr",
                                                   "p sp 3 2\na 1 2 1\na 1 4 1\n", 3}),
                         [](const ::testing::TestParamInfo<BadText>& p) { return p.param.name; });

TEST(ShardGraphTest, MissingInputIsAnErrorNamingIt) {
  testing::TempDir dir;
  const std::string path = dir.File("nothing-here.el");
  ShardOptions o;
  o.out_dir = dir.File("set");
  EXPECT_TRUE(testing::ThrowsError([&] { ShardGraph(path, o); }, path, "", ""));
  EXPECT_FALSE(fs::exists(dir.File("set")));
}

struct TightBudget {
  std::string name;
  // The --memory for a graph of n vertices whose largest vertex costs max_vertex.
  std::function<uint64_t(uint64_t n, uint64_t max_vertex)> memory;
};

void PrintTo(const TightBudget& b, std::ostream* os) { *os << b.name; }

class TightBudgetTest : public testing::WithTempDir<::testing::TestWithParam<TightBudget>> {};

TEST_P(TightBudgetTest, BudgetThatCannotWorkIsRefusedMentioningMemory) {
  const Input in = Rmat(dir().string(), 10, false);
  ShardOptions o = OptionsFor(in, 1, File("set"));
  o.memory_bytes = GetParam().memory(in.oracle.num_vertices, CostsOf(in.oracle).max_vertex);
  try {
    ShardGraph(in.path, o);
    ADD_FAILURE() << "--memory " << o.memory_bytes << " was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--memory"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(File("set")));
  EXPECT_TRUE(Leftovers(File("set")).empty());
}

INSTANTIATE_TEST_SUITE_P(
    Budgets, TightBudgetTest,
    ::testing::Values(
        TightBudget{"zero", [](uint64_t, uint64_t) { return uint64_t{0}; }},
        TightBudget{"reserve_only", [](uint64_t, uint64_t) { return testing::kReserve; }},
        TightBudget{"no_room_for_degree_arrays",
                    [](uint64_t n, uint64_t) {
                      return testing::kReserve + testing::kResidentBytesPerVertex * n;
                    }},
        TightBudget{"largest_vertex_does_not_fit",
                    [](uint64_t, uint64_t max_vertex) {
                      return testing::FixedFor(1) + max_vertex - 1;
                    }}),
    [](const ::testing::TestParamInfo<TightBudget>& p) { return p.param.name; });

// A budget one vertex cannot fit names the smallest --memory that works, and it does: the
// graph is sharded there, by the budget alone, with each interval within it.
TEST(ShardGraphTest, SmallestMemoryNamedForAHubWorks) {
  testing::TempDir dir;
  std::vector<testing::WeightedEdge> edges;
  std::string text;
  for (uint32_t u = 2; u < 200000; ++u) {
    edges.push_back({u, 0, 1});
    text += std::to_string(u) + " 0\n";
  }
  edges.push_back({131071, 1, 1});
  text += "131071 1\n";
  const Input in =
      Written(dir.path().string(), "hub.el", text, testing::MakeOracle(200000, false, edges));
  ShardOptions o = OptionsFor(in, 1, dir.File("set"));
  o.intervals = 0;
  o.memory_bytes = testing::FixedFor(1) + CostsOf(in.oracle).max_vertex - 1;
  uint64_t given = 0;
  try {
    ShardGraph(in.path, o);
    FAIL() << "sharded";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("vertex 0 (out-degree 0, in-degree 199998)"), std::string::npos) << what;
    const size_t at = what.find("give --memory ");
    ASSERT_NE(at, std::string::npos) << what;
    given = static_cast<uint64_t>(std::stod(what.substr(at + 14)) * (1 << 20) + 0.5);
  }
  o.memory_bytes = given;
  ShardGraph(in.path, o);
  CheckShardSet(dir.File("set"), in.oracle, true);
}

// The sharder plans on blocks of consecutive ids (units); one unit over the budget is planned
// per vertex instead. Ids 0 and 1 make one unit of two ids here, each vertex heavy.
TEST(IntervalPlanTest, UnitOverTheBudgetIsPlannedPerVertex) {
  const std::vector<uint64_t> unit_out{0, 0}, unit_in{100000, 0};
  const std::vector<uint32_t> out{0, 0, 0, 0}, in{50000, 50000, 0, 0};
  const testing::CostFactors c = testing::Charged({}, false, 2);
  const uint64_t memory = testing::FixedFor(2) + testing::CostOf(0, 50000, c) + 4 * 2 * c.vertex;
  EXPECT_FALSE(PlanIntervalsByUnits(unit_out, unit_in, 1, 4, memory).has_value());
  const IntervalPlan plan = PlanIntervals(out, in, memory);
  EXPECT_EQ(plan.num_intervals(), 2u) << plan.rule;
  EXPECT_LE(plan.engine_bytes, memory);
}

// Ids far larger than the first blocks' arrive later: the sharder coarsens its units and
// buckets on the way, and every edge still lands in its shard.
TEST(ShardGraphTest, IdsGrowingAfterTheFirstBlocksAreShardedRight) {
  testing::TempDir dir;
  std::vector<testing::WeightedEdge> edges;
  uint64_t state = 12345;
  auto next = [&state](uint32_t below) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>((state >> 33) % below);
  };
  for (int i = 0; i < 500000; ++i) {  // blocks here are about 350,000 edges
    const uint32_t range = i < 400000 ? 60000 : 3000000;
    edges.push_back({next(range), next(range), 1});
  }
  edges.push_back({2999999, 0, 1});
  std::string text;
  for (const auto& e : edges)
    text += std::to_string(e.source) + " " + std::to_string(e.target) + "\n";
  const Input in =
      Written(dir.path().string(), "growing.el", text, testing::MakeOracle(3000000, false, edges));
  const uint64_t usable = UsableFor(in.oracle, Budget::kMany);
  ShardGraph(in.path, OptionsFor(in, usable, dir.File("set")));
  ShardSetSummary summary;
  CheckShardSet(dir.File("set"), in.oracle, true, &summary);
  EXPECT_GT(summary.num_intervals, 1u);
}

}  // namespace
}  // namespace needle
