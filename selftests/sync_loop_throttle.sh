#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sync_loop_throttle.sh [-t SECONDS]
#
# sync(2) finishes when what it writes has to pass through a task that
# dirty throttling can stop: the worker of a loop device, which writes an
# upper filesystem's blocks into its backing file on a lower filesystem,
# while a writer keeps the lower filesystem at the dirty limit with data
# dirtied after the call.  Background writeback must go on writing that
# data, or the worker waits in balance_dirty_pages() for the sync to end
# and the sync waits for the worker.  KTAP, in a wbsync guest, on two
# disks (need_disks); every kernel must pass (6.12 does).  A change that
# holds background writeback to the sync's inodes during sync(2) fails
# it: the held data fills the dirty limit and the worker never returns.
#
# The first disk holds the lower ext4, with a sparse image behind a loop
# device (buffered, as losetup makes it) and the upper ext4 on that; the
# second, behind dm-delay (writes delayed 2 s), a middle ext4 with 4 MiB
# dirty at the call, mounted between the two, so that sync(2) reaches the
# upper filesystem seconds after the call.  The dirty limits are set low
# (vm.dirty_bytes 16 MiB, vm.dirty_background_bytes 4 MiB); busy_writer
# rewrites 1 MiB files on the lower filesystem round robin (each rewrite
# of a file written back dirties a clean inode) and creates 16 KiB files
# on the upper one (its journal has a transaction to commit through the
# loop device when ->sync_fs() comes), and sync(1) runs.  The sync is
# stuck, and the test fails, when it has run SECONDS (default 30) without
# the first disk writing 1 MiB; the dirty limits are then raised so that
# it ends.  The test skips if the writers dirtied less than twice the
# limit during the sync (nr_dirtied): then even a kernel that wrote none
# of it would not have stopped them.  The three filesystems must check
# clean afterwards.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/wbsync_lib.sh"
stall_s=30
usage="usage: sync_loop_throttle.sh [-t SECONDS]"
fail() { echo "sync_loop_throttle.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || fail "$1 needs an argument ($usage)"
	case $1 in
	-t) stall_s=$2 ;;
	*) fail "$usage" ;;
	esac
	shift 2
done
[[ "$stall_s" =~ ^[1-9][0-9]*$ ]] || fail "-t must be a positive number, not '$stall_s'"

[ "$(id -u)" = 0 ] || skip_all "needs root"
for c in losetup dmsetup mkfs.ext4 e2fsck; do
	command -v "$c" >/dev/null || skip_all "no $c"
done
busy_writer=${BUSY_WRITER:-${WBSYNC_BIN:-$here}/busy_writer}
[ -x "$busy_writer" ] || skip_all "$busy_writer not built"
export DM_DISABLE_UDEV=1
dm=wbsync-middle
limit=$((16 << 20)) bg_limit=$((4 << 20))

vm=/proc/sys/vm
. "$here/dirty_limits.sh"
save_dirty_limits || skip_all "cannot save the dirty limits (${saved_dirty_limits[*]:-none set})"
lower='' middle='' upper='' loop='' dm_made='' writer_pids=() sync_pid=''
cleanup()
{
	[ ${#writer_pids[@]} = 0 ] || { kill "${writer_pids[@]}"; wait "${writer_pids[@]}"; } 2>/dev/null
	writer_pids=()
	# A stuck sync ends once the limits are back (the defaults are higher)
	restore_dirty_limits
	[ -z "$sync_pid" ] || wait "$sync_pid" 2>/dev/null
	sync_pid=''
	[ -z "$upper" ] || { umount "$upper" && rmdir "$upper"; }
	[ -z "$loop" ] || losetup -d "$loop"
	[ -z "$middle" ] || { umount "$middle" && rmdir "$middle"; }
	[ -z "$dm_made" ] || dmsetup remove "$dm"
	[ -z "$lower" ] || { umount "$lower" && rmdir "$lower"; }
	upper='' loop='' middle='' dm_made='' lower=''
}
trap cleanup EXIT
need_disks 2
read -r -a disks <<<"$WBSYNC_DISKS"
disk=${disks[0]} name=${disks[0]#/dev/}

# Sectors the disk has written (the 7th field of its stat)
written() { awk '{ print $7 }' "/sys/block/$name/stat"; }
# Pages dirtied since boot
dirtied() { awk '$1 == "nr_dirtied" { print $2 }' /proc/vmstat; }
# dm-delay over the second disk, writes delayed $1 ms
delay_table() { echo "0 $(blockdev --getsz "${disks[1]}") delay ${disks[1]} 0 0 ${disks[1]} 0 $1"; }

# Mounted in this order, which iterate_supers() follows.  noinit_itable:
# no lazy inode table zeroing writing in the background.
lower=$(mktemp -d /tmp/wbsync-lower.XXXXXX)
{ mkfs.ext4 -q -F "$disk" && mount -o noinit_itable "$disk" "$lower"; } ||
	skip_all "cannot make ext4 on $disk"
{ dmsetup create "$dm" --table "$(delay_table 0)" && dm_made=1; } ||
	skip_all "no dm-delay"
middle=$(mktemp -d /tmp/wbsync-middle.XXXXXX)
{ mkfs.ext4 -q -F "/dev/mapper/$dm" && mount -o noinit_itable "/dev/mapper/$dm" "$middle"; } ||
	skip_all "cannot make ext4 on /dev/mapper/$dm"
{ truncate -s 512M "$lower/image" && loop=$(losetup -f --show "$lower/image"); } ||
	skip_all "no loop device"
upper=$(mktemp -d /tmp/wbsync-upper.XXXXXX)
{ mkfs.ext4 -q -F "$loop" && mount -o noinit_itable "$loop" "$upper"; } ||
	skip_all "cannot make ext4 on $loop"
sync
{ dmsetup suspend "$dm" && dmsetup load "$dm" --table "$(delay_table 2000)" &&
	dmsetup resume "$dm"; } || skip_all "cannot delay /dev/mapper/$dm"

ktap_print_header
ktap_set_plan 2

echo "$bg_limit" >"$vm/dirty_background_bytes"
echo "$limit" >"$vm/dirty_bytes"
head -c $((4 << 20)) /dev/zero >"$middle/data"
# 256 MiB of files on the lower filesystem: every rewrite finds its file
# clean; 2000 files of 16 KiB on the upper one
"$busy_writer" -W 1 -s $((1 << 20)) -F 256 -R "$lower" >/dev/null &
writer_pids+=($!)
"$busy_writer" -W 1 -F 2000 "$upper" >/dev/null &
writer_pids+=($!)
sleep 3

sync &
sync_pid=$!
last=$(written) quiet=0 stuck=0 secs=0 dirtied0=$(dirtied)
while kill -0 "$sync_pid" 2>/dev/null; do
	sleep 1
	secs=$((secs + 1))
	w=$(written)
	if [ $((w - last)) -lt 2048 ]; then
		quiet=$((quiet + 1))
	else
		quiet=0 last=$w
	fi
	if [ "$quiet" -ge "$stall_s" ]; then
		stuck=1
		ktap_print_msg "after ${secs} s, sync(2) runs and $name wrote less than 1 MiB in ${stall_s} s; tasks in balance_dirty_pages():"
		grep -l balance_dirty_pages /proc/[0-9]*/stack 2>/dev/null |
			while read -r f; do
				f=${f%/stack}
				ktap_print_msg "  $(cat "$f/comm") (${f#/proc/})"
			done
		dirty_mb=$((($(dirtied) - dirtied0) * 4096 >> 20))
		# Let it end: the limits far above what is dirty
		echo $((1 << 30)) >"$vm/dirty_bytes"
		wait "$sync_pid"
		break
	fi
done
[ "$stuck" = 1 ] || dirty_mb=$((($(dirtied) - dirtied0) * 4096 >> 20))
sync_pid=''
kill "${writer_pids[@]}" 2>/dev/null
wrc=0
for p in "${writer_pids[@]}"; do
	wait "$p" || wrc=$?
done
writer_pids=()
if [ "$stuck" = 1 ]; then
	ktap_print_msg "the writers dirtied ${dirty_mb} MiB in the ${secs} s before the limits were raised; the dirty limit was $((limit >> 20)) MiB"
else
	ktap_print_msg "sync(2) took ${secs} s; the writers dirtied ${dirty_mb} MiB meanwhile, the dirty limit is $((limit >> 20)) MiB"
fi
if [ "$stuck" = 1 ]; then
	ktap_test_fail "sync(2) through the loop device ends while the lower filesystem is at the dirty limit"
elif [ "$wrc" != 0 ]; then
	ktap_test_fail "sync(2) through the loop device: the writer failed"
elif [ $((dirty_mb << 20)) -lt $((2 * limit)) ]; then
	ktap_test_skip "the writers dirtied less than twice the dirty limit during the sync: what it tests was not reached"
else
	ktap_test_pass "sync(2) through the loop device ends while the lower filesystem is at the dirty limit"
fi

ok=1
umount "$upper" && rmdir "$upper" && upper=''
e2fsck -fn "$loop" >/dev/null 2>&1 || ok=0
losetup -d "$loop" && loop=''
umount "$middle" && rmdir "$middle" && middle=''
e2fsck -fn "/dev/mapper/$dm" >/dev/null 2>&1 || ok=0
dmsetup remove "$dm" && dm_made=''
umount "$lower" && rmdir "$lower" && lower=''
e2fsck -fn "$disk" >/dev/null 2>&1 || ok=0
if [ "$ok" = 1 ]; then
	ktap_test_pass "the three filesystems check clean"
else
	ktap_test_fail "the three filesystems check clean"
fi
ktap_finished
