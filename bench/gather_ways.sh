#!/usr/bin/env bash
# gather_ways: one `needle run` command with each way of gathering (--gather scan, split,
# route; docs/engine.md step 3), in one run. The ways take turns, REPEATS times; the driver
# checks that every way gives the same --out byte for byte, and prints each way's medians of the
# gather's CPU per loaded edge (gather_cpu_seconds / edges_loaded), compute and run time, and
# peak RSS, with the ratios to the first way.
#
# Usage: bench/gather_ways.sh REPEATS APP SET_OR_GRAPH [needle run options...]
#   e.g. bench/gather_ways.sh 3 cc rmat22.csr.sym.shards --memory 143M --threads 2
# WAYS="scan split" by default (split is for cc and mssp); NEEDLE=path/to/needle, else
# build/apps/needle. Give a shard set directory, so that no run times sharding.
set -euo pipefail
repeats=$1
shift
ways=${WAYS:-scan split}
needle=${NEEDLE:-$(cd "$(dirname "$0")/.." && pwd)/build/apps/needle}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-10000}
work=$(mktemp -d /tmp/needle-gather-ways.XXXXXX)
trap 'rm -rf "$work"' EXIT
for r in $(seq "$repeats"); do
  for way in $ways; do
    "$needle" run "$@" --gather "$way" --skip-verify --stats "$work/$way.$r.json" \
      --out "$work/$way.$r.out" >/dev/null 2>"$work/$way.$r.err" ||
      { cat "$work/$way.$r.err" >&2; exit 1; }
  done
done
first=${ways%% *}
for way in $ways; do
  cmp -s "$work/$first.1.out" "$work/$way.1.out" ||
    { echo "gather_ways: --gather $first and $way give different --out" >&2; exit 1; }
done
echo "--out identical for: $ways"
PYTHONPATH="$(dirname "$0")" python3 - "$work" "$repeats" $ways <<'PY'
import statistics, sys
import run_files
work, repeats, ways = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
med = {}
for way in ways:
    s = [run_files.summary(f"{work}/{way}.{r}.json") for r in range(1, repeats + 1)]
    per_edge = [x["gather_cpu_seconds"] / max(x["edges_loaded"], 1) * 1e9 for x in s]
    med[way] = {
        "ns": statistics.median(per_edge),
        "compute": statistics.median(x["compute_seconds"] for x in s),
        "seconds": statistics.median(x["seconds"] for x in s),
    }
    each_ns = " ".join(f"{v:.2f}" for v in per_edge)
    each_run = " ".join(f"{x['seconds']:.2f}" for x in s)
    print(f"{way:6} gather CPU {med[way]['ns']:.2f} ns/edge ({each_ns}), "
          f"compute {med[way]['compute']:.3f} s, run {med[way]['seconds']:.3f} s ({each_run}), "
          f"{s[0]['iterations']} iterations, {s[0]['edges_loaded']} edges loaded, peak RSS "
          f"{statistics.median(x['peak_rss_bytes'] for x in s) / 2**20:.1f} MiB")
base = ways[0]
for way in ways[1:]:
    print(f"{way} / {base}: gather CPU per edge {med[way]['ns'] / med[base]['ns']:.3f}, "
          f"compute {med[way]['compute'] / med[base]['compute']:.3f}, "
          f"run {med[way]['seconds'] / med[base]['seconds']:.3f}")
PY
