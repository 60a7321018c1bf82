// io_bench: the raw sequential read and write bandwidth of each I/O backend on this disk —
// the ceiling the sharder and the engine's shard reads are measured against.
//
// For io_uring and pread it reads and writes a --size-mb file in --block-kb blocks, keeping
// up to --qd blocks in flight (two batches of --qd blocks, one submitted while the other is
// waited for), in three modes: buffered with a warm page cache (what repeated passes see),
// buffered cold (the file evicted first; reads only) and O_DIRECT (cold by construction).
// Writes are timed to the last completion, and again including the fsync. Every figure is
// the median of --repeats runs, in GB/s (10^9 bytes per second). Each block carries its index
// in its first 8 bytes and every read checks it, so a wrong backend cannot post a number.
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "bench/bench_main.h"
#include "bench/timing.h"
#include "io/io_backend.h"

namespace {

using needle::bench::Median;

using needle::AlignedBuffer;
using needle::IoBackend;
using needle::IoFile;
using needle::IoKind;
using needle::IoOptions;
using needle::IoRequest;

struct BenchOptions {
  std::string dir = "/tmp/needle-io";
  int size_mb = 1024;
  int block_kb = 1024;
  int qd = 32;
  int repeats = 3;
  bool keep = false;
  bool fixed = true;
};

namespace po = boost::program_options;

// Parses the command line; returns false after printing --help.
bool ParseArgs(int argc, char** argv, BenchOptions& o) {
  bool no_fixed = false;
  po::options_description options("io_bench options");
  auto add = options.add_options();
  add("help,h", "show this help");
  add("dir", po::value(&o.dir)->default_value(o.dir), "where the test file goes");
  add("size-mb", po::value(&o.size_mb)->default_value(o.size_mb), "file size in MiB");
  add("block-kb", po::value(&o.block_kb)->default_value(o.block_kb),
      "block size in KiB, a multiple of 4 (direct I/O needs 4 KiB blocks)");
  add("qd", po::value(&o.qd)->default_value(o.qd), "blocks in flight");
  add("repeats", po::value(&o.repeats)->default_value(o.repeats), "runs per figure (median)");
  add("keep", po::bool_switch(&o.keep), "leave the files in --dir");
  add("no-fixed", po::bool_switch(&no_fixed), "do not register the buffers with io_uring");
  if (!needle::bench::ParseOrHelp(argc, argv, options)) return false;
  o.fixed = !no_fixed;
  if (o.size_mb < 1 || o.block_kb < 4 || o.block_kb % 4 != 0 || o.qd < 1 || o.qd > 4096 ||
      o.repeats < 1) {
    throw po::error(
        "--size-mb, --qd (1..4096) and --repeats must be positive, --block-kb a multiple of 4");
  }
  if (static_cast<int64_t>(o.size_mb) * 1024 % o.block_kb != 0) {
    throw po::error("--size-mb must be a whole number of --block-kb blocks");
  }
  return true;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}


// One sequential pass over a file with a fixed pool of 2 × qd block buffers.
class Streamer {
 public:
  Streamer(const BenchOptions& o)
      : block_(static_cast<size_t>(o.block_kb) * 1024),
        blocks_(static_cast<uint64_t>(o.size_mb) * 1024 / o.block_kb),
        qd_(static_cast<size_t>(o.qd)),
        pool_(2 * qd_ * block_) {
    std::memset(pool_.data(), 0x5A, pool_.size());
  }

  AlignedBuffer* pool() { return &pool_; }
  uint64_t bytes() const { return blocks_ * block_; }

  // Reads or writes the whole file; returns the seconds it took (writes: until the last
  // completion, without fsync). Throws on a block that does not carry its index.
  double Pass(IoBackend& io, const IoFile& file, bool write) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<IoRequest> batch[2];
    IoBackend::Ticket ticket[2] = {0, 0};
    uint64_t first_block[2] = {0, 0};
    const uint64_t batches = (blocks_ + qd_ - 1) / qd_;
    for (uint64_t k = 0; k <= batches; ++k) {
      const int half = static_cast<int>(k % 2);
      const int previous = 1 - half;
      if (k < batches) {
        // The half of the pool batch k - 2 used is free: it was waited for last round.
        batch[half].clear();
        first_block[half] = k * qd_;
        const uint64_t end = std::min<uint64_t>(blocks_, (k + 1) * qd_);
        for (uint64_t b = k * qd_; b < end; ++b) {
          std::byte* buffer = Buffer(half, b - k * qd_);
          if (write) std::memcpy(buffer, &b, sizeof b);
          batch[half].push_back({&file, b * block_, buffer, block_, write});
        }
        ticket[half] = io.Submit(batch[half]);
      }
      if (k > 0) {
        io.Wait(ticket[previous]);
        if (!write) Check(previous, first_block[previous], batch[previous].size());
      }
    }
    return Seconds(start);
  }

 private:
  std::byte* Buffer(int half, uint64_t i) {
    return pool_.data() + (static_cast<size_t>(half) * qd_ + i) * block_;
  }
  void Check(int half, uint64_t first, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      uint64_t stamp = 0;
      std::memcpy(&stamp, Buffer(half, i), sizeof stamp);
      if (stamp != first + i) {
        throw std::runtime_error("block " + std::to_string(first + i) + " read back as block " +
                                 std::to_string(stamp));
      }
    }
  }

  size_t block_;
  uint64_t blocks_;
  size_t qd_;
  AlignedBuffer pool_;
};

// Median GB/s per measurement; nullopt where not measured.
struct Row {
  std::string backend;
  std::string mode;
  std::optional<double> read, write, write_sync;
};

double GBps(uint64_t bytes, double seconds) { return static_cast<double>(bytes) / seconds / 1e9; }

void Fsync(const IoFile& f) {
  if (::fsync(f.fd()) != 0) needle::ThrowSystemError(f.path(), "fsync failed");
}

std::vector<Row> Measure(IoKind kind, const BenchOptions& o, const std::string& data_path,
                         const std::string& write_path, std::string* name, bool* fixed) {
  std::vector<Row> rows;
  Streamer s(o);
  for (int mode = 0; mode < 3; ++mode) {
    const bool direct = mode == 2;
    const bool cold = mode != 0;
    IoOptions options;
    options.kind = kind;
    options.direct = direct;
    options.queue_depth = static_cast<unsigned>(o.qd);
    options.register_buffers = o.fixed;
    std::unique_ptr<IoBackend> io = IoBackend::Create(options);
    *name = io->name();
    AlignedBuffer* pool[] = {s.pool()};
    *fixed = io->RegisterBuffers(pool);
    Row row{*name,
            direct ? "direct (cold)"
            : cold ? "buffered (cold)"
                   : "buffered (warm)",
            {},
            {},
            {}};

    std::vector<double> reads;
    if (!cold) {  // warm the cache
      IoFile in = io->Open(data_path, needle::FileKind::kOther, false);
      s.Pass(*io, in, false);
    }
    for (int r = 0; r < o.repeats; ++r) {
      if (cold) needle::EvictFromPageCache(data_path);
      IoFile in = io->Open(data_path, needle::FileKind::kOther, false);
      if (direct && !in.direct()) {
        throw needle::Error(data_path, "the file system refuses O_DIRECT; no direct figures");
      }
      reads.push_back(GBps(s.bytes(), s.Pass(*io, in, false)));
    }
    row.read = Median(reads);

    if (mode != 1) {  // buffered cold writes are the warm ones: writes do not read the cache
      std::vector<double> writes, synced;
      for (int r = 0; r < o.repeats; ++r) {
        IoFile out = io->Open(write_path, needle::FileKind::kOther, true, /*create=*/true);
        const auto start = std::chrono::steady_clock::now();
        const double seconds = s.Pass(*io, out, true);
        Fsync(out);
        writes.push_back(GBps(s.bytes(), seconds));
        synced.push_back(GBps(s.bytes(), Seconds(start)));
      }
      row.write = Median(writes);
      row.write_sync = Median(synced);
    }
    io->UnregisterBuffers();
    rows.push_back(row);
  }
  return rows;
}

std::string Cell(const std::optional<double>& v) {
  char out[32];
  if (v) {
    std::snprintf(out, sizeof out, "%8.2f", *v);
  } else {
    std::snprintf(out, sizeof out, "%8s", "-");
  }
  return out;
}

std::string Ratio(const std::optional<double>& a, const std::optional<double>& b) {
  char out[32];
  if (a && b && *b > 0) {
    std::snprintf(out, sizeof out, "%.2fx", *a / *b);
  } else {
    std::snprintf(out, sizeof out, "-");
  }
  return out;
}

int Run(const BenchOptions& o) {
  std::filesystem::create_directories(o.dir);
  const std::string data_path = (std::filesystem::path(o.dir) / "io_bench.dat").string();
  const std::string write_path = (std::filesystem::path(o.dir) / "io_bench_write.dat").string();

  {  // the file the reads read: written buffered with pread, then synced
    IoOptions options;
    options.kind = IoKind::kPread;
    options.queue_depth = static_cast<unsigned>(o.qd);
    std::unique_ptr<IoBackend> io = IoBackend::Create(options);
    Streamer s(o);
    IoFile out = io->Open(data_path, needle::FileKind::kOther, true, true);
    s.Pass(*io, out, true);
    Fsync(out);
  }

  std::vector<Row> rows;
  std::string note;
  bool fixed[2] = {false, false};
  for (int i = 0; i < 2; ++i) {
    const IoKind kind = i == 0 ? IoKind::kUring : IoKind::kPread;
    std::string name;
    try {
      std::vector<Row> r = Measure(kind, o, data_path, write_path, &name, &fixed[i]);
      rows.insert(rows.end(), r.begin(), r.end());
    } catch (const needle::Error& e) {
      if (kind != IoKind::kUring || e.path() != "io_uring") throw;
      note = std::string("io_uring unavailable: ") + e.what();
    }
  }
  if (!o.keep) {
    std::filesystem::remove(data_path);
    std::filesystem::remove(write_path);
  }

  std::printf("io_bench: %d MiB file in %s, %d KiB blocks, queue depth %d, median of %d\n",
              o.size_mb, o.dir.c_str(), o.block_kb, o.qd, o.repeats);
  if (!note.empty()) std::printf("%s\n", note.c_str());
  std::printf("io_uring fixed buffers: %s\n", fixed[0] ? "registered" : "not registered");
  std::printf("\n%-9s %-16s %8s %8s %12s   (GB/s)\n", "backend", "mode", "read", "write",
              "write+fsync");
  for (const Row& r : rows) {
    std::printf("%-9s %-16s %s %s %12s\n", r.backend.c_str(), r.mode.c_str(), Cell(r.read).c_str(),
                Cell(r.write).c_str(), Cell(r.write_sync).c_str());
  }
  auto find = [&](std::string_view backend, std::string_view mode) -> const Row* {
    for (const Row& r : rows) {
      if (r.backend == backend && r.mode.starts_with(mode)) return &r;
    }
    return nullptr;
  };
  std::printf("\nratios                          read    write  write+fsync\n");
  for (const char* mode : {"buffered (warm)", "buffered (cold)", "direct"}) {
    const Row* u = find("io_uring", mode);
    const Row* p = find("pread", mode);
    if (u == nullptr || p == nullptr) continue;
    std::printf("io_uring/pread %-16s %6s %8s %12s\n", mode, Ratio(u->read, p->read).c_str(),
                Ratio(u->write, p->write).c_str(), Ratio(u->write_sync, p->write_sync).c_str());
  }
  for (const char* backend : {"io_uring", "pread"}) {
    const Row* d = find(backend, "direct");
    const Row* w = find(backend, "buffered (warm)");
    const Row* c = find(backend, "buffered (cold)");
    if (d == nullptr || w == nullptr || c == nullptr) continue;
    std::printf("direct/buffered %-8s warm %6s %8s %12s\n", backend,
                Ratio(d->read, w->read).c_str(), Ratio(d->write, w->write).c_str(),
                Ratio(d->write_sync, w->write_sync).c_str());
    std::printf("direct/buffered %-8s cold %6s\n", backend, Ratio(d->read, c->read).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return needle::bench::BenchMain<BenchOptions>("io_bench", argc, argv, ParseArgs, Run);
}
