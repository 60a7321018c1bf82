// The shard set's format version 4 (shards/shard_layout.h, docs/shards.md):
//
//  - what is on disk: an adjacency file is its 4 KiB header and 4 bytes per edge, padded to
//    4 KiB (the source runs live only in the scatter indexes); an unweighted set has no value
//    files, in its directory or its manifest, and a weighted one has one per shard;
//  - one version for the set: the manifest and every adjacency header say 4, a header that says
//    otherwise is a corrupt set named by its file, and a manifest of another version is
//    refused at its first line with how to rebuild the set;
//  - a set of an older version is rebuilt by the sharder, saying so in one line, and refused by
//    `needle run` and `needle info` given its directory, saying how to rebuild it;
//  - the sharder counts every byte it writes under its file's own kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/version.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"
#include "shards/manifest.h"
#include "shards/shard_layout.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"
#include "tests/shards/shard_test_util.h"

#ifndef NEEDLE_BINARY
#error "NEEDLE_BINARY must name the needle executable (see tests/CMakeLists.txt)"
#endif

namespace needle {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::ShellQuote;
using testing::ThrowsError;
using testing::WriteFile;

// One R-MAT graph (scale 10), written weighted and unweighted, sharded into a few intervals.
class ShardFormatTest : public testing::WithTempDir<> {
 protected:
  void SetUp() override {
    WithTempDir::SetUp();
    for (bool weighted : {false, true}) {
      RmatOptions r;
      r.scale = 10;
      r.weighted = weighted;
      const EdgeList list = GenerateRmat(r);
      Graph& g = weighted ? weighted_ : unweighted_;
      g.path = File(weighted ? "g.wel" : "g.el");
      g.oracle = testing::OracleFromEdgeListFile(list);
      WriteEdgeListText(list, g.path);
    }
  }
  struct Graph {
    std::string path;
    testing::OracleGraph oracle;
  };
  // Shards `g` into `dir` in about three intervals (symmetrized: one), logging into log_.
  ShardReport Shard(const Graph& g, const std::string& dir, bool symmetrize = false) {
    const testing::CostSummary cost = testing::CostsOf(g.oracle);
    ShardOptions o;
    const uint64_t usable = std::max(cost.total / 3, cost.max_vertex);
    o.memory_bytes = symmetrize ? uint64_t{1} << 30  // one interval is enough here
                                : testing::MemoryFor(g.oracle, usable);
    if (!symmetrize) o.intervals = testing::IntervalsFor(g.oracle, usable);
    o.out_dir = dir;
    o.symmetrize = symmetrize;
    // An unweighted graph is charged like a weighted one (a weight per in-edge), so that the
    // two are cut alike.
    if (!g.oracle.weighted) o.costs.in_edge += kWeightBytes;
    o.log = [this](const std::string& line) { log_.push_back(line); };
    return ShardGraph(g.path, o);
  }
  // Writes the manifest of `dir` with its first line saying `version` (hash recomputed).
  static void SetManifestVersion(const std::string& dir, const std::string& version) {
    std::string body = testing::ManifestBody(ReadFile(dir + "/manifest"));
    body = "needle-shards " + version + body.substr(body.find('\n'));
    WriteFile(dir + "/manifest", testing::WithManifestHash(body));
  }
  // Replaces `from` by `to` in the manifest of `dir` (once) and recomputes its hash.
  static void EditManifest(const std::string& dir, const std::string& from, const std::string& to) {
    std::string body = testing::ManifestBody(ReadFile(dir + "/manifest"));
    const size_t at = body.find(from);
    ASSERT_NE(at, std::string::npos) << "no '" << from << "' in the manifest";
    body.replace(at, from.size(), to);
    WriteFile(dir + "/manifest", testing::WithManifestHash(body));
  }
  testing::CommandResult Needle(const std::string& args) {
    return testing::RunCaptured(ShellQuote(NEEDLE_BINARY) + " " + args, dir().string());
  }

  Graph weighted_, unweighted_;
  std::vector<std::string> log_;
};

// ---------------------------------------------------------------------------------------------
// What is on disk.

TEST_F(ShardFormatTest, UnweightedSetHasNoValueFilesAndTheSameRest) {
  const ShardReport report = Shard(unweighted_, File("set"));
  ASSERT_GE(report.manifest.num_intervals(), 3u);
  testing::CheckShardSet(File("set"), unweighted_.oracle, false);  // no .val, in the dir or manifest
  const ShardSet set = ShardSet::Open(File("set"));
  EXPECT_FALSE(set.weighted());
  EXPECT_EQ(set.BytesOf(".val"), 0u);
  for (const ManifestFile& f : set.manifest().files) EXPECT_FALSE(f.name.ends_with(".val"));
  for (const std::string& name : testing::ListDir(File("set"))) {
    EXPECT_FALSE(name.ends_with(".val")) << name;
  }
  // The weighted graph's set holds the same adjacency files and indexes, and a value file per
  // shard of 4 bytes an edge.
  Shard(weighted_, File("wset"));
  testing::CheckShardSet(File("wset"), weighted_.oracle, false);
  const ShardSet wset = ShardSet::Open(File("wset"));
  EXPECT_TRUE(wset.weighted());
  ASSERT_EQ(wset.num_intervals(), set.num_intervals());
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    EXPECT_EQ(set.header(p).num_edges, wset.header(p).num_edges);
    EXPECT_EQ(wset.manifest().File(ShardFileName(p, ".val"))->size,
              testing::AlignUp(4 * wset.header(p).num_edges));
  }
}

// The adjacency files hold a 4 KiB header and 4 bytes per edge, nothing else: the source runs
// (8 bytes each up to format 3) are only in the scatter indexes.
TEST_F(ShardFormatTest, AdjacencyIsHeaderAndTargetsOnly) {
  Shard(unweighted_, File("set"));
  const ShardSet set = ShardSet::Open(File("set"));
  uint64_t edges = 0, adjacency = 0;
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    const ShardFileHeader& h = set.header(p);
    EXPECT_EQ(h.version, 4u);
    EXPECT_EQ(h.targets_pos, 4096u);
    EXPECT_GT(h.num_runs, 0u);
    const uint64_t size = set.manifest().File(ShardFileName(p, ".adj"))->size;
    EXPECT_EQ(size, testing::AlignUp(4096 + 4 * h.num_edges)) << "shard " << p;
    EXPECT_EQ(size, fs::file_size(set.AdjacencyPath(p)));
    edges += h.num_edges;
    adjacency += size;
  }
  EXPECT_EQ(set.BytesOf(".adj"), adjacency);
  // At most the padding of each file beyond 4 bytes an edge.
  EXPECT_LE(adjacency, 4 * edges + 2 * 4096 * uint64_t{set.num_intervals()});
}

// ---------------------------------------------------------------------------------------------
// One version for the set.

TEST_F(ShardFormatTest, ManifestAndHeadersCarryTheOneVersion) {
  Shard(weighted_, File("set"));
  EXPECT_EQ(kShardFormatVersion, 4u);
  EXPECT_EQ(ReadFile(File("set/manifest")).rfind("needle-shards 4\nwritten-by needle " +
                                                     std::string(Version()) + "\n",
                                                 0),
            0u);
  const ShardSet set = ShardSet::Open(File("set"));
  EXPECT_EQ(set.manifest().version, kShardFormatVersion);
  EXPECT_EQ(set.manifest().written_by, "needle " + std::string(Version()));
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    EXPECT_EQ(testing::Load<uint32_t>(ReadFile(set.AdjacencyPath(p)), 8), kShardFormatVersion);
  }
}

// A header of another version than the manifest's is a corrupt set, named by its file, with or
// without digests (its digest made to match, as a set written half by another needle would).
TEST_F(ShardFormatTest, HeaderOfAnotherVersionIsACorruptSetNamingTheFile) {
  Shard(weighted_, File("set"));
  const std::string adj = File("set/shard-0001.adj");
  const std::string manifest = ReadFile(File("set/manifest"));
  for (uint32_t version : {2u, 3u, 5u}) {
    std::string bytes = ReadFile(adj);
    const std::string old_digest = testing::Hex16(XXH3_64bits(bytes.data(), bytes.size()));
    std::memcpy(bytes.data() + 8, &version, 4);
    WriteFile(adj, bytes);
    EditManifest(File("set"), old_digest, testing::Hex16(XXH3_64bits(bytes.data(), bytes.size())));
    for (bool verify : {true, false}) {
      EXPECT_TRUE(ThrowsError(
          [&] { ShardSet::Open(File("set"), verify); }, adj, ": byte 8:",
          "format version " + std::to_string(version) + " in a set whose manifest says 4"));
    }
    version = 4;
    std::memcpy(bytes.data() + 8, &version, 4);
    WriteFile(adj, bytes);
    WriteFile(File("set/manifest"), manifest);
    EXPECT_NO_THROW(ShardSet::Open(File("set")));
  }
}

TEST_F(ShardFormatTest, HeaderFieldsThatMustBeZeroAreChecked) {
  Shard(weighted_, File("set"));
  const std::string adj = File("set/shard-0000.adj");
  for (uint64_t at : {32u, 56u}) {
    std::string bytes = ReadFile(adj);
    const std::string saved = bytes;
    bytes[at] = 1;
    WriteFile(adj, bytes);
    EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(File("set"), false); }, adj,
                            ": byte " + std::to_string(at) + ":", "reserved"));
    WriteFile(adj, saved);
  }
  EXPECT_NO_THROW(ShardSet::Open(File("set")));
}

// The manifest's weighted flag decides which files the set has: value files listed in an
// unweighted set, or missing from a weighted one, are refused by name.
TEST_F(ShardFormatTest, ValueFilesFollowTheWeightedFlag) {
  Shard(weighted_, File("wset"));
  EditManifest(File("wset"), "\nweighted 1\n", "\nweighted 0\n");
  EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(File("wset"), false); }, File("wset/manifest"), "",
                          "shard-0000.val, not a file of the set"));
  Shard(unweighted_, File("set"));
  EditManifest(File("set"), "\nweighted 0\n", "\nweighted 1\n");
  EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(File("set"), false); }, File("set/manifest"), "",
                          "does not list shard-0000.val"));
}

// ---------------------------------------------------------------------------------------------
// Sets of other versions.

TEST_F(ShardFormatTest, ManifestOfAnOlderVersionSaysHowToRebuild) {
  Shard(unweighted_, File("set"));
  SetManifestVersion(File("set"), "3");
  try {
    ShardSet::Open(File("set"));
    FAIL() << "a format-3 set opened";
  } catch (const ShardFormatError& e) {
    EXPECT_EQ(e.version(), 3u);
    EXPECT_EQ(e.path(), File("set/manifest"));
    EXPECT_EQ(e.line(), 1u);
    const std::string what = e.what();
    EXPECT_NE(what.find("shard set format version 3; this needle reads format version 4"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("'needle shard " + fs::absolute(unweighted_.path).string() + " --out " +
                        File("set") + "'"),
              std::string::npos)
        << what;
  }
  // A symmetrized set's command says --symmetrize; a newer version says it is newer.
  Shard(unweighted_, File("sym"), /*symmetrize=*/true);
  SetManifestVersion(File("sym"), "2");
  EXPECT_TRUE(ThrowsError([&] { ReadManifest(File("sym")); }, File("sym/manifest"),
                          ":1:", " --symmetrize --out " + File("sym")));
  SetManifestVersion(File("set"), "5");
  EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(File("set")); }, File("set/manifest"),
                          ":1:", "format version 5 is newer than this needle reads (4)"));
}

// The sharder rebuilds a set of an older version, saying so in one line, as it replaces its
// own sets (the old one moved aside and removed, nothing else touched).
TEST_F(ShardFormatTest, SharderRebuildsAnOlderSetSayingWhy) {
  Shard(weighted_, File("set"));
  SetManifestVersion(File("set"), "3");
  WriteFile(File("set.old-backup"), "a user's file beside the set\n");
  log_.clear();
  const ShardReport report = Shard(weighted_, File("set"));
  EXPECT_FALSE(report.reused);
  const std::string line = "shard set " + File("set") +
                           " is format version 3; this needle reads format version 4: rebuilding";
  EXPECT_NE(std::find(log_.begin(), log_.end(), line), log_.end())
      << "log:\n"
      << ::testing::PrintToString(log_);
  EXPECT_EQ(report.rebuild_reason,
            line.substr(0, line.size() - std::string(": rebuilding").size()));
  EXPECT_TRUE(testing::Leftovers(File("set")).empty());
  EXPECT_TRUE(fs::exists(File("set.old-backup")));
  testing::CheckShardSet(File("set"), weighted_.oracle, false);
}

// Given the directory, `needle run` and `needle info` refuse an older set, saying its format and
// how to rebuild it; given the graph, `needle run` rebuilds it, saying so.
TEST_F(ShardFormatTest, CommandLineRefusesAnOlderDirectoryAndRebuildsForTheGraph) {
  const std::string set = unweighted_.path + ".shards";  // the default directory
  ASSERT_EQ(Needle("shard " + ShellQuote(unweighted_.path) + " --memory 128M").status, 0);
  SetManifestVersion(set, "3");
  const std::string rebuild = "rebuild it with 'needle shard " +
                              fs::absolute(unweighted_.path).string() + " --out " + set + "'";

  testing::CommandResult r = Needle("run pagerank " + ShellQuote(set) + " --memory 128M");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("format version 3; this needle reads format version 4"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(rebuild), std::string::npos) << r.err;

  r = Needle("info " + ShellQuote(set));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("needle shards v3 (this needle reads v4)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(rebuild), std::string::npos) << r.out;

  r = Needle("run pagerank " + ShellQuote(unweighted_.path) + " --memory 128M");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("shard set " + set +
                       " is format version 3; this needle reads format version 4: rebuilding\n"),
            std::string::npos)
      << r.out;
  EXPECT_NO_THROW(ShardSet::Open(set));
  r = Needle("info " + ShellQuote(set));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("weights none (unweighted)"), std::string::npos) << r.out;
}

// ---------------------------------------------------------------------------------------------
// The sharder's byte counters: every byte of every file under the file's own kind.

TEST_F(ShardFormatTest, SharderCountsEachFileUnderItsKind) {
  for (const Graph* g : {&unweighted_, &weighted_}) {
    const std::string dir = File(g == &weighted_ ? "wset" : "set");
    const ShardReport report = Shard(*g, dir);
    const ShardSet set = ShardSet::Open(dir);
    const IoCounters& c = report.io_counters;
    auto written = [&](FileKind k) { return c.written[static_cast<size_t>(k)]; };
    EXPECT_EQ(written(FileKind::kAdjacency), set.BytesOf(".adj"));
    EXPECT_EQ(written(FileKind::kWeights), set.BytesOf(".val"));
    EXPECT_EQ(written(FileKind::kWindowIndex), set.BytesOf(kWindowsName));
    EXPECT_EQ(written(FileKind::kDegrees), set.BytesOf(kDegreesName));
    EXPECT_EQ(written(FileKind::kScatterIndex), set.BytesOf(".idx") - set.BytesOf(kWindowsName));
    EXPECT_GT(written(FileKind::kBuckets), 0u);
    for (FileKind k :
         {FileKind::kValues, FileKind::kDynamic, FileKind::kVertices, FileKind::kOther}) {
      EXPECT_EQ(written(k), 0u) << FileKindName(k);
    }
    EXPECT_EQ(c.TotalWritten() - written(FileKind::kBuckets), report.bytes_written);
  }
}

}  // namespace
}  // namespace needle
