// The out-adjacency push turns read (engine/out_adjacency.h): built from a shard set, every
// vertex's targets are its out-neighbours in the input, ascending — at several interval
// counts, on both backends, through the page cache and with O_DIRECT, with a hub whose edges
// are more than the build's block holds and read buffers smaller than one vertex's edges, and
// built reading ahead where the buffer allows it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/edge_value_files.h"
#include "engine/interval_io.h"
#include "engine/out_adjacency.h"
#include "engine_test_util.h"
#include "loaders/edge_list_writer.h"
#include "loaders/rmat.h"

namespace needle {
namespace {

class OutAdjacencyTest : public WithTempDir<::testing::Test> {
 protected:
  // An R-MAT graph of 2^scale vertices and 8 edges a vertex, written as text.
  std::string Rmat(uint32_t scale) {
    return WriteRmatText(File("rmat" + std::to_string(scale) + ".el"), scale);
  }
  // Builds the out-adjacency of `input` sharded into `parts` intervals (in work/out.adj) and
  // checks every vertex's targets, read through a buffer of `read_bytes`; built_ahead_ says
  // whether the build read ahead.
  void Check(const std::string& input, uint32_t parts, IoKind kind, bool direct,
             uint64_t build_extra, uint64_t read_bytes, int threads = 2) {
    SCOPED_TRACE(std::to_string(parts) + " parts, " + std::string(IoKindName(kind)) +
                 (direct ? ", direct" : "") + ", read buffer " + std::to_string(read_bytes) +
                 ", " + std::to_string(threads) + " build threads");
    const std::string shards = File("set-" + std::to_string(parts));
    if (!std::filesystem::exists(shards)) ShardInto(input, shards, parts);
    const ShardSet set = ShardSet::Open(shards);
    IoOptions options;
    options.kind = kind == IoKind::kUring ? UringOrSkipNote() : IoKind::kPread;
    options.direct = direct;
    auto io = IoBackend::Create(options);
    const std::string work = File("work");
    std::filesystem::create_directories(work);
    EdgeValueFiles values(*io, set, work, 4);
    IntervalIo files(*io, set, values, false);
    AlignedBuffer build(OutAdjacency::BuildBufferBytes(set, files, threads) + build_extra);
    OutAdjacency out = OutAdjacency::Build(*io, set, files, work + "/out.adj", build, threads);
    EXPECT_EQ(out.first_edge(set.num_intervals()), set.manifest().num_edges);
    built_ahead_ = out.built_ahead();

    const Csr g = LoadCsr(input);
    IntervalData data;
    files.Allocate(data);
    AlignedBuffer buffer(read_bytes);
    uint64_t seen = 0;
    for (uint32_t p = 0; p < set.num_intervals(); ++p) {
      files.LoadDegrees(p, data);
      const VertexId begin = set.interval_begin(p);
      const uint32_t count = set.interval_end(p) - begin;
      std::vector<uint32_t> senders;  // every other vertex, and the interval's last
      for (uint32_t u = 0; u < count; ++u) {
        if (u % 2 == 0 || u + 1 == count) senders.push_back(u);
      }
      std::vector<std::vector<uint32_t>> got(count);
      std::vector<uint32_t> order;
      out.ReadSenders(p, senders, data.OutDegrees(), count, buffer,
                      [&](uint32_t u, const uint32_t* targets, uint64_t n) {
                        if (order.empty() || order.back() != u) order.push_back(u);
                        got[u].insert(got[u].end(), targets, targets + n);
                      });
      std::vector<uint32_t> with_edges;  // a sender without out-edges is not visited
      for (const uint32_t u : senders) {
        if (data.OutDegrees()[u] > 0) with_edges.push_back(u);
      }
      EXPECT_EQ(order, with_edges) << "interval " << p << ": senders visited out of order";
      for (const uint32_t u : senders) {
        const auto neighbors = g.Neighbors(begin + u);
        std::vector<uint32_t> expected(neighbors.begin(), neighbors.end());
        std::sort(expected.begin(), expected.end());
        ASSERT_EQ(got[u], expected) << "vertex " << begin + u;
        seen += expected.size();
      }
    }
    EXPECT_GT(seen, 0u);
  }

  bool built_ahead_ = false;
};

TEST_F(OutAdjacencyTest, HoldsEveryVertexsOutEdgesInOrder) {
  const std::string rmat = Rmat(11);
  for (const uint32_t parts : {1u, 3u, 8u}) {
    for (const IoKind kind : {IoKind::kPread, IoKind::kUring}) {
      for (const bool direct : {false, true}) {
        Check(rmat, parts, kind, direct, 0, uint64_t{1} << 20);
      }
    }
  }
  // Read buffers of one page: a batch a sender, hubs in pieces.
  Check(rmat, 3, IoKind::kUring, true, 0, 4096);
  Check(rmat, 3, IoKind::kPread, false, 0, 4096);
}

TEST_F(OutAdjacencyTest, IsTheSameBuiltOnAnyThreadCount) {
  // Parts of the windows by thread: one part (1 thread), parts of uneven sizes (3 threads of
  // 8 shards), one shard a part (8), and more threads than shards (its parts are the shards).
  const std::string rmat = Rmat(12);
  for (const int threads : {1, 3, 8, 16}) {
    Check(rmat, 8, IoKind::kPread, false, 0, uint64_t{1} << 20, threads);
  }
  // Many blocks an interval, each placed by every part.
  Check(Rmat(14), 3, IoKind::kUring, true, 0, uint64_t{1} << 20, 3);
}

TEST_F(OutAdjacencyTest, BuildsAnIntervalInManyBlocks) {
  // 131,072 edges: an interval's out-edges take several of the smallest buffer's blocks of
  // about 16 Ki edges, each window's runs taken block after block.
  const std::string rmat = Rmat(14);
  for (const uint32_t parts : {1u, 3u}) {
    Check(rmat, parts, IoKind::kUring, true, 0, uint64_t{1} << 20);
    Check(rmat, parts, IoKind::kPread, false, 0, uint64_t{1} << 20);
  }
}

TEST_F(OutAdjacencyTest, ReadsAheadWhereTheBufferHoldsTwoIntervalsAndWritesTheSameFile) {
  // The smallest buffer builds block by block; one of 64 MiB more reads interval p + 1 while
  // p is placed, with p's block written meanwhile. The file is the same either way.
  const std::string rmat = Rmat(12);
  const std::string path = File("work") + "/out.adj";
  for (const IoKind kind : {IoKind::kPread, IoKind::kUring}) {
    for (const bool direct : {false, true}) {
      for (const int threads : {1, 3}) {
        Check(rmat, 8, kind, direct, 0, uint64_t{1} << 20, threads);
        EXPECT_FALSE(built_ahead_);
        const std::string blocks = testing::ReadFile(path);
        Check(rmat, 8, kind, direct, uint64_t{64} << 20, uint64_t{1} << 20, threads);
        EXPECT_TRUE(built_ahead_);
        EXPECT_TRUE(testing::ReadFile(path) == blocks) << "the file read ahead differs";
      }
    }
  }
  Check(rmat, 1, IoKind::kUring, true, uint64_t{64} << 20, 4096);  // one interval
  EXPECT_TRUE(built_ahead_);
}

TEST_F(OutAdjacencyTest, NamesTheFirstDamagedWindowOnAnyThreadCount) {
  const std::string shards = File("damaged-set");
  ShardInto(Rmat(12), shards, 8);
  const ShardSet set = ShardSet::Open(shards);
  // Interval 1's index: the first run of its first and its last non-empty window damaged, so
  // that at several threads two parts fail; the first window is the one named.
  std::vector<uint32_t> windows;
  for (uint32_t q = 0; q < set.num_intervals(); ++q) {
    if (set.ScatterOffset(q + 1, 1) - set.ScatterOffset(q, 1) >= 5) windows.push_back(q);
  }
  ASSERT_GE(windows.size(), 2u);
  std::string index = testing::ReadFile(set.ScatterIndexPath(1));
  for (const uint32_t q : {windows.front(), windows.back()}) {
    index.replace(set.ScatterOffset(q, 1), 5, std::string(5, '\xff'));  // a varint too long
  }
  WriteFile(set.ScatterIndexPath(1), index);
  // Reading ahead, interval 2's reads and interval 0's write are in flight when interval 1's
  // index is found damaged: the build waits for them before its buffer is freed.
  for (const int threads : {1, 2, 8}) {
    for (const uint64_t extra : {uint64_t{0}, uint64_t{64} << 20}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, buffer + " + std::to_string(extra));
      IoOptions options;
      options.kind = extra > 0 ? UringOrSkipNote() : IoKind::kPread;
      auto io = IoBackend::Create(options);
      const std::string work =
          File("work-" + std::to_string(threads) + (extra > 0 ? "-ahead" : ""));
      std::filesystem::create_directories(work);
      EdgeValueFiles values(*io, set, work, 4);
      IntervalIo files(*io, set, values, false);
      AlignedBuffer build(OutAdjacency::BuildBufferBytes(set, files, threads) + extra);
      try {
        OutAdjacency::Build(*io, set, files, work + "/out.adj", build, threads);
        ADD_FAILURE() << "a damaged scatter index was read as runs";
      } catch (const Error& e) {
        EXPECT_EQ(e.path(), set.ScatterIndexPath(1));
        EXPECT_EQ(e.byte_offset(), set.ScatterOffset(windows.front(), 1));
        EXPECT_NE(std::string(e.what()).find("the scatter index is damaged"), std::string::npos)
            << e.what();
      }
    }
  }
}

TEST_F(OutAdjacencyTest, CopiesAHubLargerThanABlock) {
  // Vertex 5 sends to 60,000 vertices (more than the smallest build buffer's block of about
  // 16 Ki edges), the others to a few.
  std::string text;
  for (uint32_t v = 0; v < 60000; ++v) text += "5 " + std::to_string(v * 3 % 70000) + "\n";
  for (uint32_t u = 0; u < 70000; u += 7) {
    text += std::to_string(u) + " " + std::to_string(u / 2) + "\n";
  }
  const std::string hub = File("hub.el");
  WriteFile(hub, text);
  for (const uint32_t parts : {1u, 4u}) {
    Check(hub, parts, IoKind::kPread, false, 0, 4096);
    Check(hub, parts, IoKind::kUring, true, 0, uint64_t{1} << 20);
  }
}

}  // namespace
}  // namespace needle
