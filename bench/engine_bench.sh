#!/usr/bin/env bash
# engine_bench: PageRank and CC on a generated R-MAT graph with --memory at a quarter of the
# shard set, warm and cold (O_DIRECT), against the disk bandwidth measured in the same run.
#
# Usage: bench/engine_bench.sh [SCALE=22] [REPEATS=3] [DIR=/tmp/needle-engine-bench]
# Needs a build in build/ (bash scripts/build.sh). Prints, per app and mode, medians of:
# iteration time, bytes moved per edge per iteration (target <= 14), compute-only rate,
# edges per CPU-second against GraphChi's measured ~7 M (target 5x), cold iteration time
# against bytes moved / disk bandwidth (target <= 1.25x), and the peak RSS against --memory.
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-22}
repeats=${2:-3}
dir=${3:-/tmp/needle-engine-bench}
needle=build/apps/needle
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-10000}
mkdir -p "$dir"
graph="$dir/rmat$scale.el"
[ -f "$graph" ] || "$needle" generate rmat --scale "$scale" --edge-factor 16 --seed 1 -o "$graph" >/dev/null

# The shard set's size does not depend on --memory much: shard once generously, measure, then
# shard again for a budget of a quarter of it.
"$needle" shard "$graph" --memory 2G --out "$dir/probe.shards" >/dev/null
set_bytes=$(du -sb "$dir/probe.shards" | cut -f1)
rm -rf "$dir/probe.shards"
memory_mb=$(( set_bytes / 4 / 1048576 ))
echo "shard set: $(( set_bytes / 1000000 )) MB; --memory ${memory_mb}M (1/4 of it)"
"$needle" shard "$graph" --memory "${memory_mb}M" --out "$dir/shards" | tail -1
"$needle" shard "$graph" --memory "${memory_mb}M" --out "$dir/sym.shards" --symmetrize | tail -1

/usr/bin/time -f "%e s wall, %U s user, %S s sys, peak RSS %M KB" \
  build/bench/engine_bench --shards "$dir/shards" --sym-shards "$dir/sym.shards" \
  --memory-mb "$memory_mb" --repeats "$repeats"
