#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series' s_op->wait_inodes hook, end to end, with its test-only user
# wbsync_wait_user.ko (see test_modules/wbsync_wait_user.c):
#  - bad mount points are refused with a clear error and leave nothing hooked;
#  - the hook runs exactly once per sync_inodes_sb() of its superblock
#    (counted by a kprobe event on sync_inodes_sb(), per device) and per
#    sync(2), and never for another superblock, even on the same bdi;
#  - in mode "wrap" it runs the exported generic wait_sb_inodes(), in mode
#    "skip" it does not (kprobe event on wait_sb_inodes());
#  - it is called with s_umount held, remount included;
#  - unloading puts the generic walk back, also after an unmount.
#
# Needs $KSRC (ktap_helpers.sh), two disks (need_disks) and
# wbsync_wait_user.ko built against this kernel: $WBSYNC_WAIT_USER, else
# test_modules/ next to this script (a kselftest install with KDIR).
# shellcheck source=selftests/wbsync_lib.sh
. "$(dirname "$0")/../wbsync_lib.sh"

# set but empty: no module for this kernel (the lab says so for vanilla)
module=${WBSYNC_WAIT_USER-$(cd "$(dirname "$0")" && pwd)/test_modules/wbsync_wait_user.ko}
[ -n "${WBSYNC_WAIT_USER+set}" ] || [ -f "$module" ] || module=
params=/sys/module/wbsync_wait_user/parameters
tracing=/sys/kernel/tracing
top=$(mktemp -d)
mnt_a=$top/a mnt_b=$top/b mnt_c=$top/c mnt_t=$top/tmpfs
cleanup()
{
	local m

	grep -q '^wbsync_wait_user ' /proc/modules && rmmod wbsync_wait_user
	if [ -e $tracing/events/wbsync_test ]; then
		echo 0 >$tracing/events/wbsync_test/enable
		echo '-:wbsync_test/sisb' >>$tracing/kprobe_events
		echo '-:wbsync_test/wsi' >>$tracing/kprobe_events
	fi
	for m in "$mnt_a" "$mnt_b" "$mnt_c" "$mnt_t"; do
		mountpoint -q "$m" && umount "$m"
	done
	rm -rf "$top"
}
trap cleanup EXIT

ktap_print_header
# The module builds only against a kernel with the hook (make check reports
# that build on its own).
if [ -z "$module" ]; then
	ktap_set_plan 1
	ktap_test_skip "->wait_inodes() tests: no wbsync_wait_user.ko (a kernel without the hook)"
	exit 0
fi
[ -f "$module" ] || ktap_exit_fail_msg "WBSYNC_WAIT_USER: no file '$module'"
need_disks 2
read -r disk1 disk2 _ <<<"$WBSYNC_DISKS"
ktap_set_plan 15

# A and B: ext4 on two partitions of disk 1 (one bdi); C: xfs on disk 2.
mkdir -p "$mnt_a" "$mnt_b" "$mnt_c" "$mnt_t" &&
	sfdisk -q "$disk1" <<<$',+400M\n,+' && part_a=$(part "$disk1" 1) part_b=$(part "$disk1" 2) &&
	mkfs.ext4 -q -F "$part_a" && mkfs.ext4 -q -F "$part_b" &&
	mkfs.xfs -q -f "$disk2" &&
	mount "$part_a" "$mnt_a" && mount "$part_b" "$mnt_b" && mount "$disk2" "$mnt_c" &&
	mount -t tmpfs none "$mnt_t" || ktap_exit_fail_msg "cannot set up the filesystems"

# The kernel's own count: every sync_inodes_sb() and wait_sb_inodes()
# call with the device of its superblock (s_dev follows the s_list head).
echo 'p:wbsync_test/sisb sync_inodes_sb dev=+16(%di):u32' >>$tracing/kprobe_events &&
	echo 'p:wbsync_test/wsi wait_sb_inodes dev=+16(%di):u32' >>$tracing/kprobe_events &&
	echo >$tracing/trace && echo 1 >$tracing/events/wbsync_test/enable ||
	ktap_exit_fail_msg "cannot set the kprobe events"

# kdev MNT: the kernel's dev_t of a mounted filesystem, as the probes print it.
kdev()
{
	local d

	d=$(mountpoint -d "$1") || return 1
	echo $(((${d%:*} << 20) | ${d#*:}))
}
dev_a=$(kdev "$mnt_a") dev_b=$(kdev "$mnt_b") dev_c=$(kdev "$mnt_c")

# hits EVENT DEV: how often the kprobe event fired for that device.
hits()
{
	grep -c " $1: .* dev=$2\$" $tracing/trace
}

calls() { cat $params/calls; }

# expect WHAT WANT GOT
expect()
{
	[ "$2" = "$3" ] && return 0
	ktap_print_msg "$1: want '$2', got '$3'"
	return 1
}

# refused ERRNO WHY PARAMS...: insmod fails with that errno, and the
# module logs the reason WHY; no superblock keeps a hook (a later load on
# the same mounts must succeed).  insmod words some errnos its own way.
declare -A insmod_text=([EINVAL]='Invalid parameters'
			[ENOENT]='Unknown symbol in module'
			[EOPNOTSUPP]='Operation not supported'
			[EBUSY]='Device or resource busy')
refused()
{
	local errno=$1 why=$2 out log

	shift 2
	dmesg -C
	out=$(insmod "$module" "$@" 2>&1) && { rmmod wbsync_wait_user; return 1; }
	log=$(dmesg | grep 'wbsync_wait_user: ' | tail -n 1)
	ktap_print_msg "insmod $*: ${out##*: } (${log:-no log line})"
	[ "${out##*: }" = "${insmod_text[$errno]}" ] && grep -q -- "$why" <<<"$log" &&
		! grep -q '^wbsync_wait_user ' /proc/modules
}

test_refuses_no_mount() { refused EINVAL 'no mount point given'; }
test_refuses_missing_path() { refused ENOENT 'lookup failed: -2' mnt="$top/missing"; }
test_refuses_non_mount_point()
{
	mkdir -p "$mnt_a/dir" && refused EINVAL 'not a mount point' mnt="$mnt_a/dir"
}
test_refuses_no_writeback() { refused EOPNOTSUPP 'has no writeback' mnt="$mnt_a,$mnt_t"; }
test_refuses_same_sb_twice()
{
	refused EBUSY 'already has a ->wait_inodes()' mnt="$mnt_c,$mnt_a,$mnt_a"
}

test_loads()
{
	insmod "$module" mnt="$mnt_a,$mnt_c" && expect calls "0 0" "$(calls)" &&
		expect mode wrap "$(cat $params/mode)"
}

# Five syncfs(2) of A: five sync_inodes_sb() of A, five hook calls, each
# running the generic walk once; C untouched.
test_once_per_syncfs()
{
	local i sisb wsi

	sisb=$(hits sisb "$dev_a") wsi=$(hits wsi "$dev_a")
	for i in 1 2 3 4 5; do
		echo "$i" >"$mnt_a/f$i" && sync -f "$mnt_a" || return 1
	done
	expect "sync_inodes_sb of A" $((sisb + 5)) "$(hits sisb "$dev_a")" &&
		expect calls "5 0" "$(calls)" &&
		expect "wait_sb_inodes of A" $((wsi + 5)) "$(hits wsi "$dev_a")"
}

# B shares A's bdi but has no hook: its syncs never reach the hook, and it
# still gets the generic walk.
test_never_for_other_sb()
{
	local i sisb wsi

	sisb=$(hits sisb "$dev_b") wsi=$(hits wsi "$dev_b")
	for i in 1 2 3; do
		echo "$i" >"$mnt_b/f$i" && sync -f "$mnt_b" || return 1
	done
	expect "sync_inodes_sb of B" $((sisb + 3)) "$(hits sisb "$dev_b")" &&
		expect "wait_sb_inodes of B" $((wsi + 3)) "$(hits wsi "$dev_b")" &&
		expect calls "5 0" "$(calls)" && expect foreign 0 "$(cat $params/foreign)"
}

# One sync(2): one call for each hooked superblock, each running the
# generic walk once (sync(2) waits for the superblocks' inodes after its
# passes on every bdi, or syncs one with sync_inodes_sb()).
test_once_per_sync()
{
	local wsi_a wsi_c

	wsi_a=$(hits wsi "$dev_a") wsi_c=$(hits wsi "$dev_c")
	echo x >"$mnt_c/f" && sync || return 1
	expect calls "6 1" "$(calls)" &&
		expect "wait_sb_inodes of A" $((wsi_a + 1)) "$(hits wsi "$dev_a")" &&
		expect "wait_sb_inodes of C" $((wsi_c + 1)) "$(hits wsi "$dev_c")"
}

# A remount syncs with s_umount held exclusively.
test_remount()
{
	mount -o remount,ro "$mnt_a" && mount -o remount,rw "$mnt_a" &&
		expect calls "7 1" "$(calls)" && expect unlocked 0 "$(cat $params/unlocked)"
}

# "skip" counts without the generic walk; a bad mode changes nothing.
test_modes()
{
	local wsi

	echo bogus >$params/mode 2>/dev/null && return 1
	expect mode wrap "$(cat $params/mode)" && echo skip >$params/mode || return 1
	wsi=$(hits wsi "$dev_a")
	sync -f "$mnt_a" && expect calls "8 1" "$(calls)" &&
		expect "wait_sb_inodes of A in skip mode" "$wsi" "$(hits wsi "$dev_a")" &&
		echo wrap >$params/mode
}

# Unloading puts the generic walk back.
test_unload_restores()
{
	local wsi

	rmmod wbsync_wait_user || return 1
	wsi=$(hits wsi "$dev_a")
	sync -f "$mnt_a" && expect "wait_sb_inodes of A" $((wsi + 1)) "$(hits wsi "$dev_a")" &&
		dmesg | grep -q "wbsync_wait_user: $mnt_a: unhooked .* after 8 calls"
}

# Unmounted while hooked: the module keeps the superblock until it is
# unloaded, which then shuts it down with its own operations; the
# filesystem is clean and mounts again.
test_unmount_while_hooked()
{
	insmod "$module" mnt="$mnt_c" && echo y >"$mnt_c/g" && umount "$mnt_c" &&
		rmmod wbsync_wait_user && xfs_repair -n "$disk2" >/dev/null 2>&1 &&
		mount "$disk2" "$mnt_c" && [ "$(cat "$mnt_c/g")" = y ]
}

test_no_kernel_report()
{
	! dmesg | grep -E -q 'WARNING:|BUG:|Oops|lockdep|INFO: task'
}

run() { ktap_test_result "$1" "test_$2"; }
run "insmod without a mount point: EINVAL" refuses_no_mount
run "insmod with a missing path: ENOENT" refuses_missing_path
run "insmod with a directory that is no mount point: EINVAL" refuses_non_mount_point
run "insmod with tmpfs (no writeback) after a good one: EOPNOTSUPP, nothing left hooked" refuses_no_writeback
run "insmod with one superblock twice: EBUSY, nothing left hooked" refuses_same_sb_twice
run "insmod hooks ext4 (A) and xfs (C)" loads
run "five syncfs(2) of A: five hook calls, each running wait_sb_inodes()" once_per_syncfs
run "syncfs(2) of B on A's bdi: generic walk, no hook call" never_for_other_sb
run "sync(2): one hook call for each hooked superblock" once_per_sync
run "remount of A: one more call, s_umount always held" remount
run "mode skip: the hook skips wait_sb_inodes(); bad mode refused" modes
run "rmmod: A gets the generic walk again" unload_restores
run "unmount while hooked, then rmmod: clean and mounts again" unmount_while_hooked
run "no kernel warning" no_kernel_report
test_unloaded() { ! grep -q '^wbsync_wait_user ' /proc/modules; }
run "module unloaded" unloaded
ktap_finished
