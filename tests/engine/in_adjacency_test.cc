// The in-adjacency pull turns read (engine/in_adjacency.h): built from a shard set, each
// shard's section holds window (p, p)'s targets where the shard has them and, in the other
// windows' places, every vertex's in-neighbours from other intervals, ascending, as the input
// has them, packed in 1 to 4 bytes — at several interval counts, on both backends, through the
// page cache and with O_DIRECT; the same file at any thread count, reading the next shard ahead
// or not; a damaged shard named with its byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "engine/edge_value_files.h"
#include "engine/in_adjacency.h"
#include "engine/interval_io.h"
#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"
#include "shards/shard_layout.h"

namespace needle {
namespace {

class InAdjacencyTest : public WithTempDir<::testing::Test> {
 protected:
  // An R-MAT graph of 2^scale vertices and 8 edges a vertex, written as text.
  std::string Rmat(uint32_t scale) {
    return WriteRmatText(File("rmat" + std::to_string(scale) + ".el"), scale);
  }
  std::string Shards(const std::string& input, uint32_t parts) {
    const std::string shards =
        File(std::filesystem::path(input).stem().string() + "-" + std::to_string(parts));
    if (!std::filesystem::exists(shards)) ShardInto(input, shards, parts);
    return shards;
  }
  // Builds the in-adjacency of `set` into `work`; returns its bytes.
  // overlapped: a buffer that reads the next shard ahead. width: of a source (0: the least).
  std::string Build(const ShardSet& set, const std::string& work, IoKind kind, bool direct,
                    int threads, bool overlapped = false, uint32_t width = 0) {
    IoOptions options;
    options.kind = kind == IoKind::kUring ? UringOrSkipNote() : IoKind::kPread;
    options.direct = direct;
    auto io = IoBackend::Create(options);
    std::filesystem::create_directories(work);
    EdgeValueFiles values(*io, set, work, 4);
    IntervalIo files(*io, set, values, false);
    AlignedBuffer build(overlapped ? InAdjacency::OverlappedBufferBytes(set, files, threads)
                                   : InAdjacency::BuildBufferBytes(set, files, threads));
    const InAdjacency in =
        InAdjacency::Build(*io, set, files, work + "/in.adj", build, threads, width);
    width_ = in.width();
    if (width != 0) {
      EXPECT_EQ(width_, width);
    }
    EXPECT_EQ(in.disk_bytes(), std::filesystem::file_size(work + "/in.adj"));
    // Each interval's starts as StartsRequest reads them.
    const std::string file = testing::ReadFile(work + "/in.adj");
    AlignedBuffer starts(InAdjacency::StartsBytes(set));
    sections_.clear();
    starts_at_.clear();
    for (uint32_t p = 0; p < set.num_intervals(); ++p) {
      const IoRequest request = in.StartsRequest(p, starts.data());
      io->Run({&request, 1});
      const uint32_t count = set.interval_end(p) - set.interval_begin(p);
      EXPECT_EQ(std::memcmp(starts.data(), file.data() + request.offset, 4 * (count + 1)), 0);
      sections_.push_back(in.section(p));
      starts_at_.push_back(request.offset);
    }
    return file;
  }
  // Checks `file` (the in-adjacency of `set`, sources width_ bytes each) against the input's
  // edges.
  void Check(const std::string& input, const ShardSet& set, const std::string& file) {
    const Csr g = LoadCsr(input);
    std::vector<std::vector<uint32_t>> in(g.num_vertices);
    for (uint32_t u = 0; u < g.num_vertices; ++u) {
      for (const uint32_t v : g.Neighbors(u)) in[v].push_back(u);
    }
    auto word = [&](uint64_t byte, uint32_t bytes = 4) {
      uint32_t x = 0;
      for (uint32_t k = 0; k < bytes; ++k) {
        x |= uint32_t{static_cast<uint8_t>(file.at(byte + k))} << (8 * k);
      }
      return x;
    };
    uint64_t seen = 0;
    for (uint32_t p = 0; p < set.num_intervals(); ++p) {
      const VertexId begin = set.interval_begin(p), end = set.interval_end(p);
      const uint64_t own_first = set.Window(p, p).first_edge;
      const uint64_t own_n = set.Window(p, p + 1).first_edge - own_first;
      // Window (p, p)'s targets, as the shard has them.
      const std::string shard = testing::ReadFile(set.AdjacencyPath(p));
      const uint64_t targets_pos = set.header(p).targets_pos;
      for (uint64_t e = own_first; e < own_first + own_n; ++e) {
        uint32_t target;
        std::memcpy(&target, shard.data() + targets_pos + 4 * e, 4);
        ASSERT_EQ(word(sections_[p] + 4 * e), target) << "shard " << p << " edge " << e;
      }
      // Every vertex's sources from other intervals.
      EXPECT_EQ(word(starts_at_[p]), 0u);
      for (VertexId v = begin; v < end; ++v) {
        const uint32_t a = word(starts_at_[p] + 4 * (v - begin));
        const uint32_t b = word(starts_at_[p] + 4 * (v - begin + 1));
        std::vector<uint32_t> got;
        for (uint64_t i = a; i < b; ++i) {
          // Packed from the first place before window (p, p), and from the first after it.
          const uint64_t at =
              i < own_first ? width_ * i : 4 * (own_first + own_n) + width_ * (i - own_first);
          got.push_back(word(sections_[p] + at, width_));
        }
        std::vector<uint32_t> expected;
        for (const uint32_t u : in[v]) {
          if (u < begin || u >= end) expected.push_back(u);
        }
        std::sort(expected.begin(), expected.end());
        ASSERT_EQ(got, expected) << "vertex " << v;
        seen += got.size();
      }
    }
    if (set.num_intervals() > 1) {
      EXPECT_GT(seen, 0u);
    }
  }
  std::vector<uint64_t> sections_, starts_at_;  // of the last Build
  uint32_t width_ = 4;                          // and its sources' bytes
};

TEST_F(InAdjacencyTest, HoldsEveryVertexsSourcesByTarget) {
  const std::string rmat = Rmat(11);
  for (const uint32_t parts : {1u, 3u, 8u}) {
    const ShardSet set = ShardSet::Open(Shards(rmat, parts));
    for (const IoKind kind : {IoKind::kPread, IoKind::kUring}) {
      for (const bool direct : {false, true}) {
        SCOPED_TRACE(std::to_string(parts) + " parts, " + std::string(IoKindName(kind)) +
                     (direct ? ", direct" : ""));
        const std::string work = File("work-" + std::to_string(parts));
        Check(rmat, set, Build(set, work, kind, direct, 2, direct));
        EXPECT_EQ(width_, 2u);  // 2,048 vertices
      }
    }
  }
  // Wider than needed, and the one byte of 256 vertices.
  const ShardSet set = ShardSet::Open(Shards(rmat, 3));
  for (const uint32_t width : {3u, 4u}) {
    SCOPED_TRACE(std::to_string(width) + " bytes a source");
    Check(rmat, set, Build(set, File("work-w" + std::to_string(width)), IoKind::kUring, true, 2,
                           false, width));
  }
  const std::string small = Rmat(8);
  const ShardSet small_set = ShardSet::Open(Shards(small, 3));
  Check(small, small_set, Build(small_set, File("work-small"), IoKind::kPread, false, 2));
  EXPECT_EQ(width_, 1u);
  // Too few bytes for the ids.
  EXPECT_THROW(Build(set, File("work-narrow"), IoKind::kPread, false, 2, false, 1),
               std::invalid_argument);
}

TEST_F(InAdjacencyTest, IsTheSameBuiltOnAnyThreadCount) {
  // One part (1 thread), parts of uneven sizes (3 threads of 8 shards), one shard a part
  // (8), and more threads than shards.
  const std::string rmat = Rmat(12);
  const ShardSet set = ShardSet::Open(Shards(rmat, 8));
  const std::string one = Build(set, File("work-1"), IoKind::kPread, false, 1);
  Check(rmat, set, one);
  for (const int threads : {3, 8, 16}) {
    for (const bool overlapped : {false, true}) {
      SCOPED_TRACE(std::to_string(threads) + " threads" + (overlapped ? ", read ahead" : ""));
      EXPECT_TRUE(Build(set, File("work-" + std::to_string(threads)), IoKind::kUring, true,
                        threads, overlapped) == one);
    }
  }
}

TEST_F(InAdjacencyTest, NamesTheFirstDamagedPlaceOnAnyThreadCount) {
  const std::string shards = Shards(Rmat(12), 8);
  const ShardSet set = ShardSet::Open(shards);
  // Shard 1's windows from intervals 0 and 7: the first run of each damaged in their scatter
  // indexes, so that at several threads two parts fail; the first is the one named.
  for (const uint32_t r : {0u, 7u}) {
    ASSERT_GE(set.ScatterOffset(2, r) - set.ScatterOffset(1, r), 5u);
    std::string index = testing::ReadFile(set.ScatterIndexPath(r));
    index.replace(set.ScatterOffset(1, r), 5, std::string(5, '\xff'));  // a varint too long
    WriteFile(set.ScatterIndexPath(r), index);
  }
  for (const int threads : {1, 2, 8}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    try {
      Build(set, File("work-" + std::to_string(threads)), IoKind::kPread, false, threads,
            threads > 1);
      ADD_FAILURE() << "a damaged scatter index was read as runs";
    } catch (const Error& e) {
      EXPECT_EQ(e.path(), set.ScatterIndexPath(0));
      EXPECT_EQ(e.byte_offset(), set.ScatterOffset(1, 0));
      EXPECT_NE(std::string(e.what()).find("the scatter index is damaged"), std::string::npos)
          << e.what();
    }
  }
}

TEST_F(InAdjacencyTest, NamesATargetOutsideItsInterval) {
  const std::string shards = Shards(Rmat(10), 4);
  const ShardSet set = ShardSet::Open(shards);
  // Shard 2's first edge from interval 0 given a target in interval 3.
  const uint64_t e = set.Window(2, 0).first_edge;
  ASSERT_LT(e, set.Window(2, 1).first_edge);
  std::string shard = testing::ReadFile(set.AdjacencyPath(2));
  const uint32_t outside = set.interval_begin(3);
  std::memcpy(shard.data() + set.header(2).targets_pos + 4 * e, &outside, 4);
  WriteFile(set.AdjacencyPath(2), shard);
  try {
    Build(set, File("work"), IoKind::kPread, false, 2);
    ADD_FAILURE() << "a target outside its interval was put in place";
  } catch (const Error& e2) {
    EXPECT_EQ(e2.path(), set.AdjacencyPath(2));
    EXPECT_EQ(e2.byte_offset(), set.header(2).targets_pos + 4 * e);
    EXPECT_NE(std::string(e2.what()).find("lies outside interval 2"), std::string::npos)
        << e2.what();
  }
}

}  // namespace
}  // namespace needle
