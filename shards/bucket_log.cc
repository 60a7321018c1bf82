#include "shards/bucket_log.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/error.h"

namespace needle {
namespace {

uint32_t TargetAt(const std::byte* record) {
  uint32_t target;
  std::memcpy(&target, record, 4);
  return target;
}

}  // namespace

BucketLog::BucketLog(IoBackend& io, std::string path, size_t record_bytes, uint64_t block_records,
                     uint64_t staging_bytes)
    : io_(io), path_(std::move(path)), record_bytes_(record_bytes) {
  file_ = io_.Open(path_, FileKind::kBuckets, /*writable=*/true, /*create=*/true,
                   IoBackend::Caching::kDirect);
  for (auto& b : buffers_) b.Resize(AlignUp(block_records * record_bytes));
  for (auto& s : staging_)
    s.Resize(AlignUp(std::max<uint64_t>(staging_bytes, 4 * kDirectAlignment)));
}

BucketLog::~BucketLog() {
  for (IoBackend::Ticket t : tickets_) {
    try {
      io_.Wait(t);
    } catch (const Error&) {  // reported by Finish(), or moot: the run is failing already
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
  // Whole 4 KiB units (the tail of the last one is never read as records).
  const uint64_t bytes = AlignUp(count * record_bytes_);
  IoRequest write{&file_, size_, buffers_[next_].data(), bytes, /*write=*/true};
  tickets_[next_] = io_.Submit({&write, 1});
  blocks_.push_back(Block{size_, shift, std::move(starts)});
  records_ += count;
  size_ += bytes;
  next_ ^= 1;
}

void BucketLog::Finish() {
  for (IoBackend::Ticket& t : tickets_) {
    io_.Wait(t);
    t = 0;
  }
  for (auto& b : buffers_) b = HugeArray<std::byte>();  // reading back needs only the staging
}

void BucketLog::Read(std::span<const Stretch> stretches,
                     const std::function<void(const std::byte*, uint64_t, bool)>& f) {
  // Pieces of at most a staging buffer, aligned reads around whole records.
  struct Piece {
    uint64_t offset, length;  // the aligned read
    uint64_t skip, count;     // where the records start in it, how many
    bool whole;
  };
  const uint64_t per_piece = (staging_[0].size() - 2 * kDirectAlignment) / record_bytes_;
  std::vector<Piece> pieces;
  for (const Stretch& s : stretches) {
    for (uint64_t done = 0; done < s.count; done += per_piece) {
      const uint64_t n = std::min(per_piece, s.count - done);
      const uint64_t begin = s.offset + done * record_bytes_;
      const uint64_t end = begin + n * record_bytes_;
      pieces.push_back(Piece{AlignDown(begin), AlignUp(end) - AlignDown(begin),
                             begin - AlignDown(begin), n, s.whole});
    }
  }
  IoBackend::Ticket tickets[2] = {0, 0};
  auto submit = [&](size_t i) {
    const Piece& p = pieces[i];
    IoRequest read{&file_, p.offset, staging_[i % 2].data(), p.length, /*write=*/false};
    tickets[i % 2] = io_.Submit({&read, 1});
  };
  try {
    for (size_t i = 0; i < std::min<size_t>(2, pieces.size()); ++i) submit(i);
    for (size_t i = 0; i < pieces.size(); ++i) {
      io_.Wait(tickets[i % 2]);
      tickets[i % 2] = 0;
      const Piece& p = pieces[i];
      f(staging_[i % 2].data() + p.skip, p.count, p.whole);
      if (i + 2 < pieces.size()) submit(i + 2);
    }
  } catch (...) {
    for (IoBackend::Ticket t : tickets) {  // no read may land in staging after this returns
      try {
        io_.Wait(t);
      } catch (const Error&) {
      }
    }
    throw;
  }
}

void BucketLog::ForEach(const std::function<void(const std::byte*, uint64_t)>& f) {
  std::vector<Stretch> stretches;
  for (const Block& b : blocks_) stretches.push_back(Stretch{b.offset, b.starts.back(), true});
  Read(stretches, [&](const std::byte* records, uint64_t count, bool) { f(records, count); });
}

uint64_t BucketLog::Gather(uint64_t lo, uint64_t hi, std::byte* out, uint64_t capacity) {
  if (lo >= hi) return 0;
  std::vector<Stretch> stretches;
  for (const Block& b : blocks_) {
    const uint64_t buckets = b.starts.size() - 1;
    const uint64_t a = lo >> b.shift;
    if (a >= buckets) continue;
    const uint64_t z = std::min((hi - 1) >> b.shift, buckets - 1);
    auto stretch = [&](uint64_t first_bucket, uint64_t end_bucket, bool whole) {
      const uint64_t first = b.starts[first_bucket], end = b.starts[end_bucket];
      if (end > first)
        stretches.push_back(Stretch{b.offset + first * record_bytes_, end - first, whole});
    };
    // Buckets [whole_lo, whole_hi) lie wholly inside [lo, hi); only a and z can be cut.
    const uint64_t whole_lo = (a << b.shift) >= lo ? a : a + 1;
    const uint64_t whole_hi = ((z + 1) << b.shift) <= hi ? z + 1 : z;
    if (whole_lo < whole_hi) stretch(whole_lo, whole_hi, true);
    if (a < whole_lo || a >= whole_hi) stretch(a, a + 1, false);
    if (z != a && (z < whole_lo || z >= whole_hi)) stretch(z, z + 1, false);
  }
  uint64_t at = 0;
  Read(stretches, [&](const std::byte* records, uint64_t count, bool whole) {
    if (whole) {
      if (count > capacity - at)
        throw Error(path_, "holds more edges for an interval than counted");
      std::memcpy(out + at * record_bytes_, records, count * record_bytes_);
      at += count;
      return;
    }
    for (uint64_t i = 0; i < count; ++i) {
      const std::byte* r = records + i * record_bytes_;
      const uint32_t target = TargetAt(r);
      if (target < lo || target >= hi) continue;
      if (at == capacity) throw Error(path_, "holds more edges for an interval than counted");
      std::memcpy(out + at * record_bytes_, r, record_bytes_);
      ++at;
    }
  });
  return at;
}

}  // namespace needle
