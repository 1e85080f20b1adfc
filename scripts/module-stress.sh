#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# module-stress.sh [-k patched|stock] [-a module|kprobe_events] [LOADS]
#
# Run selftests/module_stress.sh in a guest: LOADS (default 100)
# insmod/rmmod cycles of wbsync.ko while sync(2), syncfs(2), fsync(2),
# sync_file_range(2) and umount run in loops.
#   -k patched  the lab's build of the series in the $WBSYNC_VARIANT variant
#               (make module-stress uses "debug": lockdep, KASAN, kmemleak)
#   -k stock    Debian's stock generic kernel of the base's source, with the
#               module built against its headers
#   -a kprobe_events  the control without wbsync.ko: tracefs kretprobe
#               events on the same functions, armed by the kernel alone
# Work directory output/module-stress-KERNEL[-VARIANT][-control].
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage()
{
	echo "usage: module-stress.sh [-k patched|stock] [-a module|kprobe_events] [LOADS]" >&2
	exit 2
}
kernel=patched arm=module
while getopts k:a:h opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	a) arm=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
loads=${1:-100}
[ $# -le 1 ] && [[ $loads =~ ^[1-9][0-9]*$ ]] || usage
case $arm in module | kprobe_events) ;; *) usage ;; esac

case $kernel in
patched)
	kdir=$("$WBSYNC_TOP/scripts/build-kernel.sh" patched)
	boot=(--kernel "$kdir")
	name=patched-$WBSYNC_VARIANT
	;;
stock)
	[ "$WBSYNC_VARIANT" = default ] || usage_error "-k stock has no $WBSYNC_VARIANT variant"
	mapfile -t ki < <("$WBSYNC_TOP/scripts/stock-initrd.sh")
	[ "${#ki[@]}" = 2 ] || die "no initramfs for Debian's stock kernel"
	boot=(--kernel "${ki[0]}" --initrd "${ki[1]}")
	kdir=/usr/src/linux-headers-$(stock_abi)-amd64
	name=debian-$(stock_abi)-amd64
	;;
*) usage ;;
esac
ko=$("$WBSYNC_TOP/scripts/build-module.sh" "$kdir" "$name")
ksrc=$("$WBSYNC_TOP/scripts/prepare-tree.sh" --vanilla)
build_selftests || die "building the selftests failed"
out=$WBSYNC_TOP/output/module-stress-$kernel
[ "$kernel" = stock ] || out+=-$WBSYNC_VARIANT
[ "$arm" = module ] || out+=-control
rm -rf "$out"
log "$loads cycles ($arm) on the $kernel kernel ${boot[1]}"
# About 3 s a cycle under single-threaded TCG, several times that with
# KASAN: a generous timeout.
# Single-threaded TCG: multi-threaded TCG oopses now and then when kprobes
# are armed under load, module or not (Documentation/lab.rst).
"$WBSYNC_TOP/scripts/vm-run" --accel tcg-single "${boot[@]}" --out "$out" --disks 1 --profile hdd \
	--timeout $((600 + loads * 30)) -- env KSRC="$ksrc" WBSYNC_MODULE="$ko" \
	WBSYNC_STRESS_LOADS="$loads" WBSYNC_STRESS_ARM="$arm" WBSYNC_BIN="$WBSYNC_TOP/output/selftests" \
	"$WBSYNC_TOP/scripts/guest-tests" "$WBSYNC_TOP/selftests/module_stress.sh"
