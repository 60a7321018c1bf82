#!/usr/bin/env bash
# The ThreadSanitizer job (docs/fuzzing.md): the engine and shard suites (needle_engine_tests,
# needle_shards_tests — the I/O backend tests among them) built with clang-14 -fsanitize=thread
# and LLVM's OpenMP runtime (libomp), run at 2 and at 1 OpenMP threads with the Archer tool
# (OMP_TOOL_LIBRARIES=libarcher.so), which tells TSan about OpenMP's barriers, reductions and
# locks. GCC's libgomp is not instrumented, so under TSan every OpenMP barrier would look like a
# race; this is why the job is built with clang.
#
# First it checks the setup itself on two tiny OpenMP programs (tests/fuzz/tsan/): a deliberate
# race must be reported, correct code with barriers and reductions must not, and Archer must
# announce itself. Then it builds build-tsan/ and runs the suites through ctest.
#
# Usage: scripts/tsan.sh   (NEEDLE_SANITIZE=thread bash scripts/test.sh runs this too)
# Environment: NEEDLE_DATASETS_DIR as for scripts/test.sh; NEEDLE_TSAN_FILTER=REGEX runs only
# the ctest tests matching it (default: ^(engine|shards)_threads[12]$); NEEDLE_TSAN_GTEST_FILTER
# is passed to the test executables as GTEST_FILTER (default: every test but the app checks on
# the real datasets, which run the code of the tiny-graph and R-MAT checks on graphs that take
# minutes each under TSan; the plain and ASan suites run them).
# Reports: build-tsan/tsan-reports/report.PID (one file per process that reported), the
# tests' output in build-tsan/tsan-ctest.log. Exit status non-zero on a failed test or a report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh clang

dir=build-tsan
archer=/usr/lib/llvm-14/lib/libarcher.so
[ -f "$archer" ] || { echo "scripts/tsan.sh: $archer is missing (libomp-14-dev)" >&2; exit 1; }
reports=$PWD/$dir/tsan-reports
rm -rf "$reports"
mkdir -p "$reports" "$dir/omp-check"

export OMP_TOOL_LIBRARIES=$archer
# ignore_noninstrumented_modules: libomp itself is not instrumented (Archer stands in for it).
tsan_base="ignore_noninstrumented_modules=1:halt_on_error=0:second_deadlock_stack=1"
[ -x /usr/lib/llvm-14/bin/llvm-symbolizer ] &&
  tsan_base="$tsan_base:external_symbolizer_path=/usr/lib/llvm-14/bin/llvm-symbolizer"
# TSan of LLVM 14 needs the address space layout it knows: on kernels with more mmap
# randomisation (vm.mmap_rnd_bits = 32) it stops with "unexpected memory mapping". Running
# without address space randomisation avoids that.
run=()
if setarch "$(uname -m)" -R true 2>/dev/null; then run=(setarch "$(uname -m)" -R); fi

# 1. The setup check.
check=$dir/omp-check
for prog in omp_race omp_clean; do
  clang++-14 -std=c++20 -g -O1 -fopenmp=libomp -fsanitize=thread "tests/fuzz/tsan/$prog.cc" \
    -o "$check/$prog"
done
# ARCHER_OPTIONS=verbose=1: Archer says "Archer detected OpenMP application with TSan ...".
status=0
TSAN_OPTIONS="$tsan_base" ARCHER_OPTIONS=verbose=1 "${run[@]}" "$check/omp_race" \
  >"$check/omp_race.log" 2>&1 || status=$?
if [ "$status" -ne 66 ] || ! grep -q "WARNING: ThreadSanitizer: data race" "$check/omp_race.log"; then
  cat "$check/omp_race.log"
  echo "scripts/tsan.sh: TSan did not report the deliberate race in omp_race (exit $status)" >&2
  exit 1
fi
status=0
TSAN_OPTIONS="$tsan_base" ARCHER_OPTIONS=verbose=1 "${run[@]}" "$check/omp_clean" \
  >"$check/omp_clean.log" 2>&1 || status=$?
if [ "$status" -ne 0 ] || grep -q "WARNING: ThreadSanitizer" "$check/omp_clean.log"; then
  cat "$check/omp_clean.log"
  echo "scripts/tsan.sh: TSan reported races in correct OpenMP code (omp_clean, exit $status)" >&2
  exit 1
fi
if ! grep -q "Archer detected OpenMP application with TSan" "$check/omp_clean.log"; then
  cat "$check/omp_clean.log"
  echo "scripts/tsan.sh: the Archer OMPT tool was not loaded ($archer)" >&2
  exit 1
fi
echo "tsan setup: the race in omp_race is reported, omp_clean is clean, Archer is loaded"

# 2. The suites.
# Line tables are all a report needs, and compile a third faster than full debug information.
CC=clang-14 CXX=clang++-14 cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
  -DNEEDLE_SANITIZE=thread -DNEEDLE_BUILD_BENCH=OFF \
  ${NEEDLE_DATASETS_DIR:+-DNEEDLE_DATASETS_DIR="$NEEDLE_DATASETS_DIR"} >/dev/null
cmake --build "$dir" -j "$(nproc)" --target needle_engine_tests needle_shards_tests needle

export TSAN_OPTIONS="$tsan_base:log_path=$reports/report"
# libomp logs how it found its tool here (each process rewrites the file). Not ARCHER_OPTIONS=
# verbose=1: its line on stderr would break the tests that read the needle binary's stderr.
tool_log=$PWD/$dir/omp-tool-init.log
rm -f "$tool_log"
export OMP_TOOL_VERBOSE_INIT=$tool_log
export GTEST_FILTER=${NEEDLE_TSAN_GTEST_FILTER:-"-*Cnr2000*:*EmailEnron*:*Rome99*:*Sydney*:PageRankAccuracyTest.*"}
filter=${NEEDLE_TSAN_FILTER:-'^(engine|shards)_threads[12]$'}
status=0
(cd "$dir" && "${run[@]}" ctest -R "$filter" -j "$(nproc)" --timeout 1800 -V) \
  >"$dir/tsan-ctest.log" 2>&1 ||
  status=$?
grep -E "^ *[0-9]+/[0-9]+ Test|tests passed|tests failed|Total Test time" "$dir/tsan-ctest.log" || true
grep -E "^[0-9]+: \[  FAILED  \] [A-Za-z].*\([0-9]+ ms\)" "$dir/tsan-ctest.log" | sort -u || true
report_files=("$reports"/report.*)
if [ -e "${report_files[0]}" ]; then
  echo "tsan: ThreadSanitizer reports in $dir/tsan-reports/:"
  grep -h "^SUMMARY: ThreadSanitizer" "$reports"/report.* | sort | uniq -c | sort -rn
  status=1
fi
if ! grep -q "libarcher.so... Success" "$tool_log" 2>/dev/null ||
   ! grep -q "Tool was started" "$tool_log"; then
  echo "scripts/tsan.sh: the tests' OpenMP runtime did not start Archer (see $tool_log)" >&2
  status=1
fi
if [ "$status" -ne 0 ]; then
  echo "tsan: FAILED (test output: $dir/tsan-ctest.log)"
  exit 1
fi
echo "tsan: the engine and shard suites pass under ThreadSanitizer with no report"
