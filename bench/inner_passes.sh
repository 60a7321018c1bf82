#!/usr/bin/env bash
# Asynchronous intervals: how the bound on inner passes (--inner-passes) changes a run's
# iterations, passes, time and I/O, against one pass per turn (--inner-passes 0), in one
# invocation on one shard set (warm cache).
#
#   bash bench/inner_passes.sh APP GRAPH|SHARDDIR [--memory M] [--transport T] [BOUNDS...]
#   e.g. bash bench/inner_passes.sh cc /tmp/NE.gr.xz.sym.shards --memory 1G 0 4 16 64
#
# Prints, per bound: iterations, inner passes, seconds (median of REPEATS=3 runs), bytes read
# and written, peak RSS, and the time and iteration ratios to bound 0. The first bound should
# be 0 (the baseline).
set -euo pipefail
cd "$(dirname "$0")/.."
app=$1 input=$2
shift 2
extra=()
bounds=()
while [ $# -gt 0 ]; do
  case $1 in
    --memory | --transport | --num-sources | --sources | --tolerance) extra+=("$1" "$2"); shift 2 ;;
    *) bounds+=("$1"); shift ;;
  esac
done
[ ${#bounds[@]} -gt 0 ] || bounds=(0 1 4 16 64 100000)
repeats=${REPEATS:-3}
needle=build/apps/needle
stats=$(mktemp -d)
trap 'rm -rf "$stats"' EXIT
printf '%-8s %10s %10s %9s %10s %10s %9s %9s %9s\n' bound iterations inner seconds \
  read_MB written_MB rss_MB time/0 iters/0
# Untimed: shards the input when it is a graph file, and warms the page cache.
"$needle" run "$app" "$input" "${extra[@]}" --inner-passes 0 >/dev/null 2>&1
base_t="" base_i=""
for b in "${bounds[@]}"; do
  times=()
  for r in $(seq "$repeats"); do
    "$needle" run "$app" "$input" "${extra[@]}" --inner-passes "$b" \
      --stats "$stats/$b-$r.json" >/dev/null 2>&1
    times+=("$(python3 -c "
import json
for l in open('$stats/$b-$r.json'):
    d = json.loads(l)
    if d['type'] == 'summary': print(d['seconds'])")")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$(((repeats + 1) / 2))p")
  read -r iters inner rd wr rss < <(python3 -c "
import json
for l in open('$stats/$b-1.json'):
    d = json.loads(l)
    if d['type'] == 'summary':
        print(d['iterations'], d['inner_passes'], d['bytes_read'] / 1e6,
              d['bytes_written'] / 1e6, d['peak_rss_bytes'] / 1e6)")
  [ -n "$base_t" ] || { base_t=$median; base_i=$iters; }
  python3 -c "
print('%-8s %10d %10d %9.2f %10.1f %10.1f %9.1f %9.2f %9.3f' % ('$b', $iters, $inner, $median,
      $rd, $wr, $rss, $median / $base_t, $iters / max($base_i, 1)))"
done
