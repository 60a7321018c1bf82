#!/usr/bin/env bash
# slow_disk: runs a command with the disk under a directory limited to MBPS megabytes a second
# of reads and as many of writes, so that a fast disk behaves like a slower one (an SSD on
# SATA reads 500, a disk 100-200). What the limit slows is what reaches the device: give the
# runs --direct (O_DIRECT), or the page cache serves them. The limit is a cgroup's (v2:
# io.max; v1: blkio.throttle.*) on the whole disk that holds DIR; needs root. The cgroup is
# removed afterwards.
#
# Usage: bench/slow_disk.sh MBPS DIR COMMAND [ARGS...]
#   e.g. bench/slow_disk.sh 100 /tmp/sets bench/dynamic_modes.sh pagerank /tmp/sets/cnr.shards \
#          50M 3 --direct --tolerance 1e-4
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: bench/slow_disk.sh MBPS DIR COMMAND [ARGS...]" >&2; exit 2; }
mbps=$1
dir=$2
shift 2
[ "$(id -u)" -eq 0 ] || { echo "slow_disk: needs root (a cgroup's I/O limit)" >&2; exit 2; }
source=$(df --output=source "$dir" | tail -1)
parent=$(lsblk -no PKNAME "$source" 2>/dev/null | head -1)
disk=/dev/${parent:-$(basename "$source")}
majmin=$(lsblk -dno MAJ:MIN "$disk" | tr -d ' ')
[ -n "$majmin" ] || { echo "slow_disk: no block device under $dir ($source)" >&2; exit 2; }
bps=$((mbps * 1000 * 1000))
name=needle-slow-disk.$$
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then  # v2
  group=/sys/fs/cgroup/$name
  grep -qw io /sys/fs/cgroup/cgroup.subtree_control ||
    echo +io >/sys/fs/cgroup/cgroup.subtree_control
  mkdir "$group"
  echo "$majmin rbps=$bps wbps=$bps" >"$group/io.max"
elif [ -d /sys/fs/cgroup/blkio ]; then  # v1
  group=/sys/fs/cgroup/blkio/$name
  mkdir "$group"
  echo "$majmin $bps" >"$group/blkio.throttle.read_bps_device"
  echo "$majmin $bps" >"$group/blkio.throttle.write_bps_device"
else
  echo "slow_disk: no cgroup I/O controller mounted under /sys/fs/cgroup" >&2
  exit 2
fi
trap 'rmdir "$group" 2>/dev/null || true' EXIT
echo "slow_disk: $disk ($majmin) limited to $mbps MB/s of reads and $mbps MB/s of writes" >&2
status=0
bash -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' slow_disk "$group" "$@" || status=$?
exit "$status"
