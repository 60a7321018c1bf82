#!/usr/bin/env bash
# Configures and builds needle.
# Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]; NEEDLE_TARGET=needle builds one target.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)" ${NEEDLE_TARGET:+--target "$NEEDLE_TARGET"}
