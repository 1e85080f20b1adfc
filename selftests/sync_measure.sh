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
# into FILE (tracefs), to see who wrote what while the sync ran, and the
# line adds what the writeback works wrote during the sync, by who queued
# them (bytes): pass_bytes, the WB_SYNC_ALL passes of sync(2) or
# syncfs(2); kick_bytes, sync(2)'s WB_SYNC_NONE flush of every disk;
# background_bytes and periodic_bytes, background and kupdate writeback;
# other_wb_bytes, any other work; passes_seconds, from the first pass's
# start to the last pass's end; meta_bytes, REQ_META writes issued (the
# journal or log; writeback_account.sh); disk_idle_seconds and
# disk_idle_unqueued_seconds, the time the busiest DISK had no request
# in flight and, of it, no writeback work to do (writeback_account.sh
# -d: the rest is time its flusher had work and issued nothing);
# trace_lost, events the trace lost (the counts are then short).  What the disks wrote
# beyond the works' data is the journal, metadata and inodes.  With
# SYNC_MEASURE_STACKS=FILE, once a second during the sync the requests in
# flight on each DISK and the kernel stacks of the tasks in D state go to
# FILE: where a sync that leaves the CPU idle waits (lighter than a trace).
#
# With -- COMMAND, COMMAND runs in place of sync(1) (its output before the
# line): the regime of any load, e.g. a benchmark's run; sync_seconds is
# then COMMAND's time, and a COMMAND that fails fails this with no line.
set -u
here=$(cd "$(dirname "$0")" && pwd)
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
if [ $# -eq 0 ]; then
	for d in /sys/block/vd*; do
		[ -e "$d" ] && set -- "$@" "${d#/sys/block/}"
	done
fi
for d in "$@"; do
	[ -r "/sys/block/$d/stat" ] || { echo "sync_measure.sh: no disk $d" >&2; exit 2; }
done

# The samples around the sync use shell builtins only: in a guest whose
# CPUs the writers keep busy, each fork and exec takes a second or more,
# and seconds between the samples and the sync would let the writers
# dirty more than the samples say.

# sect[] (sectors written, field 6 of /sys/block/DEV/stat), ticks[]
# (milliseconds with I/O in flight, field 9) per DISK, reqs (writes
# completed, field 4, summed) and idle and total (CPU time in jiffies, the
# "cpu" line of /proc/stat; idle is idle + iowait).
sample()
{
	local d f k=0 i

	sect=() ticks=() reqs=0 total=0
	for d in "$@"; do
		read -r -a f <"/sys/block/$d/stat"
		sect[k]=${f[6]} ticks[k]=${f[9]}
		reqs=$((reqs + f[4]))
		k=$((k + 1))
	done
	read -r -a f </proc/stat
	idle=$((f[4] + f[5]))
	for ((i = 1; i < ${#f[@]}; i++)); do
		total=$((total + f[i]))
	done
}

# bytes: the kB of the /proc/meminfo-style lines named $2... in file $1,
# summed.
kb_sum()
{
	local file=$1 key val k

	shift
	bytes=0
	while read -r key val _; do
		for k; do
			[ "$key" != "$k:" ] || bytes=$((bytes + val * 1024))
		done
	done <"$file"
}

trace_events="block/block_rq_issue block/block_rq_complete block/block_rq_requeue writeback/writeback_start writeback/writeback_written
	writeback/writeback_queue_io jbd2/jbd2_start_commit jbd2/jbd2_end_commit
	jbd2/jbd2_checkpoint jbd2/jbd2_checkpoint_stats"

# mark start|end: the sync's bounds in the trace, for writeback_account.sh.
mark()
{
	[ -z "${SYNC_MEASURE_TRACE:-}" ] ||
		echo "sync_measure: $1" >/sys/kernel/tracing/trace_marker
}

# The trace buffer per CPU, in kB: a 60 s sync on five disks issues
# some 50000 requests.  Allocated once per boot (sync_busy.sh does it
# before the writers start), not in the middle of a loaded guest.
SYNC_MEASURE_TRACE_KB=16384

# Start (on) or stop and save (off) the trace of SYNC_MEASURE_TRACE;
# off also counts the events the buffer lost (lost).
trace()
{
	local t=/sys/kernel/tracing e kb f

	[ -n "${SYNC_MEASURE_TRACE:-}" ] || return 0
	mountpoint -q $t || mount -t tracefs none $t || return 1
	if [ "$1" = on ]; then
		read -r kb _ <$t/buffer_size_kb
		echo 0 >$t/tracing_on && echo >$t/trace || return 1
		[ "$kb" = "$SYNC_MEASURE_TRACE_KB" ] ||
			echo "$SYNC_MEASURE_TRACE_KB" >$t/buffer_size_kb || return 1
		for e in $trace_events; do
			[ ! -e "$t/events/$e/enable" ] || echo 1 >"$t/events/$e/enable" || return 1
		done
		echo 1 >$t/tracing_on
	else
		echo 0 >$t/tracing_on
		cat $t/trace >"$SYNC_MEASURE_TRACE" || return 1
		lost=0
		for f in "$t"/per_cpu/cpu*/stats; do
			while read -r e kb; do
				[ "$e" != overrun: ] || lost=$((lost + kb))
			done <"$f"
		done
		for e in $trace_events; do
			[ ! -e "$t/events/$e/enable" ] || echo 0 >"$t/events/$e/enable"
		done
		echo >$t/trace
	fi
}

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

[ -d /sys/kernel/debug/bdi ] || mount -t debugfs none /sys/kernel/debug
bdis=() devs=()
for d in "$@"; do
	read -r dev <"/sys/block/$d/dev" || exit 2
	devs+=("$dev")
	bdis+=("/sys/kernel/debug/bdi/$dev/stats")
	[ -r "${bdis[-1]}" ] || { echo "sync_measure.sh: no bdi statistics for $d" >&2; exit 2; }
done
trace on || { echo "sync_measure.sh: cannot trace into $SYNC_MEASURE_TRACE" >&2; exit 2; }
stacks_pid=
if [ -n "${SYNC_MEASURE_STACKS:-}" ]; then
	stacks "$@" &
	stacks_pid=$!
fi
# Dirty data per disk's bdi and in all, then the counters, then the sync.
ddirty=() max=0
for b in "${bdis[@]}"; do
	kb_sum "$b" BdiWriteback BdiReclaimable
	ddirty+=("$bytes")
	[ "$bytes" -le "$max" ] || max=$bytes
done
kb_sum /proc/meminfo Dirty Writeback
dirty=$bytes
sample "$@"
sect0=("${sect[@]}") ticks0=("${ticks[@]}") reqs0=$reqs idle0=$idle total0=$total
mark start
start=$EPOCHREALTIME
"${cmd[@]}" || exit 1
end=$EPOCHREALTIME
mark end
sample "$@"
[ -z "$stacks_pid" ] || kill "$stacks_pid"
trace off || { echo "sync_measure.sh: cannot save the trace to $SYNC_MEASURE_TRACE" >&2; exit 2; }
# In microseconds, integers from here on (no bc: see sample above).
us=$((${end//[^0-9]/} - ${start//[^0-9]/}))
# Q: dirty / (written / time) per disk, the largest
busiest=0 written=0 q=0 bk=0
for ((k = 0; k < ${#ticks0[@]}; k++)); do
	t=$((ticks[k] - ticks0[k]))
	[ "$t" -le "$busiest" ] || busiest=$t bk=$k
	w=$(((sect[k] - sect0[k]) * 512))
	written=$((written + w))
	if [ "$q" = - ]; then
		:
	elif [ "$w" -gt 0 ]; then
		t=$((ddirty[k] * us / w))
		[ "$t" -le "$q" ] || q=$t
	elif [ "${ddirty[k]}" -gt 0 ]; then
		q=-
	fi
done
# $1 microseconds as seconds with 3 decimals, into $2
secs() { printf -v "$2" '%d.%03d' $(($1 / 1000000)) $(($1 / 1000 % 1000)); }
[ "$q" = - ] || secs "$q" q
sync_s=
secs "$us" sync_s
acct=
[ -z "${SYNC_MEASURE_TRACE:-}" ] ||
	acct=" $("$here/writeback_account.sh" -d "${devs[bk]}" "$SYNC_MEASURE_TRACE") trace_lost=$lost" ||
	{ echo "sync_measure.sh: cannot read the trace $SYNC_MEASURE_TRACE" >&2; exit 2; }
printf 'sync_seconds=%s dirty_bytes=%d max_disk_dirty_bytes=%d written_bytes=%d cpu_idle_pct=%d disk_busy_pct=%d write_requests=%d start_epoch=%s rate_bound_seconds=%s%s\n' \
	"$sync_s" "$dirty" "$max" "$written" \
	$(((200 * (idle - idle0) / (total - total0 + 1) + 1) / 2)) \
	$(((busiest * 200000 / (us + 1) + 1) / 2)) "$((reqs - reqs0))" "$start" "$q" "$acct"
