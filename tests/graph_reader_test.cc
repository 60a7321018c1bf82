// The block API (GraphReader): any range of edges, blocking or asynchronous, from .csr and text
// files, must be exactly the matching slice of the graph's edge sequence — the CSR order for
// .csr, ReadTextGraph's order for text — with correct sources; async reads respect the buffer
// bound, deliver in order, surface errors in Wait(), and leave no thread behind.
#include "loaders/graph_reader.h"

#include <gtest/gtest.h>
#include <omp.h>
#include <xxhash.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "loaders/byte_source.h"
#include "loaders/content_hash.h"
#include "loaders/csr_file.h"
#include "loaders/csr_file_format.h"
#include "loaders/text_reader.h"
#include "tests/test_util.h"

namespace needle {
namespace {

using testing::PlainEdges;
using testing::SequencesEqual;

enum class Input { kCsrWeighted, kCsrUnweighted, kWel, kWelGzip, kElXz, kMtxSymmetric, kDimacs };

std::string InputName(Input i) {
  switch (i) {
    case Input::kCsrWeighted:
      return "CsrWeighted";
    case Input::kCsrUnweighted:
      return "CsrUnweighted";
    case Input::kWel:
      return "Wel";
    case Input::kWelGzip:
      return "WelGzip";
    case Input::kElXz:
      return "ElXz";
    case Input::kMtxSymmetric:
      return "MtxSymmetric";
    case Input::kDimacs:
      return "Dimacs";
  }
  return "?";
}

bool IsCsr(Input i) { return i == Input::kCsrWeighted || i == Input::kCsrUnweighted; }

// A file of a few thousand edges in the given form, and the edge sequence it must yield.
struct PreparedGraph {
  std::string path;
  uint64_t num_vertices = 0;
  bool weighted = false;
  PlainEdges edges;
  testing::PlainCsr csr;  // .csr inputs only
};

// Text is read in 4 KiB chunks and 512-byte parser blocks, so that ranges cross chunk ends.
ReadOptions SmallChunks() {
  ReadOptions o;
  o.chunk_bytes = 4096;
  o.block_bytes = 512;
  return o;
}

PreparedGraph Prepare(Input input, const testing::TempDir& dir, uint64_t m = 6000) {
  const uint64_t n = 3000;
  testing::Rng rng(static_cast<uint64_t>(input) + 1);
  std::vector<Edge> edges;
  std::vector<Weight> weights;
  for (uint64_t i = 0; i < m; ++i) {
    // Ids below 2500 only, so the csr has a run of trailing vertices without out-edges, and
    // every tenth vertex is never a source.
    auto u = static_cast<VertexId>(rng.Below(250) * 10 + 1 + rng.Below(9));
    auto v = static_cast<VertexId>(rng.Below(2500));
    edges.push_back(Edge{u, v});
    weights.push_back(static_cast<Weight>(rng.Below(400)) / 4);
  }
  PreparedGraph g;
  switch (input) {
    case Input::kCsrWeighted:
    case Input::kCsrUnweighted: {
      g.weighted = input == Input::kCsrWeighted;
      Csr csr = BuildCsr(testing::MakeEdgeList(n, edges, weights, g.weighted, 3), CsrOptions{});
      g.path = dir.File("graph.csr");
      WriteCsrFile(csr, g.path);
      g.csr = testing::ToPlain(csr);
      g.edges = testing::EdgesInCsrOrder(g.csr);
      g.num_vertices = n;
      return g;
    }
    case Input::kWel:
    case Input::kWelGzip:
    case Input::kElXz: {
      const bool weighted = input != Input::kElXz;
      std::string text = "# generated\n";
      for (uint64_t i = 0; i < m; ++i) {
        text += std::to_string(edges[i].source) + " " + std::to_string(edges[i].target);
        if (weighted) text += " " + std::to_string(weights[i]);
        text += i % 100 == 0 ? "\n% comment\n" : "\n";
      }
      g.path = dir.File(weighted ? "graph.wel" : "graph.el");
      testing::WriteFile(g.path, text);
      if (input == Input::kWelGzip) g.path = testing::Compress(g.path, "gzip");
      if (input == Input::kElXz) g.path = testing::Compress(g.path, "xz");
      break;
    }
    case Input::kMtxSymmetric: {
      std::string text = "%%MatrixMarket matrix coordinate real symmetric\n";
      text += std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(m) + "\n";
      for (uint64_t i = 0; i < m; ++i) {
        const VertexId hi = std::max(edges[i].source, edges[i].target);
        const VertexId lo = std::min(edges[i].source, edges[i].target);
        text += std::to_string(hi + 1) + " " + std::to_string(lo + 1) + " " +
                std::to_string(weights[i]) + "\n";
      }
      g.path = dir.File("graph.mtx");
      testing::WriteFile(g.path, text);
      break;
    }
    case Input::kDimacs: {
      std::string text = "c generated\np sp " + std::to_string(n) + " " + std::to_string(m) + "\n";
      for (uint64_t i = 0; i < m; ++i) {
        text += "a " + std::to_string(edges[i].source + 1) + " " +
                std::to_string(edges[i].target + 1) + " " + std::to_string(weights[i]) + "\n";
      }
      g.path = dir.File("graph.gr");
      testing::WriteFile(g.path, text);
      break;
    }
  }
  EdgeList list = ReadTextGraph(g.path, ReadOptions{});
  g.num_vertices = list.num_vertices;
  g.weighted = list.weighted;
  g.edges = testing::ToPlain(list);
  return g;
}

// Owns the buffers of a blocking read.
struct Buffers {
  Buffers(uint64_t capacity, bool weighted)
      : sources(capacity), targets(capacity), weights(weighted ? capacity : 0) {}
  EdgeBuffers view() { return EdgeBuffers{sources, targets, weights}; }
  std::vector<VertexId> sources;
  std::vector<VertexId> targets;
  std::vector<Weight> weights;
};

// Checks one block against the expected edges [block.first_edge, + size).
::testing::AssertionResult BlockMatches(const EdgeBlock& block, const PreparedGraph& g) {
  if (block.first_edge + block.size() > g.edges.edges.size()) {
    return ::testing::AssertionFailure() << "block " << block.first_edge << "+" << block.size()
                                         << " beyond the " << g.edges.edges.size() << " edges";
  }
  if (block.sources.size() != block.size()) {
    return ::testing::AssertionFailure() << "sources and targets differ in size";
  }
  if (block.weights.size() != (g.weighted ? block.size() : 0)) {
    return ::testing::AssertionFailure() << "weights size " << block.weights.size();
  }
  for (size_t i = 0; i < block.size(); ++i) {
    const uint64_t at = block.first_edge + i;
    const Edge& e = g.edges.edges[at];
    if (block.sources[i] != e.source || block.targets[i] != e.target) {
      return ::testing::AssertionFailure()
             << "edge " << at << ": got (" << block.sources[i] << "->" << block.targets[i]
             << "), expected (" << e.source << "->" << e.target << ")";
    }
    if (g.weighted && block.weights[i] != g.edges.weights[at]) {
      return ::testing::AssertionFailure()
             << "weight of edge " << at << ": got " << block.weights[i] << ", expected "
             << g.edges.weights[at];
    }
  }
  return ::testing::AssertionSuccess();
}

class GraphReaderTest : public ::testing::TestWithParam<Input> {
 protected:
  void SetUp() override { graph_ = Prepare(GetParam(), dir_); }
  std::unique_ptr<GraphReader> Open(uint64_t block_edges = uint64_t{1} << 20, int buffers = 4) {
    GraphReaderOptions options;
    options.read = SmallChunks();
    options.block_edges = block_edges;
    options.buffers = buffers;
    return GraphReader::Open(graph_.path, options);
  }
  uint64_t m() const { return graph_.edges.edges.size(); }

  testing::TempDir dir_;
  PreparedGraph graph_;
};

TEST_P(GraphReaderTest, ReportsFormatAndCounts) {
  auto reader = Open();
  EXPECT_EQ(reader->path(), graph_.path);
  EXPECT_EQ(reader->weighted(), graph_.weighted);
  switch (GetParam()) {
    case Input::kCsrWeighted:
    case Input::kCsrUnweighted:
      EXPECT_EQ(reader->format(), GraphFormat::kCsr);
      EXPECT_EQ(reader->num_vertices(), std::optional<uint64_t>(graph_.num_vertices));
      EXPECT_EQ(reader->num_edges(), std::optional<uint64_t>(m()));
      break;
    case Input::kMtxSymmetric:
      EXPECT_EQ(reader->format(), GraphFormat::kMatrixMarket);
      EXPECT_EQ(reader->num_vertices(), std::optional<uint64_t>(graph_.num_vertices));
      break;
    case Input::kDimacs:
      EXPECT_EQ(reader->format(), GraphFormat::kDimacs);
      EXPECT_EQ(reader->num_vertices(), std::optional<uint64_t>(graph_.num_vertices));
      EXPECT_EQ(reader->num_edges(), std::optional<uint64_t>(m()));
      break;
    default:
      EXPECT_EQ(reader->format(), GraphFormat::kEdgeList);
      break;
  }
  // Once a read has reached the end, both counts are known for every format.
  Buffers buffers(m() + 10, graph_.weighted);
  EXPECT_EQ(reader->ReadEdges(0, buffers.view()).size(), m());
  EXPECT_EQ(reader->ReadEdges(m(), buffers.view()).size(), 0u);
  EXPECT_EQ(reader->num_vertices(), std::optional<uint64_t>(graph_.num_vertices));
  EXPECT_EQ(reader->num_edges(), std::optional<uint64_t>(m()));
}

TEST_P(GraphReaderTest, BlockingReadsCoverEveryEdgeOnceInOrder) {
  for (uint64_t size : {uint64_t{1}, uint64_t{7}, uint64_t{1000}, m() + 1000}) {
    SCOPED_TRACE("range size " + std::to_string(size));
    auto reader = Open();
    Buffers buffers(size, graph_.weighted);
    uint64_t first = 0;
    for (;;) {
      EdgeBlock block = reader->ReadEdges(first, buffers.view());
      ASSERT_EQ(block.first_edge, first);
      if (block.size() == 0) break;
      ASSERT_EQ(block.size(), std::min(size, m() - first)) << "short block before the end";
      ASSERT_TRUE(BlockMatches(block, graph_));
      first += block.size();
    }
    EXPECT_EQ(first, m());
    EXPECT_EQ(reader->ReadEdges(m() + 5, buffers.view()).size(), 0u);
  }
}

TEST_P(GraphReaderTest, ReadsInAnyOrder) {
  auto reader = Open();
  Buffers buffers(500, graph_.weighted);
  // Forward with gaps, then back to earlier ranges (a text reader must re-read its file).
  for (uint64_t first : {uint64_t{1000}, uint64_t{1200}, uint64_t{4000}, uint64_t{0},
                         uint64_t{1500}, uint64_t{1499}, m() - 3, uint64_t{10}, m() - 500}) {
    SCOPED_TRACE("first " + std::to_string(first));
    EdgeBlock block = reader->ReadEdges(first, buffers.view());
    EXPECT_EQ(block.first_edge, first);
    EXPECT_EQ(block.size(), std::min<uint64_t>(500, m() - first));
    EXPECT_TRUE(BlockMatches(block, graph_));
  }
}

TEST_P(GraphReaderTest, BuffersSmallerThanTargetsAreRejected) {
  auto reader = Open();
  std::vector<VertexId> sources(5), targets(10);
  std::vector<Weight> weights(10);
  EXPECT_THROW(reader->ReadEdges(0, EdgeBuffers{sources, targets, weights}), Error);
}

TEST_P(GraphReaderTest, AsyncReleasingInTheCallback) {
  for (uint64_t block_edges : {uint64_t{7}, uint64_t{1000}, m() * 2}) {
    SCOPED_TRACE("block_edges " + std::to_string(block_edges));
    auto reader = Open(block_edges, 2);
    uint64_t next = 0;
    bool ok = true;
    std::thread::id callback_thread;
    reader->ReadEdgesAsync(0, UINT64_MAX, [&](BlockLease lease) {
      const EdgeBlock& b = lease.block();
      callback_thread = std::this_thread::get_id();
      if (b.first_edge != next || b.size() == 0 || b.size() > block_edges) ok = false;
      if (!BlockMatches(b, graph_)) ok = false;
      next = b.first_edge + b.size();
      lease.Release();
    });
    reader->Wait();
    EXPECT_TRUE(ok);
    EXPECT_EQ(next, m());
    EXPECT_NE(callback_thread, std::this_thread::get_id()) << "callbacks run on the reader thread";
    reader->Close();
    reader->Close();  // idempotent
  }
}

// Leases handed to another thread, which checks and releases them; at most `buffers` are ever
// out at once, and the reader waits for releases rather than overwriting a held block.
TEST_P(GraphReaderTest, AsyncHoldingLeasesReleasedFromAnotherThread) {
  constexpr int kBuffers = 2;
  auto reader = Open(/*block_edges=*/97, kBuffers);
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<BlockLease> held;
  std::atomic<int> out{0};
  std::atomic<int> max_out{0};
  reader->ReadEdgesAsync(0, UINT64_MAX, [&](BlockLease lease) {
    const int now = ++out;
    int seen = max_out.load();
    while (now > seen && !max_out.compare_exchange_weak(seen, now)) {
    }
    std::lock_guard lock(mutex);
    held.push_back(std::move(lease));
    ready.notify_one();
  });
  uint64_t next = 0;
  bool ok = true;
  std::thread consumer([&] {
    while (next < m()) {
      std::unique_lock lock(mutex);
      ready.wait(lock, [&] { return !held.empty(); });
      // Wait a little with both leases out, to give a reader that ignored the bound a chance
      // to overwrite one.
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      lock.lock();
      BlockLease lease = std::move(held.front());
      held.pop_front();
      lock.unlock();
      const EdgeBlock& b = lease.block();
      if (b.first_edge != next || !BlockMatches(b, graph_)) ok = false;
      next = b.first_edge + b.size();
      --out;
      lease.Release();
    }
  });
  consumer.join();
  reader->Wait();
  EXPECT_TRUE(ok);
  EXPECT_EQ(next, m());
  EXPECT_LE(max_out.load(), kBuffers);
  EXPECT_GE(max_out.load(), 1);
}

TEST_P(GraphReaderTest, AsyncRangesQueueAndRunInOrder) {
  auto reader = Open(/*block_edges=*/64, 3);
  struct Delivery {
    int read;
    uint64_t first;
    uint64_t size;
  };
  std::vector<Delivery> deliveries;  // only the reader thread appends
  bool ok = true;
  const std::vector<std::pair<uint64_t, uint64_t>> reads = {
      {100, 2000}, {2000, 2001}, {5990, UINT64_MAX}, {10, 20}, {m() + 7, m() + 100}, {0, 0}};
  for (size_t r = 0; r < reads.size(); ++r) {
    reader->ReadEdgesAsync(reads[r].first, reads[r].second, [&, r](BlockLease lease) {
      if (!BlockMatches(lease.block(), graph_)) ok = false;
      deliveries.push_back(
          Delivery{static_cast<int>(r), lease.block().first_edge, lease.block().size()});
    });
  }
  reader->Wait();
  EXPECT_TRUE(ok);
  // Each read delivers exactly [first, min(last, m)), in order, before the next read starts.
  size_t d = 0;
  for (size_t r = 0; r < reads.size(); ++r) {
    const uint64_t last = std::min(reads[r].second, m());
    uint64_t at = reads[r].first;
    while (d < deliveries.size() && deliveries[d].read == static_cast<int>(r)) {
      EXPECT_EQ(deliveries[d].first, at) << "read " << r;
      at += deliveries[d].size;
      ++d;
    }
    EXPECT_EQ(at, std::max(reads[r].first, last)) << "read " << r;
  }
  EXPECT_EQ(d, deliveries.size()) << "deliveries out of order";
}

TEST_P(GraphReaderTest, VertexOffsetsForCsrOnly) {
  auto reader = Open();
  std::vector<EdgeIndex> offsets(11);
  if (!IsCsr(GetParam())) {
    EXPECT_TRUE(testing::ThrowsError([&] { reader->ReadVertexOffsets(0, offsets); }, graph_.path,
                                     "", "csr"));
    return;
  }
  const uint64_t n1 = graph_.num_vertices + 1;
  for (uint64_t first : {uint64_t{0}, uint64_t{5}, uint64_t{2495}, n1 - 11}) {
    reader->ReadVertexOffsets(first, offsets);
    std::vector<EdgeIndex> expected(graph_.csr.offsets.begin() + static_cast<int64_t>(first),
                                    graph_.csr.offsets.begin() + static_cast<int64_t>(first + 11));
    EXPECT_TRUE(SequencesEqual("offsets", offsets, expected)) << "first " << first;
  }
  // The out-list of a vertex through offsets then ReadEdges.
  reader->ReadVertexOffsets(1, std::span<EdgeIndex>(offsets).first(2));
  Buffers buffers(offsets[1] - offsets[0], graph_.weighted);
  EdgeBlock block = reader->ReadEdges(offsets[0], buffers.view());
  EXPECT_EQ(block.size(), offsets[1] - offsets[0]);
  for (VertexId s : block.sources) {
    EXPECT_EQ(s, 1u);
  }
  EXPECT_THROW(reader->ReadVertexOffsets(n1 - 10, offsets), Error);
}

// Blocking reads from this thread while an async read runs on the reader thread: the two are
// serialised and both see the right edges (for text, each backward jump re-reads the file).
TEST_P(GraphReaderTest, BlockingAndAsyncReadsMixed) {
  auto reader = Open(/*block_edges=*/250, 2);
  uint64_t next = 0;
  bool async_ok = true;
  reader->ReadEdgesAsync(0, UINT64_MAX, [&](BlockLease lease) {
    if (lease.block().first_edge != next || !BlockMatches(lease.block(), graph_)) async_ok = false;
    next += lease.block().size();
  });
  Buffers buffers(300, graph_.weighted);
  for (uint64_t first : {uint64_t{5000}, uint64_t{0}, uint64_t{2500}, uint64_t{100}}) {
    EdgeBlock block = reader->ReadEdges(first, buffers.view());
    EXPECT_EQ(block.size(), 300u);
    EXPECT_TRUE(BlockMatches(block, graph_)) << "first " << first;
  }
  reader->Wait();
  EXPECT_TRUE(async_ok);
  EXPECT_EQ(next, m());
}

INSTANTIATE_TEST_SUITE_P(AllInputs, GraphReaderTest,
                         ::testing::Values(Input::kCsrWeighted, Input::kCsrUnweighted, Input::kWel,
                                           Input::kWelGzip, Input::kElXz, Input::kMtxSymmetric,
                                           Input::kDimacs),
                         [](const ::testing::TestParamInfo<Input>& p) {
                           return InputName(p.param);
                         });

// --- Large .csr: ranges across checksum chunks --------------------------------------------------

TEST(GraphReaderLargeCsr, RangesAcrossChecksumChunks) {
  testing::TempDir dir;
  PreparedGraph g = Prepare(Input::kCsrWeighted, dir, /*m=*/400000);  // targets: 1.6 MB
  GraphReaderOptions options;
  options.block_edges = 65536;
  options.buffers = 2;
  auto reader = GraphReader::Open(g.path, options);
  Buffers buffers(100000, true);
  for (uint64_t first = 0; first < g.edges.edges.size(); first += 100000) {
    EdgeBlock block = reader->ReadEdges(first, buffers.view());
    ASSERT_TRUE(BlockMatches(block, g));
  }
  for (uint64_t first : {uint64_t{262143}, uint64_t{262000}, uint64_t{1}}) {
    EdgeBlock block = reader->ReadEdges(first, buffers.view());
    EXPECT_TRUE(BlockMatches(block, g)) << "first " << first;
  }
  uint64_t next = 0;
  bool ok = true;
  reader->ReadEdgesAsync(0, UINT64_MAX, [&](BlockLease lease) {
    if (lease.block().first_edge != next || !BlockMatches(lease.block(), g)) ok = false;
    next += lease.block().size();
  });
  reader->Wait();
  EXPECT_TRUE(ok);
  EXPECT_EQ(next, g.edges.edges.size());
}

// --- Errors and threads -----------------------------------------------------------------------

TEST(GraphReaderAsync, ErrorLateInTheFileIsRethrownByWait) {
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += std::to_string(i % 300) + " " + std::to_string(i % 7) + "\n";
  text += "5 oops\n";
  for (int i = 0; i < 100; ++i) text += "1 2\n";
  const std::string plain = dir.File("bad.el");
  testing::WriteFile(plain, text);
  const std::string gz = testing::Compress(plain, "gzip");
  for (const std::string& path : {plain, gz}) {
    SCOPED_TRACE(path);
    GraphReaderOptions options;
    options.read = SmallChunks();
    options.block_edges = 1000;
    options.buffers = 2;
    auto reader = GraphReader::Open(path, options);
    uint64_t delivered = 0;
    bool second_read_ran = false;
    reader->ReadEdgesAsync(0, UINT64_MAX,
                           [&](BlockLease lease) { delivered += lease.block().size(); });
    reader->ReadEdgesAsync(0, 10, [&](BlockLease) { second_read_ran = true; });
    EXPECT_TRUE(testing::ThrowsError([&] { reader->Wait(); }, path, testing::AtLine(20001),
                                     "non-negative integer"));
    EXPECT_LE(delivered, 20000u);
    EXPECT_FALSE(second_read_ran) << "a read queued after the failed one still ran";
    reader->Close();
  }
}

// Entries of /proc/self/task: the threads of this process.
int ThreadCount() {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++n;
  }
  return n;
}

// Polls for up to 2 s (OpenMP pools of a finished thread may take a moment to wind down).
::testing::AssertionResult ThreadsBackTo(int before) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  int now = ThreadCount();
  while (now > before && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    now = ThreadCount();
  }
  if (now <= before) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << now << " threads, " << before << " before Open";
}

class GraphReaderThreadsTest : public ::testing::TestWithParam<Input> {};

TEST_P(GraphReaderThreadsTest, CloseLeavesNoThreadBehind) {
  testing::TempDir dir;
  PreparedGraph g = Prepare(GetParam(), dir);
  // Start this thread's OpenMP pool first: it belongs to the test, not to the reader.
  int sum = 0;
#pragma omp parallel reduction(+ : sum)
  sum += omp_get_thread_num();
  (void)sum;
  for (int threads : {1, 2}) {
    SCOPED_TRACE("parsing threads " + std::to_string(threads));
    const int before = ThreadCount();
    GraphReaderOptions options;
    options.read = SmallChunks();
    options.read.threads = threads;
    options.block_edges = 500;
    options.buffers = 2;
    {
      auto reader = GraphReader::Open(g.path, options);
      uint64_t delivered = 0;
      reader->ReadEdgesAsync(0, UINT64_MAX,
                             [&](BlockLease lease) { delivered += lease.block().size(); });
      reader->Wait();
      EXPECT_EQ(delivered, g.edges.edges.size());
      reader->Close();
      EXPECT_TRUE(ThreadsBackTo(before)) << "after Close()";
    }
    {
      auto reader = GraphReader::Open(g.path, options);
      reader->ReadEdgesAsync(0, 1000, [](BlockLease) {});
      reader->Wait();
    }  // the destructor closes
    EXPECT_TRUE(ThreadsBackTo(before)) << "after destruction";
  }
}

// Close() while the caller holds every buffer: it must not wait for the leases, the held
// blocks stay valid, and releasing them afterwards is safe.
TEST_P(GraphReaderThreadsTest, CloseWhileLeasesAreHeld) {
  testing::TempDir dir;
  PreparedGraph g = Prepare(GetParam(), dir);
  GraphReaderOptions options;
  options.read = SmallChunks();
  options.block_edges = 100;
  options.buffers = 2;
  auto reader = GraphReader::Open(g.path, options);
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<BlockLease> held;
  reader->ReadEdgesAsync(0, UINT64_MAX, [&](BlockLease lease) {
    std::lock_guard lock(mutex);
    held.push_back(std::move(lease));
    cv.notify_one();
  });
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return held.size() == 2; }));
  }
  reader->Close();
  std::lock_guard lock(mutex);
  ASSERT_EQ(held.size(), 2u) << "the reader delivered more blocks than it has buffers";
  for (const BlockLease& lease : held) {
    EXPECT_TRUE(BlockMatches(lease.block(), g));
  }
  reader.reset();
  for (BlockLease& lease : held) lease.Release();
}

INSTANTIATE_TEST_SUITE_P(SomeInputs, GraphReaderThreadsTest,
                         ::testing::Values(Input::kCsrWeighted, Input::kWel, Input::kWelGzip),
                         [](const ::testing::TestParamInfo<Input>& p) {
                           return InputName(p.param);
                         });

// A .csr is recognised by its magic, whatever its name.
TEST(GraphReaderCsr, RecognisedByMagic) {
  testing::TempDir dir;
  PreparedGraph g = Prepare(Input::kCsrUnweighted, dir);
  const std::string renamed = dir.File("graph.bin");
  std::filesystem::copy_file(g.path, renamed);
  auto reader = GraphReader::Open(renamed);
  EXPECT_EQ(reader->format(), GraphFormat::kCsr);
  EXPECT_EQ(reader->num_edges(), std::optional<uint64_t>(g.edges.edges.size()));
  Buffers buffers(100, false);
  EXPECT_TRUE(BlockMatches(reader->ReadEdges(40, buffers.view()), g));
}

// --weights on a .csr, as LoadGraph takes it: `no` reads none of a weighted file's weights
// (so the sharder writes an unweighted set), `yes` on a file without any is an error.
TEST(GraphReaderCsr, WeightsOptionAsTheLoaderTakesIt) {
  testing::TempDir dir;
  PreparedGraph weighted = Prepare(Input::kCsrWeighted, dir);
  GraphReaderOptions no;
  no.read.weights = WeightMode::kUnweighted;
  auto reader = GraphReader::Open(weighted.path, no);
  EXPECT_FALSE(reader->weighted());
  Buffers buffers(100, false);
  const EdgeBlock block = reader->ReadEdges(0, buffers.view());
  EXPECT_TRUE(block.weights.empty());
  EXPECT_EQ(block.size(), std::min<size_t>(100, weighted.edges.edges.size()));
  EXPECT_TRUE(GraphReader::Open(weighted.path)->weighted());
  PreparedGraph plain = Prepare(Input::kCsrUnweighted, dir);
  GraphReaderOptions yes;
  yes.read.weights = WeightMode::kWeighted;
  EXPECT_TRUE(testing::ThrowsError([&] { GraphReader::Open(plain.path, yes); }, plain.path, "",
                                   "--weights yes"));
}

TEST(GraphReaderOptions, InvalidBlockOptionsAreRejected) {
  const std::string path = testing::TestDataPath("tiny.wel");
  GraphReaderOptions options;
  options.block_edges = 0;
  EXPECT_TRUE(testing::ThrowsError([&] { GraphReader::Open(path, options); }, path, "", "block"));
  options.block_edges = 10;
  options.buffers = 0;
  EXPECT_TRUE(testing::ThrowsError([&] { GraphReader::Open(path, options); }, path, "", "buffers"));
}

// --- The content hash -------------------------------------------------------------------

// What FileContentHash must give, computed independently from the file's bytes: the header's
// header_hash field for a .csr, XXH3-64 of every byte for text (compressed bytes included).
uint64_t ExpectedContentHash(const std::string& path, bool csr) {
  const std::string bytes = testing::ReadFile(path);
  if (csr) {
    uint64_t h = 0;
    std::memcpy(&h, bytes.data() + kCsrHeaderHashOffset, sizeof(h));
    return h;
  }
  return XXH3_64bits(bytes.data(), bytes.size());
}

// Reads every edge with blocking reads until an empty block.
void ReadToTheEnd(GraphReader& reader) {
  Buffers buffers(1000, reader.weighted());
  for (uint64_t first = 0;;) {
    EdgeBlock block = reader.ReadEdges(first, buffers.view());
    if (block.size() == 0) break;
    first += block.size();
  }
}

TEST_P(GraphReaderTest, ContentHashIsTheFileFingerprint) {
  const bool csr = IsCsr(GetParam());
  const uint64_t expected = ExpectedContentHash(graph_.path, csr);
  EXPECT_EQ(FileContentHash(graph_.path, GraphFormat::kAuto), expected);
  {
    auto reader = Open(1000);
    if (csr) {
      EXPECT_EQ(reader->content_hash(), std::optional<uint64_t>(expected)) << "known at open";
    } else {
      EXPECT_EQ(reader->content_hash(), std::nullopt) << "before a read reached the end";
      Buffers buffers(100, graph_.weighted);
      reader->ReadEdges(0, buffers.view());
      EXPECT_EQ(reader->content_hash(), std::nullopt) << "after a read that did not";
    }
    ReadToTheEnd(*reader);
    EXPECT_EQ(reader->content_hash(), std::optional<uint64_t>(expected));
  }
  {
    auto reader = Open(1000);
    reader->ReadEdgesAsync(0, UINT64_MAX, [](BlockLease lease) { lease.Release(); });
    reader->Wait();
    EXPECT_EQ(reader->content_hash(), std::optional<uint64_t>(expected));
  }
}

// The hash follows IsCsrInput: a .csr under another name is still hashed as a .csr (its header
// hash), and the bytes of a text file are hashed whatever its name.
TEST(ContentHash, DecidedLikeGraphReaderOpen) {
  testing::TempDir dir;
  PreparedGraph g = Prepare(Input::kCsrWeighted, dir);
  const std::string renamed = dir.File("graph.bin");
  std::filesystem::copy_file(g.path, renamed);
  EXPECT_EQ(FileContentHash(renamed, GraphFormat::kAuto), CsrFile::Open(g.path).header_hash());
  EXPECT_EQ(FileContentHash(renamed, GraphFormat::kCsr), ExpectedContentHash(g.path, true));
  const std::string text = testing::TestDataPath("tiny.wel");
  EXPECT_EQ(FileContentHash(text, GraphFormat::kAuto), ExpectedContentHash(text, false));
  EXPECT_TRUE(
      testing::ThrowsError([&] { FileContentHash(dir.File("missing.el"), GraphFormat::kAuto); },
                           dir.File("missing.el"), "", "No such file"));
}

// ByteSource hashes the raw bytes it reads: the compressed ones for gzip and xz.
TEST(ContentHash, ByteSourceHashesTheRawFileBytes) {
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 100000; ++i) text += std::to_string(i) + " " + std::to_string(i * 7) + "\n";
  const std::string plain = dir.File("graph.el");
  testing::WriteFile(plain, text);
  for (testing::Packing packing :
       {testing::Packing::kPlain, testing::Packing::kGzip, testing::Packing::kXz}) {
    SCOPED_TRACE(testing::PackingName(packing));
    const std::string path = testing::Pack(plain, packing);
    std::unique_ptr<ByteSource> source = OpenByteSource(path);
    std::vector<char> buffer(70000);
    uint64_t total = 0;
    while (size_t n = source->Read(buffer.data(), buffer.size())) total += n;
    EXPECT_EQ(total, text.size());
    EXPECT_EQ(source->ContentHash(), ExpectedContentHash(path, false));
  }
}

// A same-size edit anywhere (beyond the first 64 KiB too) changes the hash.
TEST(ContentHash, SameSizeEditChangesIt) {
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 60000; ++i)
    text += std::to_string(i % 1000) + " " + std::to_string(i % 777) + "\n";
  ASSERT_GT(text.size(), 4u * 65536);
  const std::string path = dir.File("graph.el");
  for (size_t at : {size_t{10}, size_t{70000}, text.size() / 2, text.size() - 3}) {
    SCOPED_TRACE("edit at byte " + std::to_string(at));
    ASSERT_TRUE(std::isdigit(static_cast<unsigned char>(text[at])));
    std::string edited = text;
    edited[at] = edited[at] == '1' ? '2' : '1';
    for (testing::Packing packing : {testing::Packing::kPlain, testing::Packing::kGzip}) {
      SCOPED_TRACE(testing::PackingName(packing));
      testing::WriteFile(path, text);
      const std::string original_path = testing::Pack(path, packing);
      const uint64_t original = FileContentHash(original_path, GraphFormat::kAuto);
      testing::WriteFile(path, edited);
      const std::string edited_path = testing::Pack(path, packing);
      EXPECT_NE(FileContentHash(edited_path, GraphFormat::kAuto), original);
      auto reader = GraphReader::Open(edited_path);
      ReadToTheEnd(*reader);
      EXPECT_EQ(reader->content_hash(), FileContentHash(edited_path, GraphFormat::kAuto));
    }
  }
  // A .csr rewritten with one target changed far into the file: same size, other hash.
  PreparedGraph g = Prepare(Input::kCsrWeighted, dir, 200000);
  Csr csr = CsrFile::Open(g.path).Load();
  const uint64_t before = FileContentHash(g.path, GraphFormat::kAuto);
  const uint64_t size = std::filesystem::file_size(g.path);
  csr.targets[csr.targets.size() - 10] ^= 1;
  WriteCsrFile(csr, g.path);
  ASSERT_EQ(std::filesystem::file_size(g.path), size);
  EXPECT_NE(FileContentHash(g.path, GraphFormat::kAuto), before);
  EXPECT_EQ(GraphReader::Open(g.path)->content_hash(),
            std::optional<uint64_t>(FileContentHash(g.path, GraphFormat::kAuto)));
}

}  // namespace
}  // namespace needle
