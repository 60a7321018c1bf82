#include "shards/sharder.h"

#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/cleanup.h"
#include "base/error.h"
#include "base/heap_policy.h"
#include "base/huge_array.h"
#include "base/parallel.h"
#include "base/unique_fd.h"
#include "loaders/graph_reader.h"
#include "shards/bucket_log.h"
#include "shards/edge_record.h"
#include "shards/edge_sort.h"
#include "shards/hashing_writer.h"
#include "shards/run_codec.h"
#include "shards/set_lock.h"
#include "shards/shard_layout.h"
#include "shards/shard_set.h"
#include "shards/staging_dir.h"

namespace needle {
namespace {

namespace fs = std::filesystem;

// Fine units of ids for planning: at most kUnits, each 2^unit_shift ids; a bucket of the
// bucket file is kUnitsPerBucket units.
constexpr uint64_t kUnits = uint64_t{1} << 16;
// The sharder's own buffers (text chunks, blocks, staging) are sized from --memory less this:
// room for what the process holds besides them (its fixed bytes, the planner's tables); below
// it they are at their minimums (cnr-2000 at --memory 30M peaks at 24 MB: bench/RESULTS.md).
constexpr uint64_t kSharderReserveBytes = uint64_t{64} << 20;
constexpr int kUnitsPerBucketLog2 = 4;
static_assert(kUnits == uint64_t{BucketLog::kBuckets} << kUnitsPerBucketLog2);

// A temporary file appended through a 1 MiB buffer and read back by offset (through the page
// cache: the packed runs of every window, about 2 bytes a run, read back at once in another
// order; the degrees, 4 bytes a vertex, read back once in order).
class ScratchLog {
 public:
  void Create(std::string path) {
    path_ = std::move(path);
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) ThrowSystemError(path_, "cannot create");
    fd_ = UniqueFd(fd);
    buffer_.resize(1 << 20);
  }
  uint64_t size() const { return written_ + buffered_; }
  void Append(uint32_t previous, const SourceRun& run) {
    if (buffered_ + kMaxRunBytes > buffer_.size()) Flush();
    buffered_ =
        static_cast<size_t>(PutRun(previous, run, buffer_.data() + buffered_) - buffer_.data());
  }
  void Append(const void* data, size_t bytes) {
    if (bytes == 0) return;  // an empty interval's degrees (data may be null)
    if (buffered_ + bytes > buffer_.size()) Flush();
    if (bytes >= buffer_.size()) {  // no smaller for the buffer: straight to the file
      WriteFully(fd_.get(), path_, data, bytes, written_);
      written_ += bytes;
      return;
    }
    std::memcpy(buffer_.data() + buffered_, data, bytes);
    buffered_ += bytes;
  }
  void Flush() {
    WriteFully(fd_.get(), path_, buffer_.data(), buffered_, written_);
    written_ += buffered_;
    buffered_ = 0;
  }
  void Read(uint64_t at, uint8_t* out, size_t bytes) const {
    ReadFully(fd_.get(), path_, out, bytes, at);
  }
  // Flushes, then calls f(bytes, size) for the whole file in pieces of the buffer's size.
  void ForEach(const std::function<void(const uint8_t*, size_t)>& f) {
    Flush();
    for (uint64_t at = 0; at < written_; at += buffer_.size()) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(buffer_.size(), written_ - at));
      Read(at, buffer_.data(), n);
      f(buffer_.data(), n);
    }
  }
  void Remove() {
    fd_.Reset();
    unlink(path_.c_str());
    std::vector<uint8_t>().swap(buffer_);
  }

 private:
  static constexpr size_t kMaxRunBytes = 10;
  std::string path_;
  UniqueFd fd_;
  std::vector<uint8_t> buffer_;
  size_t buffered_ = 0;
  uint64_t written_ = 0;
};

class Sharder {
 public:
  Sharder(const std::string& input, const ShardOptions& options, const std::string& dir)
      : input_(input),
        options_(options),
        dir_(dir),
        threads_(ThreadCount(options.threads)),
        plan_memory_(options.memory_bytes) {}

  ShardReport Run(InputFingerprint fingerprint) {
    const auto start = std::chrono::steady_clock::now();
    StagingDir staging(dir_);
    tmp_ = staging.path();
    std::string note;
    io_ = IoBackend::Create(options_.io, &note);
    if (!note.empty()) Log(note);
    std::unique_ptr<GraphReader> reader = GraphReader::Open(input_, ReaderOptions());
    if (reader->weighted()) {
      Build<WeightedRecord>(*reader);
    } else {
      Build<PlainRecord>(*reader);
    }
    // The content hash came with the single read; the input must not have changed during it.
    const std::optional<uint64_t> content = reader->content_hash();
    if (!content) throw Error(input_, "was not read to its end (no content hash)");
    fingerprint.content_hash = *content;
    if (!InputFingerprint::Stat(input_).SameStat(fingerprint)) {
      throw Error(input_, "changed while it was being sharded; shard it again");
    }
    Manifest& m = report_.manifest;
    m.input = std::move(fingerprint);
    m.choices = Choices(options_);
    m.choices.memory_bytes = plan_memory_;  // less the room for dynamic shards, if kept
    m.num_vertices = num_vertices_;
    m.num_edges = num_edges_;
    m.weighted = reader->weighted();
    m.bounds = report_.plan.bounds;
    synced_.Sync();  // every file the manifest names is on disk before it
    WriteManifest(m, tmp_);
    staging.Commit();
    // Opened while the staging directory's lock, now on DIR, keeps other sharders out.
    if (options_.keep_open) report_.set.emplace(ShardSet::Open(dir_, /*verify_digests=*/false));
    report_.dir = dir_;
    report_.io_backend = std::string(io_->name());
    report_.io_counters = io_->counters();
    report_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(report_);
  }

  static ShardingChoices Choices(const ShardOptions& o) {
    return ShardingChoices{o.memory_bytes, o.format_name, o.weights_name, o.symmetrize,
                           o.costs,        o.intervals,   o.order};
  }

 private:
  template <class Record>
  void Build(GraphReader& reader) {
    auto lap = std::chrono::steady_clock::now();
    auto phase_done = [&](double* seconds) {
      const auto now = std::chrono::steady_clock::now();
      *seconds = std::chrono::duration<double>(now - lap).count();
      lap = now;
    };
    // A budget that cannot work is refused before the input is read: one that cannot hold
    // the engine's fixed bytes, or — where the header gives the vertex count (.csr, Matrix
    // Market, DIMACS) — the degree arrays planning may need.
    CheckFixedBytes(options_.memory_bytes);
    if (const std::optional<uint64_t> n = reader.num_vertices()) {
      num_vertices_ = *n;
      PlanFloor();
    }
    if (options_.order == kBreadthFirstOrder) Order();
    // Reads of the bucket file go through two staging buffers of 1/64 of the budget each.
    BucketLog log(*io_, tmp_ + "/buckets.bin", sizeof(Record),
                  BlockEdges(reader.weighted()) * (options_.symmetrize ? 2 : 1),
                  std::clamp<uint64_t>(Usable() / 64, 16 << 10, 4 << 20));
    ReadAndBucket<Record>(reader, log);
    std::vector<VertexId>().swap(set_id_);
    phase_done(&report_.read_seconds);
    // With room for dynamic shards, plan for --memory less what they add for the largest
    // interval of the plan: first guessed as an eighth of the vertices, then, if the plan's
    // largest is bigger, planned again for it (fewer vertices per interval only lower it).
    uint64_t reserve = 0;
    auto keep_room = [&](uint64_t largest) {
      reserve = DynamicShardBytes(num_vertices_, largest, options_.dynamic_message_bytes);
      const uint64_t least = reserve + EngineFixedBytes(1) + 8 * num_vertices_ + 1;
      if (options_.memory_bytes < least) {
        throw std::invalid_argument(
            "--memory " + FormatMiB(options_.memory_bytes) + " cannot hold the " +
            FormatMiB(reserve) + " dynamic shards need for " + std::to_string(num_vertices_) +
            " vertices besides the intervals: give --memory " + FormatMiB(least) +
            " or more, or run without room for dynamic shards (--mode static, no "
            "--room-for-dynamic)");
      }
      plan_memory_ = options_.memory_bytes - reserve;
    };
    if (options_.dynamic_message_bytes > 0) keep_room(num_vertices_ / 8);
    PlanFromUnits<Record>(log);
    if (options_.dynamic_message_bytes > 0) {
      uint64_t largest = 0;
      const auto& bounds = report_.plan.bounds;
      for (size_t p = 0; p + 1 < bounds.size(); ++p) {
        largest = std::max<uint64_t>(largest, bounds[p + 1] - bounds[p]);
      }
      if (largest > num_vertices_ / 8) {
        keep_room(largest);
        PlanFromUnits<Record>(log);
      }
      if (options_.detail) {
        options_.detail("intervals planned for --memory " + FormatMiB(plan_memory_) + " (" +
                        FormatMiB(reserve) + " kept for dynamic shards' flags and buffers)");
      }
    }
    if (options_.detail) options_.detail(report_.plan.rule);
    if (options_.symmetrize) {
      Log("symmetrized: " + std::to_string(input_edges_) + " input edges -> " +
          std::to_string(num_edges_) + " edges (each u->v also as v->u, a self-loop once)");
    }
    WriteShards<Record>(log);
    WriteDegrees();
    phase_done(&report_.write_seconds);
  }

  void Log(const std::string& line) const {
    if (options_.log) options_.log(line);
  }
  // Numbers the vertices breadth-first (vertex_order.h) from a read of its own.
  void Order() {
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<GraphReader> reader = GraphReader::Open(input_, ReaderOptions());
    VertexOrder order = BreadthFirst(*reader, options_.memory_bytes);
    num_vertices_ = std::max<uint64_t>(num_vertices_, order.input_id.size());
    WriteOrder(order.input_id);
    set_id_ = std::move(order.set_id);
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f s",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    Log("ordered " + std::to_string(order.input_id.size()) + " vertices breadth-first in " +
        seconds);
  }
  // order.bin: the input id of every vertex of the set, uint32 in set order.
  void WriteOrder(const std::vector<VertexId>& input_id) {
    HashingWriter w(*io_, tmp_ + "/" + kOrderName, FileKind::kOther, &write_buffers_);
    w.Write(input_id.data(), input_id.size() * sizeof(VertexId));
    const uint64_t size = ShardAlignUp(w.position());
    AddFile(kOrderName, size, w.Finish(&synced_));
  }
  void Progress(int phase, uint64_t done, uint64_t total) const {
    if (options_.progress) options_.progress(phase, done, total);
  }
  // What the sharder's own buffers are sized from: --memory less kSharderReserveBytes.
  uint64_t Usable() const {
    return options_.memory_bytes > kSharderReserveBytes
               ? options_.memory_bytes - kSharderReserveBytes
               : 0;
  }
  // Planning holds the degree arrays (8 B a vertex) besides the process's reserve. (With
  // --order bfs, pass 1 holds the map to the set's ids, 4 B a vertex, freed before planning.)
  uint64_t PlanFloor() const {
    const uint64_t floor = kReservedBytes + 8 * num_vertices_;
    if (options_.memory_bytes <= floor) {
      throw std::invalid_argument("--memory " + FormatMiB(options_.memory_bytes) +
                                  " cannot hold the degree arrays of " +
                                  std::to_string(num_vertices_) + " vertices (" +
                                  FormatMiB(8 * num_vertices_) + ") plus the " +
                                  FormatMiB(kReservedBytes) + " reserve: give more than " +
                                  FormatMiB(floor));
    }
    return floor;
  }
  PlanContext Context(bool weighted) const {
    PlanContext context{weighted, PlanFloor() + 1, options_.intervals};
    if (options_.dynamic_message_bytes > 0) {  // plan_memory_ is --memory less the room kept
      context.kept_now = options_.memory_bytes - plan_memory_;
      context.kept_most =
          DynamicShardBytes(num_vertices_, num_vertices_, options_.dynamic_message_bytes);
    }
    return context;
  }

  GraphReaderOptions ReaderOptions() const {
    GraphReaderOptions o;
    o.read = options_.read;
    // The text reader holds a chunk of text and its parsed edges: keep it to 1/8 of the budget.
    o.read.chunk_bytes = std::clamp<uint64_t>(Usable() / 16, 1 << 20, 64 << 20);
    return o;
  }
  // Input edges per block. Pass 1 holds a block as read (8 or 12 B per edge) and two blocks of
  // records (one being grouped, one being written), within a quarter of the budget;
  // symmetrized, a block's records are up to twice its edges.
  uint64_t BlockEdges(bool weighted) const {
    const uint64_t record = weighted ? sizeof(WeightedRecord) : sizeof(PlainRecord);
    const uint64_t per_edge = (weighted ? 12 : 8) + 2 * record * (options_.symmetrize ? 2 : 1);
    return std::clamp<uint64_t>(Usable() / 4 / per_edge, 1 << 16, 8 << 20);
  }

  // Makes the units (and buckets) cover ids [0, ids): coarser units when they do not, their
  // counts summed into the coarser ones.
  void FitIds(uint64_t ids) {
    if (ids == 0) return;
    int shift = unit_shift_;
    while (((ids - 1) >> shift) >= kUnits) ++shift;
    const int by = shift - unit_shift_;
    if (by > 0) {
      for (uint64_t k = 0; k < kUnits; ++k) {  // k << by >= k: nothing read is overwritten
        uint64_t out = 0, in = 0;
        for (uint64_t j = k << by; j < std::min(kUnits, (k + 1) << by); ++j) {
          out += unit_out_[j];
          in += unit_in_[j];
        }
        unit_out_[k] = out;
        unit_in_[k] = in;
      }
    }
    unit_shift_ = shift;
  }
  int bucket_shift() const { return unit_shift_ + kUnitsPerBucketLog2; }

  // Pass 1: the input, read once, block by block: every edge (and, symmetrizing, its reverse)
  // goes to the bucket file grouped by target, and its ends are counted in the units.
  template <class Record>
  void ReadAndBucket(GraphReader& reader, BucketLog& log) {
    const bool weighted = reader.weighted();
    const uint64_t block = BlockEdges(weighted);
    HugeArray<VertexId> sources(block), targets(block);
    HugeArray<Weight> weights(weighted ? block : 0);
    const EdgeBuffers buffers{sources.span(), targets.span(), weights.span()};
    unit_out_.assign(kUnits, 0);
    unit_in_.assign(kUnits, 0);
    thread_units_.assign(static_cast<size_t>(threads_) * 2 * kUnits, 0);
    bucket_counts_.resize(static_cast<size_t>(threads_) * BucketLog::kBuckets);
    if (auto n = reader.num_vertices()) FitIds(*n);
    uint64_t position = 0;
    uint64_t ids = 0;       // 1 + the largest id seen
    uint64_t reversed = 0;  // edges that are not self-loops: each gains a reverse when symmetrized
    for (;;) {
      EdgeBlock b = reader.ReadEdges(position, buffers);
      const uint64_t count = b.size();
      if (count == 0) break;
      if (!set_id_.empty()) b = Renumber(b, buffers);
      VertexId top = 0;
      uint64_t non_loops = 0;
#pragma omp parallel for num_threads(threads_) reduction(max : top) reduction(+ : non_loops)
      for (uint64_t i = 0; i < count; ++i) {
        top = std::max({top, b.sources[i], b.targets[i]});
        non_loops += b.sources[i] != b.targets[i];
      }
      reversed += non_loops;
      ids = std::max(ids, top + uint64_t{1});
      FitIds(ids);
      auto* out = reinterpret_cast<Record*>(log.NextBuffer());
      log.Append(bucket_shift(), GroupBlock(b, out));
      position += count;
      // Until the reader knows the count, the edges so far scaled by the share of the file
      // read: an estimate, good enough for a percentage and an ETA.
      uint64_t total = reader.num_edges().value_or(0);
      if (const double read = reader.fraction_read(); total == 0 && read > 0.001) {
        total = std::max(position, static_cast<uint64_t>(static_cast<double>(position) / read));
      }
      Progress(1, position, total);
    }
    log.Finish();
    input_edges_ = position;
    num_edges_ = position + (options_.symmetrize ? reversed : 0);
    num_vertices_ = std::max({num_vertices_, ids, reader.num_vertices().value_or(0)});
    FitIds(num_vertices_);
    reader.Close();
  }

  // Block b in the set's ids, in `buffers` (where b may already be).
  EdgeBlock Renumber(const EdgeBlock& b, const EdgeBuffers& buffers) const {
    const VertexId* set_id = set_id_.data();
    const uint64_t ids = set_id_.size();
    const uint64_t count = b.size();
    bool outside = false;
#pragma omp parallel for num_threads(threads_) reduction(|| : outside)
    for (uint64_t i = 0; i < count; ++i) {
      const VertexId u = b.sources[i], v = b.targets[i];
      outside = outside || u >= ids || v >= ids;
      buffers.sources[i] = u < ids ? set_id[u] : u;
      buffers.targets[i] = v < ids ? set_id[v] : v;
    }
    if (outside) throw Error(input_, "changed while it was being sharded; shard it again");
    return EdgeBlock{b.first_edge, buffers.sources.first(count), buffers.targets.first(count),
                     b.weights};
  }

  // Groups block b's records (and their reverses) by bucket into out; returns the bucket
  // starts. Each thread counts its slice of the block into its own bucket and unit counters;
  // the groups hold the records in input order whatever the thread count.
  template <class Record>
  std::vector<uint64_t> GroupBlock(const EdgeBlock& b, Record* out) {
    constexpr uint64_t kBuckets = BucketLog::kBuckets;
    const uint64_t count = b.size();
    const int bs = bucket_shift();
    const int us = unit_shift_;
    const bool symmetrize = options_.symmetrize;
    const bool weighted = !b.weights.empty();
    std::vector<uint64_t> starts(kBuckets + 1);
#pragma omp parallel num_threads(threads_)
    {
      const int t = omp_get_thread_num();
      const int nt = omp_get_num_threads();
      const uint64_t lo = count * t / nt, hi = count * (t + 1) / nt;
      uint64_t* c = bucket_counts_.data() + static_cast<size_t>(t) * kBuckets;
      std::fill(c, c + kBuckets, 0);
      uint32_t* uo = thread_units_.data() + static_cast<size_t>(t) * 2 * kUnits;
      uint32_t* ui = uo + kUnits;
      for (uint64_t i = lo; i < hi; ++i) {
        const VertexId u = b.sources[i], v = b.targets[i];
        ++c[v >> bs];
        ++uo[u >> us];
        ++ui[v >> us];
        if (symmetrize && u != v) {
          ++c[u >> bs];
          ++uo[v >> us];
          ++ui[u >> us];
        }
      }
#pragma omp barrier
#pragma omp single
      PrefixSlots(bucket_counts_.data(), kBuckets, nt, starts.data());
      // Every thread has counted: each sums a share of the units over all threads.
      for (uint64_t k = kUnits * t / nt; k < kUnits * (t + 1) / nt; ++k) {
        for (int w = 0; w < nt; ++w) {
          uint32_t* other = thread_units_.data() + static_cast<size_t>(w) * 2 * kUnits;
          unit_out_[k] += other[k];
          unit_in_[k] += other[kUnits + k];
          other[k] = other[kUnits + k] = 0;
        }
      }
      for (uint64_t i = lo; i < hi; ++i) {
        const VertexId u = b.sources[i], v = b.targets[i];
        const Weight w = weighted ? b.weights[i] : Weight{1};
        out[c[v >> bs]++] = Record::Make(u, v, w);
        if (symmetrize && u != v) out[c[u >> bs]++] = Record::Make(v, u, w);
      }
    }
    return starts;
  }

  // The interval plan, from the units' degree sums; per vertex (exact degrees counted from
  // the bucket file) when a unit of several ids alone is over the budget.
  template <class Record>
  void PlanFromUnits(BucketLog& log) {
    const PlanContext context = Context(std::is_same_v<Record, WeightedRecord>);
    std::optional<IntervalPlan> plan = PlanIntervalsByUnits(unit_out_, unit_in_, unit_shift_,
                                                            num_vertices_, plan_memory_,
                                                            options_.costs, context);
    const bool exact = !plan.has_value();
    if (exact) {
      Log("a block of " + std::to_string(uint64_t{1} << unit_shift_) +
          " ids does not fit the budget: counting exact degrees to plan per vertex");
      out_degree_.Resize(num_vertices_);
      in_degree_.Resize(num_vertices_);
      std::fill(out_degree_.begin(), out_degree_.end(), 0u);
      std::fill(in_degree_.begin(), in_degree_.end(), 0u);
      log.ForEach([this](const std::byte* bytes, uint64_t n) {
        const auto* records = reinterpret_cast<const Record*>(bytes);
        for (uint64_t i = 0; i < n; ++i) {
          ++out_degree_[records[i].source];
          ++in_degree_[records[i].target];
        }
      });
      plan = PlanIntervals(out_degree_.span(), in_degree_.span(), plan_memory_, options_.costs,
                           context);
    }
    report_.plan = std::move(*plan);
    if (report_.plan.num_intervals() > kMaxIntervals) {
      throw std::invalid_argument("--memory " + FormatMiB(plan_memory_) +
                                  " would cut this graph into " +
                                  std::to_string(report_.plan.num_intervals()) +
                                  " intervals, more than a shard set may "
                                  "have (" +
                                  std::to_string(kMaxIntervals) + "); raise --memory");
    }
    const auto& bounds = report_.plan.bounds;
    interval_edges_.assign(report_.plan.num_intervals(), 0);
    for (uint32_t p = 0; p < report_.plan.num_intervals(); ++p) {
      if (bounds[p] == bounds[p + 1]) continue;
      if (exact) {
        for (uint64_t v = bounds[p]; v < bounds[p + 1]; ++v) interval_edges_[p] += in_degree_[v];
      } else {  // cuts fall on unit boundaries
        for (uint64_t k = bounds[p] >> unit_shift_; k <= (bounds[p + 1] - 1) >> unit_shift_; ++k)
          interval_edges_[p] += unit_in_[k];
      }
    }
    // Pass 2 counts the degrees again, interval by interval: it does not hold these.
    out_degree_ = HugeArray<uint32_t>();
    in_degree_ = HugeArray<uint32_t>();
  }

  // Pass 2: each interval's edges, gathered from the bucket file and sorted, become a shard.
  template <class Record>
  void WriteShards(BucketLog& log) {
    const uint32_t p_count = report_.plan.num_intervals();
    const auto& bounds = report_.plan.bounds;
    windows_.assign(static_cast<size_t>(p_count) * (p_count + 1), WindowEntry{});
    index_at_.assign(static_cast<size_t>(p_count) * (p_count + 1), 0);
    index_log_.Create(tmp_ + "/index.log");
    in_degree_log_.Create(tmp_ + "/in-degrees.log");
    std::vector<uint32_t> in_degrees;
    // Both arrays are reused from shard to shard: no fresh pages to fault in and zero.
    HugeArray<Record> edges, scratch;
    uint64_t done = 0;
    for (uint32_t p = 0; p < p_count; ++p) {
      const uint64_t e = interval_edges_[p];
      edges.Resize(e);
      scratch.Resize(e);
      const uint64_t got =
          log.Gather(bounds[p], bounds[p + 1], reinterpret_cast<std::byte*>(edges.data()), e);
      if (got != e) {
        throw Error(tmp_ + "/buckets.bin", "holds " + std::to_string(got) + " edges for interval " +
                                               std::to_string(p) + ", counted " +
                                               std::to_string(e));
      }
      SortInterval(edges, scratch, num_vertices_, bounds[p], bounds[p + 1], threads_);
      in_degrees.assign(bounds[p + 1] - bounds[p], 0);
      for (uint64_t i = 0; i < e; ++i) ++in_degrees[edges[i].target - bounds[p]];
      in_degree_log_.Append(in_degrees.data(), in_degrees.size() * sizeof(uint32_t));
      WriteShard(p, edges);
      done += e;
      Progress(2, done, num_edges_);
    }
    HashingWriter w(*io_, tmp_ + "/" + kWindowsName, FileKind::kWindowIndex);
    w.Write(windows_.data(), windows_.size() * sizeof(WindowEntry));
    AddFile(kWindowsName, w.position(), w.Finish(&synced_));
    WriteScatterIndexes();
  }

  // Interval p's scatter index: the packed runs of window (q, p) of every shard q, gathered
  // from the index log, behind their P + 1 offsets (shard_layout.h).
  void WriteScatterIndexes() {
    index_log_.Flush();
    out_degree_log_.Create(tmp_ + "/out-degrees.log");
    const uint32_t p_count = report_.plan.num_intervals();
    const auto& bounds = report_.plan.bounds;
    std::vector<uint64_t> offsets(p_count + 1);
    std::vector<uint8_t> packed;
    std::vector<uint32_t> out_degrees;
    for (uint32_t p = 0; p < p_count; ++p) {
      out_degrees.assign(bounds[p + 1] - bounds[p], 0);
      auto at = [&](uint32_t q, uint32_t r) {
        return index_at_[static_cast<size_t>(q) * (p_count + 1) + r];
      };
      offsets[0] = 8 * (uint64_t{p_count} + 1);
      for (uint32_t q = 0; q < p_count; ++q) offsets[q + 1] = offsets[q] + at(q, p + 1) - at(q, p);
      const std::string name = ScatterIndexName(p);
      HashingWriter w(*io_, tmp_ + "/" + name, FileKind::kScatterIndex, &write_buffers_);
      w.Write(offsets.data(), offsets.size() * sizeof(uint64_t));
      for (uint32_t q = 0; q < p_count; ++q) {
        packed.resize(at(q, p + 1) - at(q, p));
        index_log_.Read(at(q, p), packed.data(), packed.size());
        w.Write(packed.data(), packed.size());
        // p's out-degrees: the runs of its sources in window (q, p), summed over q.
        const WindowEntry& first = windows_[static_cast<size_t>(q) * (p_count + 1) + p];
        const WindowEntry& last = windows_[static_cast<size_t>(q) * (p_count + 1) + p + 1];
        const RunDecodeStatus status = DecodeRuns(
            packed.data(), packed.data() + packed.size(), last.first_run - first.first_run,
            bounds[p], bounds[p + 1], last.first_edge - first.first_edge,
            [&](uint32_t source, uint64_t count) {
              out_degrees[source - bounds[p]] += static_cast<uint32_t>(count);
            });
        if (!status.ok()) {
          throw std::logic_error("the sharder's own runs of window (" + std::to_string(q) + ", " +
                                 std::to_string(p) + ") do not decode: " + status.error);
        }
      }
      out_degree_log_.Append(out_degrees.data(), out_degrees.size() * sizeof(uint32_t));
      AddFile(name, w.position(), w.Finish(&synced_));
    }
    index_log_.Remove();
  }

  // Writes shard p from its sorted edges (its targets, and its weights when the set is
  // weighted), adds its runs to the out-degrees and appends each window's runs to the index
  // log, streamed, never held as a whole: a shard can have as many runs as edges.
  template <class Record>
  void WriteShard(uint32_t p, const HugeArray<Record>& edges) {
    const uint32_t p_count = report_.plan.num_intervals();
    uint64_t num_runs = 0;
    for (uint64_t i = 0; i < edges.size(); ++i) {
      num_runs += i == 0 || edges[i].source != edges[i - 1].source;
    }
    WindowEntry* windows = windows_.data() + static_cast<size_t>(p) * (p_count + 1);
    ShardFileHeader h{};
    std::memcpy(h.magic, kShardMagic, sizeof(kShardMagic));
    h.version = kShardFormatVersion;
    h.shard = p;
    h.num_runs = num_runs;
    h.num_edges = edges.size();
    h.first_vertex = report_.plan.bounds[p];
    h.end_vertex = report_.plan.bounds[p + 1];
    h.targets_pos = kShardAlignment;
    // The windows: the first run (and edge) of shard p whose source lies in q. Each window's
    // runs are packed for the scatter index of its interval (q below): appended to the index
    // log, window (p, q) starting at index_at_[p][q].
    uint64_t run_index = 0;
    uint32_t q = 0;
    uint32_t previous = 0;  // the packed runs' previous source
    uint64_t* index_at = index_at_.data() + static_cast<size_t>(p) * (p_count + 1);
    auto close_windows_below = [&](uint64_t source, uint64_t edge) {
      while (q < p_count && report_.plan.bounds[q] <= source) {
        index_at[q] = index_log_.size();
        previous = report_.plan.bounds[q];
        windows[q++] = WindowEntry{run_index, edge};
      }
    };
    for (uint64_t i = 0; i < edges.size();) {
      const uint32_t source = edges[i].source;
      close_windows_below(source, i);
      uint64_t end = i + 1;
      while (end < edges.size() && edges[end].source == source) ++end;
      const SourceRun run{source, static_cast<uint32_t>(end - i)};
      index_log_.Append(previous, run);
      previous = source;
      ++run_index;
      i = end;
    }
    close_windows_below(UINT64_MAX, edges.size());
    index_at[p_count] = index_log_.size();
    windows[p_count] = WindowEntry{num_runs, edges.size()};
    auto write_column = [&](HashingWriter& w, auto get) {
      const uint64_t piece = column_.size();
      for (uint64_t i = 0; i < edges.size(); i += piece) {
        const uint64_t n = std::min(piece, edges.size() - i);
        for (uint64_t j = 0; j < n; ++j) column_[j] = get(edges[i + j]);
        w.Write(column_.data(), n * sizeof(uint32_t));
      }
    };
    const std::string adj_name = ShardFileName(p, ".adj");
    HashingWriter adj(*io_, tmp_ + "/" + adj_name, FileKind::kAdjacency, &write_buffers_);
    adj.Write(&h, sizeof(h));
    adj.PadTo(kShardAlignment);
    write_column(adj, [](const Record& r) { return r.target; });
    const uint64_t adj_size = adj.position();
    AddFile(adj_name, adj_size, adj.Finish(&synced_));
    if constexpr (Record::kWeighted) {  // unweighted: every weight is 1, nothing to write
      const std::string val_name = ShardFileName(p, ".val");
      HashingWriter val(*io_, tmp_ + "/" + val_name, FileKind::kWeights, &write_buffers_);
      write_column(val, [](const Record& r) { return r.weight_bits(); });
      AddFile(val_name, ShardAlignUp(val.position()), val.Finish(&synced_));
    }
  }

  // degrees.bin from the two degree logs: out-degrees, then in-degrees.
  void WriteDegrees() {
    HashingWriter w(*io_, tmp_ + "/" + kDegreesName, FileKind::kDegrees, &write_buffers_);
    auto copy = [&w](const uint8_t* bytes, size_t n) { w.Write(bytes, n); };
    out_degree_log_.ForEach(copy);
    in_degree_log_.ForEach(copy);
    if (w.position() != 2 * num_vertices_ * sizeof(uint32_t)) {
      throw std::logic_error("the degree logs hold " + std::to_string(w.position()) +
                             " bytes for " + std::to_string(num_vertices_) + " vertices");
    }
    out_degree_log_.Remove();
    in_degree_log_.Remove();
    const uint64_t size = ShardAlignUp(w.position());
    AddFile(kDegreesName, size, w.Finish(&synced_));
  }

  void AddFile(const std::string& name, uint64_t size, uint64_t digest) {
    files_.push_back(ManifestFile{name, ShardAlignUp(size), digest});
    report_.manifest.files = files_;
    report_.bytes_written += ShardAlignUp(size);
  }

  const std::string& input_;
  const ShardOptions& options_;
  std::string dir_;
  int threads_;
  uint64_t plan_memory_;  // what the intervals are planned for: --memory less the reserve
  std::string tmp_;
  ShardReport report_;
  uint64_t num_vertices_ = 0;
  uint64_t input_edges_ = 0;  // edges read from the input
  uint64_t num_edges_ = 0;    // edges sharded: input_edges_, or more when symmetrized
  // Pass 1's counters: summed out- and in-degrees of the units (ids >> unit_shift_), and each
  // thread's counts of the block at hand (units, then buckets).
  int unit_shift_ = 0;
  std::vector<uint64_t> unit_out_, unit_in_;
  std::vector<uint32_t> thread_units_;
  std::vector<uint64_t> bucket_counts_;
  std::vector<uint64_t> interval_edges_;  // in-edges of each interval
  HugeArray<uint32_t> out_degree_, in_degree_;
  std::vector<VertexId> set_id_;          // --order bfs, in pass 1: each input id's in the set
  std::unique_ptr<IoBackend> io_;         // writes the shard set's files
  WriteBuffers write_buffers_;            // lent to each file's writer in turn
  SyncBatch synced_;                      // the set's files, synced together before the manifest
  std::array<uint32_t, 1 << 16> column_;  // a piece of a shard's targets or values
  std::vector<WindowEntry> windows_;
  // Pass 2's packed runs of every window, in shard order, for the scatter indexes.
  ScratchLog index_log_;
  // Pass 2's exact degrees, interval by interval: in-degrees as each shard is sorted,
  // out-degrees from each interval's scatter index (never an array of all vertices).
  ScratchLog in_degree_log_, out_degree_log_;
  std::vector<uint64_t> index_at_;  // P × (P + 1): where window (shard, interval) starts in it
  std::vector<ManifestFile> files_;
};

}  // namespace

std::string DefaultShardDir(const std::string& input, bool symmetrize, const std::string& order) {
  return input + (symmetrize ? ".sym" : "") + (order == kInputOrder ? "" : "." + order) + ".shards";
}

// Whether `dir` looks like (part of) a shard set: empty, or with a manifest that says it is a
// needle shard set, or (without one) holding at least one file that only a shard set has. A
// directory of other files is someone else's and is never replaced.
bool LooksLikeShardSet(const std::string& dir) {
  if (fs::exists(dir + "/" + kManifestName)) return HoldsNeedleManifest(dir);
  std::error_code ec;
  bool empty = true;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    empty = false;
    const std::string name = entry.path().filename().string();
    if (name == kWindowsName || name == kDegreesName ||
        (name.rfind("shard-", 0) == 0 && (name.ends_with(".adj") || name.ends_with(".val")))) {
      return true;
    }
  }
  return empty && !ec;
}

namespace {

// Whether `name` is one that needle puts in a shard set's directory: a set's file, a temporary
// (NAME.needle-tmp-XXXXXX) or a run's work directory (.needle-run-XXXXXX, engine/work_dir.h).
bool IsShardSetEntry(const std::string& name) {
  auto numbered = [&](std::string_view prefix, std::string_view suffix) {
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) return false;
    const std::string_view digits(name.data() + prefix.size(),
                                  name.size() - prefix.size() - suffix.size());
    return digits.size() >= 4 && std::all_of(digits.begin(), digits.end(), [](char c) {
             return c >= '0' && c <= '9';
           });
  };
  return name == kManifestName || name == kWindowsName || name == kDegreesName ||
         name == kOrderName || numbered("shard-", ".adj") || numbered("shard-", ".val") ||
         numbered("scatter-", ".idx") || name.find(kStagingInfix) != std::string::npos ||
         name.starts_with(".needle-run-");
}

// What `dir` holds that needle did not put there: the first few names in order, for a
// message; empty when nothing.
std::string ForeignEntries(const std::string& dir) {
  std::vector<std::string> foreign;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (!IsShardSetEntry(name)) foreign.push_back(std::move(name));
  }
  std::sort(foreign.begin(), foreign.end());
  std::string names;
  for (size_t i = 0; i < foreign.size() && i < 3; ++i) names += (i > 0 ? ", " : "") + foreign[i];
  if (foreign.size() > 3) names += " and " + std::to_string(foreign.size() - 3) + " more";
  return names;
}

// The set in `dir` when it can be reused for `input` and `options` (the caller holds a shared
// lock on `dir`); else nullopt, with *reason saying why not and *other_format set when that is
// the set's format version.
std::optional<ShardReport> Reusable(const std::string& dir, const InputFingerprint& fingerprint,
                                    const ShardOptions& options, std::string* reason,
                                    bool* other_format) {
  if (!fs::exists(dir + "/" + kManifestName)) {
    *reason = "it has no manifest (an incomplete shard set)";
    return std::nullopt;
  }
  if (options.force) {
    *reason = "--force";
    return std::nullopt;
  }
  try {
    // Checked first without reading the files (a set for other options is not read end to
    // end to be refused), then, when it matches, with their checksums.
    ShardSet existing = ShardSet::Open(dir, /*verify_digests=*/false);
    const ShardingChoices built = existing.manifest().choices;  // a copy: existing is reopened
    // With room for dynamic shards, the set must have been planned for --memory less what its
    // own largest interval needs beside it (as a fresh one is), or fit that (reuse_other_budget).
    ShardOptions wanted = options;
    if (options.dynamic_message_bytes > 0) {
      uint64_t largest = 0;
      const auto& b = existing.manifest().bounds;
      for (size_t p = 0; p + 1 < b.size(); ++p) {
        largest = std::max<uint64_t>(largest, b[p + 1] - b[p]);
      }
      const uint64_t room = DynamicShardBytes(existing.manifest().num_vertices, largest,
                                              options.dynamic_message_bytes);
      wanted.memory_bytes -= std::min(room, wanted.memory_bytes);
    }
    // Reasons no budget can set aside: another input, or weights that are not what --weights
    // asks (a set sharded from a .csr before the reader honoured --weights there).
    std::string fixed_reason =
        InputDifference(existing.manifest().input, fingerprint, options.read.format);
    if (fixed_reason.empty() && options.read.weights == WeightMode::kUnweighted &&
        existing.weighted()) {
      fixed_reason = "it holds weights, though --weights no asks for none";
    }
    if (fixed_reason.empty() && options.read.weights == WeightMode::kWeighted &&
        !existing.weighted()) {
      fixed_reason = "it holds no weights, though --weights yes asks for them";
    }
    *reason = fixed_reason;
    if (reason->empty()) *reason = Sharder::Choices(wanted).DifferenceFrom(built);
    // Planned for another budget (reuse_other_budget): a smaller one's intervals fit this one;
    // a larger one's where the engine's bound for them does (a default --memory, 3/4 of what
    // is available, moves by a few MiB between runs).
    bool other_budget = false;
    if (!reason->empty() && options.reuse_other_budget && fixed_reason.empty()) {
      ShardingChoices same_budget = Sharder::Choices(wanted);
      same_budget.memory_bytes = built.memory_bytes;
      other_budget = same_budget.DifferenceFrom(built).empty() &&
                     (built.memory_bytes < wanted.memory_bytes ||
                      existing.EngineBytes(wanted.memory_bytes) <= wanted.memory_bytes);
    }
    if (!reason->empty() && !other_budget) return std::nullopt;
    existing = ShardSet::Open(dir, /*verify_digests=*/true);
    ShardReport report;
    report.dir = dir;
    report.reused = true;
    report.manifest = existing.manifest();
    report.plan.bounds = existing.manifest().bounds;
    if (options.keep_open) report.set.emplace(std::move(existing));
    if (options.log && other_budget) {
      const bool smaller = built.memory_bytes < wanted.memory_bytes;
      options.log("reusing the shard set in " + dir + ": it was planned for --memory " +
                  FormatMiB(built.memory_bytes) +
                  ", and its intervals fit this budget too (resharding for this "
                  "budget, 'needle shard --force', " +
                  (smaller ? "would make fewer, larger" : "could make more, smaller") +
                  " ones)");
    } else if (options.log) {
      options.log("reusing the shard set in " + dir + " (it matches the input and options)");
    }
    return report;
  } catch (const ShardFormatError& e) {  // written by another needle: rebuilt, saying so
    *reason = "shard set " + dir + " is format version " + std::to_string(e.version()) +
              "; this needle reads format version " + std::to_string(kShardFormatVersion);
    *other_format = true;
    return std::nullopt;
  } catch (const Error& e) {
    *reason = e.what();
    return std::nullopt;
  }
}

}  // namespace

ShardReport ShardGraph(const std::string& input, const ShardOptions& options) {
  KeepLargeBlocksMapped();  // so that a run after it in this process peaks as alone
  // Before anything is looked at or said ("rebuilding ..."): a budget no set can have.
  CheckFixedBytes(options.memory_bytes);
  const std::string dir =
      options.out_dir.empty() ? DefaultShardDir(input, options.symmetrize, options.order)
                              : options.out_dir;
  InputFingerprint fingerprint = InputFingerprint::Stat(input);
  for (const std::string& other : options.reuse_from) {
    std::error_code ec;
    if (!fs::exists(other + "/" + kManifestName, ec) || fs::equivalent(other, dir, ec)) {
      continue;
    }
    try {
      const FileLock turn = LockSetForSharding(other, options.log);  // not while one rebuilds it
      std::string ignored;
      bool other_format = false;
      if (std::optional<ShardReport> reused =
              Reusable(other, fingerprint, options, &ignored, &other_format)) {
        return std::move(*reused);
      }
    } catch (const Error&) {  // unreadable, or locked in a way we cannot wait for: passed over
    }
  }
  if (fs::exists(dir) && !fs::is_directory(dir)) {
    throw Error(dir, "exists and is not a directory; choose another --out");
  }
  if (fs::exists(dir) && !LooksLikeShardSet(dir)) {
    throw Error(dir,
                "exists and is not a shard set (no needle manifest, no shard files); refusing "
                "to replace it: choose another --out");
  }
  // The set is built in place of DIR, whose lock says who uses it (set_lock.h): create it
  // (empty) when it does not exist, and remove it again if this fails before the set is there.
  bool created = false;
  CleanupGuard on_interrupt;
  if (!fs::exists(dir)) {
    on_interrupt = CleanupGuard::Creating(CleanupGuard::Kind::kEmptyDirectory, [&] {
      if (mkdir(dir.c_str(), 0755) == 0) {
        created = true;
      } else if (errno != EEXIST) {
        ThrowSystemError(dir, "cannot create the shard set directory");
      }
      return created ? dir : std::string();
    });
  }
  struct RemoveIfStillEmpty {
    const std::string& dir;
    bool armed;
    ~RemoveIfStillEmpty() {
      if (armed) rmdir(dir.c_str());  // fails, harmlessly, unless it is empty
    }
  } created_guard{dir, created};
  // Sharders of DIR take turns; the set is checked and, if need be, rebuilt under that lock.
  const FileLock sharding = LockSetForSharding(dir, options.log);
  RemoveLeftovers(dir);  // what killed sharders left (live ones hold theirs locked)
  std::string reason;
  bool other_format = false;
  if (std::optional<ShardReport> reused =
          Reusable(dir, fingerprint, options, &reason, &other_format)) {
    created_guard.armed = false;
    return std::move(*reused);
  }
  // Replacing DIR removes it whole: never with what someone else put there.
  if (const std::string foreign = ForeignEntries(dir); !foreign.empty()) {
    throw Error(dir, "holds files that are not a shard set's: " + foreign + "; rebuilding it (" +
                         reason +
                         ") would remove them: move them out, or shard elsewhere (--out; "
                         "needle run: --shards-dir)");
  }
  const std::optional<FileLock> replacing = LockSetForReplacing(dir);
  if (!replacing) {
    throw Error(dir,
                "is in use by another needle process (a run reading it), so it cannot be "
                "rebuilt now (" +
                    reason +
                    "): wait for that run to finish, or shard into "
                    "another --out");
  }
  std::error_code ec;
  const bool fresh = created && fs::is_empty(dir, ec);
  if (!fresh && options.log) {
    options.log(other_format ? reason + ": rebuilding" : "rebuilding " + dir + ": " + reason);
  }
  ShardReport report = Sharder(input, options, dir).Run(std::move(fingerprint));
  report.rebuild_reason = fresh ? "" : reason;
  created_guard.armed = false;
  return report;
}

}  // namespace needle
