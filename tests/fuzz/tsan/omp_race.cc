// The TSan + OpenMP setup check (scripts/tsan.sh, docs/fuzzing.md): two threads of an OpenMP
// team increment one counter without synchronisation. ThreadSanitizer must report this race;
// if it does not, the TSan job would miss real ones.
#include <cstdio>

int main() {
  int counter = 0;
#pragma omp parallel num_threads(2)
  { ++counter; }
  std::printf("%d\n", counter);
  return 0;
}
