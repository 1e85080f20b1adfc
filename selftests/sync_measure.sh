#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sync_measure.sh [DISK...]
#
# Runs sync(1) and prints, on one line:
#   sync_seconds=S dirty_bytes=D max_disk_dirty_bytes=M written_bytes=W
#   cpu_idle_pct=I disk_busy_pct=B
# D is Dirty + Writeback of /proc/meminfo just before the sync: the data
# a sync that skips nothing dirtied after its start has to write.  M is
# the largest share of it on one of the DISKs (names as in /sys/block;
# default every vd*), from the bdi statistics in debugfs.  W is what the
# DISKs wrote while the sync ran, from their stat files.  I is the share
# of the guest's CPU time that was idle during the sync (/proc/stat), B
# the busiest DISK's share of the time with I/O in flight (io_ticks): the
# regime, which tells a disk-bound sync from one the CPU holds back.
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

# Milliseconds with I/O in flight (field 10), one line per disk.
io_ticks()
{
	local d f

	for d in "$@"; do
		read -r -a f <"/sys/block/$d/stat"
		echo "${f[9]}"
	done
}

# Idle and total CPU time so far, in jiffies ("cpu" line of /proc/stat).
cpu_times()
{
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6, t }' /proc/stat
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
read -r -a ticks0 <<<"$(io_ticks "$@" | tr '\n' ' ')"
read -r idle0 total0 <<<"$(cpu_times)"
start=$(date +%s.%N)
sync || exit 1
end=$(date +%s.%N)
read -r idle1 total1 <<<"$(cpu_times)"
read -r -a ticks1 <<<"$(io_ticks "$@" | tr '\n' ' ')"
after=$(written "$@")
secs=$(echo "$end - $start" | bc)
busiest=0
for ((k = 0; k < ${#ticks0[@]}; k++)); do
	t=$((ticks1[k] - ticks0[k]))
	[ "$t" -gt "$busiest" ] && busiest=$t
done
printf 'sync_seconds=%.3f dirty_bytes=%d max_disk_dirty_bytes=%d written_bytes=%d cpu_idle_pct=%.0f disk_busy_pct=%.0f\n' \
	"$secs" "$dirty" "$max" "$((after - before))" \
	"$(echo "100 * ($idle1 - $idle0) / ($total1 - $total0 + 1)" | bc -l)" \
	"$(echo "$busiest / (10 * $secs + 0.001)" | bc -l)"
