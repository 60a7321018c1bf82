// Timing for the benchmark drivers: the seconds a call takes, and the median of several runs
// (the machines are shared and noisy: medians, not means).
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace needle::bench {

template <class F>
double TimeIt(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// 0 for no values.
inline double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs f `repeats` times and returns the median time; reset() runs untimed before each run
// (it frees the previous run's result, so that unmapping it is not charged to the next).
template <class Reset, class F>
double MedianTime(int repeats, Reset&& reset, F&& f) {
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    reset();
    times.push_back(TimeIt(f));
  }
  return Median(times);
}
template <class F>
double MedianTime(int repeats, F&& f) {
  return MedianTime(repeats, [] {}, f);
}

}  // namespace needle::bench
