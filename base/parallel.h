// ParallelFor: an OpenMP loop whose body may throw. Exceptions cannot cross an OpenMP region,
// so the first one is caught, the remaining iterations still run, and it is rethrown after.
#pragma once

#include <omp.h>

#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

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

// Runs body(k) for k in [0, parts) on `parts` threads, one each; where several throw, the
// lowest k's exception is rethrown, so that what is reported does not depend on the threads'
// timing.
template <class F>
void ParallelParts(uint32_t parts, F&& body) {
  std::vector<std::exception_ptr> errors(parts);
  ParallelFor(parts, static_cast<int>(parts), [&](uint64_t k) {
    try {
      body(static_cast<uint32_t>(k));
    } catch (...) {
      errors[k] = std::current_exception();
    }
  });
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace needle
