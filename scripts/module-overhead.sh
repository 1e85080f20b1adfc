#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# module-overhead.sh [-r RUNS] [-n NR_FS] [-t SECONDS] [-p PROFILE] [-o OUTDIR]
#
# What wbsync.ko costs, in one boot of the patched kernel: the time per
# probe event (selftests/module_overhead.sh: syncfs(2) on an idle
# filesystem, without and with the module, alternating), and sync(2) under
# the reproducer's load without and with the module (sync_busy.sh -c
# "kernel wbsync", RUNS runs of each, NR_FS busy ext4 filesystems on
# PROFILE disks, SECONDS of writing).  Writes OUTDIR/report.md and prints
# it.  Defaults: -r 5 -n 4 -t 30 -p hdd -o output/module-overhead.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

runs=5 nr=4 secs=30 out=$WBSYNC_TOP/output/module-overhead profile=hdd
usage="usage: module-overhead.sh [-r RUNS] [-n NR_FS] [-t SECONDS] [-p none|ssd|hdd] [-o OUTDIR]"
while getopts r:n:t:p:o: opt; do
	case $opt in
	r) runs=$OPTARG ;;
	n) nr=$OPTARG ;;
	t) secs=$OPTARG ;;
	p) profile=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage_error "$usage" ;;
	esac
done
[ $OPTIND -gt $# ] || usage_error "$usage"
[[ $nr =~ ^[1-5]$ ]] || usage_error "-n must be 1 to 5, not '$nr'"
for v in "$runs" "$secs"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || usage_error "-r and -t take positive numbers, not '$v'"
done
profile_check "$profile"

kdir=$("$WBSYNC_TOP/scripts/build-kernel.sh" patched) || die "building the patched kernel failed"
ko=$("$WBSYNC_TOP/scripts/build-module.sh" "$kdir" patched) || die "building wbsync.ko failed"
build_selftests >/dev/null || die "building the selftests failed"
rm -rf "$out"
mkdir -p "$out"
log "probe cost, then $runs runs of sync(2) with $nr busy ext4 filesystems, without and with wbsync.ko"
"$WBSYNC_TOP/scripts/vm-run" --quiet --kernel "$kdir" --out "$out/guest" --disks "$nr" \
	--disk-size 2G --profile "$profile" --timeout $((600 + runs * 2 * (secs + 300))) -- \
	env WBSYNC_MODULE="$ko" BUSY_WRITER="$WBSYNC_TOP/output/selftests/busy_writer" \
	bash -c "$WBSYNC_TOP/selftests/module_overhead.sh && $WBSYNC_TOP/selftests/sync_busy.sh -f ext4 -n $nr -t $secs -r $runs -c 'kernel wbsync'" &&
	failed=0 || failed=$?

# Events per reproducer sync(2): the module's counts of each run's stats.
events=$(cat "$out"/guest/stats-* 2>/dev/null | awk 'NR > 1 && $3 != "phase" { s += $4 } END { print s + 0 }')
awk -v runs="$runs" -v events="$events" "$AWK_MEDIAN"'
function kv(k,   i, e) {
	for (i = 2; i <= NF; i++)
		if ((e = index($i, "=")) && substr($i, 1, e - 1) == k)
			return substr($i, e + 1)
}
/^# overhead / { c = kv("config"); n[c]++; us[c, n[c]] = kv("us_per_call"); if (c == "wbsync") ev = kv("events_per_call") }
/^# run=/ { c = kv("config"); m[c]++; s[c, m[c]] = kv("sync_seconds") }
END {
	for (k = 1; k <= 2; k++) {
		c = k == 1 ? "kernel" : "wbsync"
		delete a; for (i = 1; i <= n[c]; i++) a[i] = us[c, i]; um[c] = median(a, n[c]); umin[c] = a[1]; umax[c] = a[n[c]]
		delete a; for (i = 1; i <= m[c]; i++) a[i] = s[c, i]; sm[c] = median(a, m[c]); smin[c] = a[1]; smax[c] = a[m[c]]
	}
	# Per event: from the medians, and from the minimums (the rounds
	# least disturbed by anything else the machine did).
	per = permin = 0
	if (ev > 0) {
		per = (um["wbsync"] - um["kernel"]) / ev
		permin = (umin["wbsync"] - umin["kernel"]) / ev
	}
	print "# wbsync.ko overhead"
	print ""
	print "One boot of the patched kernel (QEMU TCG), min / median / max."
	print ""
	print "| measurement | without the module | with wbsync.ko | difference |"
	print "|---|---|---|---|"
	printf "| idle syncfs(2), us per call (%s events per call) | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f | %+.0f us (minimums: %+.0f us): %.1f us per event (minimums: %.1f) |\n",
		ev, umin["kernel"], um["kernel"], umax["kernel"], umin["wbsync"], um["wbsync"], umax["wbsync"],
		um["wbsync"] - um["kernel"], umin["wbsync"] - umin["kernel"], per, permin
	diff = spread = 0
	if (sm["kernel"] > 0) {
		diff = (sm["wbsync"] / sm["kernel"] - 1) * 100
		spread = (smax["kernel"] - smin["kernel"]) / sm["kernel"] * 100
	}
	printf "| reproducer sync(2), seconds (%d runs) | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f | %+.1f%% (noise: the runs spread %.0f%%) |\n",
		runs, smin["kernel"], sm["kernel"], smax["kernel"], smin["wbsync"], sm["wbsync"], smax["wbsync"],
		diff, spread
	if (m["wbsync"] > 0 && sm["wbsync"] > 0) {
		cost = (per > permin ? per : permin)
		printf "\nEvents per reproducer sync(2): %.0f; at %.1f us each (the larger estimate) that is %.4f s, %.4f%% of the median sync.\n",
			events / m["wbsync"], cost, events / m["wbsync"] * cost / 1e6,
			events / m["wbsync"] * cost / 1e6 / sm["wbsync"] * 100
	}
}' "$out/guest/output" >"$out/report.md"
echo
cat "$out/report.md"
exit "$failed"
