#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# integrity.sh KERNEL [options]
#
# The wbsync integrity crash test, driven from the host.  KERNEL is one of
# the lab's kernels ($KERNEL_NAMES in lib.sh;
# naive: the test fixture, the seed's patch forward-ported without any
# dirtied_when fix, selftests/fixtures/naive.patch; patched+PATCH: the series
# with the patch file PATCH on top), built or reused, or a kernel build
# directory; with --boot and --initrd, the headers of a
# distribution kernel.  Builds wbsync_fault.ko against it and the guest
# helper.  Then, for each cycle and mode, boots the kernel twice with
# scripts/vm-run on the same disk image: boot 1 writes, syncs and crashes
# (sysrq-b), boot 2 checks that every file closed before the sync started
# is intact (selftests/integrity/integrity_test.sh).  With --layout
# flakey, a single boot on two disks with dm-flakey does both; with
# --layout logwrites, a single boot on six disks models a power cut when
# the sync returns: dm-log-writes logs what reached stable media, which
# replay_log.py replays onto fresh disks for the checks.  Prints
# TAP; exits 0 if everything passed, 1 if not, 2 on bad arguments.  For
# naive, a "not ok" of a verify boot is the expected result: the exit
# status is 0 when the test caught lost data and 1 when it did not.
#
# Options (-f, -p and -o as in the table of scripts/lib.sh):
#   --cycles N       crash/verify cycles per mode (default 1)
#   --modes LIST     comma-separated: sync, syncfs, overwrite, nosync (the
#                    control: no sync, every fs2 file must be lost), or all
#                    (all four; default sync)
#   -f, --fs TYPE    ext4, xfs, vfat, exfat, exfat-dirty (exfat mounted with
#                    VOLUME_DIRTY set, as after a crash), ext2, udf or minix
#                    (default ext4)
#   --layout L       shared: two partitions of one disk, sysrq-b, two boots
#                    flakey: dm-flakey on two disks, one boot
#                    logwrites: a power cut, dm-log-writes on two disks with
#                    their logs and replays on four more, one boot
#                    (default shared)
#   -p, --profile P  disk profile: none, ssd or hdd (default none)
#   --files N        fs2 files (default 1000)
#   --writers1 N     fs1 writers, running through the sync (default 4)
#   --writers2 N     fs2 writers, stopped before the sync (default 2)
#   --size1 BYTES    fs1 file size (default 65536)
#   --size2 BYTES    fs2 file size (default 16384)
#   --budget MIB     fs1 data before the fs2 writers start (default 64)
#   --pace-us US     fs1 writer pause per file after the budget (default 2000)
#   --inflight       rewrite each fs2 file while its writeback may run
#   --no-fault       do not load wbsync_fault.ko (sync(2) kicks the flushers)
#   --wait-user      build wbsync_wait_user.ko (selftests/wait_inodes) and sync both
#                    filesystems through its ->wait_inodes() (kernels with the series)
#   --wait-user-skip as --wait-user, with a hook that skips the wait: the
#                    negative control, which must lose files
#   --trace          shared layout: trace the writeback works of the sync
#                    (dumped before the crash, which it delays)
#   --boot IMAGE     boot this kernel image instead of KERNEL's vmlinux
#   --initrd FILE    with --boot: its initramfs (scripts/stock-initrd.sh)
#   --timeout SEC    per boot (default 900)
#   -o, --out DIR    work directory (default output/integrity-KERNEL)
#   --keep           keep the disk images of passing cycles
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/crash-lib.sh
. "$(dirname "$0")/crash-lib.sh"

here=$WBSYNC_TOP/selftests/integrity

[ $# -gt 0 ] || usage_error "no kernel given (see --help)"
kernel=$1
shift
boot='' initrd='' wait_user=0 cycles=1 modes=sync fstype=ext4 layout=shared profile=none timeout=900 out='' keep=0
gopts=()
while [ $# -gt 0 ]; do
	case "$1" in
	--cycles) need_num "$@"; cycles=$2; shift 2 ;;
	--modes) need_arg "$@"; modes=$2; shift 2 ;;
	--layout) need_arg "$@"; layout=$2; shift 2 ;;
	-f|--fs) need_arg "$@"; fstype=$2; shift 2 ;;
	-p|--profile) need_arg "$@"; profile=$2; shift 2 ;;
	--files|--writers1|--writers2|--size1|--size2|--budget|--pace-us)
		need_num "$@"; gopts+=("$1" "$2"); shift 2 ;;
	--inflight|--no-fault|--trace) gopts+=("$1"); shift ;;
	--wait-user) wait_user=1; shift ;;
	--wait-user-skip) wait_user=1; gopts+=(--wait-user-mode skip); shift ;;
	--timeout) need_num "$@"; timeout=$2; shift 2 ;;
	--boot) need_arg "$@"; boot=$2; shift 2 ;;
	--initrd) need_arg "$@"; initrd=$2; shift 2 ;;
	-o|--out) need_arg "$@"; out=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) lab_help ;;
	*) usage_error "unknown option '$1' (see --help)" ;;
	esac
done

[ "$modes" != all ] || modes=nosync,sync,syncfs,overwrite
IFS=, read -r -a mode_list <<<"$modes"
[ "${#mode_list[@]}" -gt 0 ] || usage_error "--modes is empty"
for m in "${mode_list[@]}"; do
	case "$m" in
	sync|syncfs|overwrite|nosync) ;;
	*) usage_error "unknown mode '$m' (sync, syncfs, overwrite, nosync)" ;;
	esac
done
case "$fstype" in
ext4|xfs|vfat|exfat|ext2|udf|minix) ;;
exfat-dirty) fstype=exfat; gopts+=(--mounted-dirty) ;;
*) usage_error "unknown filesystem type '$fstype' (ext4, xfs, vfat, exfat, exfat-dirty, ext2, udf, minix)" ;;
esac
case "$layout" in
shared|flakey|logwrites) ;;
*) usage_error "unknown layout '$layout' (shared, flakey, logwrites)" ;;
esac
profile_check "$profile"
ktap=$(ktap_helpers) || exit 2

# Only now, with the arguments good: this may build a kernel.
crash_kernel "$kernel"
[ -f "$kdir/Module.symvers" ] || usage_error "'$kdir' is not a kernel build directory (no Module.symvers)"
if [ -z "$boot" ]; then
	boot=$kdir/vmlinux
	[ -f "$boot" ] || usage_error "no $boot (use --boot for a distribution kernel)"
fi
[ -f "$boot" ] || usage_error "kernel image '$boot' does not exist"
[ -z "$initrd" ] || [ -f "$initrd" ] || usage_error "initrd '$initrd' does not exist"
vmkernel=(--kernel "$boot" ${initrd:+--initrd "$initrd"})

work=${out:-$WBSYNC_TOP/output/integrity-$name}
[ -n "$out" ] || rm -rf "$work"
mkdir -p "$work/bin/kselftest" || die "cannot create '$work'"
work=$(cd "$work" && pwd)

lost=0 kept=0
per_mode=2
[ "$layout" = shared ] || per_mode=1
plan=$((2 + wait_user + cycles * ${#mode_list[@]} * per_mode))

tap_plan "$plan"
echo "# kernel $kdir, $fstype, layout $layout, profile $profile, modes ${mode_list[*]}, $cycles cycle(s)${gopts[*]:+, ${gopts[*]}}"
echo "# work directory $work"

cp "$here/integrity_test.sh" "$here/replay_log.py" "$work/bin/" && cp "$ktap" "$work/bin/kselftest/" &&
	${CC:-cc} -O2 -g -Wall -o "$work/bin/wbsync_integrity" \
		"$here/wbsync_integrity.c" >"$work/build-helper.log" 2>&1
rc=$?
if [ "$rc" = 0 ]; then
	tap ok "build: wbsync_integrity"
else
	tap "not ok" "build: wbsync_integrity"
	comment "$work/build-helper.log"
	echo "Bail out! cannot build the helper"
	exit 1
fi
# build_module TESTDIR: its test module, built against the kernel as
# scripts/build-module.sh builds it (W=1, sparse; in a directory named
# after the work directory, as runs go in parallel), into $work/bin, as
# one TAP result; bail out if it fails.
build_module()
{
	local ko

	if ko=$("$WBSYNC_TOP/scripts/build-module.sh" "$kdir" "${work##*/}" "$1" \
		2>"$work/build-${1##*/}.log") && cp "$ko" "$work/bin/"; then
		tap ok "build: ${ko##*/} against $kdir"
		return
	fi
	tap "not ok" "build: the module of ${1#"$WBSYNC_TOP"/} against $kdir"
	tail -n 20 "$work/build-${1##*/}.log" | comment
	echo "Bail out! cannot build the module of $1"
	exit 1
}
build_module "$here/test_modules"
if [ "$wait_user" = 1 ]; then
	build_module "$WBSYNC_TOP/selftests/wait_inodes/test_modules"
	gopts+=(--wait-user "$work/bin/wbsync_wait_user.ko")
fi

trap 'echo "Bail out! interrupted (work directory $work)"; exit 130' INT TERM
cd "$work" || exit 1
# The guest runs the command in the current directory: keep it the work
# directory, so that what the guest needs is visible there.

record_value()
{
	awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }' "$2" 2>/dev/null
}

# "sync returned after 1.01 s, fs1 1514 fs2 1000 files closed before it"
summary()
{
	local m=$1 r=$2

	if [ "$m" = nosync ]; then
		printf 'no sync (control), fs1 %s files closed' \
			"$(record_value files "$r" | sed 's/^fs1 //')"
		return
	fi
	printf '%s returned after %s, %s files closed before it' \
		"$([ "$m" = syncfs ] && echo "syncfs(2)" || echo "sync(2)")" \
		"$(sync_seconds "$r")" \
		"$(record_value files "$r")"
}

verdict()
{
	local cut=''

	[ "$layout" != logwrites ] || cut=" on stable media"
	if [ "$1" = nosync ]; then
		echo "every fs2 file was lost without a sync"
	else
		echo "every file closed before the $([ "$1" = syncfs ] && echo "syncfs(2)" || echo "sync(2)") is intact$cut"
	fi
}

# --trace: one line per queue_io of the sync's WB_SYNC_ALL works on the
# disk's bdi, with the superblock of the work that did it.
trace_digest()
{
	awk '
	/ writeback_start: / && / sync_mode=1 / && !/ bdi 9p/ {
		match($0, /sb_dev [0-9:]+/); sb = substr($0, RSTART + 7, RLENGTH - 7)
		if (t0 == "") t0 = $4 + 0
	}
	/ writeback_queue_io: / && / reason=sync / && !/ bdi 9p/ && sb != "" {
		t = $4 + 0
		sub(/^.* writeback_queue_io: /, "")
		printf "# trace: +%4.0f ms pass on sb %s: queue_io %s\n", (t - t0) * 1000, sb, $0
	}' "$1" | sed 's/ cgroup_ino=[0-9]*//'
}

run_shared()
{
	local c=$1 m=$2 cdir=$work/c$1-$2
	local vm=("${vmkernel[@]}" --disks 1 --disk-size 2G --profile "$profile" --timeout "$timeout")

	rm -rf "$cdir"
	mkdir -p "$cdir"
	if ! crash_boot "$cdir" "${vm[@]}" -- \
		"$work/bin/integrity_test.sh" crash --fs "$fstype" --mode "$m" "${gopts[@]}"; then
		tap "not ok" "cycle $c $m: boot 1: $m, then sysrq-b"
		tap "not ok" "cycle $c $m: boot 2: verify # SKIP boot 1 failed"
		return 1
	fi
	[ ! -f "$cdir/crash/trace" ] || trace_digest "$cdir/crash/trace"
	tap ok "cycle $c $m: boot 1: $(summary "$m" "$cdir/crash/record"), then sysrq-b"

	if ! verify_boot "$cdir" "${vm[@]}" -- \
		"$work/bin/integrity_test.sh" verify --fs "$fstype" --record "$cdir/crash/record"; then
		tap "not ok" "cycle $c $m: boot 2: $(verdict "$m") (vm-run exit status $boot_rc)"
		[ "$m" = nosync ] || lost=$((lost + 1))
		return 1
	fi
	tap ok "cycle $c $m: boot 2: $(verdict "$m")"
	[ "$m" = nosync ] || kept=$((kept + 1))
}

# one_boot LAYOUT DISKS CYCLE MODE: a cycle of the flakey or logwrites
# layout, one boot with DISKS disks.
one_boot()
{
	local l=$1 n=$2 c=$3 m=$4 cdir=$work/c$3-$4 rc

	rm -rf "$cdir"
	mkdir -p "$cdir"
	vm_run "${vmkernel[@]}" --disks "$n" --disk-size 1G --profile "$profile" \
		--keep-disks "$cdir/disks" --timeout "$timeout" \
		--quiet --out "$cdir/$l" -- \
		"$work/bin/integrity_test.sh" "$l" --fs "$fstype" --mode "$m" "${gopts[@]}" \
		>"$cdir/$l.log" 2>&1
	rc=$?
	comment "$cdir/$l/output" 2>/dev/null
	if [ "$rc" != 0 ]; then
		tail -n 5 "$cdir/$l.log" | comment
		tap "not ok" "cycle $c $m: $l: $(verdict "$m") (vm-run exit status $rc)"
		[ "$m" = nosync ] || lost=$((lost + 1))
		return 1
	fi
	tap ok "cycle $c $m: $l: $(summary "$m" "$cdir/$l/record"); $(verdict "$m")"
	[ "$m" = nosync ] || kept=$((kept + 1))
}

run_flakey()
{
	one_boot flakey 2 "$@"
}

# Disks: fs1 and fs2, their logs, their replays.
run_logwrites()
{
	one_boot logwrites 6 "$@"
}

for ((c = 1; c <= cycles; c++)); do
	for m in "${mode_list[@]}"; do
		start=$SECONDS
		if "run_$layout" "$c" "$m"; then
			[ "$keep" = 1 ] || rm -rf "$work/c$c-$m/disks"
		fi
		echo "# cycle $c $m took $((SECONDS - start)) s"
	done
done

if [ "$kernel" != naive ]; then
	tap_finish "work directory $work"
fi
# The fixture: the test must have caught lost data in a verify boot.
if [ "$lost" -gt 0 ]; then
	echo "# naive fixture: $lost of $((lost + kept)) verify boots found lost or stale files, as expected"
	grep -h '^# *fs2: ' "$work"/c*/verify/output 2>/dev/null | sort | uniq -c | head -n 5
	exit 0
fi
echo "# naive fixture: the integrity test did NOT catch the naive kernel's data loss"
exit 1
