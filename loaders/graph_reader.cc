#include "loaders/graph_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/huge_array.h"
#include "base/unique_fd.h"
#include "loaders/csr_file.h"
#include "loaders/webgraph_input.h"
#include "loaders/webgraph_reader.h"

namespace needle {

// The library-owned buffers of async reads: `slots` blocks of block_edges edges each.
class BlockPool {
 public:
  BlockPool(int slots, uint64_t block_edges, bool weighted) : slots_(static_cast<size_t>(slots)) {
    for (int i = 0; i < slots; ++i) {
      Slot& s = slots_[static_cast<size_t>(i)];
      s.sources.Resize(block_edges);
      s.targets.Resize(block_edges);
      if (weighted) s.weights.Resize(block_edges);
      free_.push_back(i);
    }
  }
  // Blocks until a slot is free; returns -1 once Cancel() was called.
  int Acquire() {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return cancelled_ || !free_.empty(); });
    if (cancelled_) return -1;
    int slot = free_.back();
    free_.pop_back();
    return slot;
  }
  void Release(int slot) {
    {
      std::lock_guard lock(mutex_);
      free_.push_back(slot);
    }
    freed_.notify_all();
  }
  void Cancel() {
    {
      std::lock_guard lock(mutex_);
      cancelled_ = true;
    }
    freed_.notify_all();
  }
  EdgeBuffers Buffers(int slot) {
    Slot& s = slots_[static_cast<size_t>(slot)];
    return EdgeBuffers{s.sources.span(), s.targets.span(), s.weights.span()};
  }

 private:
  struct Slot {
    HugeArray<VertexId> sources;
    HugeArray<VertexId> targets;
    HugeArray<Weight> weights;
  };
  std::vector<Slot> slots_;
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<int> free_;
  bool cancelled_ = false;
};

BlockLease::BlockLease(std::shared_ptr<BlockPool> pool, int slot, EdgeBlock block)
    : pool_(std::move(pool)), slot_(slot), block_(block) {}

BlockLease::BlockLease(BlockLease&& other) noexcept
    : pool_(std::move(other.pool_)), slot_(std::exchange(other.slot_, -1)), block_(other.block_) {}

BlockLease& BlockLease::operator=(BlockLease&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = std::move(other.pool_);
    slot_ = std::exchange(other.slot_, -1);
    block_ = other.block_;
  }
  return *this;
}

void BlockLease::Release() {
  if (pool_ != nullptr && slot_ >= 0) pool_->Release(slot_);
  pool_.reset();
  slot_ = -1;
  block_ = EdgeBlock{};
}

// The reader thread and its queue of async reads.
struct GraphReader::Async {
  struct Job {
    uint64_t first;
    uint64_t last;
    std::function<void(BlockLease)> on_block;
  };
  std::shared_ptr<BlockPool> pool;
  std::thread thread;
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Job> queue;
  bool busy = false;
  bool stop = false;
  std::exception_ptr error;
};

namespace {

// A .csr file: every range is a pread of exactly its bytes (plus checksum chunks). CsrFile's
// range reads check the values they return (offsets non-decreasing and within [0, m] inside
// the range, targets below n, weights finite); this reader adds the pairs of offsets that
// straddle two cached chunks, so every offset it walks has been checked against its
// neighbours before a source id is derived from it.
class CsrGraphReader final : public GraphReader {
 public:
  // weighted: the file's weights are read (KeepsCsrWeights).
  CsrGraphReader(const std::string& path, CsrFile file, bool weighted)
      : GraphReader(path, GraphFormat::kCsr, weighted), file_(std::move(file)) {
    // offsets[0] == 0 and offsets[n] == m (ReadOffsets checks the ends a range holds).
    EdgeIndex end = 0;
    file_.ReadOffsets(0, {&end, 1});
    file_.ReadOffsets(file_.num_vertices(), {&end, 1});
    set_content_hash(file_.header_hash());
  }
  ~CsrGraphReader() override { Close(); }  // before the members the reader thread uses go

  std::optional<uint64_t> num_vertices() const override { return file_.num_vertices(); }
  std::optional<uint64_t> num_edges() const override { return file_.num_edges(); }
  void ReadVertexOffsets(uint64_t first, std::span<EdgeIndex> out) override {
    file_.ReadOffsets(first, out, /*check_next=*/true);  // CsrFile is safe to share: pread only
  }

 protected:
  uint64_t Fill(uint64_t first, uint64_t count, const EdgeBuffers& out) override {
    const uint64_t m = file_.num_edges();
    if (first >= m) return 0;
    count = std::min(count, m - first);
    file_.ReadTargets(first, out.targets.first(count));
    if (weighted()) file_.ReadWeights(first, out.weights.first(count));
    // Sources: the vertex owning edge `first`, then walk the offsets forward. The offsets are
    // checked non-decreasing from offsets[0] = 0 to offsets[n] = m, so u stays below n.
    uint64_t u = FindOwner(first);
    uint64_t next = Offset(u + 1);  // first edge past u's out-list
    for (uint64_t i = 0; i < count; ++i) {
      while (next <= first + i) next = Offset(++u + 1);
      out.sources[i] = static_cast<VertexId>(u);
    }
    return count;
  }

 private:
  uint64_t VerticesPerChunk() const { return kCsrChunkBytes / sizeof(EdgeIndex); }

  // Loads the k-th block of VerticesPerChunk() offsets into the cache. ReadOffsets checks the
  // block itself; the pair into the next block is checked against the sample (which holds
  // the next block's first offset) once the sample is complete, and while it is being built
  // against the block before (BuildSample).
  void LoadBlock(uint64_t k) {
    const uint64_t per = VerticesPerChunk();
    cache_first_ = k * per;
    cache_.resize(std::min(per, file_.num_vertices() + 1 - cache_first_));
    file_.ReadOffsets(cache_first_, cache_);
    if (k + 1 < sample_.size()) {
      const EdgeIndex pair[2] = {cache_.back(), sample_[k + 1]};
      file_.CheckOffsets(cache_first_ + cache_.size() - 1, pair);
    }
  }

  // offsets[v], through a one-block cache of the offsets section.
  uint64_t Offset(uint64_t v) {
    if (v < cache_first_ || v >= cache_first_ + cache_.size()) {
      if (v > file_.num_vertices()) {  // cannot happen with checked offsets; never read past
        throw Error(path(), "internal error: vertex " + std::to_string(v) + " beyond the graph");
      }
      LoadBlock(v / VerticesPerChunk());
    }
    return cache_[v - cache_first_];
  }

  // The first offset of every block, read once in order: every pair of offsets that
  // straddles two blocks is checked on the way.
  void BuildSample() {
    const uint64_t per = VerticesPerChunk();
    const uint64_t blocks = file_.num_vertices() / per + 1;
    sample_.reserve(blocks);
    EdgeIndex previous_last = 0;
    for (uint64_t k = 0; k < blocks; ++k) {
      LoadBlock(k);
      if (k > 0) {
        const EdgeIndex pair[2] = {previous_last, cache_[0]};
        file_.CheckOffsets(k * per - 1, pair);
      }
      sample_.push_back(cache_[0]);
      previous_last = cache_.back();
    }
  }

  // The vertex u with offsets[u] <= e < offsets[u + 1].
  uint64_t FindOwner(uint64_t e) {
    const uint64_t per = VerticesPerChunk();
    if (sample_.empty()) BuildSample();
    const uint64_t k = std::upper_bound(sample_.begin(), sample_.end(), e) - sample_.begin() - 1;
    uint64_t lo = k * per;
    uint64_t hi = std::min((k + 1) * per, file_.num_vertices() + 1);  // answer in [lo, hi)
    while (hi - lo > 1) {
      uint64_t mid = lo + (hi - lo) / 2;
      if (Offset(mid) <= e)
        lo = mid;
      else
        hi = mid;
    }
    return lo;
  }

  CsrFile file_;
  std::vector<EdgeIndex> sample_;
  std::vector<EdgeIndex> cache_;
  uint64_t cache_first_ = 0;
};

// A text file: a forward stream with one parsed chunk held at a time.
class TextGraphReader final : public GraphReader {
 public:
  TextGraphReader(const std::string& path, const ReadOptions& options,
                  std::unique_ptr<TextStream> stream)
      : GraphReader(path, stream->layout().format, stream->layout().weighted),
        options_(options),
        stream_(std::move(stream)) {
    if (auto n = stream_->declared_vertices()) num_vertices_ = *n;
    if (stream_->layout().has_declared_counts && !stream_->layout().symmetric) {
      num_edges_ = stream_->layout().declared_entries;
    }
  }
  ~TextGraphReader() override { Close(); }  // before the members the reader thread uses go

  std::optional<uint64_t> num_vertices() const override { return num_vertices_; }
  std::optional<uint64_t> num_edges() const override { return num_edges_; }
  double fraction_read() const override {
    if (file_bytes_ == 0) {
      struct stat st {};
      if (stat(path().c_str(), &st) != 0 || st.st_size <= 0) return 0;
      file_bytes_ = static_cast<uint64_t>(st.st_size);
    }
    return std::min(1.0, static_cast<double>(stream_->file_bytes_read()) /
                             static_cast<double>(file_bytes_));
  }

 protected:
  uint64_t Fill(uint64_t first, uint64_t count, const EdgeBuffers& out) override {
    if (first < chunk_first_) Restart();
    uint64_t written = 0;
    while (written < count) {
      const uint64_t pos = first + written;
      if (pos < chunk_first_ + chunk_size_) {
        written += CopyFromChunk(pos - chunk_first_, count - written, out, written);
        continue;
      }
      if (ended_) break;
      chunk_first_ += chunk_size_;
      chunk_size_ = 0;
      ClearEdges(chunk_);
      if (!stream_->Next(chunk_)) {
        ended_ = true;
        num_vertices_ = stream_->num_vertices();
        num_edges_ = chunk_first_;
        set_content_hash(stream_->content_hash());  // the stream has read the whole file
        break;
      }
      chunk_size_ = chunk_.NumEdges();
    }
    return written;
  }

 private:
  void Restart() {
    stream_ = std::make_unique<TextStream>(path(), options_);
    ClearEdges(chunk_);
    chunk_first_ = chunk_size_ = 0;
    ended_ = false;
  }

  // Copies up to `count` edges from chunk position `at` to out[offset...]; returns how many.
  uint64_t CopyFromChunk(uint64_t at, uint64_t count, const EdgeBuffers& out, uint64_t offset) {
    uint64_t copied = 0;
    uint64_t seg_start = 0;
    for (const EdgeSegment& s : chunk_.segments) {
      if (copied == count) break;
      if (at >= seg_start + s.count) {
        seg_start += s.count;
        continue;
      }
      const uint64_t from = at - seg_start;
      const uint64_t n = std::min(s.count - from, count - copied);
      std::span<const Edge> edges = chunk_.Edges(s).subspan(from, n);
      for (uint64_t i = 0; i < n; ++i) {
        out.sources[offset + copied + i] = edges[i].source;
        out.targets[offset + copied + i] = edges[i].target;
      }
      if (weighted()) {
        std::copy_n(chunk_.Weights(s).data() + from, n, out.weights.data() + offset + copied);
      }
      copied += n;
      at += n;
      seg_start += s.count;
    }
    return copied;
  }

  ReadOptions options_;
  std::unique_ptr<TextStream> stream_;
  EdgeList chunk_;
  uint64_t chunk_first_ = 0;  // graph position of the chunk's first edge
  uint64_t chunk_size_ = 0;
  bool ended_ = false;
  std::optional<uint64_t> num_vertices_;
  std::optional<uint64_t> num_edges_;
  mutable uint64_t file_bytes_ = 0;  // the file's size, once fraction_read() asked
};

}  // namespace

std::unique_ptr<GraphReader> GraphReader::Open(const std::string& path,
                                               const GraphReaderOptions& options) {
  if (options.block_edges == 0 || options.buffers <= 0) {
    throw Error(path, "block reader needs block_edges > 0 and buffers > 0");
  }
  std::unique_ptr<GraphReader> reader;
  if (IsWebGraphInput(path, options.read.format)) {  // first: X itself need not exist
    reader = OpenWebGraphReader(path, options);
  } else if (IsCsrInput(path, options.read.format)) {
    CsrFile file = CsrFile::Open(path);
    const bool weighted = KeepsCsrWeights(path, file.weighted(), options.read.weights);
    reader = std::make_unique<CsrGraphReader>(path, std::move(file), weighted);
  } else {
    reader = std::make_unique<TextGraphReader>(path, options.read,
                                               std::make_unique<TextStream>(path, options.read));
  }
  reader->options_ = options;
  return reader;
}

GraphReader::GraphReader(std::string path, GraphFormat format, bool weighted)
    : path_(std::move(path)), format_(format), weighted_(weighted) {}

GraphReader::~GraphReader() { Close(); }

std::optional<uint64_t> GraphReader::content_hash() const {
  if (!has_content_hash_.load(std::memory_order_acquire)) return std::nullopt;
  return content_hash_.load(std::memory_order_relaxed);
}

void GraphReader::set_content_hash(uint64_t hash) {
  content_hash_.store(hash, std::memory_order_relaxed);
  has_content_hash_.store(true, std::memory_order_release);
}

EdgeBlock GraphReader::ReadEdges(uint64_t first, const EdgeBuffers& out) {
  const uint64_t capacity = out.targets.size();
  if (out.sources.size() < capacity || (weighted_ && out.weights.size() < capacity)) {
    throw Error(path_, "ReadEdges: sources (and weights) buffers must be as large as targets");
  }
  std::lock_guard lock(fill_mutex_);
  const uint64_t n = Fill(first, capacity, out);
  return EdgeBlock{
      first, out.sources.first(n), out.targets.first(n),
      weighted_ ? std::span<const Weight>(out.weights.first(n)) : std::span<const Weight>()};
}

void GraphReader::ReadVertexOffsets(uint64_t, std::span<EdgeIndex>) {
  throw Error(path_, "vertex ranges need a .csr file (convert it with 'needle convert')");
}

void GraphReader::ReadEdgesAsync(uint64_t first, uint64_t last,
                                 std::function<void(BlockLease)> on_block) {
  if (async_ == nullptr) {
    async_ = std::make_unique<Async>();
    async_->pool = std::make_shared<BlockPool>(options_.buffers, options_.block_edges, weighted_);
    async_->thread = std::thread([this] { RunAsync(); });
  }
  {
    std::lock_guard lock(async_->mutex);
    async_->queue.push_back(Async::Job{first, last, std::move(on_block)});
  }
  async_->changed.notify_all();
}

void GraphReader::RunAsync() {
  Async& a = *async_;
  for (;;) {
    Async::Job job;
    {
      std::unique_lock lock(a.mutex);
      a.changed.wait(lock, [&] { return a.stop || !a.queue.empty(); });
      if (a.stop) break;
      job = std::move(a.queue.front());
      a.queue.pop_front();
      a.busy = true;
    }
    try {
      for (uint64_t pos = job.first; pos < job.last;) {
        const int slot = a.pool->Acquire();
        if (slot < 0) break;  // cancelled by Close()
        const uint64_t want = std::min(options_.block_edges, job.last - pos);
        EdgeBuffers buffers = a.pool->Buffers(slot);
        buffers.sources = buffers.sources.first(want);
        buffers.targets = buffers.targets.first(want);
        if (weighted_) buffers.weights = buffers.weights.first(want);
        EdgeBlock block = ReadEdges(pos, buffers);
        if (block.size() == 0) {
          a.pool->Release(slot);
          break;
        }
        pos += block.size();
        job.on_block(BlockLease(a.pool, slot, block));
        if (block.size() < want) break;  // the end of the graph
      }
    } catch (...) {
      std::lock_guard lock(a.mutex);
      if (!a.error) a.error = std::current_exception();
      a.queue.clear();
    }
    {
      std::lock_guard lock(a.mutex);
      a.busy = false;
    }
    a.changed.notify_all();
  }
}

void GraphReader::Wait() {
  if (async_ == nullptr) return;
  std::unique_lock lock(async_->mutex);
  async_->changed.wait(lock, [&] { return async_->queue.empty() && !async_->busy; });
  if (async_->error) std::rethrow_exception(std::exchange(async_->error, nullptr));
}

void GraphReader::Close() {
  if (async_ == nullptr) return;
  {
    std::lock_guard lock(async_->mutex);
    async_->stop = true;
    async_->queue.clear();
  }
  async_->pool->Cancel();  // wakes a reader waiting for a buffer the caller still holds
  async_->changed.notify_all();
  if (async_->thread.joinable()) async_->thread.join();
  async_.reset();
}

}  // namespace needle
