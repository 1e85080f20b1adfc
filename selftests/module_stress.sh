#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload wbsync.ko as fast as it goes while every probed path
# runs in loops on both CPUs: sync(2), syncfs(2), fsync(2) and
# sync_file_range(2) in every flag combination (sync_loop, no fork per
# call), a dd writer, and umount/mount of a second filesystem (the
# sync_filesystem() of umount).  Each load enables the tracepoints, and
# every other one flips a knob before the unload: the kprobes and
# tracepoints come and go under callers inside the probed functions.
# Then no loop may be stuck, and, where the kernel has them (the lab's
# debug variant), lockdep must still be on and kmemleak must find
# nothing.  The console scan of scripts/vm-run adds BUG/WARNING/KASAN/
# lockdep reports on top.
#
# Needs $WBSYNC_MODULE, $KSRC (ktap_helpers.sh) and one disk in
# $WBSYNC_DISKS; $WBSYNC_STRESS_LOADS load/unload cycles (default 100);
# $WBSYNC_BIN if the built sync_loop is not next to this script.
. "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"

loads=${WBSYNC_STRESS_LOADS:-100}
bin=${WBSYNC_BIN:-$(cd "$(dirname "$0")" && pwd)}
dbg=/sys/kernel/debug/wbsync
leaks=/sys/kernel/debug/kmemleak
mnt= img=
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
	[ -z "$mnt" ] || { umount "$mnt/img" 2>/dev/null; umount "$mnt"; }
	grep -q '^wbsync ' /proc/modules && rmmod wbsync
}
trap cleanup EXIT

ktap_print_header
ktap_set_plan 6
read -r disk _ <<<"$WBSYNC_DISKS"
[ -n "$disk" ] && [ -f "$WBSYNC_MODULE" ] || ktap_exit_fail_msg "need WBSYNC_MODULE and a disk"
[[ $loads =~ ^[1-9][0-9]*$ ]] || ktap_exit_fail_msg "WBSYNC_STRESS_LOADS must be a positive number"
[ -x "$bin/sync_loop" ] || ktap_exit_fail_msg "$bin/sync_loop not built (make -C selftests)"
mkfs.ext4 -q -F "$disk" && mnt=$(mktemp -d) && mount "$disk" "$mnt" ||
	ktap_exit_fail_msg "cannot mount $disk"
img=$mnt/fs.img
truncate -s 64M "$img" && mkfs.ext4 -q -F "$img" && mkdir "$mnt/img" ||
	ktap_exit_fail_msg "cannot make the filesystem image"
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
names="writer remount sync syncfs fsync sfr sfr2"
for name in $names; do
	: >"$mnt/.count-$name"
done
loop writer dd if=/dev/zero of="$mnt/data" bs=64k count=64 conv=notrunc &
loop remount eval "mount -o loop '$img' '$mnt/img' && dd if=/dev/zero of='$mnt/img/f' bs=64k count=4 && umount '$mnt/img'" &
for name in sync syncfs fsync sfr sfr2; do
	"$bin/sync_loop" "${name%2}" "$mnt/$name" "$stop" "$mnt/.count-$name" &
done

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
ktap_test_result "$loads insmod/rmmod cycles under sync, syncfs, fsync, sync_file_range and umount loops" \
	[ $failed = 0 ]
ktap_print_msg "calls seen while loaded: $(for p in "${!seen[@]}"; do printf '%s=%s ' "$p" "${seen[$p]}"; done)"
overlapped() { [ "${seen[sync]:-0}" -gt 0 ] && [ "${seen[syncfs]:-0}" -gt 0 ] &&
	       [ "${seen[sync_file_range]:-0}" -gt 0 ] && [ "${seen[sync_filesystem]:-0}" -gt 0 ]; }
ktap_test_result "the probes fired for sync, syncfs, sync_file_range and umount while loaded" overlapped

# Every loop must still make progress once the module is gone.
progress()
{
	local name before after

	for name in $names; do
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
