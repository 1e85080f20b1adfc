#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload wbsync.ko over and over while sync(2), syncfs(2) and
# sync_file_range(2) run in loops on a real disk, with its tracepoints on
# and a knob flipped while loaded: the kprobes and tracepoints come and go
# under callers that are inside the probed functions.  Then no loop may be
# stuck, and, where the kernel has them (the lab's debug variant), lockdep
# must still be on and kmemleak must find nothing.  The console scan of
# scripts/vm-run adds BUG/WARNING/KASAN/lockdep reports on top.
#
# Needs $WBSYNC_MODULE, $KSRC (ktap_helpers.sh) and one disk in
# $WBSYNC_DISKS; $WBSYNC_STRESS_LOADS load/unload cycles (default 100);
# $WBSYNC_BIN if the built sfr program is not next to this script.
. "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"

loads=${WBSYNC_STRESS_LOADS:-100}
bin=${WBSYNC_BIN:-$(cd "$(dirname "$0")" && pwd)}
dbg=/sys/kernel/debug/wbsync
leaks=/sys/kernel/debug/kmemleak
mnt=
stop=$(mktemp -u)
stop_loops()
{
	touch "$stop"
	wait
	rm -f "$stop"
}
cleanup()
{
	stop_loops
	[ -z "$mnt" ] || umount "$mnt"
	grep -q '^wbsync ' /proc/modules && rmmod wbsync
}
trap cleanup EXIT

ktap_print_header
ktap_set_plan 6
read -r disk _ <<<"$WBSYNC_DISKS"
[ -n "$disk" ] && [ -f "$WBSYNC_MODULE" ] || ktap_exit_fail_msg "need WBSYNC_MODULE and a disk"
[[ $loads =~ ^[1-9][0-9]*$ ]] || ktap_exit_fail_msg "WBSYNC_STRESS_LOADS must be a positive number"
[ -x "$bin/sfr" ] || ktap_exit_fail_msg "$bin/sfr not built (make -C selftests)"
mkfs.ext4 -q -F "$disk" && mnt=$(mktemp -d) && mount "$disk" "$mnt" ||
	ktap_exit_fail_msg "cannot mount $disk"
# Anything found so far belongs to the boot, not to this test.
[ -w $leaks ] && echo clear >$leaks

# Each loop counts its calls, so that a loop stuck in the kernel shows.  A
# call appends one byte: the count is the file's size, which only grows, where
# a rewritten number could be read as empty between truncate and write.
loop()
{
	local name=$1

	shift
	while [ ! -e "$stop" ]; do
		"$@" >/dev/null 2>&1
		printf . >>"$mnt/.count-$name"
	done
}
calls() { stat -c %s "$mnt/.count-$1"; }
for name in writer sync syncfs sfr; do
	: >"$mnt/.count-$name"
done
loop writer dd if=/dev/zero of="$mnt/data" bs=64k count=64 conv=notrunc &
loop sync sync &
loop syncfs sync -f "$mnt" &
# A write-only sync_file_range (WB_SYNC_NONE) and the ranged-fdatasync
# combination (WB_SYNC_ALL): both paths under the sfr probes.
sfr_calls()
{
	xfs_io -f -c "pwrite -q 0 256k" "$mnt/sfr" &&
		"$bin/sfr" "$mnt/sfr" 0 262144 write &&
		"$bin/sfr" "$mnt/sfr" 0 262144 before write after
}
loop sfr sfr_calls &

# Calls the probes saw while loaded, by phase: the loads must overlap the
# loops, or this tests nothing.
declare -A seen
failed=0
for ((i = 1; i <= loads; i++)); do
	if ! insmod "$WBSYNC_MODULE"; then
		failed=$((failed + 1))
		continue
	fi
	echo 1 >/sys/kernel/tracing/events/wbsync/enable
	# Unload with a knob away from its default now and then: the knob's
	# kprobe goes while callers may be inside its target.
	[ $((i % 2)) = 1 ] || [ "$(cat $dbg/sfr_sync_mode)" = unsupported ] ||
		echo all >$dbg/sfr_sync_mode
	# (no process substitution: a guest may lack /dev/fd)
	while read -r phase count; do
		[ -n "$phase" ] || continue
		seen[$phase]=$((${seen[$phase]:-0} + count))
	done <<<"$(awk 'NR > 1 { print $3, $4 }' $dbg/stats)"
	rmmod wbsync || failed=$((failed + 1))
done
ktap_print_msg "$loads loads, $failed failed insmod or rmmod"
ktap_test_result "$loads insmod/rmmod cycles under sync, syncfs and sync_file_range loops" \
	[ $failed = 0 ]
ktap_print_msg "calls seen while loaded: $(for p in "${!seen[@]}"; do printf '%s=%s ' "$p" "${seen[$p]}"; done)"
overlapped() { [ "${seen[sync]:-0}" -gt 0 ] && [ "${seen[syncfs]:-0}" -gt 0 ] &&
	       [ "${seen[sync_file_range]:-0}" -gt 0 ]; }
ktap_test_result "the probes fired for sync, syncfs and sync_file_range while loaded" overlapped

# Every loop must still make progress once the module is gone.
progress()
{
	local name before after

	for name in writer sync syncfs sfr; do
		before=$(calls $name)
		sleep 2
		after=$(calls $name)
		ktap_print_msg "$name loop: $after calls"
		[ "$after" -gt "$before" ] || return 1
	done
}
ktap_test_result "every sync loop still makes progress" progress

stop_loops
ktap_test_result "the filesystem unmounts" umount "$mnt"
mnt=

if [ -r /proc/lockdep_stats ]; then
	# Lockdep switches itself off at its first report.
	lockdep_on() { grep -q 'debug_locks: *1' /proc/lockdep_stats; }
	ktap_test_result "lockdep is still on (no lockdep report)" lockdep_on
else
	ktap_test_skip "lockdep is still on (not a lockdep kernel)"
fi

if [ -w $leaks ]; then
	# kmemleak reports an object only after it has seen it unreferenced in
	# two scans, some seconds apart.
	no_leaks()
	{
		echo scan >$leaks
		sleep 6
		echo scan >$leaks
		[ -z "$(cat $leaks)" ] || { cat $leaks; return 1; }
	}
	ktap_test_result "kmemleak finds no leak" no_leaks
else
	ktap_test_skip "kmemleak finds no leak (not a kmemleak kernel)"
fi
ktap_finished
