#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sync_measure.sh [DISK...]
#
# Runs sync(1) and prints, on one line:
#   sync_seconds=S dirty_bytes=D max_disk_dirty_bytes=M written_bytes=W
# D is Dirty + Writeback of /proc/meminfo just before the sync: the data
# a sync that skips nothing dirtied after its start has to write.  M is
# the largest share of it on one of the DISKs (names as in /sys/block;
# default every vd*), from the bdi statistics in debugfs.  W is what the
# DISKs wrote while the sync ran, from their stat files.
set -u
[ $# -gt 0 ] || set -- $(cd /sys/block && ls -d vd* 2>/dev/null)
for d in "$@"; do
	[ -r "/sys/block/$d/stat" ] || { echo "sync_measure.sh: no disk $d" >&2; exit 2; }
done

# Sectors written (field 7 of /sys/block/DEV/stat), summed, in bytes.
written()
{
	local d sum=0 f

	for d in "$@"; do
		read -r -a f <"/sys/block/$d/stat"
		sum=$((sum + f[6] * 512))
	done
	echo "$sum"
}

# Dirty plus under-writeback data of one disk's bdi, in bytes.
bdi_dirty()
{
	awk '/^Bdi(Writeback|Reclaimable):/ { kb += $2 } END { print kb * 1024 }' \
		"/sys/kernel/debug/bdi/$(cat "/sys/block/$1/dev")/stats"
}

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
max=0
for d in "$@"; do
	b=$(bdi_dirty "$d")
	[ "$b" -gt "$max" ] && max=$b
done
dirty=$(awk '/^(Dirty|Writeback):/ { kb += $2 } END { print kb * 1024 }' /proc/meminfo)
before=$(written "$@")
start=$(date +%s.%N)
sync || exit 1
end=$(date +%s.%N)
after=$(written "$@")
printf 'sync_seconds=%.3f dirty_bytes=%d max_disk_dirty_bytes=%d written_bytes=%d\n' \
	"$(echo "$end - $start" | bc)" "$dirty" "$max" "$((after - before))"
