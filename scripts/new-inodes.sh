#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# new-inodes.sh KERNEL [--cycles N] [-f ext4|xfs] [-n NR_FS] [-p PROFILE]
#               [-o DIR] [--keep]
#
# The crash test of the inherited batch (Documentation/sync-cutoff.rst,
# "A sync pass skips the new inodes it finds in b_io"): with background writeback busy on every disk, sync(2)'s
# passes skip the files created after the call that they find queued in
# b_io, and the files written before the call survive a crash.  KERNEL
# is one of the lab's kernels with the sync cutoff (patched, cutoff,
# patched-NNNN, patched+PATCH) or a kernel build directory.  Per cycle,
# boots the kernel twice on the same NR_FS (default 2) disks with
# scripts/vm-run: boot 1 (selftests/sync_new_inodes.sh crash) keeps
# busy_writer creating 16 KiB files on every filesystem, traces sync(1),
# lists the files last written more than a second before the call and
# crashes with sysrq-b; boot 2 (verify) checks that each of them has its
# 16 KiB and that the filesystems check clean.  Boot 1 fails if a pass
# wrote a file created after the call (the trace); a cycle whose trace
# shows no background batch between the first pass and a later one did
# not reach the window, and the run fails if none did.  Prints TAP; exits
# 0 if everything passed, 1 if not, 2 on bad arguments.
#
#   --cycles N       crash/verify cycles (default 2)
#   -f, --fs TYPE    ext4 or xfs (default ext4)
#   -n NR_FS         filesystems, each on its own disk, 2 to 5 (default 2)
#   -p, --profile P  disk profile (default usb: slow enough that background
#                    writeback is still busy when the later passes start)
#   -o, --out DIR    work directory (default output/new-inodes-KERNEL)
#   --keep           keep the disk images of passing cycles
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/crash-lib.sh
. "$(dirname "$0")/crash-lib.sh"

[ $# -gt 0 ] || usage_error "no kernel given (see --help)"
kernel=$1
shift
cycles=2 fstype=ext4 nr=2 profile=usb out='' keep=0
while [ $# -gt 0 ]; do
	case "$1" in
	--cycles) need_num "$@"; cycles=$2; shift ;;
	-f|--fs) need_arg "$@"; fstype=$2; shift ;;
	-n) need_arg "$@"; nr=$2; shift ;;
	-p|--profile) need_arg "$@"; profile=$2; shift ;;
	-o|--out) need_arg "$@"; out=$2; shift ;;
	--keep) keep=1 ;;
	*) usage_error "unknown option '$1' (see --help)" ;;
	esac
	shift
done
case $fstype in ext4|xfs) ;; *) usage_error "-f must be ext4 or xfs, not '$fstype'" ;; esac
[[ "$nr" =~ ^[2-5]$ ]] || usage_error "-n must be 2 to 5, not '$nr'"
profile_check "$profile"
ktap=$(ktap_helpers) || exit 2

# Only now, with the arguments good: this may build a kernel.
crash_kernel "$kernel"
[ -f "$kdir/vmlinux" ] || usage_error "no $kdir/vmlinux"
build_selftests || die "cannot build the selftests' programs"

work=${out:-$WBSYNC_TOP/output/new-inodes-$name}
[ -n "$out" ] || rm -rf "$work"
mkdir -p "$work/bin" "$work/kselftest" || die "cannot create '$work'"
work=$(cd "$work" && pwd)
cp "$WBSYNC_TOP/selftests/sync_new_inodes.sh" "$WBSYNC_TOP/selftests/wbsync_lib.sh" \
	"$WBSYNC_TOP/selftests/dirty_limits.sh" \
	"$WBSYNC_TOP/output/selftests/busy_writer" "$work/bin/" &&
	cp "$ktap" "$work/kselftest/" || die "cannot fill '$work/bin'"
cd "$work" || exit 1

plan=$((cycles * 2 + 1))
reached=0
tap_plan "$plan"
echo "# kernel $kdir, $nr x $fstype on $profile disks, $cycles cycle(s)"
echo "# work directory $work"
vm=(--kernel "$kdir" --disks "$nr" --disk-size 2G --profile "$profile" --timeout 600)
for ((c = 1; c <= cycles; c++)); do
	cdir=$work/c$c
	rm -rf "$cdir"
	mkdir -p "$cdir"
	if ! crash_boot "$cdir" "${vm[@]}" -- "$work/bin/sync_new_inodes.sh" crash -f "$fstype" -n "$nr"; then
		tap "not ok" "cycle $c: boot 1: sync(2), then sysrq-b"
		tap "not ok" "cycle $c: boot 2: verify # SKIP boot 1 failed"
		continue
	fi
	res=$(sed -n 's/^trace //p' "$cdir/crash/record")
	files=$(sed -n 's/^files //p' "$cdir/crash/record")
	[[ "$res" == "reached=0 "* ]] || reached=$((reached + 1))
	if [[ "$res" != *" new_written=0 "* ]] || [[ "$res" != *" lost=0" ]]; then
		tap "not ok" "cycle $c: boot 1: a pass wrote files created after the call, or the trace lost events: $res"
	else
		tap ok "cycle $c: boot 1: $files files written before the call; $res; then sysrq-b"
	fi
	if verify_boot "$cdir" "${vm[@]}" -- "$work/bin/sync_new_inodes.sh" verify -f "$fstype" -n "$nr" \
		--record "$cdir/crash"; then
		tap ok "cycle $c: boot 2: the $files files are whole, the filesystems clean"
		[ "$keep" = 1 ] || rm -rf "$cdir/disks"
	else
		tap "not ok" "cycle $c: boot 2: files written before the call lost, or a filesystem not clean (vm-run exit status $boot_rc)"
	fi
done
if [ "$reached" -gt 0 ]; then
	tap ok "$reached of $cycles cycles reached the window (a background batch between the first pass and a later one)"
else
	tap "not ok" "no cycle reached the window (a background batch between the first pass and a later one)"
fi
tap_finish "work directory $work"
