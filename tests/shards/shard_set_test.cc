// ShardSet::Open (shards/shard_set.h) refuses every damaged shard set, naming the file: a
// missing file, a file of the wrong size, a corrupt byte in any file kind, a manifest of a newer
// version, no manifest. Controls check that the damage, not the test, is what is refused: an
// undamaged set opens, and a manifest rewritten with its hash recomputed but nothing else
// changed opens too.
#include "shards/shard_set.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "base/error.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"
#include "shards/run_codec.h"
#include "shards/sharder.h"
#include "tests/shards/shard_test_util.h"

namespace needle {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::ThrowsError;
using testing::WriteFile;

// A weighted R-MAT graph (scale 10) in three or more shards, built once per suite; every test
// damages its own copy.
class ShardSetFixture : public testing::WithTempDir<> {
 protected:
  static void SetUpTestSuite() {
    pristine_ = new testing::TempDir;
    RmatOptions r;
    r.scale = 10;
    r.weighted = true;
    const EdgeList list = GenerateRmat(r);
    const testing::OracleGraph oracle = testing::OracleFromEdgeListFile(list);
    WriteEdgeListText(list, pristine_->File("g.wel"));
    const testing::CostSummary cost = testing::CostsOf(oracle);
    ShardOptions o;
    const uint64_t usable = std::max(cost.total / 3, cost.max_vertex);
    o.memory_bytes = testing::MemoryFor(oracle, usable);
    o.intervals = testing::IntervalsFor(oracle, usable);
    o.out_dir = pristine_->File("set");
    ShardGraph(pristine_->File("g.wel"), o);
  }
  static void TearDownTestSuite() {
    delete pristine_;
    pristine_ = nullptr;
  }
  void SetUp() override {
    WithTempDir::SetUp();
    fs::copy(pristine_->File("set"), Set());
    ASSERT_NO_THROW(ShardSet::Open(Set()));
    ASSERT_GE(ShardSet::Open(Set()).num_intervals(), 3u);
  }
  std::string Set() const { return File("set"); }
  std::string Path(const std::string& name) const { return Set() + "/" + name; }

 private:
  static testing::TempDir* pristine_;
};

testing::TempDir* ShardSetFixture::pristine_ = nullptr;

TEST_F(ShardSetFixture, UndamagedSetOpensWithAndWithoutDigests) {
  const ShardSet set = ShardSet::Open(Set());
  EXPECT_EQ(set.dir(), Set());
  EXPECT_GE(set.num_intervals(), 3u);
  EXPECT_EQ(set.AdjacencyPath(1), Path("shard-0001.adj"));
  EXPECT_EQ(set.ValuesPath(2), Path("shard-0002.val"));
  EXPECT_EQ(set.DegreesPath(), Path("degrees.bin"));
  uint64_t indexes = fs::file_size(Path("windows.idx"));
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    EXPECT_EQ(set.ScatterIndexPath(p), Path(testing::ShardName(p, ".idx", "scatter")));
    indexes += fs::file_size(set.ScatterIndexPath(p));
  }
  EXPECT_EQ(set.BytesOf(".idx"), indexes);
  EXPECT_NO_THROW(ShardSet::Open(Set(), /*verify_digests=*/false));
}

// ---------------------------------------------------------------------------------------------
// Damage to one file.

enum class Damage {
  kMissing,
  kShortByOne,
  kShortByAPage,
  kLongByOne,
  kLongByAPage,
  kFlipFirst,
  kFlipMiddle,
  kFlipLast
};

std::string DamageName(Damage d) {
  switch (d) {
    case Damage::kMissing:
      return "missing";
    case Damage::kShortByOne:
      return "short_by_one_byte";
    case Damage::kShortByAPage:
      return "short_by_a_page";
    case Damage::kLongByOne:
      return "long_by_one_byte";
    case Damage::kLongByAPage:
      return "long_by_a_page";
    case Damage::kFlipFirst:
      return "first_byte_flipped";
    case Damage::kFlipMiddle:
      return "middle_byte_flipped";
    case Damage::kFlipLast:
      return "last_byte_flipped";
  }
  return "?";
}

void Apply(Damage d, const std::string& path) {
  const uint64_t size = fs::file_size(path);
  switch (d) {
    case Damage::kMissing:
      fs::remove(path);
      return;
    case Damage::kShortByOne:
      // The manifest's last byte is the newline closing its hash line, which carries nothing
      // (the hash covers the bytes before that line): cut the hash's last digit with it.
      testing::Truncate(path, fs::path(path).filename() == "manifest" ? size - 2 : size - 1);
      return;
    case Damage::kShortByAPage:
      // The manifest is shorter than a page: cut it to a third.
      testing::Truncate(path, size > 4096 ? size - 4096 : size / 3);
      return;
    case Damage::kLongByOne:
      std::ofstream(path, std::ios::app | std::ios::binary) << 'x';
      return;
    case Damage::kLongByAPage:
      std::ofstream(path, std::ios::app | std::ios::binary) << std::string(4096, '\0');
      return;
    case Damage::kFlipFirst:
      testing::FlipByte(path, 0);
      return;
    case Damage::kFlipMiddle:
      testing::FlipByte(path, size / 2);
      return;
    case Damage::kFlipLast:
      testing::FlipByte(path, size - 1);
      return;
  }
}

using FileDamage = std::tuple<std::string, Damage>;

// What the error must name: the file, or for a missing manifest the directory (without its
// manifest it is not a shard set at all).
std::string Named(const std::string& set, const FileDamage& param) {
  const auto& [name, damage] = param;
  return name == "manifest" && damage == Damage::kMissing ? set : set + "/" + name;
}

std::string FileDamageName(const ::testing::TestParamInfo<FileDamage>& p) {
  std::string name = std::get<0>(p.param) + "_" + DamageName(std::get<1>(p.param));
  for (char& c : name) {
    if (c == '-' || c == '.') c = '_';
  }
  return name;
}

const auto kFiles = ::testing::Values("shard-0000.adj", "shard-0001.adj", "shard-0002.val",
                                      "windows.idx", "scatter-0001.idx", "degrees.bin", "manifest");

class DamagedFileTest : public ShardSetFixture, public ::testing::WithParamInterface<FileDamage> {};

TEST_P(DamagedFileTest, OpenRefusesNamingTheFile) {
  Apply(std::get<1>(GetParam()), Path(std::get<0>(GetParam())));
  if (HasFatalFailure()) return;
  EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(Set()); }, Named(Set(), GetParam()), "", ""));
}

INSTANTIATE_TEST_SUITE_P(
    Files, DamagedFileTest,
    ::testing::Combine(kFiles, ::testing::Values(Damage::kMissing, Damage::kShortByOne,
                                                 Damage::kShortByAPage, Damage::kLongByOne,
                                                 Damage::kLongByAPage, Damage::kFlipFirst,
                                                 Damage::kFlipMiddle, Damage::kFlipLast)),
    FileDamageName);

// Presence and size are checked without reading the files through (a flipped byte in a shard
// file needs the digests; one in the manifest is caught by the manifest's own hash).
class ResizedFileTest : public DamagedFileTest {};

TEST_P(ResizedFileTest, OpenWithoutDigestsStillRefusesNamingTheFile) {
  Apply(std::get<1>(GetParam()), Path(std::get<0>(GetParam())));
  if (HasFatalFailure()) return;
  EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(Set(), /*verify_digests=*/false); },
                          Named(Set(), GetParam()), "", ""));
}

INSTANTIATE_TEST_SUITE_P(
    Files, ResizedFileTest,
    ::testing::Combine(kFiles, ::testing::Values(Damage::kMissing, Damage::kShortByOne,
                                                 Damage::kShortByAPage, Damage::kLongByOne,
                                                 Damage::kLongByAPage)),
    FileDamageName);

// The messages say what is wrong, not only where.
TEST_F(ShardSetFixture, MessagesSayWhatIsWrong) {
  fs::rename(Path("shard-0001.val"), File("saved.val"));
  EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(Set()); }, Path("shard-0001.val"), "", "missing"));
  fs::rename(File("saved.val"), Path("shard-0001.val"));
  std::ofstream(Path("windows.idx"), std::ios::app | std::ios::binary) << 'x';
  EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(Set()); }, Path("windows.idx"), "", "bytes"));
}

// Binary bytes after the manifest make one short line: the token quoted escaped and cut.
TEST_F(ShardSetFixture, BytesAppendedToTheManifestGiveAShortMessage) {
  const std::string original = ReadFile(Path("manifest"));
  WriteFile(Path("manifest"), original + std::string(20000, '\xab'));
  try {
    ShardSet::Open(Set(), false);
    ADD_FAILURE() << "a manifest with 20000 bytes appended was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_LT(what.size(), 400u) << what;
    EXPECT_NE(what.find("... ("), std::string::npos) << what;
    EXPECT_EQ(what.find('\xab'), std::string::npos) << "raw bytes quoted";
  }
  WriteFile(Path("manifest"), original);
}

TEST_F(ShardSetFixture, EveryManifestByteFlippedIsRefused) {
  const std::string original = ReadFile(Path("manifest"));
  for (uint64_t at = 0; at < original.size(); ++at) {
    std::string damaged = original;
    damaged[at] = static_cast<char>(damaged[at] ^ 1);
    WriteFile(Path("manifest"), damaged);
    EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(Set(), false); }, Path("manifest"), "", ""))
        << "byte " << at << " ('" << original[at] << "')";
  }
  WriteFile(Path("manifest"), original);
  EXPECT_NO_THROW(ShardSet::Open(Set()));
}

// ---------------------------------------------------------------------------------------------
// Manifests that are well formed, with a correct hash, but wrong.

class ManifestEditTest : public ShardSetFixture {
 protected:
  // Replaces `from` by `to` in the manifest's body (once) and recomputes the hash line.
  void Edit(const std::string& from, const std::string& to) {
    std::string body = testing::ManifestBody(ReadFile(Path("manifest")));
    const size_t at = body.find(from);
    ASSERT_NE(at, std::string::npos) << "no '" << from << "' in the manifest";
    body.replace(at, from.size(), to);
    WriteFile(Path("manifest"), testing::WithManifestHash(body));
  }
};

TEST_F(ManifestEditTest, RecomputedHashAloneChangesNothing) {
  const std::string version = "needle-shards " + std::to_string(kShardFormatVersion) + "\n";
  Edit(version, version);
  EXPECT_NO_THROW(ShardSet::Open(Set()));
}

TEST_F(ManifestEditTest, NewerVersionIsRefused) {
  Edit("needle-shards " + std::to_string(kShardFormatVersion) + "\n",
       "needle-shards " + std::to_string(kShardFormatVersion + 1) + "\n");
  EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(Set()); }, Path("manifest"), ":1:", "newer"));
}

TEST_F(ManifestEditTest, WrongDigestOfAFileIsRefusedNamingThatFile) {
  const std::string manifest = ReadFile(Path("manifest"));
  const size_t line = manifest.find("file degrees.bin ");
  ASSERT_NE(line, std::string::npos);
  const size_t digit = manifest.find('\n', line) - 1;  // the digest's last hex digit
  const std::string old_digit = manifest.substr(digit, 1);
  Edit(manifest.substr(line, digit - line + 1),
       manifest.substr(line, digit - line) + (old_digit == "0" ? "1" : "0"));
  EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(Set()); }, Path("degrees.bin"), "", ""));
}

TEST_F(ManifestEditTest, WrongSizeOfAFileIsRefusedNamingThatFile) {
  const std::string size = std::to_string(fs::file_size(Path("shard-0001.adj")));
  Edit("file shard-0001.adj " + size + " ", "file shard-0001.adj " + size + "0 ");
  EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(Set(), false); }, Path("shard-0001.adj"), "", ""));
}

// The structure a manifest describes is checked whatever its hash says, with and without
// digests: each edit below keeps the manifest well formed with a correct hash.
class ManifestStructureTest : public ManifestEditTest {
 protected:
  testing::ParsedManifest Parsed() {
    return testing::ParseManifestText(ReadFile(Path("manifest")));
  }
  // Refused by Open (with and without digests), naming `path` and saying `phrase`.
  ::testing::AssertionResult Refused(const std::string& path, const std::string& phrase) {
    for (bool verify : {true, false}) {
      ::testing::AssertionResult r =
          ThrowsError([&] { ShardSet::Open(Set(), verify); }, path, "", phrase);
      if (!r) return r << (verify ? " (with digests)" : " (without digests)");
    }
    return ::testing::AssertionSuccess();
  }
  std::string IntervalLine(uint32_t p) {
    const auto iv = Parsed().intervals.at(p);
    return "interval " + std::to_string(iv[0]) + " " + std::to_string(iv[1]) + " " +
           std::to_string(iv[2]) + "\n";
  }
};

TEST_F(ManifestStructureTest, VertexCountOneLessIsRefused) {
  const std::string n = Parsed().values.at("vertices");
  Edit("vertices " + n + "\n", "vertices " + std::to_string(std::stoull(n) - 1) + "\n");
  EXPECT_TRUE(Refused(Path("manifest"), "vertex count"));
}

TEST_F(ManifestStructureTest, VertexCountAndLastIntervalOneLessAreRefused) {
  const auto man = Parsed();
  const uint32_t last = static_cast<uint32_t>(man.intervals.size() - 1);
  const auto& iv = man.intervals[last];
  Edit("vertices " + man.values.at("vertices") + "\n",
       "vertices " + std::to_string(iv[2] - 1) + "\n");
  Edit(IntervalLine(last), "interval " + std::to_string(last) + " " + std::to_string(iv[1]) + " " +
                               std::to_string(iv[2] - 1) + "\n");
  EXPECT_TRUE(Refused(Path(testing::ShardName(last, ".adj")), "interval"));
}

TEST_F(ManifestStructureTest, MovedIntervalBoundIsRefused) {
  const auto man = Parsed();
  const auto a = man.intervals[0];
  const auto b = man.intervals[1];
  const std::string moved = std::to_string(a[2] - 1);
  Edit(IntervalLine(0) + IntervalLine(1),
       "interval 0 0 " + moved + "\ninterval 1 " + moved + " " + std::to_string(b[2]) + "\n");
  EXPECT_TRUE(Refused(Path("shard-0000.adj"), "interval"));
}

TEST_F(ManifestStructureTest, IntervalsThatDoNotIncreaseAreRefused) {
  Edit(IntervalLine(0), "interval 0 0 0\n");
  EXPECT_TRUE(Refused(Path("manifest"), ""));
}

TEST_F(ManifestStructureTest, IntervalBeyondThirtyTwoBitsIsRefused) {
  const auto a = Parsed().intervals[0];
  Edit(IntervalLine(0), "interval 0 0 " + std::to_string(a[2] + (uint64_t{1} << 32)) + "\n");
  EXPECT_TRUE(Refused(Path("manifest"), ""));
}

TEST_F(ManifestStructureTest, EveryFileLineRemovedIsRefusedNamingTheFile) {
  const auto man = Parsed();
  const std::string text = ReadFile(Path("manifest"));
  for (const testing::ManifestFileEntry& f : man.files) {
    const size_t at = text.find("file " + f.name + " ");
    ASSERT_NE(at, std::string::npos);
    const std::string line = text.substr(at, text.find('\n', at) + 1 - at);
    Edit(line, "");
    EXPECT_TRUE(Refused(Path("manifest"), f.name)) << "without " << f.name;
    WriteFile(Path("manifest"), text);
  }
}

TEST_F(ManifestStructureTest, FilesListedTwiceOrUnknownOrOutsideAreRefused) {
  const std::string text = ReadFile(Path("manifest"));
  const size_t at = text.find("file degrees.bin ");
  const std::string line = text.substr(at, text.find('\n', at) + 1 - at);
  Edit(line, line + line);
  EXPECT_TRUE(Refused(Path("manifest"), "twice"));
  WriteFile(Path("manifest"), text);
  Edit(line, line + "file notes.txt 4096 0000000000000000\n");
  EXPECT_TRUE(Refused(Path("manifest"), "notes.txt"));
  WriteFile(Path("manifest"), text);
  Edit(line, line + "file ../../etc/passwd 4096 0000000000000000\n");
  EXPECT_TRUE(Refused(Path("manifest"), "not a plain name"));
  WriteFile(Path("manifest"), text);
  Edit("file degrees.bin ", "file shard-9999.adj ");  // a shard of an interval that is not there
  EXPECT_TRUE(Refused(Path("manifest"), "shard-9999.adj"));
}

TEST_F(ManifestStructureTest, KeysMissingOrTwiceAreRefused) {
  const std::string text = ReadFile(Path("manifest"));
  const std::string edges = "edges " + Parsed().values.at("edges") + "\n";
  Edit(edges, "");
  EXPECT_TRUE(Refused(Path("manifest"), "'edges'"));
  WriteFile(Path("manifest"), text);
  Edit(edges, edges + edges);
  EXPECT_TRUE(Refused(Path("manifest"), "twice"));
  WriteFile(Path("manifest"), text);
  Edit(edges, "edges 1" + Parsed().values.at("edges") + "\n");
  EXPECT_TRUE(Refused(Path("manifest"), "edge count"));
}

// Digest of `path` as the manifest writes it, for edits that must get past the checksums.
std::string Digest(const std::string& path) {
  const std::string bytes = ReadFile(path);
  return testing::Hex16(XXH3_64bits(bytes.data(), bytes.size()));
}

class DataStructureTest : public ManifestStructureTest {
 protected:
  // Rewrites the manifest's digest of `name` to match the file as it is now.
  void Redigest(const std::string& name) {
    for (const testing::ManifestFileEntry& f : Parsed().files) {
      if (f.name == name) Edit(" " + f.digest + "\n", " " + Digest(Path(name)) + "\n");
    }
  }
  void Store64(const std::string& name, uint64_t at, uint64_t value) {
    std::string bytes = ReadFile(Path(name));
    std::memcpy(bytes.data() + at, &value, 8);
    WriteFile(Path(name), bytes);
    Redigest(name);
  }
  uint64_t Load64(const std::string& name, uint64_t at) {
    const std::string bytes = ReadFile(Path(name));
    uint64_t v = 0;
    std::memcpy(&v, bytes.data() + at, 8);
    return v;
  }
};

TEST_F(DataStructureTest, ShardHeaderCountsAreCheckedAgainstTheFile) {
  Store64("shard-0001.adj", 24, Load64("shard-0001.adj", 24) + (uint64_t{1} << 62));  // edges
  EXPECT_TRUE(Refused(Path("shard-0001.adj"), ""));
}

TEST_F(DataStructureTest, WindowIndexEntriesAreCheckedAgainstTheirNeighbours) {
  const uint32_t P = static_cast<uint32_t>(Parsed().intervals.size());
  // Window (1, 1)'s first edge pushed past window (1, 2)'s.
  const uint64_t entry = (uint64_t{1} * (P + 1) + 1) * 16;
  Store64("windows.idx", entry + 8, Load64("windows.idx", entry + 8 + 16) + 1);
  EXPECT_TRUE(Refused(Path("windows.idx"), "window index"));
}

TEST_F(DataStructureTest, ScatterOffsetsAreCheckedAgainstTheFileAndTheWindows) {
  const std::string name = testing::ShardName(1, ".idx", "scatter");
  const std::string saved = ReadFile(Path(name));
  const std::string manifest = ReadFile(Path("manifest"));
  Store64(name, 8, Load64(name, 8) + (uint64_t{1} << 40));  // offset 1 beyond the file
  EXPECT_TRUE(Refused(Path(name), "scatter index"));
  WriteFile(Path(name), saved);
  WriteFile(Path("manifest"), manifest);
  Store64(name, 8, Load64(name, 0));  // window (0, 1) with no bytes for its runs
  const auto man = Parsed();
  EXPECT_TRUE(Refused(Path(name), "scatter index"));
}

// windows.idx is read whole and its digest checked even without digests: no single-bit flip
// gets through (each used to be read as it came, reading and writing out of bounds).
TEST_F(DataStructureTest, WindowIndexBitFlipsAreRefusedWithoutDigests) {
  const std::string original = ReadFile(Path("windows.idx"));
  testing::Rng random(11);
  for (int i = 0; i < 150; ++i) {
    std::string damaged = original;
    const uint64_t bit = random.Below(8 * damaged.size());
    damaged[bit / 8] = static_cast<char>(damaged[bit / 8] ^ (1 << (bit % 8)));
    WriteFile(Path("windows.idx"), damaged);
    EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(Set(), false); }, Path("windows.idx"), "", ""))
        << "bit " << bit;
  }
}

TEST(ShardSetOpenTest, DirectoryWithoutAManifestIsNotAShardSet) {
  testing::TempDir dir;
  EXPECT_TRUE(ThrowsError([&] { ShardSet::Open(dir.path().string()); }, dir.path().string(), "",
                          "manifest"));
  EXPECT_TRUE(
      ThrowsError([&] { ShardSet::Open(dir.File("absent")); }, dir.File("absent"), "", "manifest"));
}

}  // namespace
}  // namespace needle
