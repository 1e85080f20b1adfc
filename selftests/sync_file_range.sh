#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sync_file_range(2) on real disks:
#  - sync_file_range_test (argument errors; what SYNC_FILE_RANGE_WRITE and
#    WAIT_BEFORE|WRITE|WAIT_AFTER wait for) on a disk whose writes dm-delay
#    holds back for seconds;
#  - with wbsync.ko forcing WB_SYNC_ALL (sfr_sync_mode=all, the behaviour
#    before Linux 4.4), that test must catch SYNC_FILE_RANGE_WRITE waiting;
#  - the writeback_sync_file_range tracepoint (where the kernel has it)
#    names the mode each flag combination got;
#  - after WAIT_BEFORE|WRITE|WAIT_AFTER, a range overwritten in place
#    survives dm-flakey dropping every later write; without the call (the
#    control) the overwrite is lost, so the check can fail.
#
# Needs $KSRC (ktap_helpers.sh) and two disks (need_disks);
# $WBSYNC_MODULE (wbsync.ko) for the knob test, and $WBSYNC_BIN if the
# built programs (sync_file_range_test, sfr) are not next to this script.
# shellcheck source=selftests/wbsync_lib.sh
. "$(dirname "$0")/wbsync_lib.sh"
export DM_DISABLE_UDEV=1

here=$(cd "$(dirname "$0")" && pwd)
bin=${WBSYNC_BIN:-$here}
sfr_test=$bin/sync_file_range_test
tracing=/sys/kernel/tracing
event=$tracing/events/writeback/writeback_sync_file_range
mnt=$(mktemp -d)
slow=wbsync-sfr-slow
flakey=wbsync-sfr-flakey
# Writes of the slow disk complete after 2 s (reads at once).
DELAY_MS=2000
cleanup()
{
	mountpoint -q "$mnt" && umount "$mnt"
	dmsetup remove "$slow" 2>/dev/null
	dmsetup remove "$flakey" 2>/dev/null
	[ -e "$event/enable" ] && echo 0 >"$event/enable"
	grep -q '^wbsync ' /proc/modules && rmmod wbsync
	rmdir "$mnt"
}
trap cleanup EXIT

ktap_print_header
need_disks 2
read -r disk1 disk2 _ <<<"$WBSYNC_DISKS"
[ -x "$sfr_test" ] && [ -x "$bin/sfr" ] || ktap_exit_fail_msg "programs not built in $bin (make -C selftests)"
ktap_set_plan 5

# No journal and no lazy inode table init (ext4lazyinit's zeroing would
# complete at any time): only the test's own writes reach the slow disk.
mkfs.ext4 -q -F -O ^has_journal -E lazy_itable_init=0 "$disk1" &&
	dmsetup create "$slow" --table \
		"0 $(blockdev --getsz "$disk1") delay $disk1 0 0 $disk1 0 $DELAY_MS" &&
	mount /dev/mapper/$slow "$mnt" || ktap_exit_fail_msg "cannot set up dm-delay on $disk1"
stat_file=/sys/block/$(dmsetup info -c --noheadings -o blkdevname $slow)/stat

run_sfr_test()
{
	WBSYNC_SFR_DIR=$mnt WBSYNC_SFR_STAT=$stat_file "$sfr_test" "$@" 2>&1 | sed 's/^/# /'
	return "${PIPESTATUS[0]}"
}

[ -e "$event/enable" ] && echo >$tracing/trace && echo 1 >"$event/enable"
ktap_test_result "sync_file_range_test on a disk with $DELAY_MS ms writes" run_sfr_test

# The test must be able to fail: force WB_SYNC_ALL with the module's knob.
if [ -f "${WBSYNC_MODULE:-}" ] && insmod "$WBSYNC_MODULE" &&
   [ "$(cat /sys/kernel/debug/wbsync/sfr_sync_mode)" != unsupported ]; then
	echo all >/sys/kernel/debug/wbsync/sfr_sync_mode
	# Fails, and for the reason under test.
	caught()
	{
		local out

		out=$(run_sfr_test -t write_does_not_wait_for_writeback_in_flight)
		echo "$out"
		grep -q 'SYNC_FILE_RANGE_WRITE waited for the write in flight' <<<"$out"
	}
	ktap_test_result "with sfr_sync_mode=all the test catches SYNC_FILE_RANGE_WRITE waiting" caught
	rmmod wbsync
else
	ktap_test_skip "with sfr_sync_mode=all the test catches SYNC_FILE_RANGE_WRITE waiting (no wbsync.ko)"
fi

if [ -e "$event/enable" ]; then
	echo 0 >"$event/enable"
	modes()
	{
		local t=$tracing/trace

		grep -q 'flags=WRITE sync_mode=WB_SYNC_NONE ret=0' $t &&
			grep -q 'flags=WAIT_BEFORE|WRITE|WAIT_AFTER sync_mode=WB_SYNC_ALL ret=0' $t &&
			grep -q 'flags=WRITE sync_mode=none ret=-22' $t &&
			grep -q 'sync_mode=none ret=-29' $t
	}
	ktap_test_result "writeback_sync_file_range shows each call's mode and result" modes
	grep -m 4 writeback_sync_file_range $tracing/trace | sed 's/^/# /'
else
	ktap_test_skip "writeback_sync_file_range shows each call's mode and result (no such event)"
fi
umount "$mnt"
dmsetup remove "$slow"

# Crash check on dm-flakey: a range written with "a" and fsynced is
# overwritten in place with "b", then sync_file_range(FLAGS) (or no call),
# then every later write is dropped; after a remount the range must read
# as EXPECT.  Tables as xfstests uses them: "offset up down [features]".
FLAKEY_ALLOW="0 180 0"
FLAKEY_DROP="0 0 180 1 drop_writes"
flakey_table()
{
	dmsetup suspend --nolockfs $flakey &&
		dmsetup load $flakey --table \
			"0 $(blockdev --getsz "$disk2") flakey $disk2 $1" &&
		dmsetup resume $flakey
}
crash_check()
{
	local sfr=$1 expect=$2 size=$((4 << 20)) bad

	mountpoint -q "$mnt" && umount "$mnt"
	dmsetup remove $flakey 2>/dev/null
	mkfs.ext4 -q -F "$disk2" &&
		dmsetup create $flakey --table "0 $(blockdev --getsz "$disk2") flakey $disk2 $FLAKEY_ALLOW" &&
		mount /dev/mapper/$flakey "$mnt" || return 1
	xfs_io -f -c "pwrite -q -S 0x61 0 $size" -c fsync "$mnt/range" || return 1
	xfs_io -c "pwrite -q -S 0x62 0 $size" "$mnt/range" || return 1
	[ -z "$sfr" ] || "$bin/sfr" "$mnt/range" 0 $size $sfr || return 1
	flakey_table "$FLAKEY_DROP" || return 1
	umount "$mnt"
	flakey_table "$FLAKEY_ALLOW" && mount /dev/mapper/$flakey "$mnt" || return 1
	bad=$(head -c $size /dev/zero | tr '\0' "$expect" | cmp -l - "$mnt/range" | wc -l)
	ktap_print_msg "sync_file_range ${sfr:-(not called)}: $bad of $size bytes are not '$expect'"
	umount "$mnt" && dmsetup remove $flakey || return 1
	[ "$bad" = 0 ]
}
# (ktap_test_result splits its arguments: test through functions.)
survives() { crash_check "before write after" b; }
ktap_test_result "after WAIT_BEFORE|WRITE|WAIT_AFTER the overwritten range survives dm-flakey" survives
lost() { crash_check "" a; }
ktap_test_result "control: without sync_file_range the overwrite is lost" lost
ktap_finished
