#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# wait-inodes-report.sh [-r RUNS] [-t SECONDS] [-W WRITERS] [-p PROFILE] [-o OUTDIR]
#
# The s_op->wait_inodes benchmark: boots the patched kernel on one disk and
# runs selftests/wait_inodes/wait_inodes_bench.sh: syncfs(2) in a loop
# while WRITERS processes create 4 KiB files, with the generic walk, with
# the test-only hook wrapping it, and with the hook skipping it.  Writes
# OUTDIR/results.tsv (one line per run) and OUTDIR/report.md (min / median
# / max per mode; sys time per syncfs(2) is what the walk costs in CPU)
# and prints the table.  Defaults: -r 5 -t 20 -W 4 -p hdd
# -o output/wait-inodes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

runs=5 secs=20 writers=4 profile=hdd out=$WBSYNC_TOP/output/wait-inodes
usage="usage: wait-inodes-report.sh [-r RUNS] [-t SECONDS] [-W WRITERS] [-p none|ssd|hdd] [-o OUTDIR]"
while getopts r:t:W:p:o: opt; do
	case $opt in
	r) runs=$OPTARG ;;
	t) secs=$OPTARG ;;
	W) writers=$OPTARG ;;
	p) profile=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage_error "$usage" ;;
	esac
done
[ $OPTIND -gt $# ] || usage_error "$usage"
for v in "$runs" "$secs" "$writers"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || usage_error "-r, -t and -W take positive numbers, not '$v'"
done
profile_check "$profile"

kdir=$("$WBSYNC_TOP/scripts/build-kernel.sh" patched) || die "building the patched kernel failed"
ko=$("$WBSYNC_TOP/scripts/build-module.sh" "$kdir" patched "$WBSYNC_TOP/selftests/wait_inodes/test_modules") ||
	die "building wbsync_wait_user.ko failed"
bin=$WBSYNC_TOP/output/selftests
build_selftests || die "building the selftests failed"
rm -rf "$out"
mkdir -p "$out"
log "syncfs(2) under $writers small-file writers: $runs runs of $secs s per mode, 3 modes (about $((runs * 3 * (secs + 8) / 60 + 1)) minutes)"
"$WBSYNC_TOP/scripts/vm-run" --kernel "$kdir" --out "$out/guest" --disks 1 --disk-size 8G --profile "$profile" \
	--timeout $((runs * 3 * (secs + 60) + 300)) -- \
	env WBSYNC_WAIT_USER="$ko" WBSYNC_BIN="$bin" \
	"$WBSYNC_TOP/selftests/wait_inodes/wait_inodes_bench.sh" -r "$runs" -t "$secs" -W "$writers" &&
	failed=0 || failed=$?

raw=$out/guest/wait-inodes.txt
[ -s "$raw" ] || die "no results in $raw"
tsv=$out/results.tsv
# "key=value ..." lines to columns, with the walk's CPU time per sync and
# its share of the syncing thread's system time.
awk 'BEGIN { OFS = "\t"; n = split("mode run files syncs sys_us_per_sync walks walk_inodes walk_us wall_us_median wall_us_max", k, " ")
	     for (i = 1; i <= n; i++) printf "%s%s", k[i], OFS
	     print "walk_us_per_sync", "walk_pct_of_sys" }
     { delete f; for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
       for (i = 1; i <= n; i++) printf "%s%s", f[k[i]], OFS
       per = f["syncs"] ? f["walk_us"] / f["syncs"] : 0
       printf "%d\t%.1f\n", per, f["sys_us_per_sync"] ? 100 * per / f["sys_us_per_sync"] : 0 }' "$raw" >"$tsv"

{
	echo "# s_op->wait_inodes: the generic walk against a hook"
	echo
	echo "Kernel: patched ($(series_files | wc -l) patches), one boot, one $profile disk, ext4 made" \
		"anew per run; $writers busy_writer processes create 4 KiB files while syncfs_loop calls" \
		"syncfs(2) for $secs s; $runs runs per mode, rotating the order.  generic: no hook;" \
		"wrap: wbsync_wait_user.ko's hook around wait_sb_inodes(); skip: the hook without the" \
		"walk (unsafe, for measuring only).  sys µs/sync is the system time of the syncing" \
		"thread per call: the walk runs there.  min / median / max over the runs."
	echo
	echo "| metric | generic | wrap | skip | skip/generic |"
	echo "|---|---|---|---|---|"
	mode_table "$tsv" "generic wrap skip" skip generic
} >"$out/report.md"
echo
cat "$out/report.md"
echo
log "results: $out/report.md, $out/results.tsv"
exit $failed
