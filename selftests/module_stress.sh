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
# Needs $WBSYNC_MODULE, $KSRC (ktap_helpers.sh) and a disk
# (need_disks); $WBSYNC_STRESS_LOADS load/unload cycles (default 100);
# $WBSYNC_BIN if the built sync_loop is not next to this script.
#
# WBSYNC_STRESS_ARM=kprobe_events is the control without wbsync.ko: each
# cycle arms and disarms tracefs kretprobe events on the functions that
# wbsync.ko probes, so the same ftrace sites are patched under the same
# loops by the kernel alone.  WBSYNC_STRESS_ARM=insmod is the other half:
# each cycle loads and unloads another module, one without probes
# ($WBSYNC_STRESS_CONTROL_MODULE, default exfat, for distribution
# kernels, which have it as a module), under the same loops.
# shellcheck source=selftests/wbsync_lib.sh
. "$(dirname "$0")/wbsync_lib.sh"

loads=${WBSYNC_STRESS_LOADS:-100}
bin=${WBSYNC_BIN:-$(cd "$(dirname "$0")" && pwd)}
dbg=/sys/kernel/debug/wbsync
leaks=/sys/kernel/debug/kmemleak
mnt= img= lodev=
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
	[ -z "$mnt" ] || umount "$mnt/img" 2>/dev/null
	[ -z "$lodev" ] || losetup -d "$lodev"
	[ -z "$mnt" ] || umount "$mnt"
	grep -q '^wbsync ' /proc/modules && rmmod wbsync
}
trap cleanup EXIT

ktap_print_header
[ "${WBSYNC_STRESS_ARM:-module}" != module ] || [ -f "${WBSYNC_MODULE:-}" ] ||
	skip_all "no wbsync.ko in WBSYNC_MODULE"
control_module=${WBSYNC_STRESS_CONTROL_MODULE:-exfat}
[ "${WBSYNC_STRESS_ARM:-module}" != insmod ] ||
	{ modprobe -n "$control_module" 2>/dev/null && ! grep -q "^$control_module " /proc/modules; } ||
	skip_all "no unused module $control_module to load (WBSYNC_STRESS_CONTROL_MODULE)"
need_disks 1
read -r disk _ <<<"$WBSYNC_DISKS"
[[ $loads =~ ^[1-9][0-9]*$ ]] || ktap_exit_fail_msg "WBSYNC_STRESS_LOADS must be a positive number"
[ -x "$bin/sync_loop" ] || ktap_exit_fail_msg "$bin/sync_loop not built (make -C selftests)"
ktap_set_plan 6
mkfs.ext4 -q -F "$disk" && mnt=$(mktemp -d) && mount "$disk" "$mnt" ||
	ktap_exit_fail_msg "cannot mount $disk"
img=$mnt/fs.img
truncate -s 64M "$img" && mkfs.ext4 -q -F "$img" && mkdir "$mnt/img" ||
	ktap_exit_fail_msg "cannot make the filesystem image"
# One loop device for all cycles: "mount -o loop" fails with EBUSY in the
# lab's guests (util-linux's own loop setup), and the loop would never mount.
modprobe -q loop 2>/dev/null # a module on distribution kernels
lodev=$(losetup -f --show "$img") || ktap_exit_fail_msg "cannot attach $img to a loop device"
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
loop remount eval "mount '$lodev' '$mnt/img' && dd if=/dev/zero of='$mnt/img/f' bs=64k count=4 && umount '$mnt/img'" &
for name in sync syncfs fsync sfr sfr2; do
	"$bin/sync_loop" "${name%2}" "$mnt/$name" "$stop" "$mnt/.count-$name" &
done

# The control's events: the functions wbsync.ko probes (those that
# exist: sync_inodes_all only with the series) and the knob's target.
tracing=/sys/kernel/tracing
control_syms()
{
	local sym

	for sym in ksys_sync __x64_sys_syncfs wakeup_flusher_threads \
		writeback_inodes_sb sync_inodes_sb sync_inodes_all \
		wait_sb_inodes sync_fs_one_sb sync_filesystem \
		sync_blockdev_nowait sync_blockdev sync_bdevs sync_file_range \
		__filemap_fdatawrite_range; do
		grep -q " $sym\$" /proc/kallsyms && echo "$sym"
	done
}
arm=${WBSYNC_STRESS_ARM:-module}
case $arm in
module | insmod) ;;
kprobe_events)
	read -r -a syms <<<"$(control_syms | tr '\n' ' ')"
	[ "${#syms[@]}" -gt 0 ] || ktap_exit_fail_msg "no probe target in /proc/kallsyms"
	;;
*) ktap_exit_fail_msg "WBSYNC_STRESS_ARM must be module, kprobe_events or insmod" ;;
esac

# The calls of each phase that the probes saw in this cycle (now[], by
# the phase names of wbsync's stats) and in the cycles before (seen[]).
declare -A seen now
total() { echo $((${seen[$1]:-0} + ${now[$1]:-0})); }
add_now()
{
	local k

	for k in "${!now[@]}"; do
		seen[$k]=$(total "$k")
	done
	now=()
}
# Whether they include calls of sync, syncfs, sync_file_range and umount.
overlapped()
{
	[ "$(total sync)" -gt 0 ] && [ "$(total syncfs)" -gt 0 ] &&
		[ "$(total sync_file_range)" -gt 0 ] && [ "$(total sync_filesystem)" -gt 0 ]
}

count_module()
{
	now=()
	# (no process substitution: a guest may lack /dev/fd)
	while read -r phase count; do
		[ -n "$phase" ] || continue
		now[$phase]=$count
	done <<<"$(awk 'NR > 1 { print $3, $4 }' $dbg/stats)"
}

count_control()
{
	local name hits sym phase

	now=()
	while read -r name hits _; do
		# the event name, with or without its group
		case ${name#wbsync_ctl/} in
		p[0-9]*) sym=${syms[${name#*p} - 1]} ;;
		*) continue ;;
		esac
		case $sym in
		ksys_sync) phase=sync ;;
		__x64_sys_syncfs) phase=syncfs ;;
		sync_file_range) phase=sync_file_range ;;
		sync_filesystem) phase=sync_filesystem ;;
		*) continue ;;
		esac
		now[$phase]=$((${now[$phase]:-0} + hits))
	done <$tracing/kprobe_profile
}

# Cycles are as short as they go, but every tenth and the last one stay
# armed until the probes have seen each kind of call (at most 15 s), so
# that the run proves the probes saw the loops' calls.
hold()
{
	local t

	[ $((i % 10)) = 0 ] || [ "$i" = "$loads" ] || return 0
	for ((t = 0; t < 150; t++)); do
		"$@"
		overlapped && return 0
		sleep 0.1
	done
}

# One cycle of the control: arm every event, let the loops hit them, count
# the hits by the phase names of wbsync's stats, disarm.
control_cycle()
{
	local sym n=0

	for sym in "${syms[@]}"; do
		n=$((n + 1))
		echo "r:wbsync_ctl/p$n $sym" >>$tracing/kprobe_events || return 1
	done
	echo 1 >$tracing/events/wbsync_ctl/enable || return 1
	# a mark in the console, where a crash says how far the run got
	echo "wbsync_ctl: cycle $i armed" >/dev/kmsg
	hold count_control
	count_control
	add_now
	echo 0 >$tracing/events/wbsync_ctl/enable && echo >$tracing/kprobe_events
}

failed=0
for ((i = 1; i <= loads; i++)); do
	if [ "$arm" = kprobe_events ]; then
		control_cycle || failed=$((failed + 1))
		continue
	fi
	if [ "$arm" = insmod ]; then
		echo "wbsync_ctl: cycle $i loading $control_module" >/dev/kmsg
		modprobe "$control_module" && modprobe -r "$control_module" || failed=$((failed + 1))
		continue
	fi
	if ! insmod "$WBSYNC_MODULE"; then
		failed=$((failed + 1))
		continue
	fi
	echo 1 >$tracing/events/wbsync/enable
	# Unload with a knob away from its default now and then: the knob's
	# kprobe goes while callers may be inside its target.
	[ $((i % 2)) = 1 ] || [ "$(cat $dbg/sfr_sync_mode)" = unsupported ] ||
		echo all >$dbg/sfr_sync_mode
	hold count_module
	count_module
	add_now
	rmmod wbsync || failed=$((failed + 1))
done
ktap_print_msg "$loads cycles ($arm), $failed failed to arm or disarm"
ktap_test_result "$loads arm/disarm cycles ($arm) under sync, syncfs, fsync, sync_file_range and umount loops" \
	[ $failed = 0 ]
ktap_print_msg "calls seen while loaded: $(for p in "${!seen[@]}"; do printf '%s=%s ' "$p" "${seen[$p]}"; done)"
if [ "$arm" = insmod ]; then
	ktap_test_skip "the probes fired for sync, syncfs, sync_file_range and umount while loaded (no probes in $control_module)"
else
	ktap_test_result "the probes fired for sync, syncfs, sync_file_range and umount while loaded" overlapped
fi

# Every loop must still make progress once the module is gone: one more
# call within a minute (a remount under KASAN and these loops can take
# seconds; a loop stuck for good is what this catches).
progress()
{
	local name before after t

	for name in $names; do
		before=$(calls $name)
		for ((t = 0; t < 60; t++)); do
			sleep 1
			after=$(calls $name)
			[ "$after" -gt "$before" ] && break
		done
		ktap_print_msg "$name loop: $after calls, one more within $((t + 1)) s"
		[ "$after" -gt "$before" ] || return 1
	done
}
ktap_test_result "every sync loop still makes progress" progress

stop_loops
umount "$mnt/img" 2>/dev/null
losetup -d "$lodev" && lodev=
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
