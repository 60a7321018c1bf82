#!/usr/bin/env bash
# vertex_order: the input's vertex order against breadth-first order (needle shard --order bfs)
# for one app on one graph, in one run. Shards GRAPH both ways into the same number of
# intervals (at SHARD_MEMORY, which must hold the graph while it is ordered), runs APP on each
# set at MEMORY with the static transport, REPEATS times, the orders taking turns, and prints
# the medians of run time (the --stats summary's seconds), iterations and bytes moved with the
# ratios bfs / input; checks that both orders give the same --out (CC, MSSP: byte for byte;
# PageRank: within 10 times --tolerance, relative) and exits 1 when they do not.
#
# Usage: bench/vertex_order.sh APP GRAPH MEMORY INTERVALS [REPEATS=3] [SHARD_MEMORY=1G]
#                              [EXTRA needle run options...]
#   e.g. bench/vertex_order.sh cc ../shared/datasets/roads/NE.gr.xz 40M 15
# Needs a build in build/ (bash scripts/build.sh). cc shards GRAPH symmetrized; give
# --symmetrize among the extra options for mssp on an undirected graph.
set -euo pipefail
cd "$(dirname "$0")/.."
app=$1 input=$2 memory=$3 intervals=$4
repeats=${5:-3}
shard_memory=${6:-1G}
shift $(( $# < 6 ? $# : 6 ))
needle=$PWD/build/apps/needle
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-10000}
work=$(mktemp -d /tmp/needle-vertex-order.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$input" "$work/"
graph=$work/$(basename "$input")
for order in input bfs; do
  # The set, as needle run shards it for APP (its costs, symmetrized or not), one iteration.
  "$needle" run "$app" "$graph" --memory "$shard_memory" --intervals "$intervals" \
    --order "$order" --iters 1 --out /dev/null "$@" >"$work/shard-$order.log" 2>&1 ||
    [ $? -eq 3 ] || { cat "$work/shard-$order.log" >&2; exit 1; }
done
set_of() {  # the one set of each order in $work
  if [ "$1" = bfs ]; then ls -d "$work"/*.bfs.shards; else ls -d "$work"/*.shards | grep -v '\.bfs\.shards$'; fi
}
for r in $(seq "$repeats"); do
  for order in input bfs; do
    "$needle" run "$app" "$(set_of "$order")" --memory "$memory" --transport static \
      --skip-verify --stats "$work/$order.$r.json" --out "$work/$order.$r.out" \
      $(printf '%s\n' "$@" | grep -v -x -e --symmetrize) >/dev/null 2>"$work/$order.$r.err" ||
      { cat "$work/$order.$r.err" >&2; exit 1; }
  done
done
tolerance=1e-4  # needle run's default
for ((i = 1; i <= $#; ++i)); do
  if [ "${!i}" = --tolerance ]; then j=$((i + 1)); tolerance=${!j}; fi
done
PYTHONPATH=bench python3 - "$work" "$repeats" "$app" "$tolerance" <<'PY'
import statistics, sys
import run_files
work, repeats, app, tolerance = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
summary = lambda order, r: run_files.summary(f"{work}/{order}.{r}.json")
values = lambda order: run_files.values(f"{work}/{order}.1.out")
a, b = values("input"), values("bfs")
if a.keys() != b.keys():
    sys.exit("vertex_order: the two orders' --out files name different vertices")
if app == "pagerank":
    worst = max(abs(float(a[k]) - float(b[k])) / max(abs(float(a[k])), 1e-12) for k in a)
    print(f"bfs answer within {worst:.1e} (relative) of the input order's")
    if worst > 10 * tolerance:
        sys.exit(f"vertex_order: the two orders' answers differ by more than 10 x {tolerance}")
elif a != b:
    sys.exit("vertex_order: the two orders' answers differ")
else:
    print("bfs answer identical to the input order's")
med = statistics.median
rows = {}
for order in ("input", "bfs"):
    s = [summary(order, r) for r in range(1, repeats + 1)]
    rows[order] = {k: med([x[k] for x in s]) for k in ("seconds", "iterations", "bytes_read", "bytes_written")}
    rows[order]["intervals"] = s[0]["num_intervals"]
print(f"{'order':6} {'intervals':>9} {'iters':>6} {'time s':>8} {'read MB':>9} {'written MB':>10}")
for order, x in rows.items():
    print(f"{order:6} {x['intervals']:9} {x['iterations']:6.0f} {x['seconds']:8.2f} "
          f"{x['bytes_read'] / 1e6:9.1f} {x['bytes_written'] / 1e6:10.1f}")
i, f = rows["input"], rows["bfs"]
print(f"bfs / input: iterations {f['iterations'] / i['iterations']:.3f}, time {f['seconds'] / i['seconds']:.3f}, "
      f"bytes {(f['bytes_read'] + f['bytes_written']) / (i['bytes_read'] + i['bytes_written']):.3f}")
PY
