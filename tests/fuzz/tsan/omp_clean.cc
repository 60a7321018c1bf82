// The TSan + OpenMP setup check (scripts/tsan.sh, docs/fuzzing.md): correct OpenMP code whose
// only synchronisation is OpenMP's own — a worksharing loop's implicit barrier, an explicit
// barrier, a reduction, a single, a critical section and an atomic — with each thread reading
// what the other wrote. ThreadSanitizer must stay silent: it can only do so if it is told about
// OpenMP's synchronisation (LLVM's libomp with the Archer tool). With libgomp, or with Archer
// off and threads that spin at barriers (OMP_TOOL=disabled OMP_WAIT_POLICY=active), it reports
// races that are not there.
#include <cstdio>
#include <vector>

int main() {
  const long n = 1 << 16;
  std::vector<long> a(n), b(n);
  long sum = 0, critical_sum = 0, atomic_count = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp for
    for (long i = 0; i < n; ++i) a[i] = i;
    // implicit barrier: the other thread's half of a[] is complete
#pragma omp for
    for (long i = 0; i < n; ++i) b[i] = a[n - 1 - i];
#pragma omp barrier
#pragma omp for reduction(+ : sum)
    for (long i = 0; i < n; ++i) sum += b[(i + n / 2) % n];
#pragma omp critical
    critical_sum += sum;
#pragma omp atomic
    ++atomic_count;
#pragma omp barrier
#pragma omp single
    std::printf("%ld %ld %ld\n", sum, critical_sum, atomic_count);
  }
  return sum == n * (n - 1) / 2 ? 0 : 1;
}
