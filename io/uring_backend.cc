// The io_uring backend: one ring per backend, driven entirely from the caller's thread.
//
// A submitted batch becomes a queue of pending operations (one per request, or per remainder
// of a short transfer). Fill() moves pending operations into the ring while fewer than
// queue_depth are in the kernel; Step() submits them with one io_uring_enter and handles the
// completions: a short transfer puts its remainder back at the front of the queue, -EAGAIN
// and -EINTR put the same transfer back, an error fails the batch. The limit of queue_depth
// in the kernel keeps the completion queue (twice the submission queue) from overflowing.
//
// Invariants: inflight_ counts the operations prepared in the ring whose completion has not
// been seen, slots_ holds one entry for each of them; a batch's `unfinished` counts its
// requests that are pending or in the kernel, so a batch is finished when it reaches 0. A
// failed batch's pending operations are dropped at once; those in the kernel are waited for.
#include "io/uring_backend.h"

#include <liburing.h>
#include <sched.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "base/error.h"

namespace needle {
namespace {

class UringBackend final : public IoBackend {
 public:
  explicit UringBackend(const IoOptions& options);
  ~UringBackend() override;
  // Sets up the ring; returns 0 or the errno that refused it.
  int Init();

  std::string_view name() const override { return "io_uring"; }
  Ticket Submit(std::span<const IoRequest> requests) override;
  void Wait(Ticket ticket) override;
  bool RegisterBuffers(std::span<AlignedBuffer* const> buffers) override;
  void UnregisterBuffers() override;

 private:
  struct Batch {
    std::vector<IoRequest> requests;
    std::vector<uint64_t> done;  // bytes transferred, per request
    std::vector<int> fixed;      // registered buffer index, or -1
    size_t unfinished = 0;       // requests pending or in the kernel
    std::exception_ptr error;    // the first failure
  };
  struct Op {
    Batch* batch = nullptr;
    size_t index = 0;
  };
  // A registered buffer: [begin, end) is fixed buffer `index`.
  struct Region {
    uintptr_t begin = 0;
    uintptr_t end = 0;
    int index = 0;
  };

  // Puts pending operations into the ring while there is room.
  void Fill();
  // Submits what Fill() prepared; with `block`, waits for at least one completion when
  // something is in the kernel. Handles every completion that is there. Throws Error if the
  // ring itself fails.
  void Step(bool block);
  void Complete(const io_uring_cqe& cqe);
  void Fail(Batch* batch, std::exception_ptr error);
  // Step()s until nothing is pending or in flight; batch errors stay in their batches.
  void Drain();
  int FixedIndex(const IoRequest& r) const;

  io_uring ring_{};
  bool ring_ready_ = false;
  std::map<Ticket, std::unique_ptr<Batch>> batches_;  // submitted, not yet waited for
  std::deque<Op> pending_;
  std::vector<Op> slots_;  // per ring entry in flight: its operation (user_data)
  std::vector<uint64_t> free_slots_;
  unsigned inflight_ = 0;
  Ticket next_ticket_ = 1;
  std::vector<Region> regions_;  // sorted by begin
};

UringBackend::UringBackend(const IoOptions& options)
    : IoBackend(options), slots_(options.queue_depth) {
  free_slots_.reserve(options.queue_depth);
  for (uint64_t i = options.queue_depth; i-- > 0;) free_slots_.push_back(i);
}

int UringBackend::Init() {
  if (options_.inject_setup_failure) return EPERM;
  const int rc = io_uring_queue_init(options_.queue_depth, &ring_, 0);
  if (rc < 0) return -rc;
  ring_ready_ = true;
  // Kernels before 5.6 set up rings but know no plain read/write: fall back as if refused.
  io_uring_probe* probe = io_uring_get_probe_ring(&ring_);
  const bool usable = probe != nullptr && io_uring_opcode_supported(probe, IORING_OP_READ) &&
                      io_uring_opcode_supported(probe, IORING_OP_WRITE);
  if (probe != nullptr) io_uring_free_probe(probe);
  if (!usable) return ENOSYS;  // the destructor tears the ring down
  return 0;
}

UringBackend::~UringBackend() {
  if (!ring_ready_) return;
  // Operations not yet in the ring are abandoned; those in the kernel may still write into
  // their buffers, so the ring is only torn down once each has completed.
  pending_.clear();
  while (inflight_ > 0) {
    const int rc = io_uring_submit_and_wait(&ring_, 1);
    if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) break;  // nothing to do
    io_uring_cqe* cqe = nullptr;
    while (io_uring_peek_cqe(&ring_, &cqe) == 0) {
      io_uring_cqe_seen(&ring_, cqe);
      --inflight_;
    }
  }
  io_uring_queue_exit(&ring_);
}

IoBackend::Ticket UringBackend::Submit(std::span<const IoRequest> requests) {
  for (const IoRequest& r : requests) CheckRequest(r);
  auto batch = std::make_unique<Batch>();
  for (const IoRequest& r : requests) {
    if (r.length == 0) continue;
    batch->requests.push_back(r);
    batch->fixed.push_back(FixedIndex(r));
  }
  const Ticket ticket = next_ticket_++;
  const size_t n = batch->requests.size();
  if (n == 0) return ticket;  // Wait() will not find it: done already
  batch->done.assign(n, 0);
  batch->unfinished = n;
  for (size_t i = 0; i < n; ++i) pending_.push_back({batch.get(), i});
  batches_.emplace(ticket, std::move(batch));
  Step(/*block=*/false);
  return ticket;
}

void UringBackend::Wait(Ticket ticket) {
  auto it = batches_.find(ticket);
  if (it == batches_.end()) return;
  const Batch& batch = *it->second;
  while (batch.unfinished > 0) {
    if (pending_.empty() && inflight_ == 0) {
      throw std::logic_error("io_uring backend: a batch is unfinished with nothing in flight");
    }
    Step(/*block=*/true);
  }
  // Counted here, not as completions are reaped (a Step() reaps any batch's), so that what
  // the counters hold after a Wait() depends only on the order of the caller's Waits.
  for (size_t i = 0; i < batch.requests.size(); ++i) {
    if (batch.done[i] < batch.requests[i].length) continue;  // dropped or failed
    Count(batch.requests[i]);
    if (batch.fixed[i] >= 0) ++fixed_buffer_requests_;
  }
  std::exception_ptr error = batch.error;
  batches_.erase(it);
  if (error) std::rethrow_exception(error);
}

void UringBackend::Fill() {
  while (!pending_.empty() && inflight_ < options_.queue_depth) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) break;  // the ring still holds unsubmitted entries
    const Op op = pending_.front();
    pending_.pop_front();
    const IoRequest& r = op.batch->requests[op.index];
    const uint64_t done = op.batch->done[op.index];
    const int fixed = op.batch->fixed[op.index];
    const auto length = static_cast<unsigned>(TransferLength(r, done));
    std::byte* buffer = static_cast<std::byte*>(r.buffer) + done;
    const uint64_t offset = r.offset + done;
    if (r.write) {
      if (fixed >= 0) {
        io_uring_prep_write_fixed(sqe, r.file->fd(), buffer, length, offset, fixed);
      } else {
        io_uring_prep_write(sqe, r.file->fd(), buffer, length, offset);
      }
    } else {
      if (fixed >= 0) {
        io_uring_prep_read_fixed(sqe, r.file->fd(), buffer, length, offset, fixed);
      } else {
        io_uring_prep_read(sqe, r.file->fd(), buffer, length, offset);
      }
    }
    const uint64_t slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = op;
    io_uring_sqe_set_data64(sqe, slot);
    ++inflight_;
  }
}

void UringBackend::Step(bool block) {
  Fill();
  const int rc =
      block && inflight_ > 0 ? io_uring_submit_and_wait(&ring_, 1) : io_uring_submit(&ring_);
  // EINTR: a signal; EAGAIN/EBUSY: the kernel is short of resources for now. Either way the
  // unsubmitted entries stay in the ring and the next Step() submits them.
  if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
    throw Error("io_uring", "cannot submit requests", -rc);
  }
  io_uring_cqe* cqe = nullptr;
  bool any = false;
  while (io_uring_peek_cqe(&ring_, &cqe) == 0) {
    const io_uring_cqe copy = *cqe;
    io_uring_cqe_seen(&ring_, cqe);
    Complete(copy);
    any = true;
  }
  if (!any && (rc == -EAGAIN || rc == -EBUSY)) sched_yield();
}

void UringBackend::Complete(const io_uring_cqe& cqe) {
  const uint64_t slot = io_uring_cqe_get_data64(&cqe);
  const Op op = slots_[slot];
  free_slots_.push_back(slot);
  --inflight_;
  Batch* batch = op.batch;
  if (batch->error) {  // failed meanwhile: this was one of its requests still in the kernel
    --batch->unfinished;
    return;
  }
  const IoRequest& r = batch->requests[op.index];
  uint64_t& done = batch->done[op.index];
  const int res = cqe.res;
  if (res == -EINTR || res == -EAGAIN) {
    pending_.push_front(op);  // the same transfer again
    return;
  }
  if (res < 0) {
    Fail(batch, std::make_exception_ptr(TransferError(r, done, -res)));
    --batch->unfinished;
    return;
  }
  if (res == 0) {
    Fail(batch,
         std::make_exception_ptr(r.write ? TransferError(r, done, EIO) : EndOfFileError(r, done)));
    --batch->unfinished;
    return;
  }
  done += static_cast<uint64_t>(res);
  if (done < r.length) {
    // On a direct file only the end of the file makes a transfer stop inside a block.
    if (!r.write && r.file->direct() && done % r.file->alignment() != 0) {
      Fail(batch, std::make_exception_ptr(EndOfFileError(r, done)));
      --batch->unfinished;
      return;
    }
    pending_.push_front(op);  // continue the short transfer
    return;
  }
  --batch->unfinished;
}

void UringBackend::Fail(Batch* batch, std::exception_ptr error) {
  batch->error = std::move(error);
  const auto dropped = std::erase_if(pending_, [&](const Op& op) { return op.batch == batch; });
  batch->unfinished -= dropped;
}

void UringBackend::Drain() {
  while (!pending_.empty() || inflight_ > 0) Step(/*block=*/true);
}

int UringBackend::FixedIndex(const IoRequest& r) const {
  // Only direct transfers gain: they pin the user pages per request, which a fixed buffer
  // saves. Buffered ones copy through the page cache either way, and measured slower through
  // a fixed buffer (warm 1 MiB reads: 6-10 GB/s against 10-13 GB/s plain, bench/io_bench).
  if (regions_.empty() || !r.file->direct()) return -1;
  const auto begin = reinterpret_cast<uintptr_t>(r.buffer);
  auto it = std::upper_bound(regions_.begin(), regions_.end(), begin,
                             [](uintptr_t b, const Region& region) { return b < region.begin; });
  if (it == regions_.begin()) return -1;
  --it;
  return begin + r.length <= it->end ? it->index : -1;
}

bool UringBackend::RegisterBuffers(std::span<AlignedBuffer* const> buffers) {
  Drain();
  UnregisterBuffers();
  if (!options_.register_buffers) return false;
  std::vector<iovec> iovecs;
  std::vector<Region> regions;
  for (AlignedBuffer* buffer : buffers) {
    if (buffer == nullptr || buffer->size() == 0) continue;
    if (buffer->size() > kMaxTransfer) return false;  // the kernel's limit per buffer
    const auto begin = reinterpret_cast<uintptr_t>(buffer->data());
    regions.push_back({begin, begin + buffer->size(), static_cast<int>(iovecs.size())});
    iovecs.push_back({buffer->data(), buffer->size()});
  }
  if (iovecs.empty()) return false;
  // ENOMEM here means RLIMIT_MEMLOCK does not cover the pinned pages: plain reads it is.
  if (io_uring_register_buffers(&ring_, iovecs.data(), static_cast<unsigned>(iovecs.size())) < 0) {
    return false;
  }
  std::sort(regions.begin(), regions.end(),
            [](const Region& a, const Region& b) { return a.begin < b.begin; });
  regions_ = std::move(regions);
  return true;
}

void UringBackend::UnregisterBuffers() {
  if (regions_.empty()) return;
  Drain();
  io_uring_unregister_buffers(&ring_);
  regions_.clear();
}

}  // namespace

std::unique_ptr<IoBackend> MakeUringBackend(const IoOptions& options, int* setup_errno) {
  auto backend = std::make_unique<UringBackend>(options);
  *setup_errno = backend->Init();
  if (*setup_errno != 0) return nullptr;
  return backend;
}

}  // namespace needle
