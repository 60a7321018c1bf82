// Every target's setup, linked into each of them: OpenMP threads that sleep instead of spinning
// between the parallel regions of one input (two cores are shared with other fuzz workers).
#include <cstdlib>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("OMP_WAIT_POLICY", "passive", 0);
  return 0;
}
