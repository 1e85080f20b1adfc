#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sync_measure.sh [DISK...] [-- COMMAND [ARG...]]
#
# Runs sync(1), or COMMAND, and prints, on one line:
#   sync_seconds=S dirty_bytes=D max_disk_dirty_bytes=M written_bytes=W
#   cpu_idle_pct=I disk_busy_pct=B write_requests=R start_epoch=T
#   rate_bound_seconds=Q
# D is Dirty + Writeback of /proc/meminfo just before the sync: the data
# a sync that skips nothing dirtied after its start has to write.  M is
# the largest share of it on one of the DISKs (names as in /sys/block;
# default every vd*), from the bdi statistics in debugfs.  W is what the
# DISKs wrote while the sync ran, from their stat files.  I is the share
# of the guest's CPU time that was idle during the sync (/proc/stat), B
# the busiest DISK's share of the time with I/O in flight (io_ticks): the
# regime, which tells a disk-bound sync from one the CPU holds back.  R
# is the number of write requests the DISKs completed during the sync: W/R
# tells a sync held back by the disks' IOPS from one held back by their rate.
# T is when the sync started (seconds since the epoch), to match the sync
# with what the host measured meanwhile.  Q is the bound at the rate the
# disks wrote at during the sync: for each DISK, its dirty data at the
# start over what it wrote per second during the sync; the largest.  S/Q
# is then how much more than its pre-sync data the slowest disk wrote
# (1.0: nothing else), whatever the disk's speed ("-" if a disk with
# dirty data wrote nothing).
#
# With SYNC_MEASURE_TRACE=FILE, the block requests issued, the writeback
# works and the jbd2 commits and checkpoints during the sync are traced
# into FILE (tracefs), to see who wrote what while the sync ran.  With
# SYNC_MEASURE_STACKS=FILE, once a second during the sync the requests in
# flight on each DISK and the kernel stacks of the tasks in D state go to
# FILE: where a sync that leaves the CPU idle waits (lighter than a trace).
#
# With -- COMMAND, COMMAND runs in place of sync(1) (its output before the
# line): the regime of any load, e.g. a benchmark's run; sync_seconds is
# then COMMAND's time, and a COMMAND that fails fails this with no line.
set -u
disks=() cmd=(sync)
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	disks+=("$1")
	shift
done
if [ $# -gt 0 ]; then
	shift
	[ $# -gt 0 ] || { echo "sync_measure.sh: no COMMAND after --" >&2; exit 2; }
	cmd=("$@")
fi
set -- "${disks[@]}"
[ $# -gt 0 ] || set -- $(cd /sys/block && ls -d vd* 2>/dev/null)
for d in "$@"; do
	[ -r "/sys/block/$d/stat" ] || { echo "sync_measure.sh: no disk $d" >&2; exit 2; }
done

# Field $1 (from 0) of the DISKs' /sys/block/DEV/stat, summed: 4 is the
# writes completed, 6 the sectors written.
stat_sum()
{
	local i=$1 d sum=0 f

	shift
	for d in "$@"; do
		read -r -a f <"/sys/block/$d/stat"
		sum=$((sum + f[i]))
	done
	echo "$sum"
}

trace_events="block/block_rq_issue writeback/writeback_start writeback/writeback_written
	writeback/writeback_queue_io jbd2/jbd2_start_commit jbd2/jbd2_end_commit
	jbd2/jbd2_checkpoint jbd2/jbd2_checkpoint_stats"

# Start (on) or stop and save (off) the trace of SYNC_MEASURE_TRACE.
trace()
{
	local t=/sys/kernel/tracing e

	[ -n "${SYNC_MEASURE_TRACE:-}" ] || return 0
	mountpoint -q $t || mount -t tracefs none $t || return 1
	if [ "$1" = on ]; then
		echo 0 >$t/tracing_on && echo 65536 >$t/buffer_size_kb && echo >$t/trace || return 1
		for e in $trace_events; do
			[ ! -e "$t/events/$e/enable" ] || echo 1 >"$t/events/$e/enable" || return 1
		done
		echo 1 >$t/tracing_on
	else
		echo 0 >$t/tracing_on
		cat $t/trace >"$SYNC_MEASURE_TRACE" || return 1
		for e in $trace_events; do
			[ ! -e "$t/events/$e/enable" ] || echo 0 >"$t/events/$e/enable"
		done
		echo >$t/trace
	fi
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
max=0 ddirty=()
for d in "$@"; do
	b=$(bdi_dirty "$d")
	ddirty+=("$b")
	[ "$b" -gt "$max" ] && max=$b
done
dirty=$(awk '/^(Dirty|Writeback):/ { kb += $2 } END { print kb * 1024 }' /proc/meminfo)
# Sample, until killed, what SYNC_MEASURE_STACKS says (see above).
stacks()
{
	local d p st

	while :; do
		echo "== $EPOCHREALTIME"
		for d in "$@"; do
			echo "$d inflight $(cat "/sys/block/$d/inflight")"
		done
		for p in /proc/[0-9]*; do
			read -r _ _ st _ <"$p/stat" 2>/dev/null && [ "$st" = D ] || continue
			echo "-- ${p#/proc/} $(cat "$p/comm" 2>/dev/null)"
			cat "$p/stack" 2>/dev/null
		done
		sleep 1
	done >"$SYNC_MEASURE_STACKS"
}

trace on || { echo "sync_measure.sh: cannot trace into $SYNC_MEASURE_TRACE" >&2; exit 2; }
before=$(($(stat_sum 6 "$@") * 512))
read -r -a sect0 <<<"$(for d; do stat_sum 6 "$d"; done | tr '\n' ' ')"
reqs0=$(stat_sum 4 "$@")
read -r -a ticks0 <<<"$(io_ticks "$@" | tr '\n' ' ')"
read -r idle0 total0 <<<"$(cpu_times)"
stacks_pid=
if [ -n "${SYNC_MEASURE_STACKS:-}" ]; then
	stacks "$@" &
	stacks_pid=$!
fi
start=$EPOCHREALTIME
"${cmd[@]}" || exit 1
end=$EPOCHREALTIME
[ -z "$stacks_pid" ] || kill "$stacks_pid"
read -r idle1 total1 <<<"$(cpu_times)"
read -r -a ticks1 <<<"$(io_ticks "$@" | tr '\n' ' ')"
after=$(($(stat_sum 6 "$@") * 512))
read -r -a sect1 <<<"$(for d; do stat_sum 6 "$d"; done | tr '\n' ' ')"
reqs1=$(stat_sum 4 "$@")
trace off || { echo "sync_measure.sh: cannot save the trace to $SYNC_MEASURE_TRACE" >&2; exit 2; }
secs=$(echo "$end - $start" | bc)
busiest=0
for ((k = 0; k < ${#ticks0[@]}; k++)); do
	t=$((ticks1[k] - ticks0[k]))
	[ "$t" -gt "$busiest" ] && busiest=$t
done
# dirty / (written / secs) per disk, the largest
rate_bound=$(for ((k = 0; k < ${#ddirty[@]}; k++)); do
	echo "${ddirty[k]} $(((sect1[k] - sect0[k]) * 512))"
done | awk -v s="$secs" '
	$1 > 0 && $2 == 0 { none = 1 }
	$2 > 0 && $1 * s / $2 > q { q = $1 * s / $2 }
	END { if (none) print "-"; else printf "%.3f\n", q }')
printf 'sync_seconds=%.3f dirty_bytes=%d max_disk_dirty_bytes=%d written_bytes=%d cpu_idle_pct=%.0f disk_busy_pct=%.0f write_requests=%d start_epoch=%s rate_bound_seconds=%s\n' \
	"$secs" "$dirty" "$max" "$((after - before))" \
	"$(echo "100 * ($idle1 - $idle0) / ($total1 - $total0 + 1)" | bc -l)" \
	"$(echo "$busiest / (10 * $secs + 0.001)" | bc -l)" "$((reqs1 - reqs0))" "$start" "$rate_bound"
