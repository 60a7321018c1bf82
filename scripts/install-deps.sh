#!/usr/bin/env bash
# Installs what needle needs to build and test on Debian 12 (run as root, or with sudo).
# Skips apt-get entirely when everything is already installed.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config liburing-dev
          libboost-program-options-dev libgtest-dev zlib1g-dev liblzma-dev libxxhash-dev
          gzip xz-utils time)
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
