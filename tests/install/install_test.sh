#!/usr/bin/env bash
# install_package: the installed CMake package works for a program outside the tree.
#
# Installs BUILD_DIR into a temporary prefix, configures and builds apps/examples against it
# with find_package(needle) (found through CMAKE_PREFIX_PATH alone), runs the example on a tiny
# hand-drawn graph and compares its output with hop counts worked out by hand below.
#
# Usage: install_test.sh BUILD_DIR SOURCE_DIR   (BUILD_DIR already built: installing builds nothing)
set -euo pipefail

build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/needle-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# A value from the build's CMakeCache.txt ("" when absent).
cache() {
  awk -v key="$1" 'index($0, key ":") == 1 { sub(/^[^=]*=/, ""); print; exit }' \
    "$build_dir/CMakeCache.txt"
}
cmake_bin=$(cache CMAKE_COMMAND)
cmake_bin=${cmake_bin:-cmake}

# The exported needle::build_flags already hands the example the sanitizer link option a
# sanitized build needs; compiling the example with the same flags also checks the engine
# code instantiated for its program (Engine<> is a template, so it lives in the example).
case "$(cache NEEDLE_SANITIZE)" in
  "") sanitize_flags="" ;;
  address) sanitize_flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" ;;
  thread) sanitize_flags="-fsanitize=thread -fno-omit-frame-pointer" ;;
  *) echo "install_test: unknown NEEDLE_SANITIZE '$(cache NEEDLE_SANITIZE)'" >&2; exit 1 ;;
esac

echo "== install $build_dir -> $tmp/prefix"
"$cmake_bin" --install "$build_dir" --prefix "$tmp/prefix"

# The layout the package promises.
for f in include/needle/base/types.h include/needle/io/io_backend.h include/needle/shards/sharder.h \
         include/needle/engine/engine.h include/needle/engine/engine_run.h \
         include/needle/engine/program.h \
         include/needle/apps/programs/connected_components.h; do
  [[ -f "$tmp/prefix/$f" ]] || { echo "install_test: $f not installed" >&2; exit 1; }
done
for f in libneedle_base.a libneedle_io.a libneedle_loaders.a libneedle_shards.a libneedle_engine.a \
         cmake/needle/needleConfig.cmake cmake/needle/needleConfigVersion.cmake; do
  [[ -n "$(find "$tmp/prefix" -path "*/$f")" ]] || { echo "install_test: $f not installed" >&2; exit 1; }
done

echo "== configure and build apps/examples against the installed package"
"$cmake_bin" -S "$source_dir/apps/examples" -B "$tmp/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_CXX_COMPILER="$(cache CMAKE_CXX_COMPILER)" \
  -DCMAKE_BUILD_TYPE="$(cache CMAKE_BUILD_TYPE)" \
  -DCMAKE_CXX_FLAGS="$sanitize_flags"
# find_package must have found this prefix, not some other installed needle.
found=$(awk -F= '/^needle_DIR:/ { print $2 }' "$tmp/build/CMakeCache.txt")
[[ "$found" == "$tmp/prefix/"* ]] || { echo "install_test: needle_DIR is '$found'" >&2; exit 1; }
"$cmake_bin" --build "$tmp/build"

# Directed edges. From 0: 1 and 2 are one hop away, 3 two (via either), 4 three; 4 -> 1 closes
# a cycle that must not shorten anything. 5, 6 and 8 reach 0 but 0 reaches none of them, and 7
# appears in no edge at all (ids run to the largest one): those four are unreachable.
cat > "$tmp/tiny.el" <<'GRAPH'
# hop count test graph
0 1
0 2
1 3
2 3
3 4
4 1
5 0
6 5
8 6
GRAPH
printf '%s\t%s\n' 0 0 1 1 2 1 3 2 4 3 5 inf 6 inf 7 inf 8 inf > "$tmp/expected"

echo "== run the example"
"$tmp/build/hop_count" "$tmp/tiny.el" "$tmp/tiny.shards" > "$tmp/actual"
if ! diff -u "$tmp/expected" "$tmp/actual"; then
  echo "install_test: hop_count output differs from the expected hop counts (above)" >&2
  exit 1
fi
echo "== install_package: OK"
