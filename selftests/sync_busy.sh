#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sync_busy.sh [-f FSTYPE] [-n NR_FS] [-l separate|shared] [-t SECONDS]
#              [-r RUNS] [-w dd|c] [-W WRITERS] [-c CONFIGS] [-m MOUNT_OPTIONS]
#              [-d DIRTY_MIB]
#
# The seed's sync-under-load measurement, in a wbsync guest (KTAP).  Each
# run makes FSTYPE (ext4, xfs, vfat, exfat or ext2) on the first NR_FS disks of
# $WBSYNC_DISKS (-l shared: on NR_FS partitions of the first disk, one bdi,
# the seed's "two ext4 on one drive"), keeps every filesystem busy creating 16 KiB files for
# SECONDS (writers: the seed's dd loops, or busy_writer, the same pattern
# without a fork per file; WRITERS of them per filesystem, default the
# seed's 10), then times sync(1) with sync_measure.sh.
#
# Before the runs, the disk's rate for this pattern is calibrated: 2000
# files on one quiet filesystem, then sync.  Each run reports the bound:
# the largest amount of data dirty on one disk at sync start, written at
# that rate (the disks write in parallel).  A run fails if the sync or
# the writers fail, or if a filesystem does not check clean afterwards.
#
# -m mounts the filesystems with MOUNT_OPTIONS (mount -o).
#
# -d sets the dirty limit to DIRTY_MIB MiB (vm.dirty_bytes, background
# writeback at half of it, vm.dirty_background_bytes) for the runs, and
# restores the limits after them: writers that dirty less than their
# disks write reach the default limits only after many seconds, or never.
#
# -c runs every run once per configuration, in turn, in the same boot:
# "kernel" (no module), "wbsync" (wbsync.ko of $WBSYNC_MODULE loaded) or
# "wbsync:KNOB=VALUE[,KNOB=VALUE]" (loaded, with its debugfs knobs set),
# e.g. -c "kernel wbsync" for the module's overhead; and what users do
# instead of a faster sync(2), without the module: "syncfs" (one
# syncfs(2) a filesystem, all at once, in place of sync(1)) and
# "dirty=LIMIT/BACKGROUND" (vm.dirty_bytes and vm.dirty_background_bytes
# in MiB, e.g. dirty=16/4).  Default: kernel.  Each run's line has the
# writers' rate over the load and the sync (writer_bytes_s).
# With the module loaded, its statistics of each run (where the sync time
# went, per superblock and phase, and each pass's pass_lag) are kept in
# $WBSYNC_OUT/stats-RUN-CONFIG.
# With SYNC_BUSY_TRACE=1, each sync is traced (sync_measure.sh's
# SYNC_MEASURE_TRACE) into $WBSYNC_OUT/trace-RUN-CONFIG, and its line
# adds what the writeback works wrote, by who queued them; with
# SYNC_BUSY_STACKS=1, its blocked tasks are sampled (SYNC_MEASURE_STACKS)
# into $WBSYNC_OUT/stacks-RUN-CONFIG.  On ext4, the journals' statistics
# after each run (/proc/fs/jbd2/*/info) go to $WBSYNC_OUT/jbd2-RUN-CONFIG.
set -u
here=$(cd "$(dirname "$0")" && pwd)
fstype=ext4 nr=1 layout=separate secs=40 runs=1 writer=c writers=10 configs=kernel mount_opts=
dirty_mib=
usage="usage: sync_busy.sh [-f FSTYPE] [-n NR_FS] [-l separate|shared] [-t SECONDS] [-r RUNS] [-w dd|c] [-W WRITERS] [-c CONFIGS] [-m MOUNT_OPTIONS] [-d DIRTY_MIB]"
while getopts f:n:l:t:r:w:W:c:m:d: opt; do
	case $opt in
	f) fstype=$OPTARG ;;
	n) nr=$OPTARG ;;
	l) layout=$OPTARG ;;
	t) secs=$OPTARG ;;
	r) runs=$OPTARG ;;
	w) writer=$OPTARG ;;
	W) writers=$OPTARG ;;
	c) configs=$OPTARG ;;
	m) mount_opts=$OPTARG ;;
	d) dirty_mib=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
fail() { echo "sync_busy.sh: $*" >&2; exit 2; }
case $fstype in
ext4) mkfs=(mkfs.ext4 -q -F) fsck=(fsck.ext4 -fn) ;;
xfs) mkfs=(mkfs.xfs -q -f) fsck=(xfs_repair -n) ;;
vfat) mkfs=(mkfs.vfat) fsck=(fsck.vfat -n) ;;
exfat) mkfs=(mkfs.exfat) fsck=(fsck.exfat -n) ;;
ext2) mkfs=(mkfs.ext2 -q -F) fsck=(e2fsck -fn) ;;
*) fail "unknown filesystem type '$fstype' (ext4, xfs, vfat, exfat, ext2)" ;;
esac
[[ "$nr" =~ ^[1-5]$ ]] || fail "-n must be 1 to 5, not '$nr'"
[[ "$secs" =~ ^[1-9][0-9]*$ ]] || fail "-t must be a positive number, not '$secs'"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || fail "-r must be a positive number, not '$runs'"
case $writer in dd|c) ;; *) fail "-w must be dd or c, not '$writer'" ;; esac
[[ "$writers" =~ ^[1-9][0-9]*$ ]] || fail "-W must be a positive number, not '$writers'"
[ "$writer" = c ] || [ "$writers" = 10 ] || fail "-W needs -w c (the seed's dd loops are 10)"
[ -z "$dirty_mib" ] || [[ "$dirty_mib" =~ ^[1-9][0-9]{0,5}$ ]] ||
	fail "-d must be a number of MiB (1 to 999999), not '$dirty_mib'"
read -r -a disks <<<"${WBSYNC_DISKS:-}"
case $layout in
separate)
	[ "${#disks[@]}" -ge "$nr" ] || fail "need $nr disks, have ${#disks[@]} (WBSYNC_DISKS)"
	disks=("${disks[@]:0:nr}")
	names=("${disks[@]#/dev/}")
	;;
shared)
	# "disks" are then the partitions; the one disk is what sync_measure.sh reads
	[ -b "${disks[0]:-}" ] || fail "need a disk in WBSYNC_DISKS"
	names=("${disks[0]#/dev/}")
	sz=$(($(blockdev --getsz "${disks[0]}") / nr))
	{ echo "label: gpt"; for ((k = 1; k < nr; k++)); do echo ",$sz"; done; echo ","; } |
		sfdisk -q "${disks[0]}" >/dev/null || fail "cannot partition ${disks[0]}"
	blockdev --rereadpt "${disks[0]}" 2>/dev/null
	parts=()
	for ((k = 1; k <= nr; k++)); do
		[ -b "${disks[0]}$k" ] || fail "no partition ${disks[0]}$k"
		parts+=("${disks[0]}$k")
	done
	disks=("${parts[@]}")
	;;
*) fail "-l must be separate or shared, not '$layout'" ;;
esac
for c in $configs; do
	case $c in
	kernel|syncfs) continue ;;
	dirty=*/*)
		[[ "$c" =~ ^dirty=[1-9][0-9]{0,5}/[1-9][0-9]{0,5}$ ]] ||
			fail "dirty=LIMIT/BACKGROUND needs two numbers of MiB, not '${c#dirty=}'"
		[ -z "$dirty_mib" ] || fail "-c $c and -d exclude each other"
		continue ;;
	wbsync|wbsync:*=*) ;;
	*) fail "unknown configuration '$c' (kernel, syncfs, dirty=LIMIT/BACKGROUND, wbsync, wbsync:KNOB=VALUE)" ;;
	esac
	[ -f "${WBSYNC_MODULE:-}" ] || fail "-c $c needs WBSYNC_MODULE"
done
read -r -a configs <<<"$configs"
[ "${#configs[@]}" -gt 0 ] || fail "-c needs at least one configuration"
busy_writer=${BUSY_WRITER:-$here/busy_writer}
[ -x "$busy_writer" ] || fail "$busy_writer not built (make -C selftests)"

# Set up configuration $1: load or unload wbsync.ko and set its knobs
# (every supported knob at its default, then the configuration's); the
# dirty limits of dirty=LIMIT/BACKGROUND (MiB), the saved ones otherwise.
knob_defaults="sfr_sync_mode=auto"
configure()
{
	local kv dbg=/sys/kernel/debug/wbsync l

	[ -n "$dirty_mib" ] || [ ${#saved_dirty_limits[@]} = 0 ] || restore_dirty_limits || return 1
	case $1 in
	kernel|syncfs|dirty=*)
		! grep -q '^wbsync ' /proc/modules || rmmod wbsync || return 1
		[[ "$1" = dirty=* ]] || return 0
		l=${1#dirty=}
		sysctl -q -w vm.dirty_bytes=$((${l%/*} << 20)) \
			vm.dirty_background_bytes=$((${l#*/} << 20))
		return ;;
	esac
	grep -q '^wbsync ' /proc/modules || insmod "$WBSYNC_MODULE" || return 1
	for kv in $knob_defaults; do
		[ "$(cat "$dbg/${kv%=*}")" = unsupported ] || echo "${kv#*=}" >"$dbg/${kv%=*}" || return 1
	done
	[[ "$1" == *:* ]] || return 0
	for kv in $(tr , ' ' <<<"${1#*:}"); do
		echo "${kv#*=}" >"$dbg/${kv%=*}" || return 1
	done
}

# Wait for every pid in $@; fail if any of them failed.
wait_all()
{
	local p ret=0

	for p; do
		wait "$p" || ret=1
	done
	return $ret
}

# The filesystems are on throttled disks: umount, mkfs and fsck run on all
# of them at once, each disk at its own rate, so that a run's setup does
# not cost four times one disk's.
mnts=()
unmount_all()
{
	local m pids=()

	for m in "${mnts[@]}"; do
		{ umount "$m" && rmdir "$m"; } &
		pids+=($!)
	done
	mnts=()
	wait_all "${pids[@]}"
}
# The dirty limits as they were before -d, restored at exit.
. "$here/dirty_limits.sh"
trap 'unmount_all; restore_dirty_limits' EXIT
if [ -n "$dirty_mib" ] || [[ " ${configs[*]} " = *" dirty="* ]]; then
	save_dirty_limits ||
		fail "cannot save the dirty limits (${saved_dirty_limits[*]:-none set}): not changing them"
fi
if [ -n "$dirty_mib" ]; then
	sysctl -q -w vm.dirty_bytes=$((dirty_mib << 20)) \
		vm.dirty_background_bytes=$((dirty_mib << 19)) ||
		fail "cannot set the dirty limit to $dirty_mib MiB"
fi

# mkfs and mount the first $1 disks; the mount points go to mnts.  The
# mounts stay one after another, in disk order: sync(2) visits the
# superblocks in the order they were mounted.
mount_fresh()
{
	local k m pids=()

	for ((k = 0; k < $1; k++)); do
		"${mkfs[@]}" "${disks[k]}" >/dev/null &
		pids+=($!)
	done
	wait_all "${pids[@]}" || return 1
	for ((k = 0; k < $1; k++)); do
		m=$(mktemp -d /tmp/wbsync-busy.XXXXXX)
		mount -t "$fstype" ${mount_opts:+-o "$mount_opts"} "${disks[k]}" "$m" || return 1
		mnts+=("$m")
	done
}

fsck_all()
{
	local d pids=()

	for d in "${disks[@]}"; do
		{ "${fsck[@]}" "$d" >/dev/null 2>&1 || { echo "# $d does not check clean"; exit 1; }; } &
		pids+=($!)
	done
	wait_all "${pids[@]}"
}

# The kernel's dirty limits before the writers start, in bytes
# (/proc/vmstat): what the writers are throttled to, the model's input
# in sync-report.sh.
dirty_limits()
{
	awk -v page="$(getconf PAGESIZE)" '
	$1 == "nr_dirty_threshold" { t = $2 }
	$1 == "nr_dirty_background_threshold" { b = $2 }
	END { printf "dirty_thresh_bytes=%d bg_thresh_bytes=%d\n", t * page, b * page }' /proc/vmstat
}
# What the kernel made of -d: the limits it throttles to.
[ -z "$dirty_mib" ] ||
	[ "$(dirty_limits)" = "dirty_thresh_bytes=$((dirty_mib << 20)) bg_thresh_bytes=$((dirty_mib << 19))" ] ||
	fail "the dirty limits read $(dirty_limits), not $dirty_mib MiB and half of it"

# The value of key $1 in the key=value line $2.
field() { sed -n "s/.*\\b$1=\\([0-9.]*\\).*/\\1/p" <<<"$2"; }

echo "TAP version 13"
echo "1..$((runs * ${#configs[@]} + 1))"

# Traced, the calibration also allocates the trace buffer, before any
# writer runs.
trace_file() { [ "${SYNC_BUSY_TRACE:-0}" = 0 ] || [ -z "${WBSYNC_OUT:-}" ] || echo "$WBSYNC_OUT/trace-$1"; }
mount_fresh 1 && "$busy_writer" -F 200 "${mnts[0]}" >/dev/null &&
	cal=$(SYNC_MEASURE_TRACE=$(trace_file calibration) "$here/sync_measure.sh" "${names[0]}") &&
	unmount_all
rate=$(field dirty_bytes "${cal:-}")
secs_cal=$(field sync_seconds "${cal:-}")
if [ -z "$rate" ] || [ "$rate" = 0 ] || [ "$secs_cal" = 0.000 ]; then
	echo "not ok 1 calibration: ${cal:-no result}"
	exit 1
fi
rate=$(echo "$rate / $secs_cal" | bc)
echo "# calibration fstype=$fstype files=2000 $cal rate_bytes_per_s=$rate"
echo "ok 1 calibration"

ret=0 n=1
for ((r = 1; r <= runs; r++)); do
	for c in "${configs[@]}"; do
		n=$((n + 1))
		res=
		[ "$c" = kernel ] || [ ! -w /sys/kernel/debug/wbsync/reset ] ||
			echo 1 >/sys/kernel/debug/wbsync/reset
		if configure "$c" && mount_fresh "$nr"; then
			limits=$(dirty_limits)
			if [ "$writer" = dd ]; then
				res=$("$here/seed_reproducer.sh" -t "$secs" \
					-s "$here/sync_measure.sh ${names[*]}" "${mnts[@]}")
			else
				t0=$EPOCHREALTIME
				"$busy_writer" -W "$writers" "${mnts[@]}" >/tmp/wbsync-busy.out &
				pid=$!
				sleep "$secs"
				export SYNC_MEASURE_TRACE
				SYNC_MEASURE_TRACE=$(trace_file "$r-${c//[^a-z0-9_=-]/_}")
				[ "${SYNC_BUSY_STACKS:-0}" = 0 ] || [ -z "${WBSYNC_OUT:-}" ] ||
					export SYNC_MEASURE_STACKS="$WBSYNC_OUT/stacks-$r-${c//[^a-z0-9_=-]/_}"
				# syncfs: what users do instead of sync(2), one
				# syncfs(2) a filesystem, all at once
				sync_cmd=()
				[ "$c" != syncfs ] ||
					# shellcheck disable=SC2016
					sync_cmd=(-- sh -c 'for m; do sync -f "$m" & done; wait' sh "${mnts[@]}")
				res=$("$here/sync_measure.sh" "${names[@]}" "${sync_cmd[@]}")
				kill "$pid"
				wait "$pid" || res=
				t1=$EPOCHREALTIME
				res+=" $(cat /tmp/wbsync-busy.out)"
				# the writers' rate over the load and the sync, 16 KiB a file
				res+=" writer_bytes_s=$(echo "$(field files_created "$res") * 16384 / ($t1 - $t0)" | bc)"
			fi
		fi
		[ "$c" = kernel ] || [ -z "${WBSYNC_OUT:-}" ] ||
			cat /sys/kernel/debug/wbsync/stats >"$WBSYNC_OUT/stats-$r-${c//[^a-z0-9_=-]/_}" 2>/dev/null
		# ext4's journal: how long commits took and handles waited for them
		[ -z "${WBSYNC_OUT:-}" ] || [ "$fstype" != ext4 ] ||
			grep -H '' /proc/fs/jbd2/*/info >"$WBSYNC_OUT/jbd2-$r-${c//[^a-z0-9_=-]/_}" 2>/dev/null
		unmount_all || res=
		max=$(field max_disk_dirty_bytes "$res")
		if [ -z "$max" ] || ! fsck_all; then
			echo "not ok $n run $r $c: ${res:-module, sync, writers or unmount failed}"
			ret=1
			continue
		fi
		# Shares of the sync's time: over 100 %, the counters were not
		# read around the sync alone (the disk busier than the clock).
		busy=$(field disk_busy_pct "$res") idle=$(field cpu_idle_pct "$res")
		if [ "$busy" -gt 102 ] || [ "$idle" -gt 100 ]; then
			echo "not ok $n run $r $c: disk busy $busy %, CPU idle $idle % of the sync: not sampled around it: $res"
			ret=1
			continue
		fi
		bound=$(echo "scale=3; $max / $rate" | bc)
		echo "# run=$r config=$c fstype=$fstype nr_fs=$nr layout=$layout writer=$writer writers=$writers $res $limits bound_seconds=$bound calib_rate_bytes_s=$rate"
		echo "ok $n run $r $c"
	done
done
configure kernel
exit $ret
