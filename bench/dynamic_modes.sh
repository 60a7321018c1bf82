#!/usr/bin/env bash
# dynamic_modes: static against dynamic shards (ads, ods, auto) on one shard set, the same run
# otherwise (static windows transport, the same --memory), each mode REPEATS times, the modes
# taking turns (MODES="..." picks others, static first; "pages" is static with --windows
# pages and neither push nor pull turns, "push" the same with --push auto, "pull" with
# --push auto and --pull auto, "auto" reads the static shards at page grain with push and pull
# turns as needle run does by default, "auto-push" is auto without pull turns, "auto-pages"
# auto with neither, and "auto-whole" is auto with --windows whole). Give --direct among the
# extra options for cold
# runs (O_DIRECT: no page cache); else warm.
#
# Usage: bench/dynamic_modes.sh APP GRAPH|SHARDS MEMORY [REPEATS=3] [EXTRA needle run options...]
#   e.g. bench/dynamic_modes.sh pagerank /work/data/cnr-2000.txt.gz 50M 3
# Needs a build in build/ (bash scripts/build.sh). Prints per mode the medians of wall time,
# iterations, shadow iterations, bytes read and written (and their share in shadow iterations
# and shard builds), edges loaded and their utilisation (the share that carried a message),
# and the ratios to static measured in the same run; checks
# that every mode's answer agrees with static's (CC and MSSP: identical; PageRank: within 10
# times the tolerance, relative).
set -euo pipefail
cd "$(dirname "$0")/.."
app=$1
input=$2
memory=$3
repeats=${4:-3}
shift $(( $# < 4 ? $# : 4 ))
needle=build/apps/needle
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-10000}
work=$(mktemp -d /tmp/needle-dynamic-modes.XXXXXX)
trap 'rm -rf "$work"' EXIT
modes=${MODES:-static ads ods auto}
for r in $(seq "$repeats"); do
  for mode in $modes; do
    case $mode in
      pages) how=(--mode static --windows pages --push never --pull never) ;;
      push) how=(--mode static --windows pages --push auto --pull never) ;;
      pull) how=(--mode static --windows pages --push auto --pull auto) ;;
      auto-push) how=(--mode auto --pull never) ;;
      auto-pages) how=(--mode auto --push never --pull never) ;;
      *-whole) how=(--mode "${mode%-whole}" --windows whole) ;;
      *) how=(--mode "$mode") ;;
    esac
    "$needle" run "$app" "$input" --memory "$memory" --transport static "${how[@]}" \
      --stats "$work/$mode.$r.json" --out "$work/$mode.$r.out" "$@" >/dev/null 2>"$work/$mode.$r.err" ||
      { cat "$work/$mode.$r.err" >&2; exit 1; }
  done
done
tolerance=1e-4
for ((i = 1; i <= $#; ++i)); do
  if [ "${!i}" = --tolerance ]; then j=$((i + 1)); tolerance=${!j}; fi
done
PYTHONPATH=bench python3 - "$work" "$repeats" "$app" "$tolerance" $modes <<'EOF'
import statistics, sys
import run_files
work, repeats, app, tolerance = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
modes = sys.argv[5:]
summary = lambda mode, r: run_files.summary(f"{work}/{mode}.{r}.json")
values = lambda mode: run_files.values(f"{work}/{mode}.1.out")
med = lambda xs: statistics.median(xs)
rows = {}
for mode in modes:
    s = [summary(mode, r) for r in range(1, repeats + 1)]
    rows[mode] = {
        "seconds": med([x["seconds"] for x in s]),
        "iterations": med([x["iterations"] for x in s]),
        "shadow": med([x["shadow_iterations"] for x in s]),
        "read": med([x["bytes_read"] for x in s]),
        "written": med([x["bytes_written"] for x in s]),
        "shadow_rw": med([x["shadow_bytes_read"] + x["shadow_bytes_written"] for x in s]),
        "edges": med([x["edges_loaded"] for x in s]),
        "used": med([x["edges_used"] for x in s]),
        "delayed": med([x["delayed"] for x in s]),
        "rss": med([x["peak_rss_bytes"] for x in s]),
    }
base = values("static")
for mode in modes[1:]:
    other = values(mode)
    worst = 0.0
    for k, v in base.items():
        a, b = float(v.split()[0]), float(other[k].split()[0])
        worst = max(worst, abs(a - b) / max(abs(a), 1e-12)) if app == "pagerank" else max(worst, float(a != b))
    ok = worst <= 10 * tolerance if app == "pagerank" else worst == 0
    print(f"{mode}: answer {'agrees' if ok else 'DIFFERS'} with static (worst relative difference {worst:.2e})")
s = rows["static"]
print(f"{'mode':6} {'time s':>8} {'x static':>8} {'iters':>6} {'shadow':>6} {'read MB':>9} {'written MB':>10} "
      f"{'I/O x static':>12} {'shadow I/O MB':>13} {'edges M':>8} {'util':>5} {'delayed':>8} {'RSS MB':>7}")
for mode, x in rows.items():
    io = (x["read"] + x["written"]) / max(s["read"] + s["written"], 1)
    print(f"{mode:6} {x['seconds']:8.2f} {x['seconds'] / s['seconds']:8.2f} {x['iterations']:6.0f} "
          f"{x['shadow']:6.0f} {x['read'] / 1e6:9.1f} {x['written'] / 1e6:10.1f} {io:12.2f} "
          f"{x['shadow_rw'] / 1e6:13.1f} {x['edges'] / 1e6:8.2f} {x['used'] / max(x['edges'], 1):5.2f} "
          f"{x['delayed']:8.0f} {x['rss'] / 1e6:7.1f}")
EOF
