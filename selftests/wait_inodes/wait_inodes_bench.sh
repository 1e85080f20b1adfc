#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# wait_inodes_bench.sh [-r RUNS] [-t SECONDS] [-W WRITERS]
#
# What the generic wait_sb_inodes() walk costs under many small creates,
# in a wbsync guest.  Per run and mode: a fresh ext4 on the first disk of
# $WBSYNC_DISKS, WRITERS busy_writer processes creating 4 KiB files, and
# syncfs_loop calling syncfs(2) on it for SECONDS.  Modes, alternating:
#   generic  no hook: the kernel's wait_sb_inodes()
#   wrap     wbsync_wait_user.ko's hook wrapping wait_sb_inodes()
#   skip     the hook without the walk (unsafe; the walk's cost is the
#            difference to "wrap")
# The walks are traced (see walk_trace_setup).  One line per run on stdout
# ("mode=M run=N files=F syncs=... sys_us=... walks=W walk_inodes=I
# walk_us=T": syncfs_loop's and the trace's fields) and in
# $WBSYNC_OUT/wait-inodes.txt;
# scripts/wait-inodes-report.sh makes the table.  Needs $WBSYNC_WAIT_USER
# and $WBSYNC_BIN (busy_writer, syncfs_loop).
set -u
runs=5 secs=20 writers=4
usage="usage: wait_inodes_bench.sh [-r RUNS] [-t SECONDS] [-W WRITERS]"
while getopts r:t:W: opt; do
	case $opt in
	r) runs=$OPTARG ;;
	t) secs=$OPTARG ;;
	W) writers=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
fail() { echo "wait_inodes_bench.sh: $*" >&2; exit 2; }
for v in "$runs" "$secs" "$writers"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || fail "-r, -t and -W take positive numbers, not '$v'"
done
read -r disk _ <<<"${WBSYNC_DISKS:-}"
[ -b "${disk:-}" ] || fail "no disk in WBSYNC_DISKS"
[ -d "${WBSYNC_OUT:-}" ] || fail "run me in a guest (scripts/vm-run)"
[ -f "${WBSYNC_WAIT_USER:-}" ] || fail "WBSYNC_WAIT_USER (wbsync_wait_user.ko) is not set"
bin=${WBSYNC_BIN:-}
[ -x "$bin/busy_writer" ] && [ -x "$bin/syncfs_loop" ] || fail "no busy_writer or syncfs_loop in WBSYNC_BIN"
[ -e /sys/kernel/tracing/options/sleep-time ] || fail "no function_graph tracer in this kernel"

mnt=$(mktemp -d)
writer=
tracing=/sys/kernel/tracing
# What a failed run leaves behind, undone.
reset()
{
	[ -z "$writer" ] || kill "$writer" 2>/dev/null
	wait
	writer=
	grep -q '^wbsync_wait_user ' /proc/modules && rmmod wbsync_wait_user
	mountpoint -q "$mnt" && umount "$mnt"
	rm -f "$mnt.files"
}
cleanup()
{
	reset
	echo nop >$tracing/current_tracer
	rmdir "$mnt"
}
trap cleanup EXIT

# The walk's own cost: function_graph on wait_sb_inodes() and the
# filemap_fdatawait_keep_errors() calls in it (the inodes it waits on),
# with the time a task sleeps left out (sleep-time off): the duration of a
# wait_sb_inodes() call is then the CPU time of the walk.  Only those two
# functions are patched, once, before any writer runs: switching a tracer
# over every function while writers run has crashed a TCG guest here
# ("Oops: int3" on an ftrace call site).  In every mode, for the same
# overhead.
walk_trace_setup()
{
	echo nop >$tracing/current_tracer &&
		echo 'wait_sb_inodes filemap_fdatawait_keep_errors' >$tracing/set_ftrace_filter &&
		echo wait_sb_inodes >$tracing/set_graph_function &&
		echo 2 >$tracing/max_graph_depth &&
		echo 0 >$tracing/options/sleep-time &&
		echo 1 >$tracing/options/funcgraph-proc &&
		echo 16384 >$tracing/buffer_size_kb &&
		echo function_graph >$tracing/current_tracer
}

walk_trace_start()
{
	echo >$tracing/trace
}

# Prints "walks=N walk_inodes=I walk_us=T" (T: CPU time of all walks).
walk_trace_stop()
{
	awk '
	# " 1)  syncfs_-123   |  + 12.3 us   |    name();" (pid after the CPU)
	{ pid = $2 }
	/wait_sb_inodes\(\) \{/ { open[pid] = 1; next }
	/wait_sb_inodes\(\);/ { walks++; us += dur(); next }
	open[pid] && /filemap_fdatawait_keep_errors\(\);/ { inodes++; next }
	open[pid] && /\|  \}/ { walks++; us += dur(); open[pid] = 0 }
	function dur(   i) {
		for (i = 1; i < NF; i++)
			if ($(i + 1) == "us") return $i
		return 0
	}
	END { printf "walks=%d walk_inodes=%d walk_us=%d\n", walks, inodes, us }
	' $tracing/trace
	echo >$tracing/trace
}

# one_run MODE RUN: sets $line to the result.
one_run()
{
	local mode=$1 run=$2 res files calls

	mkfs.ext4 -q -F "$disk" && mount "$disk" "$mnt" || return 1
	if [ "$mode" != generic ]; then
		insmod "$WBSYNC_WAIT_USER" mnt="$mnt" &&
			echo "$mode" >/sys/module/wbsync_wait_user/parameters/mode || return 1
	fi
	"$bin/busy_writer" -W "$writers" -s 4096 -F 1000000 "$mnt" >"$mnt.files" 2>&1 &
	writer=$!
	sleep 2
	walk_trace_start
	res=$("$bin/syncfs_loop" -t "$secs" "$mnt") || return 1
	res+=" $(walk_trace_stop)"
	kill "$writer" 2>/dev/null
	wait "$writer" || { echo "# busy_writer failed: $(tail -n 1 "$mnt.files")"; return 1; }
	writer=
	files=$(sed -n 's/^files_created=//p' "$mnt.files")
	rm -f "$mnt.files"
	if [ "$mode" != generic ]; then
		calls=$(cat /sys/module/wbsync_wait_user/parameters/calls)
		rmmod wbsync_wait_user || return 1
		res+=" hook_calls=$calls"
	fi
	umount "$mnt" || return 1
	line="mode=$mode run=$run files=${files:-0} $res"
	echo "$line" >>"$WBSYNC_OUT/wait-inodes.txt"
}

: >"$WBSYNC_OUT/wait-inodes.txt"
walk_trace_setup || fail "cannot set up the function_graph tracer"
echo "TAP version 13"
echo "1..$((runs * 3))"
n=0 failed=0
for ((r = 1; r <= runs; r++)); do
	# Rotate the order so that no mode always runs first.
	case $((r % 3)) in
	1) order="generic wrap skip" ;;
	2) order="wrap skip generic" ;;
	0) order="skip generic wrap" ;;
	esac
	for mode in $order; do
		n=$((n + 1))
		if one_run "$mode" "$r"; then
			echo "ok $n $mode run $r"
			echo "# $line"
		else
			echo "not ok $n $mode run $r"
			failed=1
			reset
		fi
	done
done
exit $failed
