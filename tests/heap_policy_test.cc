#include "base/heap_policy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>

// Built only where malloc is glibc's (tests/CMakeLists.txt: not under the sanitizers, whose
// allocators keep freed blocks in quarantine and ignore mallopt).
#if !defined(__GLIBC__)
#error "heap_policy_test checks glibc's malloc"
#endif

namespace needle {
namespace {

// Resident bytes of this process (/proc/self/statm's second field).
uint64_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int got = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return got == 2 ? resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

// A block of `bytes`, every page written, then freed.
void TouchAndFree(size_t bytes) {
  std::unique_ptr<char[]> block(new char[bytes]);
  std::memset(block.get(), 1, bytes);
  // (the compiler may not drop the writes: the block is read back)
  ASSERT_EQ(block[bytes - 1], 1);
}

TEST(HeapPolicyTest, AFreedLargeBlockLeavesNothingResidentAfterALargerOneWasFreed) {
  KeepLargeBlocksMapped();
  KeepLargeBlocksMapped();  // idempotent
  // glibc alone raises its threshold to 8 MiB when the first block is freed, takes the second
  // from the heap and keeps its 4 MiB resident after the free (its trim threshold is 16 MiB
  // then); pinned, both are mappings of their own, gone when freed.
  TouchAndFree(size_t{8} << 20);
  const uint64_t before = ResidentBytes();
  ASSERT_GT(before, 0u) << "/proc/self/statm unreadable";
  for (int i = 0; i < 4; ++i) TouchAndFree(size_t{4} << 20);
  const uint64_t after = ResidentBytes();
  EXPECT_LT(after, before + (uint64_t{1} << 20))
      << "resident before " << before << " B, after " << after << " B";
}

}  // namespace
}  // namespace needle
