#!/usr/bin/env bash
# The first thing to run: installs what is missing, builds needle, and does its main job — a
# graph whose shard set is several times the memory it is given, PageRank over it within that
# budget (the top vertices, what was read and written, the peak RSS), then the shard modes
# compared on it (static, pages, ods, auto: a table and an SVG of bytes and time per iteration).
# About a minute after the build on 2 cores.
#
# NEEDLE_DEMO_SCALE (default 21: 2 M vertices, 33.6 M edges) and NEEDLE_DEMO_MEMORY (default
# 48M) size it; NEEDLE_DEMO_NO_BUILD=1 uses build/apps/needle as it is (the test suite's run).
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${NEEDLE_DEMO_SCALE:-21}
memory=${NEEDLE_DEMO_MEMORY:-48M}
if [ -z "${NEEDLE_DEMO_NO_BUILD:-}" ]; then
  bash scripts/install-deps.sh
  NEEDLE_TARGET=needle bash scripts/build.sh build
fi
needle=${NEEDLE_BINARY:-build/apps/needle}
out=${NEEDLE_DEMO_DIR:-${TMPDIR:-/tmp}/needle-demo}
rm -rf "$out"
mkdir -p "$out"
step() { printf '\n== %s\n' "$*"; }

step "1. a graph: R-MAT scale $scale (Graph500 parameters), binary CSR"
"$needle" generate rmat --scale "$scale" --seed 1 -o "$out/rmat.csr"

step "2. sharded for --memory $memory (each interval's shards fit it)"
"$needle" shard "$out/rmat.csr" --memory "$memory" -o "$out/rmat.shards"
set_bytes=$(du -sb "$out/rmat.shards" | cut -f1)
echo "shard set: $((set_bytes / 1048576)) MiB on disk for a budget of $memory"

step "3. PageRank within $memory: the set is read from disk every iteration"
"$needle" run pagerank "$out/rmat.shards" --memory "$memory" --top 5 \
  -o "$out/ranks.tsv" --stats "$out/pagerank.jsonl"
echo "first lines of $out/ranks.tsv:"
head -3 "$out/ranks.tsv"

step "4. the shard modes on the same set: static, pages (static at page grain), ods (dynamic shards), auto"
# The dynamic modes keep a delay buffer (a message per vertex) and build buffers besides.
"$needle" compare pagerank "$out/rmat.shards" --memory "${NEEDLE_DEMO_COMPARE_MEMORY:-64M}" \
  --modes static,pages,ods,auto --plot "$out/modes.svg" --csv "$out/modes.csv"

for f in ranks.tsv pagerank.jsonl modes.csv modes.svg; do
  [ -s "$out/$f" ] || { echo "demo: $out/$f is missing" >&2; exit 1; }
done
[ "$(head -1 "$out/ranks.tsv")" = "$(printf 'vertex\trank')" ] ||
  { echo "demo: $out/ranks.tsv has no header line" >&2; exit 1; }
step "done: $out holds the graph, its shard set, ranks.tsv, pagerank.jsonl, modes.csv and"
echo "modes.svg (open it in a browser: bytes read and seconds per iteration, one line per mode)"
