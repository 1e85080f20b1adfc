#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# module-stress.sh [LOADS]
#
# Build (or reuse) the patched kernel in the $WBSYNC_VARIANT variant (make
# module-stress uses "debug": lockdep, KASAN, kmemleak), build wbsync.ko
# against it and run selftests/module_stress.sh in a guest: LOADS (default
# 100) insmod/rmmod cycles while sync(2), syncfs(2), fsync(2),
# sync_file_range(2) and umount run in loops.  Work directory output/module-stress-VARIANT.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

loads=${1:-100}
[[ $loads =~ ^[1-9][0-9]*$ ]] || die "usage: module-stress.sh [LOADS] (a positive number)"
kdir=$("$WBSYNC_TOP/scripts/build-kernel.sh" patched)
ko=$("$WBSYNC_TOP/scripts/build-module.sh" "$kdir" "patched-$WBSYNC_VARIANT")
ksrc=$("$WBSYNC_TOP/scripts/prepare-tree.sh" --vanilla)
make -s -C "$WBSYNC_TOP/selftests" KSRC="$ksrc" OUTPUT="$WBSYNC_TOP/output/selftests" ||
	die "building the selftests failed"
out=$WBSYNC_TOP/output/module-stress-$WBSYNC_VARIANT
rm -rf "$out"
log "$loads loads of wbsync.ko on the $WBSYNC_VARIANT kernel $kdir"
# A KASAN kernel under TCG runs several times slower: a long timeout.
# Single-threaded TCG: multi-threaded TCG oopses now and then when kprobes
# are armed under load, module or not (Documentation/lab.rst).
"$WBSYNC_TOP/scripts/vm-run" --accel tcg-single --kernel "$kdir" --out "$out" --disks 1 --profile hdd \
	--timeout 3600 -- env KSRC="$ksrc" WBSYNC_MODULE="$ko" WBSYNC_STRESS_LOADS="$loads" \
	WBSYNC_BIN="$WBSYNC_TOP/output/selftests" \
	"$WBSYNC_TOP/scripts/guest-tests" "$WBSYNC_TOP/selftests/module_stress.sh"
