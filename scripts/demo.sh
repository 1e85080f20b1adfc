#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh [-f FSTYPE] [-n NR_FS] [-t SECONDS] [-r RUNS]
#
# The main job (make demo): build the vanilla and patched kernels, boot
# each with NR_FS busy filesystems on throttled "hdd" disks, run the seed
# reproducer RUNS times and print the sync times side by side.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

fstype=ext4 nr=4 secs=20 runs=1
while getopts f:n:t:r: opt; do
	case $opt in
	f) fstype=$OPTARG ;;
	n) nr=$OPTARG ;;
	t) secs=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) die "usage: demo.sh [-f FSTYPE] [-n NR_FS] [-t SECONDS] [-r RUNS]" ;;
	esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "-r must be a positive number, not '$runs'"
[[ "$nr" =~ ^[1-5]$ ]] || die "-n must be 1 to 5, not '$nr'"
[[ "$secs" =~ ^[1-9][0-9]*$ ]] || die "-t must be a positive number, not '$secs'"
case $fstype in ext4|xfs|vfat) ;; *) die "unknown filesystem type '$fstype'" ;; esac

"$WBSYNC_TOP/scripts/deps.sh"
out=$WBSYNC_TOP/output/demo
rm -rf "$out"
mkdir -p "$out"

declare -A kdir times
for k in vanilla patched; do
	kdir[$k]=$("$WBSYNC_TOP/scripts/build-kernel.sh" "$k")
done

for ((r = 1; r <= runs; r++)); do
	for k in vanilla patched; do
		log "run $r/$runs: $k, $nr busy $fstype on hdd disks, ${secs} s of writing"
		"$WBSYNC_TOP/scripts/vm-run" --kernel "${kdir[$k]}" --out "$out/$k-$r" \
			--disks "$nr" --disk-size 2G --profile hdd --timeout 1800 -- \
			"$WBSYNC_TOP/selftests/sync_busy.sh" -f "$fstype" -n "$nr" -t "$secs" ||
			die "$k guest failed (console: $out/$k-$r/console.log)"
		s=$(sed -n 's/^sync_seconds=//p' "$out/$k-$r/output")
		[ -n "$s" ] || die "no sync time in $out/$k-$r/output"
		times[$k]+=" $(printf '%.2f' "$s")"
	done
done

echo
printf '%-8s %s\n' "kernel" "sync seconds ($nr busy $fstype, hdd, $runs runs)"
for k in vanilla patched; do
	printf '%-8s %s\n' "$k" "${times[$k]# }"
done
