#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sfr-report.sh [-r RUNS] [-t SECONDS] [-e EVERY] [-p PROFILE] [-o OUTDIR]
#
# The sync_file_range(2) benchmark: boots the patched kernel with wbsync.ko
# on one throttled disk (profile PROFILE) and runs selftests/sfr_bench.sh (fio,
# sync_file_range=write:EVERY) RUNS times with SYNC_FILE_RANGE_WRITE as the
# kernel does it (WB_SYNC_NONE) and with WB_SYNC_ALL forced by the module's
# sfr_sync_mode knob, alternating.  Writes OUTDIR/results.tsv (one line per
# run) and OUTDIR/report.md (min / median / max per mode, the ratio of the
# medians) and prints the table.  Defaults: -r 5 -t 30 -e 16 -p hdd
# -o output/sfr-report.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

runs=5 secs=30 every=16 profile=hdd out=$WBSYNC_TOP/output/sfr-report
usage="usage: sfr-report.sh [-r RUNS] [-t SECONDS] [-e EVERY] [-p none|ssd|hdd] [-o OUTDIR]"
while getopts r:t:e:p:o: opt; do
	case $opt in
	r) runs=$OPTARG ;;
	t) secs=$OPTARG ;;
	e) every=$OPTARG ;;
	p) profile=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage_error "$usage" ;;
	esac
done
[ $OPTIND -gt $# ] || usage_error "$usage"
for v in "$runs" "$secs" "$every"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || usage_error "-r, -t and -e take positive numbers, not '$v'"
done
profile_check "$profile"

kdir=$("$WBSYNC_TOP/scripts/build-kernel.sh" patched) || die "building the patched kernel failed"
ko=$("$WBSYNC_TOP/scripts/build-module.sh" "$kdir" patched) || die "building wbsync.ko failed"
rm -rf "$out"
mkdir -p "$out"
log "fio with sync_file_range=write:$every, $runs runs of $secs s per mode (about $((runs * 2 * (secs + 5) / 60 + 1)) minutes)"
"$WBSYNC_TOP/scripts/vm-run" --kernel "$kdir" --out "$out/guest" --disks 1 --profile "$profile" \
	--timeout $((runs * 2 * (secs + 60) + 300)) -- env WBSYNC_MODULE="$ko" \
	"$WBSYNC_TOP/selftests/sfr_bench.sh" -r "$runs" -t "$secs" -e "$every" &&
	failed=0 || failed=$?

tsv=$out/results.tsv
printf 'mode\trun\twrite_kib_s\twrite_p50_us\twrite_p99_us\twrite_p99.9_us\tsfr_p50_us\tsfr_p99_us\tsfr_p99.9_us\n' >"$tsv"
for json in "$out"/guest/sfr-*.json; do
	[ -e "$json" ] || die "no fio results in $out/guest"
	run=${json##*/sfr-} run=${run%%-*}
	mode=${json%.json} mode=${mode##*-}
	jq -r --arg mode "$mode" --arg run "$run" '.jobs[0] |
		def us(p): (p // 0) / 1000 | floor;
		[$mode, $run, .write.bw,
		 us(.write.clat_ns.percentile["50.000000"]),
		 us(.write.clat_ns.percentile["99.000000"]),
		 us(.write.clat_ns.percentile["99.900000"]),
		 us(.sync.lat_ns.percentile["50.000000"]),
		 us(.sync.lat_ns.percentile["99.000000"]),
		 us(.sync.lat_ns.percentile["99.900000"])] | @tsv' "$json" >>"$tsv"
done

{
	echo "# sync_file_range(2): WB_SYNC_NONE (the kernel's) vs WB_SYNC_ALL (forced)"
	echo
	echo "Kernel: patched ($(series_files | wc -l) patches), one boot, wbsync.ko's sfr_sync_mode" \
		"knob alternating auto/all; fio: random 8 KiB buffered overwrites of an 8 MiB file (a hot set)" \
		"on ext4, sync_file_range(SYNC_FILE_RANGE_WRITE) every $every writes, $runs runs of" \
		"$secs s per mode, one $profile disk.  min / median / max over the runs; latencies in" \
		"microseconds (write: fio's completion latency of each write(2); sync_file_range:" \
		"of each call)."
	echo
	echo "| metric | WB_SYNC_NONE (auto) | WB_SYNC_ALL (all) | all/auto |"
	echo "|---|---|---|---|"
	mode_table "$tsv" "auto all" all auto
} >"$out/report.md"
echo
cat "$out/report.md"
echo
log "results: $out/report.md, $out/results.tsv, fio's JSON in $out/guest"
exit $failed
