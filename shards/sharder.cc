#include "shards/sharder.h"

#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "loaders/error.h"
#include "loaders/graph_reader.h"
#include "loaders/huge_array.h"
#include "loaders/parallel.h"
#include "loaders/unique_fd.h"
#include "shards/hashing_writer.h"
#include "shards/shard_layout.h"
#include "shards/shard_set.h"

namespace needle {
namespace {

namespace fs = std::filesystem;

// One edge as the sharder's temporary files hold it.
struct Record {
  uint32_t source;
  uint32_t target;
  float weight;
};
static_assert(sizeof(Record) == 12);

bool operator<(const Record& a, const Record& b) {
  if (a.source != b.source) return a.source < b.source;
  if (a.target != b.target) return a.target < b.target;
  uint32_t wa, wb;  // weights compared as bits: a total order, so the sort is deterministic
  std::memcpy(&wa, &a.weight, 4);
  std::memcpy(&wb, &b.weight, 4);
  return wa < wb;
}

// A stable parallel counting partition: out receives in[0, count) grouped by key(in[i]) (a
// value below `keys`), each group in input order — whatever the thread count. starts gets
// keys + 1 entries: group g is out[starts[g], starts[g + 1]).
template <class T, class Key>
void StablePartition(const T* in, T* out, uint64_t count, uint64_t keys, Key key, int threads,
                     std::vector<uint64_t>& starts) {
  std::vector<uint64_t> counts(static_cast<size_t>(threads) * keys, 0);
  starts.assign(keys + 1, 0);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    const uint64_t lo = count * t / nt, hi = count * (t + 1) / nt;
    uint64_t* c = counts.data() + static_cast<size_t>(t) * keys;
    for (uint64_t i = lo; i < hi; ++i) ++c[key(in[i])];
#pragma omp barrier
#pragma omp single
    {
      uint64_t at = 0;
      for (uint64_t g = 0; g < keys; ++g) {  // group by group, thread slices in order
        starts[g] = at;
        for (int u = 0; u < nt; ++u) {
          uint64_t& slot = counts[static_cast<size_t>(u) * keys + g];
          const uint64_t n = slot;
          slot = at;
          at += n;
        }
      }
      starts[keys] = at;
    }
    for (uint64_t i = lo; i < hi; ++i) out[c[key(in[i])]++] = in[i];
  }
}

// A directory that is removed with its contents unless Commit() renamed it into place.
class TempDir {
 public:
  explicit TempDir(const std::string& final_dir) : final_(final_dir) {
    std::string pattern = final_dir + ".tmp-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (mkdtemp(name.data()) == nullptr)
      ThrowSystemError(final_dir, "cannot create a temporary directory next to");
    path_ = name.data();
    chmod(path_.c_str(), 0755);  // mkdtemp makes it private
  }
  ~TempDir() {
    if (!committed_) {
      std::error_code ignored;
      fs::remove_all(path_, ignored);
    }
  }
  const std::string& path() const { return path_; }
  // Moves an existing final directory aside, renames this one into place, removes the old.
  void Commit() {
    SyncDirectory(path_);
    std::string old;
    if (fs::exists(final_)) {
      old = final_ + ".old-" + std::to_string(getpid());
      std::error_code ignored;
      fs::remove_all(old, ignored);
      if (rename(final_.c_str(), old.c_str()) != 0)
        ThrowSystemError(final_, "cannot move the old shard set aside");
    }
    if (rename(path_.c_str(), final_.c_str()) != 0)
      ThrowSystemError(final_, "cannot rename the shard set into place");
    committed_ = true;
    SyncDirectory(fs::path(final_).parent_path().string());
    if (!old.empty()) {
      std::error_code ignored;
      fs::remove_all(old, ignored);
    }
  }

 private:
  static void SyncDirectory(const std::string& dir) {
    UniqueFd fd(open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.valid()) fsync(fd.get());
  }
  std::string final_;
  std::string path_;
  bool committed_ = false;
};

// Leftovers of killed runs: DIR.tmp-* and DIR.old-* next to DIR. Nothing trusts them.
void RemoveLeftovers(const std::string& dir) {
  const fs::path target(dir);
  fs::path parent = target.parent_path();
  if (parent.empty()) parent = ".";
  const std::string stem = target.filename().string();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(stem + ".tmp-", 0) == 0 || name.rfind(stem + ".old-", 0) == 0) {
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
}

// Sequential appends of Records to a file, through a buffer.
class RecordFile {
 public:
  RecordFile(std::string path, size_t buffer_records)
      : path_(std::move(path)), buffer_(buffer_records) {
    int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) ThrowSystemError(path_, "cannot create");
    fd_ = UniqueFd(fd);
  }
  void Append(const Record* r, size_t count) {
    while (count > 0) {
      const size_t n = std::min(count, buffer_.size() - buffered_);
      std::copy_n(r, n, buffer_.data() + buffered_);
      buffered_ += n;
      r += n;
      count -= n;
      if (buffered_ == buffer_.size()) Flush();
    }
  }
  void Flush() {
    WriteFully(fd_.get(), path_, buffer_.data(), buffered_ * sizeof(Record),
               records_ * sizeof(Record));
    records_ += buffered_;
    buffered_ = 0;
  }
  uint64_t records() const { return records_ + buffered_; }
  void Read(uint64_t first, Record* out, uint64_t count) const {
    ReadFully(fd_.get(), path_, out, count * sizeof(Record), first * sizeof(Record));
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  UniqueFd fd_;
  std::vector<Record> buffer_;
  size_t buffered_ = 0;
  uint64_t records_ = 0;
};

class Sharder {
 public:
  Sharder(const std::string& input, const ShardOptions& options, const std::string& dir)
      : input_(input),
        options_(options),
        dir_(dir),
        threads_(options.threads > 0 ? options.threads : omp_get_max_threads()) {}

  ShardReport Run(InputFingerprint fingerprint) {
    const auto start = std::chrono::steady_clock::now();
    RemoveLeftovers(dir_);
    TempDir temp(dir_);
    tmp_ = temp.path();
    std::string note;
    io_ = IoBackend::Create(options_.io, &note);
    if (!note.empty()) Log(note);
    auto lap = std::chrono::steady_clock::now();
    auto phase_done = [&](double* seconds) {
      const auto now = std::chrono::steady_clock::now();
      *seconds = std::chrono::duration<double>(now - lap).count();
      lap = now;
    };
    CountDegrees();
    phase_done(&report_.count_seconds);
    report_.plan =
        PlanIntervals(out_degree_.span(), in_degree_.span(), BudgetForIntervals(), options_.costs);
    BuildIntervalTable();
    Log(report_.plan.rule + "; budget = --memory - " + std::to_string((12 * num_vertices_) >> 20) +
        " MiB of degree arrays and interval table");
    if (options_.symmetrize) {
      Log("symmetrized: " + std::to_string(input_edges_) + " input edges -> " +
          std::to_string(num_edges_) + " edges (each u->v also as v->u, a self-loop once)");
    }
    Bucket();
    phase_done(&report_.bucket_seconds);
    WriteShards();
    WriteDegrees();
    phase_done(&report_.write_seconds);
    Manifest& m = report_.manifest;
    m.input = std::move(fingerprint);
    m.choices = Choices(options_);
    m.num_vertices = num_vertices_;
    m.num_edges = num_edges_;
    m.weighted = weighted_;
    m.bounds = report_.plan.bounds;
    WriteManifest(m, tmp_);
    temp.Commit();
    report_.dir = dir_;
    report_.io_backend = std::string(io_->name());
    report_.io_counters = io_->counters();
    report_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(report_);
  }

  static ShardingChoices Choices(const ShardOptions& o) {
    return ShardingChoices{o.memory_bytes, o.format_name, o.weights_name, o.symmetrize, o.costs};
  }

 private:
  void Log(const std::string& line) const {
    if (options_.log) options_.log(line);
  }
  void Progress(int phase, uint64_t done, uint64_t total) const {
    if (options_.progress) options_.progress(phase, done, total);
  }
  uint64_t Usable() const {
    return options_.memory_bytes > kReservedBytes ? options_.memory_bytes - kReservedBytes : 0;
  }
  // The degree arrays and the vertex → interval table stay resident: take them off the budget.
  uint64_t BudgetForIntervals() const {
    const uint64_t degrees = 12 * num_vertices_;
    if (options_.memory_bytes <= degrees + kReservedBytes) {
      throw std::invalid_argument("--memory " + std::to_string(options_.memory_bytes >> 20) +
                                  " MiB cannot hold the degree arrays of " +
                                  std::to_string(num_vertices_) + " vertices (" +
                                  std::to_string(degrees >> 20) + " MiB) plus the reserve");
    }
    return options_.memory_bytes - degrees;
  }

  GraphReaderOptions ReaderOptions() const {
    GraphReaderOptions o;
    o.read = options_.read;
    // The text reader holds a chunk of text and its parsed edges: keep it to 1/8 of the budget.
    o.read.chunk_bytes = std::clamp<uint64_t>(Usable() / 16, 1 << 20, 64 << 20);
    return o;
  }
  // Edges per block read. Pass 2 holds a block twice (as read, then grouped by interval), 24 B
  // per edge within budget/8; symmetrized, a block expands to twice its edges: half the block.
  uint64_t BlockEdges() const {
    const uint64_t per_edge = options_.symmetrize ? 48 : 24;
    return std::clamp<uint64_t>(Usable() / 8 / per_edge, 1 << 16, 8 << 20);
  }

  // Reads the whole input through the block API, calling f(block) for each block.
  template <class F>
  void ReadInput(F&& f) {
    std::unique_ptr<GraphReader> reader = GraphReader::Open(input_, ReaderOptions());
    weighted_ = reader->weighted();
    const uint64_t block = BlockEdges();
    HugeArray<VertexId> sources(block), targets(block);
    HugeArray<Weight> weights(weighted_ ? block : 0);
    const EdgeBuffers buffers{sources.span(), targets.span(), weights.span()};
    for (uint64_t position = 0;;) {
      const EdgeBlock b = reader->ReadEdges(position, buffers);
      if (b.size() == 0) break;
      f(b);
      position += b.size();
    }
    num_vertices_ = std::max(num_vertices_, reader->num_vertices().value_or(0));
    reader->Close();
  }

  Record RecordOf(const EdgeBlock& b, uint64_t i) const {
    return Record{b.sources[i], b.targets[i], weighted_ ? b.weights[i] : 1.0f};
  }

  void ToRecords(const EdgeBlock& b, Record* out) const {
#pragma omp parallel for num_threads(threads_)
    for (uint64_t i = 0; i < b.size(); ++i) out[i] = RecordOf(b, i);
  }

  // The records pass 2 buckets for edges get(0) ... get(count - 1): each edge, followed, when
  // symmetrizing, by its reverse unless it is a self-loop. Written to out (room for 2 × count)
  // in that order whatever the thread count; returns how many.
  template <class Get>
  uint64_t Expand(uint64_t count, Get get, Record* out) const {
    if (!options_.symmetrize) {
#pragma omp parallel for num_threads(threads_)
      for (uint64_t i = 0; i < count; ++i) out[i] = get(i);
      return count;
    }
    std::vector<uint64_t> start(static_cast<size_t>(threads_) + 1, 0);
    int team = 1;
#pragma omp parallel num_threads(threads_)
    {
      const int t = omp_get_thread_num();
      const int nt = omp_get_num_threads();
      const uint64_t lo = count * t / nt, hi = count * (t + 1) / nt;
      uint64_t n = 0;
      for (uint64_t i = lo; i < hi; ++i) {
        const Record r = get(i);
        n += r.source != r.target ? 2 : 1;
      }
      start[t + 1] = n;
#pragma omp barrier
#pragma omp single
      {
        team = nt;
        for (int u = 0; u < nt; ++u) start[u + 1] += start[u];
      }
      uint64_t at = start[t];
      for (uint64_t i = lo; i < hi; ++i) {
        const Record r = get(i);
        out[at++] = r;
        if (r.source != r.target) out[at++] = Record{r.target, r.source, r.weight};
      }
    }
    return start[team];
  }

  // Pass 1: count degrees. A compressed input is also copied in binary form, so that pass 2
  // does not decompress it again; plain text and .csr inputs are simply read twice.
  void CountDegrees() {
    std::unique_ptr<RecordFile> copy;
    std::vector<Record> records;
    if (InputIsCompressed()) {
      copy = std::make_unique<RecordFile>(tmp_ + "/edges.bin", 1 << 18);
      records.resize(BlockEdges());
    }
    uint64_t position = 0;
    uint64_t vertices = 0;
    uint64_t reversed = 0;  // edges that are not self-loops: each gains a reverse when symmetrized
    const bool symmetrize = options_.symmetrize;
    ReadInput([&](const EdgeBlock& b) {
      const uint64_t count = b.size();
      VertexId top = 0;
      uint64_t non_loops = 0;
#pragma omp parallel for num_threads(threads_) reduction(max : top) reduction(+ : non_loops)
      for (uint64_t i = 0; i < count; ++i) {
        top = std::max({top, b.sources[i], b.targets[i]});
        non_loops += b.sources[i] != b.targets[i];
      }
      reversed += non_loops;
      if (top + uint64_t{1} > vertices) {
        vertices = top + uint64_t{1};
        GrowDegrees(vertices);
      }
      uint32_t* out = out_degree_.data();
      uint32_t* in = in_degree_.data();
      // Each thread owns a range of vertex ids and counts only those: every thread reads the
      // whole block (sequentially), but no counter is shared, so no atomics.
#pragma omp parallel num_threads(threads_)
      {
        const uint64_t t = static_cast<uint64_t>(omp_get_thread_num());
        const uint64_t nt = static_cast<uint64_t>(omp_get_num_threads());
        const VertexId lo = static_cast<VertexId>(vertices * t / nt);
        const VertexId hi = static_cast<VertexId>(vertices * (t + 1) / nt);
        // Ownership is random per edge, so select the counter instead of branching: an
        // edge this thread does not own bumps a private dummy.
        uint32_t dummy = 0;
        const VertexId width = hi - lo;
        for (uint64_t i = 0; i < count; ++i) {
          const VertexId u = b.sources[i], v = b.targets[i];
          uint32_t* cu = u - lo < width ? &out[u] : &dummy;
          ++*cu;
          uint32_t* cv = v - lo < width ? &in[v] : &dummy;
          ++*cv;
        }
        if (symmetrize) {  // the reverses v->u (none for a self-loop)
          for (uint64_t i = 0; i < count; ++i) {
            const VertexId u = b.sources[i], v = b.targets[i];
            const bool twin = u != v;
            uint32_t* cv = twin && v - lo < width ? &out[v] : &dummy;
            ++*cv;
            uint32_t* cu = twin && u - lo < width ? &in[u] : &dummy;
            ++*cu;
          }
        }
      }
      if (copy) {
        ToRecords(b, records.data());
        copy->Append(records.data(), count);
      }
      position += count;
      Progress(1, position, 0);
    });
    if (copy) copy->Flush();
    copy_ = std::move(copy);
    input_edges_ = position;
    num_edges_ = position + (symmetrize ? reversed : 0);
    num_vertices_ = std::max(num_vertices_, vertices);
    GrowDegrees(num_vertices_);
  }

  bool InputIsCompressed() const {
    UniqueFd fd = OpenForReading(input_);
    unsigned char head[6] = {};
    const ssize_t n = ::pread(fd.get(), head, sizeof(head), 0);
    return n > 0 && DetectCompression(head, static_cast<size_t>(n)) != Compression::kNone;
  }

  void GrowDegrees(uint64_t n) {
    const uint64_t old = out_degree_.size();
    if (n <= old) return;
    out_degree_.Resize(n);
    in_degree_.Resize(n);
    std::fill(out_degree_.begin() + old, out_degree_.end(), 0u);
    std::fill(in_degree_.begin() + old, in_degree_.end(), 0u);
  }

  uint32_t IntervalOf(VertexId v) const { return interval_of_[v]; }

  void BuildIntervalTable() {
    const auto& b = report_.plan.bounds;
    interval_of_.Resize(num_vertices_);
    for (uint32_t p = 0; p + 1 < b.size(); ++p) {
      std::fill(interval_of_.begin() + b[p], interval_of_.begin() + b[p + 1], p);
    }
  }

  // Pass 2: the input again (or its binary copy) → one bucket file per interval (by target).
  void Bucket() {
    const uint32_t p_count = report_.plan.num_intervals();
    const uint64_t per_bucket =
        std::clamp<uint64_t>(Usable() / 4 / p_count / sizeof(Record), 1024, 1 << 18);
    for (uint32_t p = 0; p < p_count; ++p) {
      buckets_.push_back(
          std::make_unique<RecordFile>(tmp_ + "/bucket-" + std::to_string(p), per_bucket));
    }
    const uint64_t block = BlockEdges();
    const uint64_t expanded = options_.symmetrize ? 2 * block : block;
    std::vector<Record> in(expanded), grouped(expanded);
    std::vector<uint64_t> bucket_start;
    uint64_t done = 0;  // input edges
    // Buckets in[0, count): `input_count` input edges, expanded.
    auto partition = [&](uint64_t count, uint64_t input_count) {
      StablePartition(
          in.data(), grouped.data(), count, p_count,
          [this](const Record& r) { return IntervalOf(r.target); }, threads_, bucket_start);
      for (uint32_t p = 0; p < p_count; ++p) {
        buckets_[p]->Append(grouped.data() + bucket_start[p],
                            bucket_start[p + 1] - bucket_start[p]);
      }
      done += input_count;
      Progress(2, done, input_edges_);
    };
    if (copy_) {
      // Symmetrized, the copy's records are read into the back half of `grouped` (free until
      // the partition) and expanded into `in`; else read straight into `in`.
      Record* raw = grouped.data() + block;
      for (uint64_t first = 0; first < input_edges_; first += block) {
        const uint64_t count = std::min(block, input_edges_ - first);
        uint64_t n = count;
        if (options_.symmetrize) {
          copy_->Read(first, raw, count);
          n = Expand(
              count, [raw](uint64_t i) { return raw[i]; }, in.data());
        } else {
          copy_->Read(first, in.data(), count);
        }
        partition(n, count);
      }
      const std::string copy_path = copy_->path();
      copy_.reset();
      fs::remove(copy_path);
    } else {
      ReadInput([&](const EdgeBlock& b) {
        const uint64_t n = Expand(
            b.size(), [this, &b](uint64_t i) { return RecordOf(b, i); }, in.data());
        partition(n, b.size());
      });
      if (done != input_edges_) {
        throw Error(input_, "the input changed while it was being sharded");
      }
    }
    for (auto& b : buckets_) b->Flush();
  }

  // Pass 3: each bucket, sorted, becomes a shard.
  void WriteShards() {
    const uint32_t p_count = report_.plan.num_intervals();
    windows_.assign(static_cast<size_t>(p_count) * (p_count + 1), WindowEntry{});
    uint64_t done = 0;
    for (uint32_t p = 0; p < p_count; ++p) {
      const uint64_t e = buckets_[p]->records();
      // Both arrays are reused from shard to shard: no fresh pages to fault in and zero.
      edges_.Resize(e);
      scratch_.Resize(e);
      buckets_[p]->Read(0, edges_.data(), e);
      const std::string bucket_path = buckets_[p]->path();
      buckets_[p].reset();
      fs::remove(bucket_path);
      SortBySource(edges_, scratch_);
      WriteShard(p, edges_);
      done += e;
      Progress(3, done, num_edges_);
    }
    HashingWriter w(*io_, tmp_ + "/" + kWindowsName, FileKind::kOther);
    w.Write(windows_.data(), windows_.size() * sizeof(WindowEntry));
    AddFile(kWindowsName, w.position(), w.Finish());
  }

  // Sorts by (source, target, weight bits) — a total order, so the result is deterministic —
  // in linear time: a parallel counting pass groups the records by the high bits of the
  // source (≤ 1024 groups: the scatter stays cache-friendly), then each group is counting-
  // sorted by its exact source, and each source's few records are sorted by target.
  void SortBySource(HugeArray<Record>& edges, HugeArray<Record>& scratch) const {
    const uint64_t e = edges.size();
    if (e < 2) return;
    int bits = 0;
    while ((uint64_t{1} << bits) < num_vertices_) ++bits;
    const int shift = std::clamp(bits - 10, 0, 16);
    const uint64_t groups = (num_vertices_ >> shift) + 1;
    std::vector<uint64_t> start;
    StablePartition(
        edges.data(), scratch.data(), e, groups,
        [shift](const Record& r) { return r.source >> shift; }, threads_, start);
#pragma omp parallel num_threads(threads_)
    {
      std::vector<uint64_t> local(size_t{1} << shift);
#pragma omp for schedule(dynamic, 4)
      for (uint64_t g = 0; g < groups; ++g) {
        const uint64_t begin = start[g], end = start[g + 1];
        const uint32_t base = static_cast<uint32_t>(g << shift);
        std::fill(local.begin(), local.end(), 0);
        for (uint64_t i = begin; i < end; ++i) ++local[scratch[i].source - base];
        uint64_t at = begin;
        for (uint64_t& slot : local) {
          const uint64_t n = slot;
          slot = at;
          at += n;
        }
        for (uint64_t i = begin; i < end; ++i)
          edges[local[scratch[i].source - base]++] = scratch[i];
        // local[k] now ends source base + k's run: sort each run by target.
        uint64_t run_begin = begin;
        for (uint64_t run_end : local) {
          if (run_end - run_begin > 16) {
            std::sort(edges.begin() + run_begin, edges.begin() + run_end);
          } else {
            for (uint64_t i = run_begin + 1; i < run_end; ++i) {  // short runs: insertion sort
              const Record r = edges[i];
              uint64_t j = i;
              for (; j > run_begin && r < edges[j - 1]; --j) edges[j] = edges[j - 1];
              edges[j] = r;
            }
          }
          run_begin = run_end;
        }
      }
    }
  }

  // Writes shard p from its sorted edges. Runs are streamed out, never held as a whole: a
  // shard can have as many runs as edges.
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
    h.runs_pos = kShardAlignment;
    h.targets_pos = ShardAlignUp(h.runs_pos + num_runs * sizeof(SourceRun));
    const std::string adj_name = ShardFileName(p, ".adj");
    HashingWriter adj(*io_, tmp_ + "/" + adj_name, FileKind::kAdjacency);
    adj.Write(&h, sizeof(h));
    adj.PadTo(kShardAlignment);
    // Runs, and the windows: the first run (and edge) of shard p whose source lies in q.
    std::vector<SourceRun> runs;
    runs.reserve(1 << 18);
    uint64_t run_index = 0;
    uint32_t q = 0;
    auto close_windows_below = [&](uint64_t source, uint64_t edge) {
      while (q < p_count && report_.plan.bounds[q] <= source) {
        windows[q++] = WindowEntry{run_index, edge};
      }
    };
    for (uint64_t i = 0; i < edges.size();) {
      const uint32_t source = edges[i].source;
      close_windows_below(source, i);
      uint64_t end = i + 1;
      while (end < edges.size() && edges[end].source == source) ++end;
      runs.push_back(SourceRun{source, static_cast<uint32_t>(end - i)});
      ++run_index;
      if (runs.size() == runs.capacity()) {
        adj.Write(runs.data(), runs.size() * sizeof(SourceRun));
        runs.clear();
      }
      i = end;
    }
    adj.Write(runs.data(), runs.size() * sizeof(SourceRun));
    close_windows_below(UINT64_MAX, edges.size());
    windows[p_count] = WindowEntry{num_runs, edges.size()};
    adj.PadTo(kShardAlignment);
    std::vector<uint32_t> column;
    column.reserve(std::min<uint64_t>(edges.size(), 1 << 20));
    auto write_column = [&](HashingWriter& w, auto get) {
      for (uint64_t i = 0; i < edges.size();) {
        column.clear();
        for (; i < edges.size() && column.size() < (1u << 20); ++i) column.push_back(get(edges[i]));
        w.Write(column.data(), column.size() * sizeof(uint32_t));
      }
    };
    write_column(adj, [](const Record& r) { return r.target; });
    const uint64_t adj_size = adj.position();
    AddFile(adj_name, adj_size, adj.Finish());
    const std::string val_name = ShardFileName(p, ".val");
    HashingWriter val(*io_, tmp_ + "/" + val_name, FileKind::kValues);
    write_column(val, [](const Record& r) {
      uint32_t bits;
      std::memcpy(&bits, &r.weight, 4);
      return bits;
    });
    AddFile(val_name, ShardAlignUp(val.position()), val.Finish());
  }

  void WriteDegrees() {
    HashingWriter w(*io_, tmp_ + "/" + kDegreesName, FileKind::kVertices);
    w.Write(out_degree_.data(), num_vertices_ * sizeof(uint32_t));
    w.Write(in_degree_.data(), num_vertices_ * sizeof(uint32_t));
    const uint64_t size = ShardAlignUp(w.position());
    AddFile(kDegreesName, size, w.Finish());
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
  std::string tmp_;
  ShardReport report_;
  bool weighted_ = false;
  uint64_t num_vertices_ = 0;
  uint64_t input_edges_ = 0;  // edges read from the input
  uint64_t num_edges_ = 0;    // edges sharded: input_edges_, or more when symmetrized
  HugeArray<uint32_t> out_degree_, in_degree_;
  HugeArray<uint32_t> interval_of_;
  HugeArray<Record> edges_, scratch_;  // pass 3's bucket and sort buffers
  std::unique_ptr<IoBackend> io_;      // writes the shard set's files
  std::unique_ptr<RecordFile> copy_;
  std::vector<std::unique_ptr<RecordFile>> buckets_;
  std::vector<WindowEntry> windows_;
  std::vector<ManifestFile> files_;
};

}  // namespace

std::string DefaultShardDir(const std::string& input, bool symmetrize) {
  return input + (symmetrize ? ".sym.shards" : ".shards");
}

// Whether `dir` looks like (part of) a shard set: empty, or holding at least one file that
// only a shard set has. A directory of other files is someone else's and is never replaced.
bool LooksLikeShardSet(const std::string& dir) {
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

ShardReport ShardGraph(const std::string& input, const ShardOptions& options) {
  const std::string dir =
      options.out_dir.empty() ? DefaultShardDir(input, options.symmetrize) : options.out_dir;
  InputFingerprint fingerprint = InputFingerprint::Of(input);
  RemoveLeftovers(dir);  // of killed runs, whether this run rebuilds or reuses
  std::string reason;
  if (fs::exists(dir) && !fs::is_directory(dir)) {
    throw Error(dir, "exists and is not a directory; choose another --out");
  }
  if (fs::exists(dir) && !fs::exists(dir + "/" + kManifestName)) {
    if (!LooksLikeShardSet(dir)) {
      throw Error(dir,
                  "exists and is not a shard set (no manifest, no shard files); refusing "
                  "to replace it: choose another --out");
    }
    reason = "it has no manifest (an incomplete shard set)";
  } else if (fs::exists(dir) && options.force) {
    reason = "--force";
  } else if (fs::exists(dir)) {
    try {
      ShardSet existing = ShardSet::Open(dir, /*verify_digests=*/true);
      reason = fingerprint.DifferenceFrom(existing.manifest().input);
      if (reason.empty())
        reason = Sharder::Choices(options).DifferenceFrom(existing.manifest().choices);
      if (reason.empty()) {
        ShardReport report;
        report.dir = dir;
        report.reused = true;
        report.manifest = existing.manifest();
        report.plan.bounds = existing.manifest().bounds;
        if (options.log)
          options.log("reusing the shard set in " + dir + " (it matches the input and options)");
        return report;
      }
    } catch (const Error& e) {
      reason = e.what();
    }
  }
  if (!reason.empty() && options.log) options.log("rebuilding " + dir + ": " + reason);
  ShardReport report = Sharder(input, options, dir).Run(std::move(fingerprint));
  report.rebuild_reason = reason;
  return report;
}

}  // namespace needle
