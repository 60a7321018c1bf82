#!/usr/bin/env bash
# Fuzzes needle's parsers and file readers with libFuzzer (docs/fuzzing.md). Installs what is
# missing (scripts/install-deps.sh clang), builds the targets in
# build-fuzz/ (clang-14, ASan+UBSan, LLVM's OpenMP), writes the seed corpus from tests/data and
# runs a target for a given time, printing the executions it reached.
#
# Usage: scripts/fuzz.sh TARGET|all SECONDS [libFuzzer flags...]
#        scripts/fuzz.sh replay [TARGET|all]
#   TARGET: text, csr, manifest, runs, shardset or bvgraph; `all` runs each in turn for SECONDS.
#   SECONDS 0: no time limit (give -runs=N).  Extra flags go to libFuzzer, e.g. -runs=10000000.
#   replay: runs the saved findings (tests/fuzz/findings/TARGET/*) and says which still fail.
# Environment:
#   NEEDLE_FUZZ_JOBS=N  N fuzzing processes at once (libFuzzer -jobs=N -workers=N), sharing
#                       the corpus; the executions printed are their sum. Default 1.
#
# Everything lives in build-fuzz/: seeds/TARGET (rewritten each run), corpus/TARGET (what the
# fuzzer found interesting; kept and grown from run to run), artifacts/TARGET (inputs that
# crashed, leaked, ran out of memory or time), logs/. The exit status is non-zero when a run
# found anything.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
targets=(text csr manifest runs shardset bvgraph)
usage() {
  sed -n '7,12p' "$0" >&2
  exit 2
}
[ $# -ge 1 ] || usage
what=$1
shift

# Per-target libFuzzer flags: the largest input, and a dictionary of the format's keywords.
target_flags() {
  case $1 in
    text) echo "-max_len=16384 -dict=$root/tests/fuzz/text.dict" ;;
    csr) echo "-max_len=20000" ;;
    manifest) echo "-max_len=8192 -dict=$root/tests/fuzz/manifest.dict" ;;
    runs) echo "-max_len=4096" ;;
    shardset) echo "-max_len=20000 -dict=$root/tests/fuzz/manifest.dict" ;;
    bvgraph) echo "-max_len=4096" ;;
    *) echo "scripts/fuzz.sh: unknown target '$1' (${targets[*]})" >&2; exit 2 ;;
  esac
}

bash scripts/install-deps.sh clang
build=build-fuzz
# Line tables are all a report needs, and compile a third faster than full debug information.
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
  -DNEEDLE_SANITIZE=address -DNEEDLE_FUZZ=ON -DNEEDLE_BUILD_TESTS=OFF \
  -DNEEDLE_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target needle_fuzz

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OMP_WAIT_POLICY=passive  # OpenMP threads sleep between parallel regions
symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer
[ -x "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=$symbolizer
bin=$root/$build/tests/fuzz

if [ "$what" = replay ]; then
  which=${1:-all}
  [ "$which" = all ] && list=("${targets[@]}") || list=("$which")
  failing=0
  for t in "${list[@]}"; do
    target_flags "$t" >/dev/null
    for f in tests/fuzz/findings/"$t"/*; do
      [ -f "$f" ] || continue
      case $f in *.md | *.txt) continue ;; esac
      if "$bin/needle_fuzz_$t" "$f" >"$build/replay.log" 2>&1; then
        echo "fixed:         $f"
      else
        failing=$((failing + 1))
        echo "still failing: $f"
        grep -m1 -E "ERROR:|FUZZ CHECK FAILED|runtime error" "$build/replay.log" | sed 's/^/    /' || true
      fi
    done
  done
  exit $((failing > 0))
fi

[ $# -ge 1 ] || usage
seconds=$1
shift
case $seconds in '' | *[!0-9]*) usage ;; esac
[ "$what" = all ] && list=("${targets[@]}") || list=("$what")
for t in "${list[@]}"; do target_flags "$t" >/dev/null; done

# A fuzzer that crashed leaves its scratch directory behind (fuzz_util.h: ScratchDir).
for d in /dev/shm/needle-fuzz-* "${TMPDIR:-/tmp}"/needle-fuzz-*; do
  if [ -d "$d" ] && ! kill -0 "${d##*-}" 2>/dev/null; then rm -rf "$d"; fi
done
rm -rf "$build/seeds"
"$bin/needle_fuzz_seeds" tests/data "$build/seeds" >/dev/null
jobs=${NEEDLE_FUZZ_JOBS:-1}
found=0
summary=()
for t in "${list[@]}"; do
  corpus=$root/$build/corpus/$t
  artifacts=$root/$build/artifacts/$t
  logs=$root/$build/logs/$t
  mkdir -p "$corpus" "$artifacts" "$logs"
  rm -f "$logs"/*.log
  before=$(find "$artifacts" -type f | wc -l)
  # shellcheck disable=SC2207  # target_flags is a list of flags without spaces
  flags=($(target_flags "$t") -print_final_stats=1 -timeout=30 -rss_limit_mb=4096
         -artifact_prefix="$artifacts/")
  [ "$seconds" -gt 0 ] && flags+=(-max_total_time="$seconds")
  flags+=("$@")
  limit="${seconds}s"
  [ "$seconds" -gt 0 ] || limit="no time limit"
  echo "== fuzz $t: $limit, $jobs process(es), extra flags: ${*:-none}; corpus $build/corpus/$t"
  status=0
  if [ "$jobs" -gt 1 ]; then
    # Each job writes fuzz-N.log in the current directory.
    (cd "$logs" && "$bin/needle_fuzz_$t" "${flags[@]}" -jobs="$jobs" -workers="$jobs" \
      "$corpus" "$root/$build/seeds/$t") >"$logs/main.log" 2>&1 || status=$?
  else
    "$bin/needle_fuzz_$t" "${flags[@]}" "$corpus" "$root/$build/seeds/$t" \
      >"$logs/fuzz-0.log" 2>&1 || status=$?
  fi
  execs=0
  rate=0
  for log in "$logs"/fuzz-*.log; do
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    r=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    execs=$((execs + ${n:-0}))
    rate=$((rate + ${r:-0}))
  done
  after=$(find "$artifacts" -type f | wc -l)
  line="fuzz $t: $execs executions (${rate}/s), corpus $(find "$corpus" -type f | wc -l) inputs"
  if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
    found=1
    line="$line: FOUND SOMETHING (exit $status), see $build/artifacts/$t and $build/logs/$t"
    grep -h -m3 -E "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|FUZZ CHECK FAILED|runtime error|SUMMARY" \
      "$logs"/*.log | sed 's/^/    /' || true
  else
    line="$line, no finding"
  fi
  echo "$line"
  summary+=("$line")
done
if [ ${#summary[@]} -gt 1 ]; then
  printf '%s\n' "${summary[@]}"
fi
exit "$found"
