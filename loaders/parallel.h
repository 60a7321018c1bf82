// ParallelFor: an OpenMP loop whose body may throw. Exceptions cannot cross an OpenMP region,
// so the first one is caught, the remaining iterations still run, and it is rethrown after.
#pragma once

#include <omp.h>

#include <cstdint>
#include <exception>
#include <mutex>

namespace needle {

// Runs body(i) for i in [0, count) on `threads` threads, dynamically scheduled one at a time;
// threads <= 0 means OpenMP's default (omp_get_max_threads()): num_threads must be positive.
template <class F>
void ParallelFor(uint64_t count, int threads, F&& body) {
  if (threads <= 0) threads = omp_get_max_threads();
  std::exception_ptr error;
  std::mutex mutex;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (uint64_t i = 0; i < count; ++i) {
    try {
      body(i);
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace needle
