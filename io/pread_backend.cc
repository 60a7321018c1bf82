// The pread/pwrite backend: a worker thread per backend takes the submitted batches in order
// and executes their requests one after another, so that a caller's reads overlap its
// computation as with io_uring (though the requests do not overlap each other).
//
// Invariants: a batch's requests and buffers are only touched by the worker until the batch
// is marked done (under the mutex); the caller thread alone touches the counters. A batch
// that fails stops at the failing request; its completed requests are the prefix before it.
#include "io/pread_backend.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "base/error.h"

namespace needle {
namespace {

class PreadBackend final : public IoBackend {
 public:
  explicit PreadBackend(const IoOptions& options)
      : IoBackend(options), worker_([this] { WorkerLoop(); }) {}
  ~PreadBackend() override;

  std::string_view name() const override { return "pread"; }
  Ticket Submit(std::span<const IoRequest> requests) override;
  void Wait(Ticket ticket) override;

 private:
  struct Batch {
    std::vector<IoRequest> requests;
    size_t completed = 0;  // requests done, from the front
    std::exception_ptr error;
    bool done = false;
  };

  void WorkerLoop();
  void Execute(Batch& batch);
  // One request to the end; throws Error.
  void Transfer(const IoRequest& r) const;

  std::mutex mu_;
  std::condition_variable work_cv_;                   // the worker waits for batches
  std::condition_variable done_cv_;                   // Wait() waits for the worker
  std::deque<Batch*> queue_;                          // submitted, not yet started
  std::map<Ticket, std::unique_ptr<Batch>> batches_;  // submitted, not yet waited for
  Ticket next_ticket_ = 1;
  bool stopping_ = false;
  std::atomic<bool> abandon_{false};  // the destructor: stop inside the current batch
  std::thread worker_;                // last: starts when everything else exists
};

PreadBackend::~PreadBackend() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    queue_.clear();  // not started: no buffer of theirs is in use
  }
  abandon_.store(true, std::memory_order_relaxed);
  work_cv_.notify_one();
  worker_.join();
}

IoBackend::Ticket PreadBackend::Submit(std::span<const IoRequest> requests) {
  for (const IoRequest& r : requests) CheckRequest(r);
  auto batch = std::make_unique<Batch>();
  for (const IoRequest& r : requests) {
    if (r.length > 0) batch->requests.push_back(r);
  }
  std::lock_guard lock(mu_);
  const Ticket ticket = next_ticket_++;
  if (batch->requests.empty()) return ticket;  // Wait() will not find it: done already
  queue_.push_back(batch.get());
  batches_.emplace(ticket, std::move(batch));
  work_cv_.notify_one();
  return ticket;
}

void PreadBackend::Wait(Ticket ticket) {
  std::unique_ptr<Batch> batch;
  {
    std::unique_lock lock(mu_);
    auto it = batches_.find(ticket);
    if (it == batches_.end()) return;
    done_cv_.wait(lock, [&] { return it->second->done; });
    batch = std::move(it->second);
    batches_.erase(it);
  }
  for (size_t i = 0; i < batch->completed; ++i) Count(batch->requests[i]);
  if (batch->error) std::rethrow_exception(batch->error);
}

void PreadBackend::WorkerLoop() {
  std::unique_lock lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Batch* batch = queue_.front();
    queue_.pop_front();
    lock.unlock();
    Execute(*batch);
    lock.lock();
    batch->done = true;
    done_cv_.notify_all();
  }
}

void PreadBackend::Execute(Batch& batch) {
  try {
    for (const IoRequest& r : batch.requests) {
      if (abandon_.load(std::memory_order_relaxed)) return;
      Transfer(r);
      ++batch.completed;
    }
  } catch (...) {
    batch.error = std::current_exception();
  }
}

void PreadBackend::Transfer(const IoRequest& r) const {
  auto* bytes = static_cast<std::byte*>(r.buffer);
  const int fd = r.file->fd();
  uint64_t done = 0;
  while (done < r.length) {
    const size_t length = TransferLength(r, done);
    const auto offset = static_cast<off_t>(r.offset + done);
    const ssize_t n = r.write ? ::pwrite(fd, bytes + done, length, offset)
                              : ::pread(fd, bytes + done, length, offset);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw TransferError(r, done, errno);
    }
    if (n == 0) {
      if (r.write) throw TransferError(r, done, EIO);  // pwrite made no progress
      throw EndOfFileError(r, done);
    }
    done += static_cast<uint64_t>(n);
    // On a direct file only the end of the file makes a transfer stop inside a block.
    if (!r.write && r.file->direct() && done < r.length && done % r.file->alignment() != 0) {
      throw EndOfFileError(r, done);
    }
  }
}

}  // namespace

std::unique_ptr<IoBackend> MakePreadBackend(const IoOptions& options) {
  return std::make_unique<PreadBackend>(options);
}

}  // namespace needle
