#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# integrity_test.sh crash|verify|flakey|logwrites [options]
#
# wbsync integrity test: every file closed before sync(2) (or syncfs(2))
# started must survive a crash that happens right after the sync returns.
# It runs in a wbsync guest (scripts/vm-run); scripts/integrity.sh drives it.
#
# A second process keeps writing to another filesystem during the sync.
# wbsync_fault.ko skips the WB_SYNC_NONE flusher kick of sync(2), so
# everything has to be written by the WB_SYNC_ALL passes, and periodic and
# background writeback are off.  Whether a file survives therefore depends
# only on what the sync writes, not on timing.
#
# crash   Boot 1, shared bdi: the first disk of $WBSYNC_DISKS gets two
#         partitions with ext4 (or another --fs) on each.  fs1 and
#         fs2 share the disk's bdi.
#         The fs1 writers start, the fs2 writers write their files and stop,
#         and wbsync_integrity calls sync with the fs1 writers still running.
#         It records the files and the sync start time in --record, then
#         crashes the guest with sysrq-b as soon as the sync returns.
# verify  Boot 2, on the same disk (vm-run --keep-disks): mount both
#         filesystems, check every recorded file, fsck.
# flakey  One boot, separate bdis: fs1 and fs2 on dm-flakey over the first
#         two disks.  When the sync returns the tables are switched to
#         drop_writes, then the writers stop, both filesystems are unmounted
#         (the writes are lost), the tables are restored, and the same checks
#         run.
# logwrites  One boot, a power cut: fs1 and fs2 on dm-log-writes over the
#         first two disks, their logs on the third and fourth, made through
#         the log and flushed.  When the sync returns, a mark "sync" in both
#         logs; then the writers stop, both filesystems are unmounted, the
#         targets removed, and replay_log.py replays each log up to its mark
#         onto the (zeroed) fifth and sixth disks: what had reached stable
#         media when the sync returned, had the disks' write caches lost the
#         rest.  The same checks run there.  The disks must have a volatile
#         write cache (vm-run's cache=writeback), or the block layer drops
#         the flushes that the log counts.
#
# Modes (--mode): sync (sync(2), fs2 files created), syncfs (syncfs(2) on
# fs2), overwrite (sync(2), the fs2 files are created and made durable
# first, then rewritten in place with a new generation before the sync).
# --inflight rewrites each fs2 file once more while the writeback of the
# previous generation may be in flight.  nosync is the control: no sync at
# all, and no fs2 file may survive; one that does was written back by
# something else than the sync, which would make the other modes moot.
set -u

usage()
{
	cat >&2 <<USAGE
usage: integrity_test.sh crash|verify|flakey|logwrites [options]
  --mode M         sync, syncfs, overwrite or nosync (default sync)
  --fs TYPE        ext4, xfs, vfat, exfat, ext2, udf or minix (default ext4;
                   give the same to every phase)
  --record FILE    record of boot 1 (default \$WBSYNC_OUT/record)
  --files N        fs2 files (default 1000)
  --writers1 N     fs1 writers, running through the sync (default 4)
  --writers2 N     fs2 writers, stopped before the sync (default 2)
  --size1 BYTES    fs1 file size (default 65536)
  --size2 BYTES    fs2 file size (default 16384)
  --budget MIB     fs1 data written before the fs2 writers start (default 64)
  --pace-us US     pause of an fs1 writer per file after that (default 2000)
  --inflight       rewrite the fs2 files while their writeback runs
  --mounted-dirty  exfat: set VOLUME_DIRTY before the first mount, as a
                   volume not cleanly unmounted has it (exfat then keeps the
                   flag and never writes it again)
  --no-fault       do not load wbsync_fault.ko: sync(2) kicks the flushers
  --trace          crash: trace the writeback works and queue_io of the sync
                   into \$WBSYNC_OUT/trace (delays the crash by the dump)
  --helper PATH    wbsync_integrity (default: next to this script)
  --module PATH    wbsync_fault.ko (default: next to this script)
  --wait-user PATH crash, flakey, logwrites: load this wbsync_wait_user.ko on both
                   filesystems (the series' ->wait_inodes() test user)
  --wait-user-mode M  its mode: wrap (default) or skip (a hook that breaks
                   the contract: the negative control)
USAGE
	exit 2
}

die()
{
	echo "integrity_test.sh: $*" >&2
	exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
self=$here/$(basename "$0")
phase=${1:-}
[ $# -gt 0 ] && shift

export DM_DISABLE_UDEV=1
FLAKEY_ALLOW="0 180 0"
FLAKEY_DROP="0 0 180 1 drop_writes"

# Both targets are wbsync-fs2 and wbsync-fs1.
DM_NAMES="wbsync-fs2 wbsync-fs1"

# Switch both dm-flakey tables (called by wbsync_integrity -a after the sync).
flakey_table()
{
	local name table

	for name in wbsync-fs1 wbsync-fs2; do
		table="0 $(blockdev --getsz "/dev/mapper/$name") flakey"
		table+=" $(cat "/run/wbsync-integrity/$name.dev") $1"
		dmsetup suspend --nolockfs "$name" &&
			dmsetup load "$name" --table "$table" &&
			dmsetup resume "$name" || return 1
	done
}

# A mark in both logs (called by wbsync_integrity -a after the sync).
log_mark()
{
	local name

	for name in $DM_NAMES; do
		dmsetup message "$name" 0 mark "$1" || return 1
	done
}

case "$phase" in
crash|verify|flakey|logwrites) ;;
drop-writes) flakey_table "$FLAKEY_DROP"; exit ;;
mark-sync) log_mark sync; exit ;;
-h|--help) usage ;;
*) die "unknown phase '$phase' (crash, verify, flakey, logwrites)" ;;
esac

mode=sync fstype=ext4 record=${WBSYNC_OUT:+$WBSYNC_OUT/record} fault=1 trace=0 mounted_dirty=0
helper=$here/wbsync_integrity module=$here/wbsync_fault.ko wait_user= wait_user_mode=wrap
hopts=()
need_arg() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs an argument"; }
need_num() { [[ "$2" =~ ^[0-9]+$ ]] || die "$1 needs a number, not '$2'"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--mode) need_arg "$@"; mode=$2; shift 2 ;;
	--fs) need_arg "$@"; fstype=$2; shift 2 ;;
	--record) need_arg "$@"; record=$2; shift 2 ;;
	--files) need_num "$@"; hopts+=(-n "$2"); shift 2 ;;
	--writers1) need_num "$@"; hopts+=(-w "$2"); shift 2 ;;
	--writers2) need_num "$@"; hopts+=(-W "$2"); shift 2 ;;
	--size1) need_num "$@"; hopts+=(-S "$2"); shift 2 ;;
	--size2) need_num "$@"; hopts+=(-s "$2"); shift 2 ;;
	--budget) need_num "$@"; hopts+=(-b "$2"); shift 2 ;;
	--pace-us) need_num "$@"; hopts+=(-p "$2"); shift 2 ;;
	--inflight) hopts+=(-k); shift ;;
	--mounted-dirty) mounted_dirty=1; shift ;;
	--no-fault) fault=0; shift ;;
	--trace) trace=1; shift ;;
	--helper) need_arg "$@"; helper=$2; shift 2 ;;
	--module) need_arg "$@"; module=$2; shift 2 ;;
	--wait-user) need_arg "$@"; wait_user=$2; shift 2 ;;
	--wait-user-mode) need_arg "$@"; wait_user_mode=$2; shift 2 ;;
	-h|--help) usage ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
case "$mode" in sync|syncfs|overwrite|nosync) ;; *) die "unknown mode '$mode'" ;; esac
case "$fstype" in
ext4|xfs|vfat|exfat|ext2|udf|minix) ;;
*) die "unknown filesystem type '$fstype' (ext4, xfs, vfat, exfat, ext2, udf, minix)" ;;
esac
[ "$mounted_dirty" = 0 ] || [ "$fstype" = exfat ] || die "--mounted-dirty is for exfat only"
[ -n "$record" ] || die "no --record and no \$WBSYNC_OUT (run me in a wbsync guest)"
[ -x "$helper" ] || die "helper '$helper' is missing (make wbsync_integrity)"
[ "$fault" = 0 ] || [ "$phase" = verify ] || [ -f "$module" ] ||
	die "module '$module' is missing (make -C KERNEL_BUILD M=.../fault)"
[ -z "$wait_user" ] || [ -f "$wait_user" ] || die "module '$wait_user' is missing"

ktap=
for f in "$here/kselftest/ktap_helpers.sh" "$here/../kselftest/ktap_helpers.sh" \
	"${KSRC:-/nonexistent}/tools/testing/selftests/kselftest/ktap_helpers.sh" \
	"${WBSYNC_CACHE:-/var/cache/wbsync}"/src/linux-*/tools/testing/selftests/kselftest/ktap_helpers.sh; do
	[ -f "$f" ] && { ktap=$f; break; }
done
[ -n "$ktap" ] || die "ktap_helpers.sh not found (set KSRC to a kernel tree)"
# shellcheck source=/dev/null
. "$ktap"

read -r -a disks <<<"${WBSYNC_DISKS:-}"
mnt1=/mnt/wbsync-fs1 mnt2=/mnt/wbsync-fs2
if [ "$phase" = flakey ] || [ "$phase" = logwrites ]; then
	dev1=/dev/mapper/wbsync-fs1 dev2=/dev/mapper/wbsync-fs2
else
	disk=${disks[0]:-/dev/vda}
	dev1=${disk}1 dev2=${disk}2
fi
fsck_out=/run/wbsync-integrity

cleanup()
{
	local m

	for m in "$mnt2" "$mnt1"; do
		mountpoint -q "$m" && umount "$m"
	done
	if [ "$phase" = flakey ] || [ "$phase" = logwrites ]; then
		for m in $DM_NAMES; do
			! dmsetup info "$m" >/dev/null 2>&1 || dmsetup remove "$m"
		done
	fi
	return 0
}
trap cleanup EXIT

# Boot 1 and flakey: make the filesystems.

test_partition()
{
	[ -b "$disk" ] || { ktap_print_msg "no disk (WBSYNC_DISKS='${WBSYNC_DISKS:-}')"; return 1; }
	printf 'label: dos\n,%s\n,\n' "$(($(blockdev --getsz "$disk") / 2))" |
		sfdisk -q "$disk" >/dev/null || return 1
	blockdev --rereadpt "$disk" 2>/dev/null
	[ -b "$dev1" ] && [ -b "$dev2" ]
}

test_flakey_devices()
{
	local i name dev

	[ "${#disks[@]}" -ge 2 ] || { ktap_print_msg "need 2 disks, have ${#disks[@]}"; return 1; }
	for i in 0 1; do
		name=wbsync-fs$((i + 1)) dev=${disks[i]}
		echo "$dev" >"/run/wbsync-integrity/$name.dev"
		dmsetup create "$name" --table \
			"0 $(blockdev --getsz "$dev") flakey $dev $FLAKEY_ALLOW" || return 1
	done
	[ -b "$dev1" ] && [ -b "$dev2" ]
}

# Filesystems without a journal keep their metadata in the block device's
# page cache (FAT and directories, inode tables, exFAT entry sets, UDF file
# entries): sync(2) and syncfs(2) must write it through sync_bdevs() and
# sync_blockdev().
journaled()
{
	case $fstype in ext4|xfs) return 0 ;; esac
	return 1
}

test_mkfs()
{
	local dev

	for dev in "$dev1" "$dev2"; do
		case $fstype in
		xfs) mkfs.xfs -q -f "$dev" ;;
		vfat) mkfs.vfat "$dev" >/dev/null ;;
		exfat) mkfs.exfat "$dev" >/dev/null ;;
		ext2) mkfs.ext2 -q -F "$dev" ;;
		udf) mkudffs --media-type=hd "$dev" >/dev/null ;;
		minix) mkfs.minix -3 "$dev" >/dev/null ;;
		# No lazy init: ext4lazyinit would write in the background.
		*) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev" ;;
		esac || return 1
		# VolumeFlags, bytes 106-107 of the boot sector (outside its
		# checksum); bit 1 is VolumeDirty.
		[ "$mounted_dirty" = 0 ] ||
			printf '\x02' | dd of="$dev" bs=1 seek=106 conv=notrunc status=none ||
			return 1
	done
}

# fs1 is mounted first: iterate_supers() reaches it first, as in the
# reported cross-superblock loss.
mount_both()
{
	mkdir -p "$mnt1" "$mnt2" &&
		mount -t "$fstype" "$dev1" "$mnt1" &&
		mount -t "$fstype" "$dev2" "$mnt2"
}

test_mount()
{
	mount_both
}

test_prepare()
{
	"$helper" prepare -2 "$mnt2" "${hopts[@]}"
}

test_sysctl()
{
	# No background writeback, no periodic writeback, nothing expires.
	sysctl -q -w vm.dirty_bytes=$((8 << 30)) \
		vm.dirty_background_bytes=$((4 << 30)) \
		vm.dirty_writeback_centisecs=0 \
		vm.dirty_expire_centisecs=8640000 \
		vm.laptop_mode=0
}

param()
{
	cat "/sys/module/wbsync_fault/parameters/$1"
}

# Without its symbol, the module must refuse to load, with one log line.
fault_log_lines()
{
	dmesg | grep -v -e 'taints kernel' -e 'tainting kernel' | grep -c 'wbsync_fault: '
}

test_fault_no_symbol()
{
	local before

	before=$(fault_log_lines)
	insmod "$module" symbol=wbsync_no_such_symbol 2>/dev/null && return 1
	ktap_print_msg "$(dmesg | grep 'wbsync_fault: ' | tail -n 1)"
	[ "$(fault_log_lines)" = $((before + 1)) ] &&
		! grep -q '^wbsync_fault ' /proc/modules
}

test_fault_load()
{
	insmod "$module" skip_sync_kick=1 && [ "$(param skip_sync_kick)" = Y ]
}

# Prove that the fault is armed: one sync(2), its kick skipped (a kernel
# whose sync(2) does not kick the flushers has none to skip).
test_fault_skips_kick()
{
	local calls skipped

	calls=$(param calls) skipped=$(param skipped)
	sync
	calls=$(($(param calls) - calls)) skipped=$(($(param skipped) - skipped))
	ktap_print_msg "sync(2): $calls kick(s), $skipped skipped"
	[ "$calls" = 0 ] && ktap_print_msg "this kernel's sync(2) does not kick the flushers"
	[ "$calls" -le 1 ] && [ "$skipped" = "$calls" ]
}

# With --wait-user, both filesystems sync through the test-only
# ->wait_inodes() user (wrapping the generic walk): the crash checks below
# then hold for a filesystem that has the hook.
wait_user_calls()
{
	cat /sys/module/wbsync_wait_user/parameters/calls
}

test_wait_user_load()
{
	insmod "$wait_user" mnt="$mnt1,$mnt2" mode="$wait_user_mode" &&
		[ "$(wait_user_calls)" = "0 0" ]
}

test_wait_user_called()
{
	sync
	ktap_print_msg "->wait_inodes() calls of fs1 and fs2 after one sync(2): $(wait_user_calls)"
	[ "$(wait_user_calls)" = "1 1" ]
}

# Boot 2 and flakey: check.

record_value()
{
	awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }' "$record"
}

test_record()
{
	local line

	grep -qx sync_done "$record" || { ktap_print_msg "$record: the sync did not complete"; return 1; }
	line=$(grep '^files ' "$record")
	ktap_print_msg "$(grep '^mode ' "$record"), ${line#files }, $(awk '/^sync_ns/ { printf "sync took %.3f s", $2 / 1e9 }' "$record")"
	ktap_print_msg "before: $(record_value meminfo_before), after: $(record_value meminfo_after)"
	# With wbsync_fault loaded, sync(2) ran with its flusher kick skipped.
	[ "$mode" = sync ] || [ "$mode" = overwrite ] || return 0
	awk '$1 == "kick_skipped" { unloaded = $2 == -1; s = $3 - $2 }
	     $1 == "kick_calls" { c = $3 - $2 }
	     END { exit !(unloaded || (c <= 1 && s == c)) }' "$record" ||
		{ ktap_print_msg "the flusher kick of the sync was not skipped: $(grep ^kick_ "$record" | paste -sd ' ')"; return 1; }
	grep -q '^kick_skipped -1' "$record" && ktap_print_msg "wbsync_fault was not loaded: the sync kicked the flushers"
	return 0
}

test_mount_after_crash()
{
	mount_both
}

test_fs2_durable()
{
	"$helper" verify -o "$record" -1 "$mnt1" -2 "$mnt2" -f 2
}

# The nosync control: if an fs2 file survives, something other than the
# sync wrote it back, and the other modes prove nothing.
test_fs2_lost()
{
	"$helper" verify -o "$record" -1 "$mnt1" -2 "$mnt2" -f 2 -x
}

test_fs1_durable()
{
	"$helper" verify -o "$record" -1 "$mnt1" -2 "$mnt2" -f 1
}

test_umount()
{
	umount "$mnt2" && umount "$mnt1"
}

# Debian has no fsck for UDF.
has_fsck()
{
	[ "$fstype" != udf ]
}

fsck_dev()
{
	local fsck=(e2fsck -f -n)

	case $fstype in
	xfs) fsck=(xfs_repair -n) ;;
	vfat) fsck=(fsck.vfat -n) ;;
	exfat) fsck=(fsck.exfat -n) ;;
	minix) fsck=(fsck.minix -f) ;;
	esac
	"${fsck[@]}" "$1" >"$fsck_out/fsck.log" 2>&1 && return 0
	# A crash leaves vfat's dirty bit set: mounting a dirty volume keeps
	# it set through the unmount.  fsck.fat reports it twice (the bit and
	# byte 65 of the backup boot sector); anything else is an error.
	if [ "$fstype" = vfat ] && ! grep -q -v -x -e 'fsck.fat .*' -e '' \
		-e 'There are differences between boot sector and its backup.' \
		-e 'This is mostly harmless. Differences: (offset:original/backup)' \
		-e '  65:01/00' -e '  Not automatically fixing this.' \
		-e 'Dirty bit is set. Fs was not properly unmounted and some data may be corrupt.' \
		-e ' Automatically removing dirty bit.' -e 'Leaving filesystem unchanged.' \
		-e '/dev/.*: [0-9]* files, [0-9]*/[0-9]* clusters' "$fsck_out/fsck.log"; then
		return 0
	fi
	sed 's/^/# /' "$fsck_out/fsck.log"
	return 1
}

test_fsck_fs1()
{
	fsck_dev "$dev1"
}

test_fsck_fs2()
{
	fsck_dev "$dev2"
}

# flakey only.

test_sync_then_drop_writes()
{
	"$helper" crash -m "$mode" -o "$record" -1 "$mnt1" -2 "$mnt2" \
		-a "$self drop-writes" "${hopts[@]}"
}

test_unmount_dropped()
{
	test_umount
}

test_restore_tables()
{
	flakey_table "$FLAKEY_ALLOW" && echo 3 >/proc/sys/vm/drop_caches
}

# logwrites only.

# Without a volatile write cache, the block layer drops REQ_PREFLUSH (and
# REQ_FUA) before dm-log-writes sees them: no write would be logged before
# the target's removal, and the replay would say every filesystem loses
# everything.
write_cache_ok()
{
	local c

	# by number: without udev, /dev/mapper/NAME is a node, not a link
	c=$(printf '/sys/dev/block/%d:%d/queue/write_cache' \
		"0x$(stat -L -c %t "$1")" "0x$(stat -L -c %T "$1")")
	c=$(cat "$c" 2>/dev/null)
	[ "$c" = "write back" ] && return 0
	ktap_print_msg "$1: queue/write_cache is '${c:-unreadable}', not 'write back':" \
		"the block layer drops its flushes, and the log cannot tell what reached" \
		"stable media (vm-run gives its disks cache=writeback)"
	return 1
}

test_write_cache()
{
	[ "${#disks[@]}" -ge 6 ] || { ktap_print_msg "need 6 disks, have ${#disks[@]}"; return 1; }
	write_cache_ok "${disks[0]}" && write_cache_ok "${disks[1]}"
}

# fs1 on disk 0 logged to disk 2, fs2 on disk 1 logged to disk 3.
test_logwrites_devices()
{
	local i

	for i in 0 1; do
		dmsetup create "wbsync-fs$((i + 1))" --table \
			"0 $(blockdev --getsz "${disks[i]}") log-writes ${disks[i]} ${disks[i + 2]}" ||
			return 1
	done
	[ -b "$dev1" ] && [ -b "$dev2" ] && write_cache_ok "$dev1" && write_cache_ok "$dev2"
}

# "N entries, up to sector S" of a target's log ("logging_disabled" when
# it stopped logging: an error, or the log disk full)
log_status()
{
	dmsetup status "$1" | awk '{ print $4 " entries, up to sector " $5 ($6 == "" ? "" : ", " $6) }'
}

# mkfs through the log, then a flush of the device (fsync(2) of a block
# device flushes its cache), so that the log has all of mkfs's writes
# before the mark "mkfs", whether the mkfs tool flushed or not.
test_logwrites_mkfs()
{
	local before name

	before=$(log_status wbsync-fs2)
	test_mkfs || return 1
	ktap_print_msg "fs2's log before mkfs: $before; after: $(log_status wbsync-fs2)"
	sync "$dev1" "$dev2" && log_mark mkfs || return 1
	for name in $DM_NAMES; do
		ktap_print_msg "$name's log after the flush and the mark: $(log_status "$name")"
	done
}

test_sync_then_mark()
{
	"$helper" crash -m "$mode" -o "$record" -1 "$mnt1" -2 "$mnt2" \
		-a "$self mark-sync" "${hopts[@]}"
}

# Removing a target logs the writes no flush has logged yet, after the
# mark, and the mark "dm-log-writes-end".
test_remove_targets()
{
	local name

	for name in $DM_NAMES; do
		ktap_print_msg "$name's log: $(log_status "$name")"
		dmsetup remove "$name" || return 1
	done
}

# Each log up to its mark "sync" onto a zeroed disk of the same size,
# which the checks then take as fs1 and fs2.
test_replay()
{
	local i out

	for i in 0 1; do
		out=$("$here/replay_log.py" --log "${disks[i + 2]}" \
			--replay "${disks[i + 4]}" --end-mark sync) || return 1
		ktap_print_msg "fs$((i + 1)): $out"
	done
	dev1=${disks[4]} dev2=${disks[5]}
	echo 3 >/proc/sys/vm/drop_caches
}

# --trace: which inodes each pass of the sync queued.  The dump runs
# between the sync and the crash (wbsync_integrity -t).
start_trace()
{
	local t=/sys/kernel/tracing e

	echo 0 >"$t/tracing_on" && echo >"$t/trace" && echo 16384 >"$t/buffer_size_kb" || return 1
	for e in writeback_start writeback_queue_io writeback_written; do
		echo 1 >"$t/events/writeback/$e/enable" || return 1
	done
	echo 1 >"$t/tracing_on"
	hopts+=(-t "echo 0 >$t/tracing_on; cat $t/trace >$1")
}

# What the mode calls.
call()
{
	case "$mode" in
	nosync) echo "no sync" ;;
	syncfs) echo "syncfs(2) on fs2" ;;
	*) echo "sync(2)" ;;
	esac
}

run()
{
	ktap_test_result "$1" "test_$2"
}

run_setup()
{
	if [ "$mode" = overwrite ]; then
		run "prepare: fs2 files created and made durable" prepare
	else
		ktap_test_skip "prepare: fs2 files created and made durable (overwrite mode only)"
	fi
	run "writeback: periodic and background writeback off" sysctl
	if [ "$fault" = 1 ]; then
		run "fault: wbsync_fault refuses to load without its symbol" fault_no_symbol
		run "fault: wbsync_fault loaded with skip_sync_kick=1" fault_load
		run "fault: sync(2) kick skipped" fault_skips_kick
	else
		ktap_test_skip "fault: wbsync_fault refuses to load without its symbol (--no-fault)"
		ktap_test_skip "fault: wbsync_fault loaded with skip_sync_kick=1 (--no-fault)"
		ktap_test_skip "fault: sync(2) kick skipped (--no-fault)"
	fi
	if [ -n "$wait_user" ]; then
		run "hook: wbsync_wait_user hooks fs1 and fs2 (mode $wait_user_mode)" wait_user_load
		run "hook: one sync(2), one ->wait_inodes() call each" wait_user_called
	else
		ktap_test_skip "hook: wbsync_wait_user hooks fs1 and fs2 (no --wait-user)"
		ktap_test_skip "hook: one sync(2), one ->wait_inodes() call each (no --wait-user)"
	fi
}

run_checks()
{
	run "record: mode $mode, $(call) completed before the crash" record
	run "mount: both filesystems mount after the crash" mount_after_crash
	case "$mode" in
	nosync)
		run "control: no fs2 file survives the crash without a sync" fs2_lost
		ktap_test_skip "fs1: every file closed before the crash is on disk (nosync control)"
		;;
	syncfs)
		run "fs2: every file closed before syncfs(2) started is on disk" fs2_durable
		"$helper" verify -o "$record" -1 "$mnt1" -2 "$mnt2" -f 1 | grep '^# fs1'
		ktap_test_skip "fs1: every file closed before syncfs(2) started is on disk (syncfs does not sync fs1)"
		;;
	*)
		run "fs2: every file closed before sync(2) started is on disk" fs2_durable
		run "fs1: every file closed before sync(2) started is on disk" fs1_durable
		;;
	esac
	run "umount: both filesystems" umount
	if ! has_fsck; then
		ktap_test_skip "fsck: fs1 is consistent ($fstype: no fsck in Debian)"
	elif ! journaled; then
		# Its writers ran into the crash, and there is no journal.
		ktap_test_skip "fsck: fs1 is consistent ($fstype: no journal, fs1 writers ran into the crash)"
	else
		run "fsck: fs1 is consistent" fsck_fs1
	fi
	if ! has_fsck; then
		ktap_test_skip "fsck: fs2 is consistent ($fstype: no fsck in Debian)"
	elif [ "$mode" = nosync ] && ! journaled; then
		ktap_test_skip "fsck: fs2 is consistent ($fstype: no journal, and the control crashed without a sync)"
	else
		run "fsck: fs2 is consistent" fsck_fs2
	fi
}

mkdir -p "$fsck_out"
ktap_print_header
case "$phase" in
crash)
	ktap_set_plan 10
	run "setup: two partitions on $disk (one bdi)" partition
	run "setup: $fstype on both" mkfs
	run "setup: mount fs1, then fs2" mount
	run_setup
	ktap_print_totals
	[ "$KTAP_CNT_FAIL" = 0 ] || exit "$KSFT_FAIL"
	ktap_print_msg "mode $mode: $(call) with fs1 writers running, then sysrq-b; record: $record"
	[ "$trace" = 0 ] || start_trace "${record%/*}/trace" ||
		ktap_print_msg "tracing is not available: running without it"
	exec "$helper" crash -m "$mode" -o "$record" -1 "$mnt1" -2 "$mnt2" "${hopts[@]}"
	;;
verify)
	[ -f "$record" ] || die "record '$record' does not exist"
	mode=$(awk '$1 == "mode" { print $2 }' "$record")
	ktap_set_plan 7
	run_checks
	;;
flakey)
	ktap_set_plan 20
	run "setup: dm-flakey on two disks (two bdis)" flakey_devices
	run "setup: $fstype on both" mkfs
	run "setup: mount fs1, then fs2" mount
	run_setup
	run "crash: mode $mode, $(call) with fs1 writers running, then drop all writes" sync_then_drop_writes
	run "crash: unmount with writes dropped" unmount_dropped
	run "crash: restore the tables, drop caches" restore_tables
	run_checks
	;;
logwrites)
	ktap_set_plan 22
	run "setup: the disks have a volatile write cache (flushes reach dm-log-writes)" write_cache
	[ "$KTAP_CNT_FAIL" = 0 ] || ktap_exit_fail_msg "no write cache: a power cut cannot be modelled"
	run "setup: dm-log-writes on two disks (two bdis), logs on two others" logwrites_devices
	run "setup: $fstype on both through the log, flushed, mark mkfs" logwrites_mkfs
	run "setup: mount fs1, then fs2" mount
	run_setup
	run "crash: mode $mode, $(call) with fs1 writers running, then mark sync in both logs" sync_then_mark
	run "crash: unmount (what follows the mark is not replayed)" unmount_dropped
	run "crash: remove the targets" remove_targets
	run "power cut: replay each log up to its mark sync onto a zeroed disk" replay
	run_checks
	;;
esac
ktap_finished
