#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# module-stress.sh [-k patched|stock] [--arm module|kprobe_events|insmod] [-r RUNS]
#                  [-o OUTDIR] [LOADS]
#
# Run selftests/module_stress.sh in a guest: LOADS (default 100)
# insmod/rmmod cycles of wbsync.ko while sync(2), syncfs(2), fsync(2),
# sync_file_range(2) and umount run in loops.  -r boots RUNS guests one
# after the other (default 1; make check runs one guest of 10 loads) and
# stops at the first that fails: "N of RUNS runs passed".
#   -k patched  the lab's build of the series in the $WBSYNC_VARIANT variant
#               (make module-stress uses "debug": lockdep, KASAN, kmemleak)
#   -k stock    Debian's stock generic kernel of the base's source, with the
#               module built against its headers
#   --arm kprobe_events  the control without wbsync.ko: tracefs kretprobe
#               events on the same functions, armed by the kernel alone
#   --arm insmod  the other control: loads and unloads of a module without
#               probes (exfat; the stock kernel only: the lab's has no
#               modules)
# Work directory (-o) output/module-stress-KERNEL[-VARIANT][-ARM],
# with run-N/ per run when RUNS > 1.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage()
{
	echo "usage: module-stress.sh [-k patched|stock] [--arm module|kprobe_events|insmod] [-r RUNS] [-o OUTDIR] [LOADS]" >&2
	exit 2
}
kernel=patched arm=module runs=1 out=
while [ $# -gt 0 ]; do
	case $1 in
	-k | --arm | -r | -o) [ $# -ge 2 ] || usage ;;&
	-k) kernel=$2 ;;
	--arm) arm=$2 ;;
	-r) runs=$2 ;;
	-o) out=$2 ;;
	-*) usage ;;
	*) break ;;
	esac
	shift 2
done
loads=${1:-100}
[ $# -le 1 ] && [[ $loads =~ ^[1-9][0-9]*$ ]] && [[ $runs =~ ^[1-9][0-9]*$ ]] || usage
case $arm in module | kprobe_events | insmod) ;; *) usage ;; esac

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
if [ -z "$out" ]; then
	out=$WBSYNC_TOP/output/module-stress-$kernel
	[ "$kernel" = stock ] || out+=-$WBSYNC_VARIANT
	[ "$arm" = module ] || out+=-$arm
fi
rm -rf "$out"
# About 2-3 s a cycle under single-threaded TCG, several times that with
# KASAN: a generous timeout.
# Single-threaded TCG: multi-threaded TCG oopses now and then when kprobes
# are armed under load, module or not (Documentation/lab.rst, "Code
# patching under multi-threaded TCG").
# vm_run: a guest that died in boot (status 125) is booted once more,
# rather than counting as a failed run.
stress()
{
	vm_run --accel tcg-single "${boot[@]}" --out "$1" --disks 1 --profile hdd \
		--timeout $((600 + loads * 30)) -- env KSRC="$ksrc" WBSYNC_MODULE="$ko" \
		WBSYNC_STRESS_LOADS="$loads" WBSYNC_STRESS_ARM="$arm" WBSYNC_BIN="$WBSYNC_TOP/output/selftests" \
		"$WBSYNC_TOP/scripts/guest-tests" "$WBSYNC_TOP/selftests/module_stress.sh"
}
if [ "$runs" = 1 ]; then
	log "$loads cycles ($arm) on the $kernel kernel ${boot[1]}"
	stress "$out"
	exit
fi
passed=0
for ((r = 1; r <= runs; r++)); do
	log "run $r of $runs: $loads cycles ($arm) on the $kernel kernel ${boot[1]}"
	# each run's TAP and console stay in run-N/
	stress "$out/run-$r" >/dev/null || break
	passed=$r
done
if [ "$passed" = "$runs" ]; then
	log "$runs of $runs runs passed"
else
	die "$passed of $runs runs passed; run $r failed: $out/run-$r"
fi
