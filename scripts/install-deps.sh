#!/usr/bin/env bash
# Installs what needle needs to build and test on Debian 12 (run as root, or with sudo).
# `install-deps.sh clang` also installs what the sanitizer and fuzzing jobs need: clang 14, its
# runtimes (ASan, UBSan, TSan, libFuzzer: libclang-rt-14-dev), LLVM's OpenMP runtime with the
# Archer tool that tells TSan about OpenMP's synchronisation (libomp-14-dev) and
# llvm-symbolizer (llvm-14) for readable reports.
# Skips apt-get entirely when everything is already installed.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config liburing-dev
          libboost-program-options-dev libboost-dev libgtest-dev zlib1g-dev liblzma-dev libxxhash-dev
          gzip xz-utils time util-linux)
case ${1:-} in
  "") ;;
  clang) packages+=(clang-14 libclang-rt-14-dev libomp-14-dev llvm-14) ;;
  *) echo "usage: scripts/install-deps.sh [clang]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi
