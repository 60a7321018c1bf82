#include "base/heap_policy.h"

#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace needle {

void KeepLargeBlocksMapped() {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
  static std::once_flag once;
  // Setting it at all turns glibc's raising of the threshold (and of M_TRIM_THRESHOLD) off.
  std::call_once(once, [] { mallopt(M_MMAP_THRESHOLD, 128 * 1024); });
#endif
}

}  // namespace needle
