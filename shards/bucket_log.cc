#include "shards/bucket_log.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "loaders/error.h"

namespace needle {
namespace {

constexpr uint64_t kStagingBytes = uint64_t{4} << 20;

uint32_t TargetAt(const std::byte* record) {
  uint32_t target;
  std::memcpy(&target, record, 4);
  return target;
}

}  // namespace

BucketLog::BucketLog(IoBackend& io, std::string path, size_t record_bytes, uint64_t block_records)
    : io_(io), path_(std::move(path)), record_bytes_(record_bytes) {
  file_ = io_.Open(path_, FileKind::kOther, /*writable=*/true, /*create=*/true);
  for (auto& b : buffers_) b.Resize(block_records * record_bytes);
  staging_.Resize(kStagingBytes / record_bytes * record_bytes);
}

BucketLog::~BucketLog() {
  for (IoBackend::Ticket t : tickets_) {
    try {
      io_.Wait(t);
    } catch (const Error&) {  // the error was (or will not be) reported by Finish()
    }
  }
  file_.Close();
  unlink(path_.c_str());
}

std::byte* BucketLog::NextBuffer() {
  io_.Wait(tickets_[next_]);
  tickets_[next_] = 0;
  return buffers_[next_].data();
}

void BucketLog::Append(int shift, std::vector<uint64_t> starts) {
  const uint64_t count = starts.back();
  IoRequest write{&file_, records_ * record_bytes_, buffers_[next_].data(), count * record_bytes_,
                  /*write=*/true};
  tickets_[next_] = io_.Submit({&write, 1});
  blocks_.push_back(Block{records_, shift, std::move(starts)});
  records_ += count;
  next_ ^= 1;
}

void BucketLog::Finish() {
  for (IoBackend::Ticket& t : tickets_) {
    io_.Wait(t);
    t = 0;
  }
}

void BucketLog::ReadRecords(uint64_t first, uint64_t count, std::byte* out) {
  IoRequest read{&file_, first * record_bytes_, out, count * record_bytes_, /*write=*/false};
  io_.Run({&read, 1});
}

uint64_t BucketLog::Filter(uint64_t first, uint64_t count, uint64_t lo, uint64_t hi, std::byte* out,
                           uint64_t at, uint64_t capacity) {
  const uint64_t piece = staging_records();
  for (uint64_t done = 0; done < count; done += piece) {
    const uint64_t n = std::min(piece, count - done);
    ReadRecords(first + done, n, staging_.data());
    for (uint64_t i = 0; i < n; ++i) {
      const std::byte* r = staging_.data() + i * record_bytes_;
      const uint32_t target = TargetAt(r);
      if (target < lo || target >= hi) continue;
      if (at == capacity) throw Error(path_, "holds more edges for an interval than counted");
      std::memcpy(out + at * record_bytes_, r, record_bytes_);
      ++at;
    }
  }
  return at;
}

uint64_t BucketLog::Gather(uint64_t lo, uint64_t hi, std::byte* out, uint64_t capacity) {
  if (lo >= hi) return 0;
  struct Stretch {
    uint64_t first, count;
  };
  std::vector<IoRequest> direct;
  std::vector<Stretch> cut;  // buckets that [lo, hi) cuts: filtered
  uint64_t at = 0;
  for (const Block& b : blocks_) {
    const uint64_t buckets = b.starts.size() - 1;
    const uint64_t a = lo >> b.shift;
    if (a >= buckets) continue;
    const uint64_t z = std::min((hi - 1) >> b.shift, buckets - 1);
    // Buckets [whole_lo, whole_hi) lie wholly inside [lo, hi); only a and z can be cut.
    const uint64_t whole_lo = (a << b.shift) >= lo ? a : a + 1;
    const uint64_t whole_hi = ((z + 1) << b.shift) <= hi ? z + 1 : z;
    if (whole_lo < whole_hi) {
      const uint64_t first = b.first + b.starts[whole_lo];
      const uint64_t count = b.starts[whole_hi] - b.starts[whole_lo];
      if (at + count > capacity)
        throw Error(path_, "holds more edges for an interval than counted");
      direct.push_back(IoRequest{&file_, first * record_bytes_, out + at * record_bytes_,
                                 count * record_bytes_, /*write=*/false});
      at += count;
    }
    auto cut_bucket = [&](uint64_t k) {
      if (k >= whole_lo && k < whole_hi) return;
      cut.push_back(Stretch{b.first + b.starts[k], b.starts[k + 1] - b.starts[k]});
    };
    cut_bucket(a);
    if (z != a) cut_bucket(z);
  }
  const IoBackend::Ticket ticket = io_.Submit(direct);
  try {
    for (const Stretch& s : cut) at = Filter(s.first, s.count, lo, hi, out, at, capacity);
  } catch (...) {
    try {
      io_.Wait(ticket);  // no read may land in `out` after this returns
    } catch (const Error&) {
    }
    throw;
  }
  io_.Wait(ticket);
  return at;
}

}  // namespace needle
