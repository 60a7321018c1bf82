// The binary .csr file: write, open, load and range reads give back exactly what was written,
// for empty, edgeless, tiny and large (multi-chunk) graphs, weighted and not.
#include "loaders/csr_file.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "base/parallel.h"
#include "loaders/csr_file_format.h"
#include "loaders/load_graph.h"
#include "tests/test_util.h"

namespace needle {
namespace {

using testing::CsrEquals;
using testing::PlainCsr;
using testing::SequencesEqual;

enum class Shape { kEmpty, kEdgeless, kTiny, kLarge };

std::string ShapeName(Shape s) {
  switch (s) {
    case Shape::kEmpty:
      return "empty";
    case Shape::kEdgeless:
      return "edgeless";
    case Shape::kTiny:
      return "tiny";
    case Shape::kLarge:
      return "large";
  }
  return "?";
}

// A CSR written directly (not through BuildCsr), so the file code is checked on its own.
Csr MakeCsr(Shape shape, bool weighted) {
  Csr csr;
  csr.weighted = weighted;
  std::vector<std::vector<VertexId>> out;
  switch (shape) {
    case Shape::kEmpty:
      break;
    case Shape::kEdgeless:
      out.resize(7);
      break;
    case Shape::kTiny:
      out = {{1, 2, 1}, {2}, {0, 5}, {}, {4, 0}, {4}};
      break;
    case Shape::kLarge: {
      // 200,000 vertices (offsets: 1.6 MB) and ~400,000 edges (targets, weights: 1.6 MB), so
      // every section spans two checksum chunks.
      testing::Rng rng(123);
      out.resize(200000);
      for (auto& row : out) {
        const uint64_t degree = rng.Below(5);
        for (uint64_t i = 0; i < degree; ++i)
          row.push_back(static_cast<VertexId>(rng.Below(200000)));
      }
      break;
    }
  }
  csr.num_vertices = out.size();
  csr.offsets.Resize(out.size() + 1);
  csr.offsets[0] = 0;
  for (size_t v = 0; v < out.size(); ++v) csr.offsets[v + 1] = csr.offsets[v] + out[v].size();
  csr.targets.Resize(csr.offsets[out.size()]);
  if (weighted) csr.weights.Resize(csr.targets.size());
  size_t at = 0;
  for (const auto& row : out) {
    for (VertexId t : row) {
      csr.targets[at] = t;
      if (weighted) csr.weights[at] = static_cast<Weight>(at % 1000) * 0.25f - 7;
      ++at;
    }
  }
  return csr;
}

CsrFileHeader ReadHeader(const std::string& path) {
  CsrFileHeader h{};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(&h), sizeof(h));
  return h;
}

size_t CountFiles(const std::filesystem::path& dir) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++n;
  }
  return n;
}

using RoundTripParam = std::tuple<Shape, bool>;

class CsrFileRoundTripTest : public testing::WithTempDir<::testing::TestWithParam<RoundTripParam>> {
 protected:
  Shape shape() const { return std::get<0>(GetParam()); }
  bool weighted() const { return std::get<1>(GetParam()); }
};

TEST_P(CsrFileRoundTripTest, WriteOpenLoadGivesTheOriginal) {
  const Csr csr = MakeCsr(shape(), weighted());
  for (int write_threads : {1, 2}) {
    SCOPED_TRACE("write threads " + std::to_string(write_threads));
    const std::string path = File("graph.csr");
    WriteCsrFile(csr, path, write_threads);
    EXPECT_EQ(CountFiles(dir()), 1u) << "a temporary file was left behind";

    CsrFile file = CsrFile::Open(path);
    EXPECT_EQ(file.path(), path);
    EXPECT_EQ(file.num_vertices(), csr.num_vertices);
    EXPECT_EQ(file.num_edges(), csr.NumEdges());
    EXPECT_EQ(file.weighted(), weighted());
    EXPECT_EQ(file.file_size(), std::filesystem::file_size(path));
    for (int threads : {0, 1, 2, 3}) {
      EXPECT_TRUE(CsrEquals(file.Load(threads), csr)) << "load threads " << threads;
    }
    LoadReport report;
    LoadOptions options;
    EXPECT_TRUE(CsrEquals(LoadGraph(path, options, &report), csr));
    EXPECT_EQ(report.format, GraphFormat::kCsr);
    EXPECT_EQ(report.file_bytes, file.file_size());
    EXPECT_EQ(report.csr.input_edges, csr.NumEdges());
  }
}

// The layout of csr_file_format.h: magic, version, counts, 4 KiB-aligned sections in order, a
// chunk table with one hash per started 1 MiB of each section, at the end of the file.
TEST_P(CsrFileRoundTripTest, HeaderDescribesTheFile) {
  const Csr csr = MakeCsr(shape(), weighted());
  const std::string path = File("graph.csr");
  WriteCsrFile(csr, path);
  const CsrFileHeader h = ReadHeader(path);
  EXPECT_EQ(std::string(h.magic, 8), std::string(kCsrMagic, 8));
  EXPECT_EQ(h.version, kCsrVersion);
  EXPECT_EQ(h.weight_type,
            static_cast<uint32_t>(weighted() ? CsrWeightType::kFloat32 : CsrWeightType::kNone));
  EXPECT_EQ(h.num_vertices, csr.num_vertices);
  EXPECT_EQ(h.num_edges, csr.NumEdges());
  EXPECT_EQ(h.chunk_bytes, kCsrChunkBytes);
  EXPECT_EQ(h.file_size, std::filesystem::file_size(path));
  for (uint64_t pos : {h.offsets_pos, h.targets_pos, h.table_pos}) {
    EXPECT_EQ(pos % kCsrAlignment, 0u) << pos;
  }
  EXPECT_GE(h.offsets_pos, sizeof(CsrFileHeader));
  EXPECT_GE(h.targets_pos, h.offsets_pos + (h.num_vertices + 1) * sizeof(EdgeIndex));
  uint64_t data_end = h.targets_pos + h.num_edges * sizeof(VertexId);
  if (weighted()) {
    EXPECT_EQ(h.weights_pos % kCsrAlignment, 0u);
    EXPECT_GE(h.weights_pos, data_end);
    data_end = h.weights_pos + h.num_edges * sizeof(Weight);
  } else {
    EXPECT_EQ(h.weights_pos, 0u);
  }
  EXPECT_GE(h.table_pos, data_end);
  auto chunks = [](uint64_t bytes) { return (bytes + kCsrChunkBytes - 1) / kCsrChunkBytes; };
  const uint64_t expected_chunks = chunks((h.num_vertices + 1) * sizeof(EdgeIndex)) +
                                   chunks(h.num_edges * sizeof(VertexId)) +
                                   (weighted() ? chunks(h.num_edges * sizeof(Weight)) : 0);
  EXPECT_EQ(h.table_entries, expected_chunks);
  EXPECT_EQ(h.file_size, h.table_pos + h.table_entries * sizeof(uint64_t));
}

TEST_P(CsrFileRoundTripTest, RangeReadsEqualSlicesOfTheOriginal) {
  const Csr csr = MakeCsr(shape(), weighted());
  const PlainCsr plain = testing::ToPlain(csr);
  const std::string path = File("graph.csr");
  WriteCsrFile(csr, path);
  CsrFile file = CsrFile::Open(path);
  const uint64_t n1 = csr.num_vertices + 1;  // offsets entries
  const uint64_t m = csr.NumEdges();

  // Ranges [first, first + count) of an array of `size` elements: edges, both ends, the
  // boundaries of the 1 MiB checksum chunks (131,072 offsets or 262,144 targets/weights per
  // chunk) and random ranges.
  auto ranges = [](uint64_t size, uint64_t per_chunk) {
    std::vector<std::pair<uint64_t, uint64_t>> r = {{0, 0}, {0, size}, {size, 0}};
    if (size > 0) {
      r.insert(r.end(), {{0, 1}, {size - 1, 1}, {size / 2, size - size / 2}});
    }
    for (uint64_t boundary = per_chunk; boundary < size; boundary += per_chunk) {
      for (uint64_t before : {1, 2, 1000}) {
        for (uint64_t after : {0, 1, 7, 100000}) {
          if (boundary >= before && boundary + after <= size) {
            r.emplace_back(boundary - before, before + after);
          }
        }
      }
      r.emplace_back(boundary, std::min<uint64_t>(size - boundary, 3));
    }
    testing::Rng rng(size);
    for (int i = 0; i < 20 && size > 0; ++i) {
      uint64_t first = rng.Below(size);
      r.emplace_back(first, rng.Below(size - first + 1));
    }
    return r;
  };

  for (auto [first, count] : ranges(n1, kCsrChunkBytes / sizeof(EdgeIndex))) {
    std::vector<EdgeIndex> got(count);
    file.ReadOffsets(first, got);
    std::vector<EdgeIndex> expected(plain.offsets.begin() + static_cast<int64_t>(first),
                                    plain.offsets.begin() + static_cast<int64_t>(first + count));
    ASSERT_TRUE(SequencesEqual("offsets", got, expected)) << "range " << first << "+" << count;
  }
  for (auto [first, count] : ranges(m, kCsrChunkBytes / sizeof(VertexId))) {
    std::vector<VertexId> got(count);
    file.ReadTargets(first, got);
    std::vector<VertexId> expected(plain.targets.begin() + static_cast<int64_t>(first),
                                   plain.targets.begin() + static_cast<int64_t>(first + count));
    ASSERT_TRUE(SequencesEqual("targets", got, expected)) << "range " << first << "+" << count;
    if (weighted()) {
      std::vector<Weight> got_w(count);
      file.ReadWeights(first, got_w);
      std::vector<Weight> expected_w(plain.weights.begin() + static_cast<int64_t>(first),
                                     plain.weights.begin() + static_cast<int64_t>(first + count));
      ASSERT_TRUE(SequencesEqual("weights", got_w, expected_w))
          << "range " << first << "+" << count;
    }
  }

  // Beyond the end: an Error naming the file, never a short or garbage read.
  std::vector<EdgeIndex> offsets(2);
  EXPECT_TRUE(testing::ThrowsError([&] { file.ReadOffsets(n1 - 1, offsets); }, path, "", "range"));
  std::vector<VertexId> targets(1);
  EXPECT_TRUE(testing::ThrowsError([&] { file.ReadTargets(m, targets); }, path, "", "range"));
  std::vector<Weight> weights(1);
  if (weighted()) {
    EXPECT_TRUE(testing::ThrowsError([&] { file.ReadWeights(m, weights); }, path, "", "range"));
  } else {
    EXPECT_TRUE(testing::ThrowsError([&] { file.ReadWeights(0, weights); }, path, "", "weights"));
  }
}

INSTANTIATE_TEST_SUITE_P(AllShapes, CsrFileRoundTripTest,
                         ::testing::Combine(::testing::Values(Shape::kEmpty, Shape::kEdgeless,
                                                              Shape::kTiny, Shape::kLarge),
                                            ::testing::Bool()),
                         [](const ::testing::TestParamInfo<RoundTripParam>& p) {
                           return ShapeName(std::get<0>(p.param)) +
                                  (std::get<1>(p.param) ? "_weighted" : "_unweighted");
                         });

// A .csr written from a text graph loads to the same CSR as the text, and CsrOptions given to
// LoadGraph apply to a .csr input as they do to text (the edge order being the CSR's).
TEST(CsrFileFromText, SameCsrAsTheTextAndOptionsApply) {
  testing::TempDir dir;
  const std::string text = testing::TestDataPath("tiny.txt");
  Csr from_text = LoadGraph(text, LoadOptions{});
  const std::string path = dir.File("tiny.csr");
  WriteCsrFile(from_text, path);
  EXPECT_TRUE(CsrEquals(LoadGraph(path, LoadOptions{}), from_text));

  for (int option = 0; option < 4; ++option) {
    SCOPED_TRACE("option " + std::to_string(option));
    LoadOptions options;
    options.csr.transpose = option == 0;
    options.csr.symmetrize = option == 1;
    options.csr.self_loops = option == 2 ? SelfLoopPolicy::kDrop : SelfLoopPolicy::kKeep;
    options.csr.duplicates = option == 3 ? DuplicatePolicy::kDrop : DuplicatePolicy::kKeep;
    Csr expected = BuildCsr(EdgeListFromCsr(from_text), options.csr);
    LoadReport report;
    EXPECT_TRUE(CsrEquals(LoadGraph(path, options, &report), expected));
    EXPECT_EQ(report.csr.self_loops, 1u);
  }

  // --weights no on a weighted .csr drops the weights; asking for weights on an unweighted one
  // is an error.
  LoadOptions unweighted;
  unweighted.read.weights = WeightMode::kUnweighted;
  Csr no_weights = LoadGraph(path, unweighted);
  EXPECT_FALSE(no_weights.weighted);
  EXPECT_TRUE(no_weights.weights.empty());
  const std::string plain_path = dir.File("tiny_unweighted.csr");
  WriteCsrFile(no_weights, plain_path);
  LoadOptions weighted;
  weighted.read.weights = WeightMode::kWeighted;
  EXPECT_TRUE(
      testing::ThrowsError([&] { LoadGraph(plain_path, weighted); }, plain_path, "", "weights"));
  // An explicit format is honoured for a .csr with another name.
  const std::string renamed = dir.File("tiny.bin");
  std::filesystem::copy_file(path, renamed);
  LoadOptions csr_format;
  csr_format.read.format = GraphFormat::kCsr;
  EXPECT_TRUE(CsrEquals(LoadGraph(renamed, csr_format), from_text));
  EXPECT_TRUE(CsrEquals(LoadGraph(renamed, LoadOptions{}), from_text)) << "magic not detected";
}

TEST(CsrFileWrite, OverwritesAndLeavesNothingOnFailure) {
  testing::TempDir dir;
  const std::string path = dir.File("graph.csr");
  WriteCsrFile(MakeCsr(Shape::kTiny, true), path);
  WriteCsrFile(MakeCsr(Shape::kEdgeless, false), path);
  EXPECT_TRUE(CsrEquals(CsrFile::Open(path).Load(), MakeCsr(Shape::kEdgeless, false)));
  EXPECT_EQ(CountFiles(dir.path()), 1u);

  const std::string nowhere = dir.File("no_such_dir/graph.csr");
  EXPECT_TRUE(testing::ThrowsError([&] { WriteCsrFile(MakeCsr(Shape::kTiny, true), nowhere); },
                                   nowhere, "", "No such file"));
  EXPECT_EQ(CountFiles(dir.path()), 1u);
}

// ParallelFor's threads <= 0 mean OpenMP's default: OpenMP requires num_threads > 0. With
// libgomp, num_threads(0) happens to mean the default too, so only a negative count showed
// the bug (libgomp then tries to allocate a team of ~4 billion threads and aborts); the test
// runs in a child process so that such an abort fails the test, not the suite.
TEST(ParallelForThreads, NonPositiveCountsMeanTheDefault) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (int threads : {0, -1, -1000}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    EXPECT_EXIT(
        {
          std::vector<std::atomic<int>> hits(1000);
          ParallelFor(hits.size(), threads, [&](uint64_t i) { hits[i].fetch_add(1); });
          for (const auto& h : hits) {
            if (h.load() != 1) std::_Exit(2);
          }
          std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "");
  }
}

}  // namespace
}  // namespace needle
