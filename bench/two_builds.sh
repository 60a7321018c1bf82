#!/usr/bin/env bash
# two_builds: one `needle run` command under two needle binaries (the previous implementation
# and the new one), in one run. Runs the command REPEATS times per binary, the binaries taking
# turns, checks that both give the same --out byte for byte, and prints each binary's median
# run time (the summary's seconds), gather CPU per loaded edge (gather_cpu_seconds /
# edges_loaded), iterations and peak RSS, and the ratios new / old.
#
# Usage: bench/two_builds.sh OLD_NEEDLE NEW_NEEDLE REPEATS APP SET_OR_GRAPH [needle run options...]
#   e.g. git worktree add /tmp/old HEAD~1 && bash /tmp/old/scripts/build.sh /tmp/old/build
#        bench/two_builds.sh /tmp/old/build/apps/needle build/apps/needle 5 \
#          mssp NE.gr.sym.shards --num-sources 8 --memory 1G
# Give a shard set directory (or a graph whose default set both binaries accept as is): a
# binary that rebuilds the set would time the sharding too.
set -euo pipefail
old=$1 new=$2 repeats=$3
shift 3
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-10000}
work=$(mktemp -d /tmp/needle-two-builds.XXXXXX)
trap 'rm -rf "$work"' EXIT
for r in $(seq "$repeats"); do
  for build in old new; do
    bin=$old
    [ "$build" = new ] && bin=$new
    "$bin" run "$@" --skip-verify --stats "$work/$build.$r.json" --out "$work/$build.$r.out" \
      >/dev/null 2>"$work/$build.$r.err" || { cat "$work/$build.$r.err" >&2; exit 1; }
  done
done
cmp -s "$work/old.1.out" "$work/new.1.out" && echo "--out identical" ||
  { echo "two_builds: the two binaries' --out differ" >&2; exit 1; }
PYTHONPATH="$(dirname "$0")" python3 - "$work" "$repeats" <<'PY'
import statistics, sys
import run_files
work, repeats = sys.argv[1], int(sys.argv[2])
rows = {}
for build in ("old", "new"):
    s = [run_files.summary(f"{work}/{build}.{r}.json") for r in range(1, repeats + 1)]
    rows[build] = s
    times = " ".join(f"{x['seconds']:.2f}" for x in s)
    print(f"{build}: median {statistics.median(x['seconds'] for x in s):.2f} s ({times}), "
          f"{s[0]['iterations']} iterations, peak RSS "
          f"{statistics.median(x['peak_rss_bytes'] for x in s) / 2**20:.1f} MiB")
med = lambda b: statistics.median(x["seconds"] for x in rows[b])
gather = lambda b: statistics.median(
    x["gather_cpu_seconds"] / max(x["edges_loaded"], 1) * 1e9 for x in rows[b])
for build in ("old", "new"):
    print(f"{build}: gather {gather(build):.2f} ns a loaded edge")
print(f"new / old: time {med('new') / med('old'):.3f}, gather CPU a loaded edge "
      f"{gather('new') / max(gather('old'), 1e-12):.3f}")
PY
