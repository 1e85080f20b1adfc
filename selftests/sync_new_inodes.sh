#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sync_new_inodes.sh [-f ext4|xfs] [-n NR_FS] [-t SECONDS] [-W WRITERS] [-r RUNS]
# sync_new_inodes.sh crash [-f ext4|xfs] [-n NR_FS] [-t SECONDS] [-W WRITERS]
# sync_new_inodes.sh verify [-f ext4|xfs] [-n NR_FS] --record DIR
#
# sync(2)'s WB_SYNC_ALL passes leave out the files created after the
# call, also those that background writeback had queued in b_io before
# the pass ran (the inherited batch; Documentation/sync-cutoff.rst,
# "A sync pass skips the new inodes it finds in b_io"), and write every file closed before it.  KTAP, in a wbsync
# guest, on a kernel with the sync cutoff (the series; it skips
# elsewhere), with NR_FS (default 2) disks (need_disks), slow ones
# (vm-run --profile usb or hdd) so that background writeback is still busy when
# the later passes start.
#
# Each run makes FSTYPE (default ext4) on every disk, sets
# vm.dirty_background_bytes to 1 MiB so that background writeback runs on
# every disk, has busy_writer create 16 KiB files on each (WRITERS per
# filesystem, default 2) for SECONDS (default 5), and traces sync(1):
# writeback_dirty_inode_enqueue (an inode dirtied from clean), the works'
# rounds and writeback_single_inode.  A run fails if a pass wrote pages of
# an inode new to the sync: one that busy_writer first dirtied 10 ms or
# more after the first pass started (the sync takes its number before)
# and that no other work wrote.  A run reaches the window when background
# writeback queued a batch on a disk after the first pass started and
# before that disk's pass; a run that does not is a SKIP, and the test
# skips if no run reached it.
#
# crash: one such run, then $WBSYNC_OUT/record (the trace's verdict,
# "sync_done") and $WBSYNC_OUT/old-files (the files last written more
# than a second before the call, 16 KiB each), then sysrq-b; verify, in
# the next boot on the same disks: every file of DIR/old-files has its
# 16 KiB, and every filesystem checks clean (scripts/new-inodes.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/wbsync_lib.sh"
mode=check
case ${1:-} in crash|verify) mode=$1; shift ;; esac
fstype=ext4 nr=2 secs=5 writers=2 runs=2 record=''
usage="usage: sync_new_inodes.sh [crash|verify] [-f ext4|xfs] [-n NR_FS] [-t SECONDS] [-W WRITERS] [-r RUNS] [--record DIR]"
fail() { echo "sync_new_inodes.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || fail "$1 needs an argument ($usage)"
	case $1 in
	-f) fstype=$2 ;;
	-n) nr=$2 ;;
	-t) secs=$2 ;;
	-W) writers=$2 ;;
	-r) runs=$2 ;;
	--record) record=$2 ;;
	*) fail "$usage" ;;
	esac
	shift 2
done
case $fstype in
ext4) mkfs=(mkfs.ext4 -q -F -i 4096) fsck=(fsck.ext4 -fn) ;;	# inodes for 1G disks
xfs) mkfs=(mkfs.xfs -q -f) fsck=(xfs_repair -n) ;;
*) fail "-f must be ext4 or xfs (the cutoff's filesystems), not '$fstype'" ;;
esac
[[ "$nr" =~ ^[2-5]$ ]] || fail "-n must be 2 to 5, not '$nr'"
[[ "$secs" =~ ^[1-9][0-9]*$ ]] && [ "$secs" -ge 2 ] || fail "-t must be 2 or more, not '$secs'"
[[ "$writers" =~ ^[1-9][0-9]*$ ]] || fail "-W must be a positive number, not '$writers'"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || fail "-r must be a positive number, not '$runs'"
[ "$mode" != verify ] || [ -r "$record/old-files" ] || fail "verify needs --record DIR with DIR/old-files"
[ "$mode" != crash ] || [ -d "${WBSYNC_OUT:-}" ] || fail "crash needs \$WBSYNC_OUT (scripts/vm-run)"
[ "$mode" = check ] || runs=1

[ "$(id -u)" = 0 ] || skip_all "needs root"
grep -qw sync_cutoff_start /proc/kallsyms || skip_all "the kernel has no sync cutoff (the series)"
busy_writer=${BUSY_WRITER:-${WBSYNC_BIN:-$here}/busy_writer}
[ -x "$busy_writer" ] || skip_all "$busy_writer not built"
tracefs=/sys/kernel/tracing
[ -d "$tracefs/instances" ] || mount -t tracefs nodev "$tracefs" 2>/dev/null
[ -d "$tracefs/instances" ] || skip_all "no tracefs"

inst=$tracefs/instances/wbsync-new-inodes
mnts=() writer_pid=''
. "$here/dirty_limits.sh"
cleanup()
{
	local m

	[ -z "$writer_pid" ] || { kill "$writer_pid"; wait "$writer_pid"; } 2>/dev/null
	writer_pid=''
	[ ! -d "$inst" ] || { echo 0 >"$inst/tracing_on"; rmdir "$inst"; }
	for m in "${mnts[@]}"; do
		umount "$m" && rmdir "$m"
	done
	mnts=()
	restore_dirty_limits
}
trap cleanup EXIT
need_disks "$nr"
read -r -a disks <<<"$WBSYNC_DISKS"

# The inodes that a WB_SYNC_ALL pass wrote pages of and that were new to
# the sync, from the text trace $1: "reached=N new_written=N inodes=LIST".
new_written()
{
	awk '
	function key(dev, ino) { return dev "/" ino }
	{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = substr($i, 1, length($i) - 1) + 0; ev = $(i + 1); break }
		task = $1; pid = task; sub(/.*-/, "", pid)
	}
	ev == "writeback_dirty_inode_enqueue:" {
		match($0, /dev [0-9]+,[0-9]+/); dev = substr($0, RSTART + 4, RLENGTH - 4); sub(/,/, ":", dev)
		match($0, / ino [0-9]+/); k = key(dev, substr($0, RSTART + 5, RLENGTH - 5))
		if (!(k in first)) { first[k] = t; by_user[k] = task ~ /^busy_writer-/ }
		next
	}
	ev == "writeback_start:" || ev == "writeback_written:" || ev == "writeback_queue_io:" {
		match($0, /bdi [0-9]+:[0-9]+/); bdi = substr($0, RSTART + 4, RLENGTH - 4)
	}
	ev == "writeback_start:" && / sync_mode=1 / {
		if (t0 == "") t0 = t
		if (!(bdi in pass_start)) pass_start[bdi] = t
		in_pass[pid] = 1
		next
	}
	ev == "writeback_written:" { delete in_pass[pid]; next }
	# a background batch queued after the sync started, before the pass of its disk
	ev == "writeback_queue_io:" && / reason=background / && t0 != "" && !(bdi in pass_start) && !/ enqueue=0 / {
		batch[bdi] = 1
		next
	}
	ev == "writeback_single_inode:" {
		match($0, /bdi [0-9]+:[0-9]+/); bdi = substr($0, RSTART + 4, RLENGTH - 4)
		match($0, / ino=[0-9]+/); k = key(bdi, substr($0, RSTART + 5, RLENGTH - 5))
		match($0, / wrote=[0-9]+/); wrote = substr($0, RSTART + 7, RLENGTH - 7) + 0
		if (pid in in_pass) { if (wrote > 0) pass_wrote[k] = 1 }
		else other[k] = 1
	}
	END {
		for (b in batch) reached++
		for (k in pass_wrote)
			if ((k in first) && by_user[k] && first[k] >= t0 + 0.010 && !(k in other)) {
				n++
				if (n <= 10) list = list (list == "" ? "" : ",") k
			}
		printf "reached=%d new_written=%d inodes=%s\n", reached, n, list == "" ? "-" : list
	}' "$1"
}

# verify: mount the filesystems again (the journal's replay), check the
# old files and the filesystems.
if [ "$mode" = verify ]; then
	ktap_print_header
	ktap_set_plan 2
	bad=0 total=0
	for ((k = 0; k < nr; k++)); do
		m=$(mktemp -d /tmp/wbsync-new.XXXXXX) && mount -t "$fstype" "${disks[k]}" "$m" ||
			ktap_exit_fail_msg "cannot mount ${disks[k]}"
		mnts+=("$m")
	done
	# one find per filesystem: a stat(1) per file is minutes under TCG
	for ((k = 0; k < nr; k++)); do
		find "${mnts[k]}" -type f -printf "$k %s %P\\n"
	done >/tmp/wbsync-new-inodes.found
	read -r total bad < <(awk '
		NR == FNR { size[$1 " " $3] = $2; next }
		{ n++; k = $1 " " $3
		  if (!(k in size) || size[k] != $2) {
			if (++bad <= 10) printf "fs%s %s: %s, not %s bytes\n", $1, $3, (k in size) ? size[k] : "missing", $2 >"/dev/stderr"
		  } }
		END { print n + 0, bad + 0 }' /tmp/wbsync-new-inodes.found "$record/old-files" 2>/tmp/wbsync-new-inodes.bad)
	while read -r line; do ktap_print_msg "$line"; done </tmp/wbsync-new-inodes.bad
	if [ "$total" -gt 0 ] && [ "$bad" = 0 ]; then
		ktap_test_pass "all $total files last written before the sync are whole"
	else
		ktap_test_fail "$bad of $total files last written before the sync are not whole"
	fi
	cleanup
	clean=1
	for d in "${disks[@]:0:nr}"; do
		"${fsck[@]}" "$d" >/dev/null 2>&1 || { clean=0; ktap_print_msg "$d does not check clean"; }
	done
	if [ "$clean" = 1 ]; then ktap_test_pass "the filesystems check clean"; else ktap_test_fail "the filesystems check clean"; fi
	ktap_finished
fi

# Make the filesystems on the first $nr disks and mount them; a tracefs
# instance with the events the analysis reads.
setup()
{
	local k m e

	for ((k = 0; k < nr; k++)); do
		m=$(mktemp -d /tmp/wbsync-new.XXXXXX) || return 1
		"${mkfs[@]}" "${disks[k]}" >/dev/null && mount -t "$fstype" "${disks[k]}" "$m" ||
			{ rmdir "$m"; return 1; }
		mnts+=("$m")
	done
	mkdir "$inst" && echo 16384 >"$inst/buffer_size_kb" || return 1
	for e in writeback_dirty_inode_enqueue writeback_start writeback_written \
		writeback_queue_io writeback_single_inode; do
		echo 1 >"$inst/events/writeback/$e/enable" || return 1
	done
}

# crash: the files each filesystem's writers last wrote more than a second
# before the call ($1, seconds since the epoch) and whole: "FS SIZE PATH".
old_files()
{
	local k

	for ((k = 0; k < nr; k++)); do
		find "${mnts[k]}" -type f -printf '%T@ %s %P\n' |
			awk -v k="$k" -v t="$1" '$1 < t - 1 && $2 == 16384 { print k, $2, $3 }'
	done
}

save_dirty_limits || skip_all "cannot save the dirty limits (${saved_dirty_limits[*]:-none set})"
ktap_print_header
ktap_set_plan "$runs"
echo 1048576 >/proc/sys/vm/dirty_background_bytes || skip_all "cannot set vm.dirty_background_bytes"
trace=/tmp/wbsync-new-inodes.trace
for ((r = 1; r <= runs; r++)); do
	res='' lost=0
	if setup; then
		# at most 24000 files of 16 KiB a writer: two writers fill 770 MB of
		# the 1G disks of make check
		"$busy_writer" -W "$writers" -F 24000 "${mnts[@]}" >/dev/null &
		writer_pid=$!
		# trace from a second before the call: every file that the sync
		# may count as new is created in the trace
		sleep $((secs - 1))
		echo 1 >"$inst/tracing_on"
		sleep 1
		t_call=$(date +%s.%N)
		sync
		echo 0 >"$inst/tracing_on"
		cat "$inst/trace" >"$trace"
		lost=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' "$inst"/per_cpu/cpu*/stats)
		res=$(new_written "$trace")
		if [ "$mode" = crash ]; then
			kill "$writer_pid"
			wait "$writer_pid"
			writer_pid=''
			old_files "$t_call" >"$WBSYNC_OUT/old-files"
			cp "$trace" "$WBSYNC_OUT/trace"
			{ echo "trace $res lost=$lost"; echo "files $(wc -l <"$WBSYNC_OUT/old-files")"; echo sync_done; } \
				>"$WBSYNC_OUT/record"
			sync "$WBSYNC_OUT/record" "$WBSYNC_OUT/old-files"
			echo 1 >/proc/sys/kernel/sysrq
			echo b >/proc/sysrq-trigger
			sleep 60
			exit 1	# not reached
		fi
	fi
	cleanup
	echo 1048576 >/proc/sys/vm/dirty_background_bytes
	[ -z "$res" ] || ktap_print_msg "run $r: $res"
	if [ -z "$res" ]; then
		ktap_test_fail "run $r: mkfs, mount or the trace failed"
	elif [ "$lost" != 0 ]; then
		ktap_test_fail "run $r: the trace lost $lost events"
	elif [[ "$res" != *" new_written=0 "* ]]; then
		ktap_test_fail "run $r: a pass wrote files created after the call"
	elif [[ "$res" == "reached=0 "* ]]; then
		ktap_test_skip "run $r: no background batch queued between the first pass and a later one"
	else
		ktap_test_pass "run $r"
	fi
done
if [ "$KTAP_CNT_PASS" = 0 ] && [ "$KTAP_CNT_FAIL" = 0 ]; then
	ktap_print_totals
	exit "$KSFT_SKIP"
fi
ktap_finished
