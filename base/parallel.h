// ParallelFor: an OpenMP loop whose body may throw. Exceptions cannot cross an OpenMP region,
// so the first one is caught, the remaining iterations still run, and it is rethrown after.
#pragma once

#include <omp.h>

#include <cstdint>
#include <exception>
#include <mutex>

namespace needle {

// The one thread-count rule of every `threads` option: a positive count is taken as given;
// 0 (or less) means OpenMP's default, omp_get_max_threads() — OMP_NUM_THREADS when set, else
// the cores available. Always positive, as num_threads() requires.
inline int ThreadCount(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

// Runs body(i) for i in [0, count) on ThreadCount(threads) threads, dynamically scheduled one
// at a time.
template <class F>
void ParallelFor(uint64_t count, int threads, F&& body) {
  threads = ThreadCount(threads);
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
