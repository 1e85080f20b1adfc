#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# flush-budget.sh KERNEL [-r N] [-p PROFILE] [--timeout SEC] [-o DIR]
#                 [-- TEST-OPTIONS]
#
# sync(2)'s flush must end: selftests/flush_budget.sh (see there) on
# KERNEL, one boot per run, one disk with two ext4 partitions.  KERNEL is
# a lab kernel (vanilla, patched, ...), patched+PATCH (the series with
# PATCH on top: the yielding flush without its budget,
# selftests/fixtures/flush-no-budget.patch, on which the test fails), or
# a kernel build directory.  TEST-OPTIONS go to the guest test (-s, -t).
# Prints TAP, one test per run with the guest's lines as comments; exits 0
# if every run passed or skipped, 1 if one failed, 2 on bad arguments.
#
# Options (the letters as in the table of scripts/lib.sh):
#   -r, --runs N     boots (default 1)
#   -p, --profile P  disk profile (default usb: a disk slower than the
#                    writer, so that the flush always has pages to write)
#   --timeout SEC    per boot (default 600)
#   -o, --out DIR    work directory (default output/flush-budget-KERNEL,
#                    emptied first; a given DIR is not emptied)
set -uo pipefail
# shellcheck shell=bash source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/crash-lib.sh
. "$(dirname "$0")/crash-lib.sh"

[ $# -gt 0 ] || usage_error "no kernel given (see --help)"
kernel=$1
shift
runs=1 profile=usb timeout=600 out=''
while [ $# -gt 0 ]; do
	case "$1" in
	-r|--runs) need_num "$@"; runs=$2; shift 2 ;;
	-p|--profile) need_arg "$@"; profile=$2; shift 2 ;;
	--timeout) need_num "$@"; timeout=$2; shift 2 ;;
	-o|--out) need_arg "$@"; out=$2; shift 2 ;;
	-h|--help) lab_help ;;
	--) shift; break ;;
	*) usage_error "unknown option '$1' (see --help)" ;;
	esac
done
profile_check "$profile"
ktap=$(ktap_helpers) || exit 2

# Only now, with the arguments good: this may build a kernel.
crash_kernel "$kernel"
[ -f "$kdir/vmlinux" ] || usage_error "no $kdir/vmlinux"
work=${out:-$WBSYNC_TOP/output/flush-budget-$name}
# Only the default directory is emptied; a given one keeps what it has
# (each run's directory is vm-run's, which replaces its own files).
[ -n "$out" ] || rm -rf "$work"
mkdir -p "$work" || die "cannot create '$work'"
work=$(cd "$work" && pwd)

tap_plan "$runs"
echo "# kernel $kdir, profile $profile, $runs run(s)${*:+, test options $*}"
for ((run = 1; run <= runs; run++)); do
	rc=0
	vm_run --kernel "$kdir" --disks 1 --disk-size 4G --profile "$profile" \
		--timeout "$timeout" --out "$work/run-$run" --quiet -- \
		env KSRC="${ktap%/tools/testing/selftests/kselftest/ktap_helpers.sh}" \
		"$WBSYNC_TOP/selftests/flush_budget.sh" "$@" >/dev/null 2>&1 || rc=$?
	sed 's/^/# /' "$work/run-$run/output" 2>/dev/null
	case $rc in
	0) tap ok "run $run" ;;
	4) tap ok "run $run # SKIP the guest test skipped" ;;
	*) tap "not ok" "run $run (exit status $rc, $work/run-$run)" ;;
	esac
done
tap_finish "work directory $work"
