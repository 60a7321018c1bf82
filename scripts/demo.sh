#!/usr/bin/env bash
# The first thing to run: installs what is missing, builds needle, generates an R-MAT graph,
# converts it to the binary .csr format, and prints its statistics.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
NEEDLE_TARGET=needle bash scripts/build.sh build
out=${TMPDIR:-/tmp}/needle-demo
mkdir -p "$out"
build/apps/needle generate rmat --scale 18 --edge-factor 16 --seed 1 -o "$out/rmat18.el"
build/apps/needle convert "$out/rmat18.el" -o "$out/rmat18.csr"
build/apps/needle info "$out/rmat18.csr"
