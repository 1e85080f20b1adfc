#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sfr_bench.sh [-r RUNS] [-t SECONDS] [-e EVERY]
#
# The sync_file_range(2) benchmark, in a wbsync guest: the fio job of
# sfr_bench.fio on ext4 on the first disk of $WBSYNC_DISKS, RUNS times in
# each mode of wbsync.ko's sfr_sync_mode knob: "auto" (the kernel's choice:
# WB_SYNC_NONE for SYNC_FILE_RANGE_WRITE) and "all" (WB_SYNC_ALL forced,
# as before Linux 4.4), alternating which goes first.  fio's JSON output of
# each run goes to $WBSYNC_OUT/sfr-RUN-MODE.json, the module's statistics
# of its sync_file_range calls to $WBSYNC_OUT/stats-RUN-MODE;
# scripts/sfr-report.sh makes the table.  Needs $WBSYNC_MODULE (wbsync.ko).
set -u
here=$(cd "$(dirname "$0")" && pwd)
runs=5 secs=30 every=16
usage="usage: sfr_bench.sh [-r RUNS] [-t SECONDS] [-e EVERY]"
while getopts r:t:e: opt; do
	case $opt in
	r) runs=$OPTARG ;;
	t) secs=$OPTARG ;;
	e) every=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
fail() { echo "sfr_bench.sh: $*" >&2; exit 2; }
for v in "$runs" "$secs" "$every"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || fail "-r, -t and -e take positive numbers, not '$v'"
done
read -r disk _ <<<"${WBSYNC_DISKS:-}"
[ -b "${disk:-}" ] || fail "no disk in WBSYNC_DISKS"
[ -d "${WBSYNC_OUT:-}" ] || fail "run me in a guest (scripts/vm-run)"
[ -f "${WBSYNC_MODULE:-}" ] || fail "WBSYNC_MODULE (wbsync.ko) is not set"

mnt=$(mktemp -d)
cleanup()
{
	mountpoint -q "$mnt" && umount "$mnt"
	grep -q '^wbsync ' /proc/modules && rmmod wbsync
	rmdir "$mnt"
}
trap cleanup EXIT
knob=/sys/kernel/debug/wbsync/sfr_sync_mode
insmod "$WBSYNC_MODULE" || fail "insmod $WBSYNC_MODULE failed"
[ "$(cat $knob)" != unsupported ] || fail "sfr_sync_mode is unsupported on $(uname -r)"
mkfs.ext4 -q -F "$disk" && mount "$disk" "$mnt" || fail "cannot mount $disk"

echo "TAP version 13"
echo "1..$((runs * 2))"
n=0
for ((r = 1; r <= runs; r++)); do
	modes="auto all"
	[ $((r % 2)) = 0 ] && modes="all auto"
	for mode in $modes; do
		n=$((n + 1))
		echo "$mode" >$knob
		rm -f "$mnt/sfr-bench"
		sync
		echo 3 >/proc/sys/vm/drop_caches
		out=$WBSYNC_OUT/sfr-$r-$mode.json
		echo 1 >/sys/kernel/debug/wbsync/reset
		if SFR_SECONDS=$secs SFR_EVERY=$every SFR_FILE=$mnt/sfr-bench \
			fio --output-format=json --output="$out" "$here/sfr_bench.fio"; then
			echo "ok $n run $r sfr_sync_mode=$mode"
			# The kernel's view of the same calls.
			cp /sys/kernel/debug/wbsync/stats "$WBSYNC_OUT/stats-$r-$mode"
		else
			echo "not ok $n run $r sfr_sync_mode=$mode (fio failed)"
		fi
	done
done
echo auto >$knob
