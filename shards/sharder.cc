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
    CountAndCopy();
    report_.plan = PlanIntervals(out_degree_.span(), in_degree_.span(), BudgetForIntervals());
    Log(report_.plan.rule + "; budget = --memory - " + std::to_string((8 * num_vertices_) >> 20) +
        " MiB of degree arrays");
    Bucket();
    WriteShards();
    WriteDegrees();
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
    report_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(report_);
  }

  static ShardingChoices Choices(const ShardOptions& o) {
    return ShardingChoices{o.memory_bytes, o.format_name, o.weights_name};
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
  // The degree arrays stay resident while the intervals are planned: take them off the budget.
  uint64_t BudgetForIntervals() const {
    const uint64_t degrees = 8 * num_vertices_;
    if (options_.memory_bytes <= degrees + kReservedBytes) {
      throw std::invalid_argument("--memory " + std::to_string(options_.memory_bytes >> 20) +
                                  " MiB cannot hold the degree arrays of " +
                                  std::to_string(num_vertices_) + " vertices (" +
                                  std::to_string(degrees >> 20) + " MiB) plus the reserve");
    }
    return options_.memory_bytes - degrees;
  }

  // Pass 1: read the input once through the block API; count degrees; keep a binary copy.
  void CountAndCopy() {
    GraphReaderOptions reader_options;
    reader_options.read = options_.read;
    // The text reader holds a chunk of text and its parsed edges: keep it to 1/8 of the budget.
    reader_options.read.chunk_bytes = std::clamp<uint64_t>(Usable() / 16, 1 << 20, 64 << 20);
    std::unique_ptr<GraphReader> reader = GraphReader::Open(input_, reader_options);
    weighted_ = reader->weighted();
    const uint64_t block = std::clamp<uint64_t>(Usable() / 8 / 24, 1 << 16, 8 << 20);
    HugeArray<VertexId> sources(block), targets(block);
    HugeArray<Weight> weights(weighted_ ? block : 0);
    std::vector<Record> records(block);
    copy_ = std::make_unique<RecordFile>(tmp_ + "/edges.bin",
                                         std::clamp<uint64_t>(block, 1 << 16, 1 << 20));
    const EdgeBuffers buffers{sources.span(), targets.span(), weights.span()};
    uint64_t position = 0;
    uint64_t vertices = 0;
    const std::optional<uint64_t> total = reader->num_edges();
    for (;;) {
      const EdgeBlock b = reader->ReadEdges(position, buffers);
      const uint64_t count = b.size();
      if (count == 0) break;
      VertexId top = 0;
#pragma omp parallel for num_threads(threads_) reduction(max : top)
      for (uint64_t i = 0; i < count; ++i) top = std::max({top, b.sources[i], b.targets[i]});
      if (top + uint64_t{1} > vertices) {
        vertices = top + uint64_t{1};
        GrowDegrees(vertices);
      }
      uint32_t* out = out_degree_.data();
      uint32_t* in = in_degree_.data();
#pragma omp parallel for num_threads(threads_)
      for (uint64_t i = 0; i < count; ++i) {
        std::atomic_ref<uint32_t>(out[b.sources[i]]).fetch_add(1, std::memory_order_relaxed);
        std::atomic_ref<uint32_t>(in[b.targets[i]]).fetch_add(1, std::memory_order_relaxed);
        records[i] = Record{b.sources[i], b.targets[i], weighted_ ? b.weights[i] : 1.0f};
      }
      copy_->Append(records.data(), count);
      position += count;
      Progress(1, position, total.value_or(0));
    }
    copy_->Flush();
    num_edges_ = position;
    num_vertices_ = std::max(vertices, reader->num_vertices().value_or(0));
    GrowDegrees(num_vertices_);
    reader->Close();
  }

  void GrowDegrees(uint64_t n) {
    const uint64_t old = out_degree_.size();
    if (n <= old) return;
    out_degree_.Resize(n);
    in_degree_.Resize(n);
    std::fill(out_degree_.begin() + old, out_degree_.end(), 0u);
    std::fill(in_degree_.begin() + old, in_degree_.end(), 0u);
  }

  uint32_t IntervalOf(VertexId v) const {
    const auto& b = report_.plan.bounds;
    return static_cast<uint32_t>(std::upper_bound(b.begin(), b.end(), v) - b.begin() - 1);
  }

  // Pass 2: the binary copy → one bucket file per interval (by target).
  void Bucket() {
    const uint32_t p_count = report_.plan.num_intervals();
    const uint64_t per_bucket =
        std::clamp<uint64_t>(Usable() / 4 / p_count / sizeof(Record), 1024, 1 << 18);
    for (uint32_t p = 0; p < p_count; ++p) {
      buckets_.push_back(
          std::make_unique<RecordFile>(tmp_ + "/bucket-" + std::to_string(p), per_bucket));
    }
    const uint64_t block =
        std::clamp<uint64_t>(Usable() / 8 / (2 * sizeof(Record)), 1 << 16, 8 << 20);
    std::vector<Record> in(block), grouped(block);
    std::vector<uint32_t> interval(block);
    std::vector<uint64_t> counts(static_cast<size_t>(threads_) * p_count);
    std::vector<uint64_t> bucket_start(p_count + 1);
    for (uint64_t first = 0; first < num_edges_; first += block) {
      const uint64_t count = std::min(block, num_edges_ - first);
      copy_->Read(first, in.data(), count);
      std::fill(counts.begin(), counts.end(), 0);
      // A stable counting partition: bucket by bucket, thread slices in input order, so the
      // bucket files' contents do not depend on the thread count.
#pragma omp parallel num_threads(threads_)
      {
        const int t = omp_get_thread_num();
        const int nt = omp_get_num_threads();
        const uint64_t lo = count * t / nt, hi = count * (t + 1) / nt;
        uint64_t* c = counts.data() + static_cast<size_t>(t) * p_count;
        for (uint64_t i = lo; i < hi; ++i) ++c[interval[i] = IntervalOf(in[i].target)];
#pragma omp barrier
#pragma omp single
        {
          uint64_t at = 0;
          for (uint32_t p = 0; p < p_count; ++p) {
            bucket_start[p] = at;
            for (int u = 0; u < nt; ++u) {
              uint64_t& slot = counts[static_cast<size_t>(u) * p_count + p];
              const uint64_t n = slot;
              slot = at;
              at += n;
            }
          }
          bucket_start[p_count] = at;
        }
        for (uint64_t i = lo; i < hi; ++i) grouped[c[interval[i]]++] = in[i];
      }
      for (uint32_t p = 0; p < p_count; ++p) {
        buckets_[p]->Append(grouped.data() + bucket_start[p],
                            bucket_start[p + 1] - bucket_start[p]);
      }
      Progress(2, first + count, num_edges_);
    }
    for (auto& b : buckets_) b->Flush();
    std::error_code ignored;
    copy_.reset();
    fs::remove(tmp_ + "/edges.bin", ignored);
  }

  // Pass 3: each bucket, sorted, becomes a shard.
  void WriteShards() {
    const uint32_t p_count = report_.plan.num_intervals();
    windows_.assign(static_cast<size_t>(p_count) * (p_count + 1), WindowEntry{});
    uint64_t done = 0;
    for (uint32_t p = 0; p < p_count; ++p) {
      const uint64_t e = buckets_[p]->records();
      HugeArray<Record> edges(e);
      buckets_[p]->Read(0, edges.data(), e);
      const std::string bucket_path = buckets_[p]->path();
      buckets_[p].reset();
      fs::remove(bucket_path);
      SortBySource(edges);
      WriteShard(p, edges);
      done += e;
      Progress(3, done, num_edges_);
    }
    HashingWriter w(tmp_ + "/" + kWindowsName);
    w.Write(windows_.data(), windows_.size() * sizeof(WindowEntry));
    AddFile(kWindowsName, w.position(), w.Finish());
  }

  // Groups by the high bits of the source (a counting pass), then sorts each small group.
  void SortBySource(HugeArray<Record>& edges) const {
    const uint64_t e = edges.size();
    if (e < 2) return;
    int shift = 0;
    while ((num_vertices_ >> shift) > (uint64_t{1} << 16)) ++shift;
    const uint64_t groups = (num_vertices_ >> shift) + 1;
    std::vector<uint64_t> start(groups + 1, 0);
    for (uint64_t i = 0; i < e; ++i) ++start[(edges[i].source >> shift) + 1];
    for (uint64_t g = 0; g < groups; ++g) start[g + 1] += start[g];
    HugeArray<Record> grouped(e);
    std::vector<uint64_t> cursor(start.begin(), start.end() - 1);
    for (uint64_t i = 0; i < e; ++i) grouped[cursor[edges[i].source >> shift]++] = edges[i];
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 64)
    for (uint64_t g = 0; g < groups; ++g)
      std::sort(grouped.begin() + start[g], grouped.begin() + start[g + 1]);
    edges = std::move(grouped);
  }

  void WriteShard(uint32_t p, const HugeArray<Record>& edges) {
    const uint32_t p_count = report_.plan.num_intervals();
    std::vector<SourceRun> runs;
    for (uint64_t i = 0; i < edges.size(); ++i) {
      if (runs.empty() || runs.back().source != edges[i].source)
        runs.push_back(SourceRun{edges[i].source, 0});
      ++runs.back().count;
    }
    // Windows: the first run (and edge) of shard p whose source lies in interval q.
    uint64_t run = 0, edge = 0;
    for (uint32_t q = 0; q <= p_count; ++q) {
      const uint64_t begin = q < p_count ? report_.plan.bounds[q] : UINT64_MAX;
      while (run < runs.size() && runs[run].source < begin) edge += runs[run++].count;
      windows_[static_cast<size_t>(p) * (p_count + 1) + q] = WindowEntry{run, edge};
    }
    windows_[static_cast<size_t>(p) * (p_count + 1) + p_count] =
        WindowEntry{runs.size(), edges.size()};

    ShardFileHeader h{};
    std::memcpy(h.magic, kShardMagic, sizeof(kShardMagic));
    h.version = kShardFormatVersion;
    h.shard = p;
    h.num_runs = runs.size();
    h.num_edges = edges.size();
    h.runs_pos = kShardAlignment;
    h.targets_pos = ShardAlignUp(h.runs_pos + runs.size() * sizeof(SourceRun));
    const std::string adj_name = ShardFileName(p, ".adj");
    HashingWriter adj(tmp_ + "/" + adj_name);
    adj.Write(&h, sizeof(h));
    adj.PadTo(kShardAlignment);
    adj.Write(runs.data(), runs.size() * sizeof(SourceRun));
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
    HashingWriter val(tmp_ + "/" + val_name);
    write_column(val, [](const Record& r) {
      uint32_t bits;
      std::memcpy(&bits, &r.weight, 4);
      return bits;
    });
    AddFile(val_name, ShardAlignUp(val.position()), val.Finish());
  }

  void WriteDegrees() {
    HashingWriter w(tmp_ + "/" + kDegreesName);
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
  uint64_t num_edges_ = 0;
  HugeArray<uint32_t> out_degree_, in_degree_;
  std::unique_ptr<RecordFile> copy_;
  std::vector<std::unique_ptr<RecordFile>> buckets_;
  std::vector<WindowEntry> windows_;
  std::vector<ManifestFile> files_;
};

}  // namespace

std::string DefaultShardDir(const std::string& input) { return input + ".shards"; }

ShardReport ShardGraph(const std::string& input, const ShardOptions& options) {
  const std::string dir = options.out_dir.empty() ? DefaultShardDir(input) : options.out_dir;
  InputFingerprint fingerprint = InputFingerprint::Of(input);
  std::string reason;
  if (fs::exists(dir + "/" + kManifestName) && !options.force) {
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
    if (options.log) options.log("rebuilding " + dir + ": " + reason);
  } else if (options.force && fs::exists(dir)) {
    reason = "--force";
  }
  ShardReport report = Sharder(input, options, dir).Run(std::move(fingerprint));
  report.rebuild_reason = reason;
  return report;
}

}  // namespace needle
