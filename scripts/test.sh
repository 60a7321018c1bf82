#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (every test at 1 and 2
# threads). With NEEDLE_SANITIZE=address (ASan+UBSan), builds into build-address with that
# instrumentation and runs the suite there. NEEDLE_SANITIZE=thread runs scripts/tsan.sh: the
# engine and shard suites under TSan, built with clang and LLVM's OpenMP (GCC's libgomp is not
# instrumented, so TSan would see a race at every OpenMP barrier).
set -euo pipefail
cd "$(dirname "$0")/.."
# The suite checks the loaders and apps on the real graphs: say at once where they are missing,
# rather than after the build with a failure per graph.
datasets=${NEEDLE_DATASETS_DIR:-../shared/datasets}
if [ ! -d "$datasets" ]; then
  echo "scripts/test.sh: no datasets at $datasets (the suite reads the real graphs there):" \
    "give NEEDLE_DATASETS_DIR=DIR" >&2
  exit 1
fi
if [ "${NEEDLE_SANITIZE:-}" = thread ]; then
  exec bash scripts/tsan.sh
fi
bash scripts/install-deps.sh
sanitize=${NEEDLE_SANITIZE:-}
dir=build${sanitize:+-$sanitize}
bash scripts/build.sh "$dir" -DNEEDLE_SANITIZE="$sanitize" \
  ${NEEDLE_DATASETS_DIR:+-DNEEDLE_DATASETS_DIR="$NEEDLE_DATASETS_DIR"}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$dir"
ctest --output-on-failure -j "$(nproc)"
