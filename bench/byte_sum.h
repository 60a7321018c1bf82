// ByteSum: the ceiling for anything that reads a file — add up every byte of a mapped file as
// 64-bit words in parallel. The sum is returned so that the reads cannot be skipped.
#pragma once

#include <omp.h>

#include <cstdint>
#include <cstring>

#include "io/mapped_file.h"

namespace needle::bench {

inline uint64_t ByteSum(const MappedFile& file, int threads) {
  const char* data = file.data();
  const size_t words = file.size() / sizeof(uint64_t);
  uint64_t sum = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : sum)
  for (size_t i = 0; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, data + i * sizeof(uint64_t), sizeof(w));
    sum += w;
  }
  for (size_t i = words * sizeof(uint64_t); i < file.size(); ++i) {
    sum += static_cast<unsigned char>(data[i]);
  }
  return sum;
}

}  // namespace needle::bench
