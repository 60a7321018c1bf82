#!/usr/bin/env bash
# gather_scaling: the dense gather's two ways (--gather scan, route) at 1..T threads, the same
# run otherwise: PageRank, 10 iterations, on a generated R-MAT graph sharded at MEMORY, once
# resident without inner passes (the gather's share of the work is largest) and once through
# the static windows at MEMORY. Prints per line the compute and total seconds from --stats
# and the ratio scan / route measured in the same run; each pair is REPEATS times.
#
# Usage: bench/gather_scaling.sh [SCALE=22] [MEMORY=73M] [REPEATS=2] [THREADS="1 2 4 8 16"]
# Needs a build in build/ (bash scripts/build.sh), or NEEDLE=path/to/needle; about 1 GB of
# disk in $TMPDIR at scale 22. Results: bench/RESULTS.md, "Gather per owner: routed".
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-22}
memory=${2:-73M}
repeats=${3:-2}
threads=${4:-"1 2 4 8 16"}
needle=${NEEDLE:-$PWD/build/apps/needle}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-10000}
work=$(mktemp -d "${TMPDIR:-/tmp}/needle-gather.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
"$needle" generate --kind rmat --scale "$scale" -o g.csr >/dev/null
"$needle" shard g.csr --memory "$memory" --out g.shards >/dev/null 2>&1
seconds() {  # args...: prints "compute total" of one run (10 iterations: exit 3, not converged)
  rm -f s.json
  "$needle" run pagerank g.shards --iters 10 --stats s.json "$@" >/dev/null 2>err.txt || true
  [ -s s.json ] || { cat err.txt >&2; exit 1; }
  python3 -c 'import json,sys; s=[json.loads(l) for l in open("s.json")][-1]; print("%.3f %.3f" % (s["compute_seconds"], s["seconds"]))'
}
printf '%-10s %7s %-14s %-14s %s\n' run threads "scan (c, t)" "route (c, t)" "scan/route"
for setup in resident static; do
  if [ $setup = resident ]; then opts=(--memory 16G --transport resident --inner-passes 0)
  else opts=(--memory "$memory" --transport static); fi
  for r in $(seq "$repeats"); do
    for t in $threads; do
      read -r sc st < <(seconds "${opts[@]}" --threads "$t" --gather scan)
      read -r rc rt < <(seconds "${opts[@]}" --threads "$t" --gather route)
      printf '%-10s %7s %-14s %-14s %.2f\n' $setup "$t" "$sc $st" "$rc $rt" \
        "$(python3 -c "print($sc / $rc)")"
    done
  done
done
