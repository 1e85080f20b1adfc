#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pgbench-report.sh [-r RUNS] [-t SECONDS] [--clients CLIENTS] [--scale SCALE]
#                   [-p PROFILE] [-o OUTDIR]
#
# The seed's sync_file_range(2) benchmark, PostgreSQL's pgbench: boots the
# patched kernel with wbsync.ko on one throttled disk (profile PROFILE)
# and runs selftests/pgbench_bench.sh: a PostgreSQL cluster (Debian's
# packages) on that disk, pgbench -i -s SCALE once, then TPC-B with
# CLIENTS clients for SECONDS, RUNS times with SYNC_FILE_RANGE_WRITE as
# the kernel does it (WB_SYNC_NONE) and with WB_SYNC_ALL forced by the
# module's sfr_sync_mode knob, alternating; checkpoint_flush_after,
# backend_flush_after and bgwriter_flush_after at their defaults.  Writes
# OUTDIR/results.tsv (one line per run) and OUTDIR/report.md (tps, latency
# average and stddev, the worst second, the regime, PostgreSQL's writers
# and the module's count of sync_file_range calls: min / median / max per
# mode and the ratio of the medians; the seed's numbers beside them) and
# prints the table.  Defaults: -r 3 -t 60 --clients 16 --scale 30 -p hdd
# -o output/pgbench-report.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

runs=3 secs=60 clients=16 scale=30 profile=hdd out=$WBSYNC_TOP/output/pgbench-report
usage="usage: pgbench-report.sh [-r RUNS] [-t SECONDS] [--clients CLIENTS] [--scale SCALE] [-p ${PROFILES// /|}] [-o OUTDIR]"
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage_error "$usage"
	case $1 in
	-r) runs=$2 ;;
	-t) secs=$2 ;;
	--clients) clients=$2 ;;
	--scale) scale=$2 ;;
	-p) profile=$2 ;;
	-o) out=$2 ;;
	*) usage_error "$usage" ;;
	esac
	shift 2
done
for v in "$runs" "$secs" "$clients" "$scale"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || usage_error "-r, -t, --clients and --scale take positive numbers, not '$v'"
done
profile_check "$profile"

kdir=$("$WBSYNC_TOP/scripts/build-kernel.sh" patched) || die "building the patched kernel failed"
ko=$("$WBSYNC_TOP/scripts/build-module.sh" "$kdir" patched) || die "building wbsync.ko failed"
rm -rf "$out"
mkdir -p "$out"
# Measured on the 2-core TCG host: pgbench -i takes about 2 s per unit of
# scale, each run about 30 s more than SECONDS (vacuum, CHECKPOINT, settle).
log "pgbench TPC-B, scale $scale, $clients clients: $runs runs of $secs s per mode" \
	"(about $(((scale * 2 + runs * 2 * (secs + 30) + 60) / 60 + 1)) minutes)"
vm_run --kernel "$kdir" --out "$out/guest" --disks 1 --disk-size 4G --profile "$profile" \
	--timeout $((scale * 20 + runs * 2 * (secs + 180) + 300)) -- env WBSYNC_MODULE="$ko" \
	"$WBSYNC_TOP/selftests/pgbench_bench.sh" -r "$runs" -t "$secs" -c "$clients" -s "$scale" &&
	failed=0 || failed=$?

tsv=$out/results.tsv
printf 'mode\trun\ttps\tlat_avg_ms\tlat_stddev_ms\tstalled_seconds\tworst_second_lat_ms' >"$tsv"
printf '\tcpu_idle_pct\tdisk_busy_pct\tdisk_write_iops\twritten_mib' >>"$tsv"
printf '\tsfr_calls\tsfr_mean_us\tsfr_p99_us\tsfr_max_us' >>"$tsv"
printf '\tcheckpoints\twal_checkpoints\tcheckpoint_buffers\tbuffers_clean\tbuffers_backend\n' >>"$tsv"
log=$out/guest/postgres.log
[ -s "$log" ] || log=/dev/null
for f in "$out"/guest/pgbench-*.txt; do
	[ -e "$f" ] || die "no pgbench results in $out/guest"
	run=${f##*/pgbench-} run=${run%%-*}
	mode=${f%.txt} mode=${mode##*-}
	g=$out/guest/pgstat-$run-$mode
	grep -q '^tps = ' "$f" && grep -q '^sync_seconds=' "$f" && [ -s "$g" ] &&
		[ -s "$out/guest/stats-$run-$mode" ] || {
		log "run $run, $mode: incomplete, left out (see $f)"
		continue
	}
	# pgbench's summary and progress lines ("progress: 7.0 s, 203.0 tps,
	# lat 39.2 ms stddev 21.0, 0 failed"), sync_measure.sh's key=value line,
	# the module's sync_file_range rows (count min_us mean_us max_us p50_us
	# p99_us) of every superblock, pg_stat_bgwriter's key=value lines, and
	# the checkpoints that PostgreSQL's log shows starting during the run
	# ("EPOCH [PID] LOG:  checkpoint starting: time", then "checkpoint
	# complete: wrote N buffers"), with what they wrote (in part after it).
	awk -v mode="$mode" -v run="$run" '
		FNR == 1 { file++ }
		file == 1 && /^tps = / { tps = $3 }
		file == 1 && /^latency average = / { avg = $4 }
		file == 1 && /^latency stddev = / { sd = $4 }
		file == 1 && /^progress: / {
			sec[++np] = $4
			if ($7 > wl) wl = $7
		}
		file == 1 && /^sync_seconds=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); m[kv[1]] = kv[2] } }
		file == 2 && $3 == "sync_file_range" && $1 != "-" {
			calls += $4; sum += $4 * $6
			if ($7 > smax) smax = $7
			if ($9 > p99) p99 = $9
		}
		file == 3 { split($0, kv, "="); pg[kv[1]] = kv[2] }
		file == 4 && / checkpoint starting: / {
			t = $1 + 0; in_run = t >= m["start_epoch"] && t < m["start_epoch"] + m["sync_seconds"]
			ckpts += in_run
			wal += in_run && / starting: .*wal/
		}
		file == 4 && / checkpoint complete: wrote / && in_run {
			sub(/.* complete: wrote /, ""); cbuf += $1; in_run = 0
		}
		END {
			for (i = 1; i <= np; i++)
				stalled += sec[i] < tps / 10
			OFS = "\t"
			print mode, run, tps, avg, sd, stalled + 0, wl + 0, m["cpu_idle_pct"], m["disk_busy_pct"],
				sprintf("%.0f", m["write_requests"] / m["sync_seconds"]),
				sprintf("%.0f", m["written_bytes"] / 1048576), calls,
				calls ? sprintf("%.0f", sum / calls) : 0, p99 + 0, smax + 0,
				ckpts + 0, wal + 0, cbuf + 0, pg["buffers_clean"], pg["buffers_backend"]
		}' "$f" "$out/guest/stats-$run-$mode" "$g" "$log" >>"$tsv"
done
[ "$(wc -l <"$tsv")" -gt 1 ] || die "no complete run in $out/guest"

# The settings of the first run: PostgreSQL's version and flush settings.
set1=$out/guest/settings-1-auto
setting() { sed -n "s/^$1=//p" "$set1" 2>/dev/null; }
flush=
for s in checkpoint_flush_after backend_flush_after bgwriter_flush_after; do
	flush+="$s=$(setting $s), "
done
{
	echo "# pgbench: sync_file_range(2) WB_SYNC_NONE (the kernel's) vs WB_SYNC_ALL (forced)"
	echo
	echo "Kernel: patched ($(series_files | wc -l) patches), one boot, wbsync.ko's sfr_sync_mode" \
		"knob alternating auto/all; PostgreSQL $(setting server_version) on ext4 on one $profile" \
		"disk, TPC-B (pgbench -M prepared), scale $scale, $clients clients, $runs runs of $secs s" \
		"per mode, each after a CHECKPOINT; ${flush}PostgreSQL's defaults (sync_file_range(WRITE)" \
		"from the checkpointer and the background writer, none from the backends);" \
		"shared_buffers $(setting shared_buffers), checkpoint_timeout $(setting checkpoint_timeout)," \
		"max_wal_size $(setting max_wal_size).  min / median / max over the runs." \
		"stalled_seconds: seconds of pgbench's per-second progress under a tenth of the run's" \
		"tps; worst_second_lat_ms: the highest latency average of those seconds.  The regime" \
		"over each run: the guest's CPU idle share, the disk's busy share (io_ticks), its write" \
		"requests per second (the profile's IOPS limit counts reads and writes) and what it" \
		"wrote.  sfr: the module's count of sync_file_range calls and their latency (µs)." \
		"checkpoints: those started during the run (PostgreSQL's log), wal_checkpoints those" \
		"of them that WAL volume, not checkpoint_timeout, started, checkpoint_buffers what they" \
		"wrote (in part after the run); buffers_clean and buffers_backend: what the background" \
		"writer and the backends wrote (pg_stat_bgwriter)."
	echo
	echo "| metric | WB_SYNC_NONE (auto) | WB_SYNC_ALL (all) | auto/all |"
	echo "|---|---|---|---|"
	mode_table "$tsv" "auto all" auto all
	echo
	echo "The seed, for the direction and the ratio only (Andres Freund, 2015: Linux 4.3," \
		"an SSD laptop, scale 300, 48 clients, 1000 s, best of 3; another machine and scale," \
		"not comparable in absolute terms):"
	echo
	echo "| seed | WB_SYNC_NONE (4.4) | WB_SYNC_ALL (4.3) | NONE/ALL |"
	echo "|---|---|---|---|"
	echo "| tps | 9369 | 7872 | 1.19x |"
	echo "| lat_avg_ms | 5.119 | 6.094 | 0.84x |"
	echo "| lat_stddev_ms | 24.4 | 35.4 | 0.69x |"
} >"$out/report.md"
echo
cat "$out/report.md"
echo
log "results: $out/report.md, $out/results.tsv, pgbench's output in $out/guest"
exit $failed
