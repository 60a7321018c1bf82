#!/usr/bin/env bash
# shard_bench: sharding time, CPU time and peak RSS for a generated R-MAT graph with --memory
# at a quarter of the input's size, against the disk's raw bandwidth measured in the same run.
#
# Usage: bench/shard_bench.sh [SCALE=22] [REPEATS=3] [DIR=/tmp/needle-shard-bench]
# Needs a build in build/ (bash scripts/build.sh). Prints medians and ratios:
#   - input bytes / wall second against io_bench's sequential read ceiling,
#   - edges per CPU-second (user + sys) against GraphChi's measured 3.4 M (target: 5x),
#   - peak RSS against the budget,
# for the text input (the headline), the same with the shard files written through the page
# cache (--buffered; CPU ratio against the default O_DIRECT), and the same graph as .csr.
# OMP_WAIT_POLICY=passive keeps idle OpenMP threads from spinning into the CPU-time figure.
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-22}
repeats=${2:-3}
dir=${3:-/tmp/needle-shard-bench}
needle=build/apps/needle
mkdir -p "$dir"
graph="$dir/rmat$scale.el"
[ -f "$graph" ] || "$needle" generate rmat --scale "$scale" --edge-factor 16 --seed 1 -o "$graph" >/dev/null
bytes=$(stat -c %s "$graph")
memory_mb=$(( bytes / 4 / 1048576 ))
echo "input: $graph ($(( bytes / 1000000 )) MB), --memory ${memory_mb}M (1/4 of the input)"

echo "--- raw bandwidth of this disk (io_bench, 1 GiB file) ---"
build/bench/io_bench --dir "$dir/io" --size-mb 1024 --repeats 3 | tee "$dir/io.txt"
# Ceilings: io_uring's direct (cold) sequential read — the disk — and its warm buffered read.
ceiling=$(awk '/^io_uring +direct \(cold\)/ { print $4 }' "$dir/io.txt")
warm=$(awk '/^io_uring +buffered \(warm\)/ { print $4 }' "$dir/io.txt")

export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# measure LABEL INPUT [needle shard options...]: $repeats runs; prints each and the medians,
# and leaves the median CPU seconds in $cpu.
measure() {
  local label=$1 input=$2
  shift 2
  echo "--- $label: $repeats runs ---"
  rm -f "$dir/runs.txt"
  for run in $(seq "$repeats"); do
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" \
      "$needle" shard "$input" --memory "${memory_mb}M" --out "$dir/shards" --force "$@" >"$dir/log.txt"
    read -r wall user sys rss_kb <"$dir/time.txt"
    echo "$wall $user $sys $rss_kb" >>"$dir/runs.txt"
    echo "run $run: wall ${wall}s user ${user}s sys ${sys}s peak RSS $(( rss_kb / 1024 )) MiB"
  done
  edges=$(sed -n 's/.* \([0-9]*\) edges.*/\1/p' "$dir/log.txt" | tail -1)
  wall=$(awk '{ print $1 }' "$dir/runs.txt" | median)
  cpu=$(awk '{ print $2 + $3 }' "$dir/runs.txt" | median)
  peak_kb=$(awk '{ print $4 }' "$dir/runs.txt" | sort -g | tail -1)
  awk -v w="$wall" -v c="$cpu" -v peak_kb="$peak_kb" -v bytes="$(stat -c %s "$input")" \
      -v edges="$edges" -v mem="$memory_mb" -v ceiling="$ceiling" -v warm="$warm" 'BEGIN {
    printf "median wall %.2f s: %.0f MB/s of input = %.2fx the disk read ceiling (%.2f GB/s direct), %.3fx the warm read ceiling (%.2f GB/s)\n",
           w, bytes / w / 1e6, (bytes / w / 1e9) / ceiling, ceiling, (bytes / w / 1e9) / warm, warm;
    printf "median CPU %.2f s: %.1f M edges per CPU-second = %.2fx GraphChi (3.4 M; target 5x)\n",
           c, edges / c / 1e6, edges / c / 1e6 / 3.4;
    printf "peak RSS %.0f MiB of the %d MiB budget (%.0f%%)\n", peak_kb / 1024, mem, 100 * peak_kb / 1024 / mem;
  }'
}

measure "text input (the headline)" "$graph"
head -2 "$dir/log.txt"
text_cpu=$cpu
measure "text input, shard files through the page cache (--buffered)" "$graph" --buffered
echo "CPU ratio --buffered / default: $(awk -v a="$cpu" -v b="$text_cpu" 'BEGIN { printf "%.2f", a / b }')"
csr="$dir/rmat$scale.csr"
[ -f "$csr" ] || "$needle" convert "$graph" -o "$csr" >/dev/null
measure "binary .csr input" "$csr"
echo "CPU ratio text / .csr: $(awk -v a="$text_cpu" -v b="$cpu" 'BEGIN { printf "%.2f", a / b }')"
rm -rf "$dir/shards" "$dir/io"
