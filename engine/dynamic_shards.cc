#include "engine/dynamic_shards.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "base/error.h"
#include "base/parallel.h"
#include "shards/hashing_writer.h"
#include "shards/manifest.h"
#include "shards/run_codec.h"
#include "shards/shard_layout.h"

namespace needle {
namespace {

// One set's shard files opened for the builder's reads (through the page cache: the reads are
// of any length and offset), and the window-sized reads it makes of them.
class SetReader {
 public:
  // dynamic: `set` is a dynamic shard set (its files counted as FileKind::kDynamic).
  SetReader(IoBackend& io, const ShardSet& set, bool dynamic, bool targets)
      : io_(&io), set_(&set) {
    auto open = [&](const std::string& path, FileKind kind) {
      return io.Open(path, dynamic ? FileKind::kDynamic : kind, false, false,
                     IoBackend::Caching::kBuffered);
    };
    for (uint32_t p = 0; p < set.num_intervals(); ++p) {
      scatter_.push_back(open(set.ScatterIndexPath(p), FileKind::kScatterIndex));
      if (!targets) continue;
      adjacency_.push_back(open(set.AdjacencyPath(p), FileKind::kAdjacency));
      if (set.weighted()) weights_.push_back(open(set.ValuesPath(p), FileKind::kWeights));
    }
  }

  uint64_t Edges(uint32_t q, uint32_t r) const {
    return set_->Window(q, r + 1).first_edge - set_->Window(q, r).first_edge;
  }

  // The runs of window (q, r), read from the scatter index, checked as they are decoded.
  const std::vector<SourceRun>& Runs(uint32_t q, uint32_t r) {
    const uint64_t begin = set_->ScatterOffset(q, r), end = set_->ScatterOffset(q + 1, r);
    packed_.resize(end - begin);
    Read(scatter_[r], begin, packed_.data(), packed_.size());
    return RunsAt(q, r, packed_.data());
  }
  // Interval r's scatter index, every window's packed runs, read whole (for ForKeptRuns).
  void PackedRuns(uint32_t r, std::vector<uint8_t>& out) {
    const uint32_t n = set_->num_intervals();
    const uint64_t begin = set_->ScatterOffset(0, r), end = set_->ScatterOffset(n, r);
    out.resize(end - begin);
    Read(scatter_[r], begin, out.data(), out.size());
  }
  // The packed runs of shard q's windows (q, r) with want[r], read in one batch of requests
  // into `out`; at[r]: where window (q, r)'s bytes begin there (for RunsAt).
  void ShardRuns(uint32_t q, const std::vector<uint8_t>& want, std::vector<uint8_t>& out,
                 std::vector<uint64_t>& at) {
    const uint32_t n = set_->num_intervals();
    at.assign(n, 0);
    uint64_t total = 0;
    for (uint32_t r = 0; r < n; ++r) {
      at[r] = total;
      if (want[r]) total += set_->ScatterOffset(q + 1, r) - set_->ScatterOffset(q, r);
    }
    out.resize(total);
    requests_.clear();
    for (uint32_t r = 0; r < n; ++r) {
      const uint64_t begin = set_->ScatterOffset(q, r), end = set_->ScatterOffset(q + 1, r);
      if (!want[r] || end == begin) continue;
      requests_.push_back(IoRequest{&scatter_[r], begin, out.data() + at[r], end - begin, false});
    }
    if (!requests_.empty()) io_->Run(requests_);
  }
  // Window (q, r)'s runs from its packed bytes at `packed` (as ShardRuns(q) or the scatter
  // index holds them), checked as they are decoded.
  const std::vector<SourceRun>& RunsAt(uint32_t q, uint32_t r, const uint8_t* packed) {
    const uint64_t begin = set_->ScatterOffset(q, r), end = set_->ScatterOffset(q + 1, r);
    runs_.clear();
    const WindowEntry &first = set_->Window(q, r), &last = set_->Window(q, r + 1);
    const RunDecodeStatus status = DecodeRuns(
        packed, packed + (end - begin), last.first_run - first.first_run,
        set_->interval_begin(r), set_->interval_end(r), last.first_edge - first.first_edge,
        [&](uint32_t source, uint64_t count) {
          runs_.push_back(SourceRun{source, static_cast<uint32_t>(count)});
        });
    if (!status.ok()) throw Damaged(q, r, begin + status.at, status.error);
    return runs_;
  }
  // Calls f(source, at, count) for each run of window (q, r) from its packed bytes at `packed`
  // whose source keep() holds, `at` its first edge in the window, checking the runs as RunsAt
  // does.
  // Uses nothing of the reader's but the set: threads may call it at once.
  template <class Keep, class F>
  void ForKeptRuns(uint32_t q, uint32_t r, const uint8_t* packed, const Keep& keep,
                   F&& f) const {
    const uint64_t begin = set_->ScatterOffset(q, r), end = set_->ScatterOffset(q + 1, r);
    const WindowEntry &first = set_->Window(q, r), &last = set_->Window(q, r + 1);
    uint64_t at = 0;
    const RunDecodeStatus status = DecodeRuns(
        packed, packed + (end - begin), last.first_run - first.first_run,
        set_->interval_begin(r), set_->interval_end(r), last.first_edge - first.first_edge,
        [&](uint32_t source, uint64_t count) {
          if (keep(source)) f(source, at, count);
          at += count;
        });
    if (!status.ok()) throw Damaged(q, r, begin + status.at, status.error);
  }
  // Shard q's targets (column 0) or weights (column 1), 4 bytes an edge, into `out`, which
  // holds its edges from `base` on: those of `ranges` ([begin, end) from base, ascending and
  // apart), in one batch of requests. The rest of `out` is left unread.
  void Columns(int column, uint32_t q, uint64_t base,
               const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
               std::vector<uint32_t>& out) {
    const uint64_t origin = (column == 0 ? set_->header(q).targets_pos : 0) + 4 * base;
    const IoFile& file = column == 0 ? adjacency_[q] : weights_[q];
    requests_.clear();
    for (const auto& [begin, end] : ranges) {
      requests_.push_back(
          IoRequest{&file, origin + 4 * begin, out.data() + begin, 4 * (end - begin), false});
    }
    io_->Run(requests_);
  }

  void Read(const IoFile& file, uint64_t offset, void* buffer, size_t length) {
    if (length == 0) return;
    const IoRequest request{&file, offset, buffer, length, false};
    io_->Run({&request, 1});
  }

 private:
  Error Damaged(uint32_t q, uint32_t r, uint64_t byte, const char* what) const {
    return Error::AtByte(set_->ScatterIndexPath(r), byte,
                         std::string("window of shard ") + std::to_string(q) + ": " + what +
                             " (the scatter index is damaged)");
  }

  IoBackend* io_;
  const ShardSet* set_;
  std::vector<IoFile> scatter_, adjacency_, weights_;
  std::vector<uint8_t> packed_;
  std::vector<SourceRun> runs_;
  std::vector<IoRequest> requests_;
};

// File `name` of `from` (degrees.bin, order.bin) as the new set's in `dir`: a hard link where
// the file system allows one, else a copy.
void LinkFile(const ShardSet& from, const char* name, const std::string& dir) {
  const std::string source = from.dir() + "/" + name, target = dir + "/" + name;
  if (link(source.c_str(), target.c_str()) == 0) return;
  std::error_code error;
  std::filesystem::copy_file(source, target, error);
  if (error) throw Error(target, std::string("cannot copy ") + name + ": " + error.message());
}

// Shard q's files of `from` (its targets, and weights where the set has them) hard-linked into
// `dir` under the same names, their manifest entries (from's) appended to `files`; false, and
// nothing left in `dir`, where one cannot be (another file system): the caller writes them.
bool LinkShard(const ShardSet& from, uint32_t q, const std::string& dir,
               std::vector<ManifestFile>& files) {
  std::vector<std::string> linked;
  std::vector<ManifestFile> entries;
  for (int c = 0; c < (from.weighted() ? 2 : 1); ++c) {
    const std::string name = ShardFileName(q, c == 0 ? ".adj" : ".val");
    const ManifestFile* file = from.manifest().File(name);
    const std::string source = from.dir() + "/" + name, target = dir + "/" + name;
    if (file == nullptr || link(source.c_str(), target.c_str()) != 0) {
      for (const std::string& made : linked) unlink(made.c_str());
      return false;
    }
    linked.push_back(target);
    entries.push_back(*file);
  }
  files.insert(files.end(), entries.begin(), entries.end());
  return true;
}

// Every source: a whole shard's.
struct AllSources {
  bool operator()(VertexId) const { return true; }
};

// Window (q, r)'s messages into `in` at page grain: `in` filled with identity, and in
// `requests` one read for each run of marked chunks (the rest of the window was consumed:
// window_chunks.h). A run ends on a chunk boundary or at the window's end, where the window's
// bytes end (padded under O_DIRECT), so every transfer stays aligned.
void MarkedRequests(const ShardSet& from, const EdgeValueFiles& values, const WindowChunks& marks,
                    uint32_t q, uint32_t r, const std::vector<std::byte>& identity,
                    AlignedBuffer& in, std::vector<IoRequest>& requests) {
  const size_t width = identity.size();
  const uint64_t bytes = values.WindowBytes(q, r);
  FillMessages(in.data(), bytes / width, identity.data(), width);
  const uint64_t base = from.Window(q, r).first_edge, last = from.Window(q, r + 1).first_edge;
  marks.ForEachRun(q, r, [&](uint64_t first, uint64_t end) {
    const uint64_t at = (first - base) * width;
    const uint64_t stop = end == last ? bytes : (end - base) * width;
    requests.push_back(IoRequest{&values.file(q), values.WindowOffset(q, r) + at,
                                 in.data() + at, stop - at, false});
  });
}

// Two buffers, each with the requests in flight on it, so that one window's I/O goes on while
// the other's is used: the next window's messages read ahead, the last one's written behind.
// Waits for what is still in flight when destroyed (an error thrown meanwhile), so that no
// request outlives its buffer.
class BufferPair {
 public:
  explicit BufferPair(IoBackend& io) : io_(&io) {}
  BufferPair(const BufferPair&) = delete;
  BufferPair& operator=(const BufferPair&) = delete;
  ~BufferPair() {
    for (Slot& slot : slots_) {
      if (!slot.busy) continue;
      try {
        io_->Wait(slot.ticket);
      } catch (...) {  // the error that unwinds the caller is the one to report
      }
    }
  }

  // Buffer `i` (0 or 1), of at least `bytes`, once its requests have finished.
  AlignedBuffer& Take(int i, uint64_t bytes) {
    Settle(i);
    if (slots_[i].buffer.size() < bytes) slots_[i].buffer = AlignedBuffer(bytes);
    return slots_[i].buffer;
  }
  // Starts `requests` on buffer `i` (taken, and not busy).
  void Start(int i, std::span<const IoRequest> requests) {
    slots_[i].ticket = io_->Submit(requests);
    slots_[i].busy = true;
  }
  // Waits for buffer i's requests (throws their error).
  void Settle(int i) {
    if (!slots_[i].busy) return;
    slots_[i].busy = false;
    io_->Wait(slots_[i].ticket);
  }

 private:
  struct Slot {
    AlignedBuffer buffer;
    IoBackend::Ticket ticket = 0;
    bool busy = false;
  };
  IoBackend* io_;
  Slot slots_[2];
};

}  // namespace

uint32_t DynamicSetWritten::WholeCount() const {
  return static_cast<uint32_t>(std::count_if(whole.begin(), whole.end(),
                                             [](uint8_t w) { return w != 0; }));
}

DynamicSetWritten WriteDynamicSet(IoBackend& io, const ShardSet& from, bool from_dynamic,
                                  const KeptSources& keep, const std::string& dir, int threads,
                                  const WholeShardRule& rule) {
  const uint32_t n = from.num_intervals();
  const uint32_t parts =
      static_cast<uint32_t>(std::clamp<int64_t>(ThreadCount(threads), 1, std::max(n, 1u)));
  SetReader reader(io, from, from_dynamic, /*targets=*/true);
  WriteBuffers buffers;
  SyncBatch synced;  // the files, synced together before the manifest
  Manifest manifest = from.manifest();
  manifest.files.clear();
  auto add = [&](const std::string& name, uint64_t size, uint64_t digest) {
    manifest.files.push_back(ManifestFile{name, size, digest});
  };
  // The intervals with a kept source: only their windows keep runs.
  std::vector<uint8_t> holds(n, 0);
  ParallelFor(n, threads, [&](uint64_t r) {
    const VertexId end = from.interval_end(static_cast<uint32_t>(r));
    for (VertexId u = from.interval_begin(static_cast<uint32_t>(r)); u < end && !holds[r]; ++u) {
      holds[r] = keep(u) ? 1 : 0;
    }
  });
  // The scatter indexes, interval by interval: each window's runs of kept sources, packed
  // again; their counts make the window index. The windows are cut into `parts` pieces of
  // consecutive shards, each packed by a thread into its own bytes, written in order.
  std::vector<WindowEntry> windows(static_cast<size_t>(n) * (n + 1));
  std::vector<uint64_t> kept_runs(static_cast<size_t>(n) * n), kept_edges(kept_runs.size());
  std::vector<uint64_t> offsets(n + 1);
  // (Each interval's index read whole: about 2 bytes a run, no more than the window runs the
  // stopped transport held for an interval.)
  std::vector<uint8_t> index;
  std::vector<std::vector<uint8_t>> packed(parts);
  auto piece = [n, parts](uint32_t k) { return static_cast<uint32_t>(uint64_t{n} * k / parts); };
  DynamicSetWritten written;
  written.whole.assign(n, 0);
  // Writes the index of every interval r with redo[r] (a whole shard's windows keep every
  // run), and counts each of its windows' kept runs and edges.
  std::vector<size_t> entry(n);  // interval r's index in manifest.files
  // The index of an interval without a kept source (every window empty) is the same bytes
  // for every such interval: written once, then linked under the others' names (a link costs
  // far less than creating a file: edge_value_files.cc).
  std::string empty_index;  // its first path
  ManifestFile empty_entry;
  std::vector<uint8_t> linked(n, 0);
  auto write_indexes = [&](const std::vector<uint8_t>& redo) {
    for (uint32_t r = 0; r < n; ++r) {
      if (!redo[r]) continue;
      const std::string name = ScatterIndexName(r), path = dir + "/" + name;
      if (linked[r] || (redo[r] == 2 && path == empty_index)) {
        // Written again below as a file of its own, the links to it left as they are.
        unlink(path.c_str());
        linked[r] = 0;
        if (path == empty_index) empty_index.clear();
      } else if (!holds[r] && !empty_index.empty() &&
                 link(empty_index.c_str(), path.c_str()) == 0) {
        linked[r] = 1;  // (its windows keep no run: kept_runs and kept_edges stay 0)
        entry[r] = manifest.files.size();
        add(name, empty_entry.size, empty_entry.digest);
        continue;
      }
      for (auto& bytes : packed) bytes.clear();
      offsets[0] = 8 * (uint64_t{n} + 1);
      if (holds[r]) {
        reader.PackedRuns(r, index);
        ParallelParts(parts, [&](uint32_t k) {
          std::vector<uint8_t>& out = packed[k];
          for (uint32_t q = piece(k); q < piece(k + 1); ++q) {
            uint64_t runs = 0, edges = 0;
            uint32_t previous = from.interval_begin(r);
            const uint8_t* at =
                index.data() + (from.ScatterOffset(q, r) - from.ScatterOffset(0, r));
            auto pack = [&](uint32_t source, uint64_t, uint64_t count) {
              const size_t size = out.size();
              out.resize(size + 10);
              const SourceRun run{source, static_cast<uint32_t>(count)};
              out.resize(PutRun(previous, run, out.data() + size) - out.data());
              previous = source;
              ++runs;
              edges += count;
            };
            if (written.whole[q]) {
              reader.ForKeptRuns(q, r, at, AllSources{}, pack);
            } else {
              reader.ForKeptRuns(q, r, at, keep, pack);
            }
            kept_runs[static_cast<size_t>(q) * n + r] = runs;
            kept_edges[static_cast<size_t>(q) * n + r] = edges;
            offsets[q + 1] = out.size();  // within the piece, made absolute below
          }
        });
      }
      for (uint32_t k = 0, q = 0; k < parts; ++k) {
        const uint64_t origin = offsets[q];
        for (; q < piece(k + 1); ++q) offsets[q + 1] = holds[r] ? origin + offsets[q + 1] : origin;
      }
      HashingWriter w(io, path, FileKind::kDynamic, &buffers);
      w.Write(offsets.data(), offsets.size() * sizeof(uint64_t));
      for (const auto& bytes : packed) w.Write(bytes.data(), bytes.size());
      const uint64_t size = ShardAlignUp(w.position());
      const uint64_t digest = w.Finish(&synced);
      if (redo[r] == 1) {  // the first write
        entry[r] = manifest.files.size();
        add(name, size, digest);
        if (!holds[r] && empty_index.empty()) {
          empty_index = path;
          empty_entry = manifest.files.back();
        }
      } else {
        manifest.files[entry[r]] = ManifestFile{name, size, digest};
      }
    }
  };
  write_indexes(std::vector<uint8_t>(n, 1));
  // Which shards are whole: the rule asked with each shard's kept edges, as the indexes just
  // written counted them. Where one is, the index of every interval that left out a run of a
  // whole shard's window is written again, keeping every run there (replacing the first).
  if (rule) {
    for (uint32_t q = 0; q < n; ++q) {
      uint64_t kept = 0;
      for (uint32_t r = 0; r < n; ++r) kept += kept_edges[static_cast<size_t>(q) * n + r];
      const uint64_t edges = from.Window(q, n).first_edge;
      written.whole[q] = edges > 0 && rule(q, kept, edges) ? 1 : 0;
    }
    std::vector<uint8_t> redo(n, 0);
    for (uint32_t q = 0; q < n; ++q) {
      if (!written.whole[q]) continue;
      for (uint32_t r = 0; r < n; ++r) {
        const uint64_t window = from.Window(q, r + 1).first_edge - from.Window(q, r).first_edge;
        if (kept_edges[static_cast<size_t>(q) * n + r] < window) redo[r] = 2;
      }
    }
    for (uint32_t r = 0; r < n; ++r) holds[r] = holds[r] || redo[r] != 0;
    write_indexes(redo);
  }
  // The shards: the kept runs' targets (and weights), window by window. A shard's runs are
  // read in one batch, then each of its columns under the kept runs (reads less than
  // kGapBytes apart joined), into a buffer from its first window that keeps an edge to its
  // last: no more than an interval buffer of the stopped transport held. The windows are cut
  // into `parts` pieces, each decoded by a thread: first for the reads, then to move the kept
  // edges of each column to the front of the piece's place in the buffer, written in order.
  constexpr uint64_t kGapBytes = 16 << 10;
  uint64_t total = 0;
  std::vector<uint32_t> column;
  std::vector<uint8_t> want(n), shard_runs;
  std::vector<uint64_t> runs_at;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> piece_ranges(parts);
  std::vector<uint64_t> piece_kept(parts);
  // Adds edges [begin, end) to `to`, joined to its last range when less than kGapBytes apart.
  auto join = [](std::vector<std::pair<uint64_t, uint64_t>>& to, uint64_t begin, uint64_t end) {
    if (!to.empty() && 4 * (begin - to.back().second) < kGapBytes) {
      to.back().second = end;
    } else {
      to.emplace_back(begin, end);
    }
  };
  for (uint32_t q = 0; q < n; ++q) {
    uint64_t runs = 0, edges = 0;
    for (uint32_t r = 0; r <= n; ++r) {
      windows[static_cast<size_t>(q) * (n + 1) + r] = WindowEntry{runs, edges};
      if (r == n) break;
      runs += kept_runs[static_cast<size_t>(q) * n + r];
      edges += kept_edges[static_cast<size_t>(q) * n + r];
    }
    total += edges;
    if (written.whole[q] && LinkShard(from, q, dir, manifest.files)) {
      written.whole[q] = 2;
      continue;
    }
    uint32_t first = n, last = 0;  // the windows that keep an edge: [first, last]
    for (uint32_t r = 0; r < n; ++r) {
      want[r] = kept_edges[static_cast<size_t>(q) * n + r] > 0;
      if (want[r]) first = std::min(first, r), last = r;
    }
    const uint64_t base = first < n ? from.Window(q, first).first_edge : 0;
    // Piece k: windows [window(k), window(k + 1)) of [first, last].
    auto window = [&](uint32_t k) {
      return first + static_cast<uint32_t>(uint64_t{last + 1 - first} * k / parts);
    };
    // Visits the kept runs of piece k's wanted windows in order: f(edge from base, count).
    auto kept = [&](uint32_t k, auto&& f) {
      for (uint32_t r = window(k); r < window(k + 1); ++r) {
        if (!want[r]) continue;
        const uint64_t at = from.Window(q, r).first_edge - base;
        auto place = [&](uint32_t, uint64_t from_at, uint64_t count) { f(at + from_at, count); };
        if (written.whole[q]) {
          reader.ForKeptRuns(q, r, shard_runs.data() + runs_at[r], AllSources{}, place);
        } else {
          reader.ForKeptRuns(q, r, shard_runs.data() + runs_at[r], keep, place);
        }
      }
    };
    ranges.clear();
    if (first < n) {
      reader.ShardRuns(q, want, shard_runs, runs_at);
      column.resize(from.Window(q, last + 1).first_edge - base);
      ParallelParts(parts, [&](uint32_t k) {
        auto& mine = piece_ranges[k];
        mine.clear();
        kept(k, [&](uint64_t at, uint64_t count) { join(mine, at, at + count); });
      });
      for (const auto& mine : piece_ranges) {
        for (const auto& [begin, end] : mine) join(ranges, begin, end);
      }
    }
    ShardFileHeader h = from.header(q);
    h.num_runs = runs;
    h.num_edges = edges;
    for (int c = 0; c < (from.weighted() ? 2 : 1); ++c) {
      const std::string name = ShardFileName(q, c == 0 ? ".adj" : ".val");
      HashingWriter w(io, dir + "/" + name, FileKind::kDynamic, &buffers);
      if (c == 0) {
        w.Write(&h, sizeof(h));
        w.PadTo(kShardAlignment);
      }
      if (first < n) {
        if (!ranges.empty()) reader.Columns(c, q, base, ranges, column);
        ParallelParts(parts, [&](uint32_t k) {
          uint64_t to = from.Window(q, window(k)).first_edge - base;
          const uint64_t start = to;
          kept(k, [&](uint64_t at, uint64_t count) {
            std::memmove(column.data() + to, column.data() + at, 4 * count);
            to += count;
          });
          piece_kept[k] = to - start;
        });
        for (uint32_t k = 0; k < parts; ++k) {
          const uint64_t start = from.Window(q, window(k)).first_edge - base;
          w.Write(column.data() + start, 4 * piece_kept[k]);
        }
      }
      const uint64_t size = w.position();
      const uint64_t digest = w.Finish(&synced);
      add(name, ShardAlignUp(size), digest);
    }
  }
  {
    HashingWriter w(io, dir + "/" + kWindowsName, FileKind::kDynamic, &buffers);
    w.Write(windows.data(), windows.size() * sizeof(WindowEntry));
    const uint64_t size = w.position();
    const uint64_t digest = w.Finish(&synced);
    add(kWindowsName, ShardAlignUp(size), digest);
  }
  // The vertex files, as they are: the same vertices in the same order (a reordered set's
  // order.bin too, which its manifest's choices call for).
  for (const char* name : {kDegreesName, kOrderName}) {
    const ManifestFile* file = from.manifest().File(name);
    if (file == nullptr) continue;
    LinkFile(from, name, dir);
    add(name, file->size, file->digest);
  }
  manifest.num_edges = total;
  synced.Sync();
  WriteManifest(manifest, dir);
  written.edges = total;
  return written;
}

std::vector<uint8_t> MoveMessages(IoBackend& io, const ShardSet& from, bool from_dynamic,
                                  const EdgeValueFiles& from_values,
                                  const std::vector<uint8_t>& from_carries, const ShardSet& to,
                                  bool to_dynamic, const EdgeValueFiles& to_values,
                                  const std::vector<std::byte>& identity,
                                  const WindowChunks* from_marks) {
  const uint32_t n = to.num_intervals();
  const size_t width = identity.size();
  SetReader from_runs(io, from, from_dynamic, /*targets=*/false);
  SetReader to_runs(io, to, to_dynamic, /*targets=*/false);
  std::vector<uint8_t> carries(static_cast<size_t>(n) * n, 0);
  std::vector<SourceRun> mine;
  std::vector<IoRequest> requests;
  // The windows that carry messages, in order. While one is moved, the next one's messages
  // are read and the last one's written: four windows' messages, no more than the transport
  // held before it stopped (two interval buffers, each holding an interval's in-edges, and two
  // scatter buffers, each an interval's out-edges: each at least a window).
  std::vector<std::pair<uint32_t, uint32_t>> todo;
  for (uint32_t q = 0; q < n; ++q) {
    for (uint32_t r = 0; r < n; ++r) {
      const size_t w = static_cast<size_t>(q) * n + r;
      // (One with no edges in `to` is still checked below.)
      if (from_carries[w] != 0 && from_runs.Edges(q, r) > 0) todo.emplace_back(q, r);
    }
  }
  BufferPair reads(io), writes(io);
  auto read = [&](size_t k) {
    const auto [q, r] = todo[k];
    const uint64_t bytes = from_values.WindowBytes(q, r);
    AlignedBuffer& in = reads.Take(static_cast<int>(k % 2), bytes);
    requests.clear();
    if (from_marks == nullptr) {
      requests.push_back(
          IoRequest{&from_values.file(q), from_values.WindowOffset(q, r), in.data(), bytes, false});
    } else {
      MarkedRequests(from, from_values, *from_marks, q, r, identity, in, requests);
    }
    reads.Start(static_cast<int>(k % 2), requests);
  };
  if (!todo.empty()) read(0);
  for (size_t i = 0; i < todo.size(); ++i) {
    const auto [q, r] = todo[i];
    const size_t w = static_cast<size_t>(q) * n + r;
    mine = to_runs.Runs(q, r);
    const std::vector<SourceRun>& theirs = from_runs.Runs(q, r);
    if (i + 1 < todo.size()) read(i + 1);
    const int slot = static_cast<int>(i % 2);
    const AlignedBuffer& in = reads.Take(slot, 0);  // its read finished
    const uint64_t bytes = to_values.WindowBytes(q, r);
    AlignedBuffer& out = writes.Take(slot, bytes);
    bool any = false;
    size_t k = 0;        // their run
    uint64_t their = 0;  // its first edge in their window
    uint64_t at = 0;
    // A source of `from` left out of `to` must carry nothing: its messages would be lost.
    auto skip = [&](uint32_t below) {
      for (; k < theirs.size() && theirs[k].source < below; their += theirs[k++].count) {
        for (uint64_t e = their; e < their + theirs[k].count; ++e) {
          if (std::memcmp(in.data() + e * width, identity.data(), width) != 0) {
            throw std::logic_error("vertex " + std::to_string(theirs[k].source) +
                                   " has a message on an edge the new shards leave out");
          }
        }
      }
    };
    for (const SourceRun& run : mine) {
      skip(run.source);
      std::byte* dst = out.data() + at * width;
      bool copy = false;
      if (k < theirs.size() && theirs[k].source == run.source) {
        if (theirs[k].count != run.count) {
          throw Error(to.ScatterIndexPath(r),
                      "vertex " + std::to_string(run.source) + " has " +
                          std::to_string(run.count) + " edges in window of shard " +
                          std::to_string(q) + " here and " + std::to_string(theirs[k].count) +
                          " in " + from.ScatterIndexPath(r) + " (a dynamic shard is damaged)");
        }
        copy = true;
      }
      if (copy) {
        std::memcpy(dst, in.data() + their * width, run.count * width);
        for (uint64_t e = 0; e < run.count && !any; ++e) {
          any = std::memcmp(dst + e * width, identity.data(), width) != 0;
        }
        their += theirs[k++].count;
      } else {
        FillMessages(dst, run.count, identity.data(), width);
      }
      at += run.count;
    }
    skip(UINT32_MAX);
    if (!any) continue;
    carries[w] = 1;
    std::memset(out.data() + at * width, 0, bytes - at * width);  // the window's padding
    const IoRequest request{&to_values.file(q), to_values.WindowOffset(q, r), out.data(), bytes,
                            true};
    writes.Start(slot, {&request, 1});
  }
  writes.Settle(0);  // (every read was taken in the loop)
  writes.Settle(1);
  return carries;
}

}  // namespace needle
