#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sync-report.sh [--short] [-f FSTYPES] [-n NR_FS_LIST] [-r RUNS] [-t SECONDS]
#                [-w dd|c] [-W WRITERS] [-p PROFILE] [-o OUTDIR] [-s] [-c CONFIGS]
#                [-k KERNELS] [-a] [-m MOUNT_OPTIONS]
# sync-report.sh -R OUTDIR
#
# The vanilla-versus-patched report.  For every cell (filesystem type and
# number of busy filesystems) and kernel, boots the kernel once with that
# many disks and runs selftests/sync_busy.sh RUNS times.  A cell is
# FSTYPE x each -n value, or FSTYPE:NR given in -f; an NR of "2s" puts
# the filesystems on partitions of one disk (one bdi: the seed's layout);
# FSTYPE:NR:SECONDS writes for SECONDS in that cell instead of -t's,
# FSTYPE:NR:SECONDS:PROFILE also boots it with PROFILE's disks instead
# of -p's, FSTYPE:NR:SECONDS:PROFILE:DIRTY_MIB also sets the dirty limit
# to DIRTY_MIB MiB (sync_busy.sh -d); an FSTYPE:NR may be given once, as
# the results are keyed by it.  Writes OUTDIR/results.tsv (one line per
# run), OUTDIR/params (the options), OUTDIR/meta (the command line, UTC
# date, series id, base version, host and kernels: what
# scripts/results.sh prints of a run of record), OUTDIR/report.md
# (min/median/max sync seconds, the ratio vanilla/patched of the medians,
# the bounds and the rate bound; with -c and
# a wbsync configuration, the sync's time phase by phase from wbsync.ko's
# statistics, also in OUTDIR/phases.tsv) and OUTDIR/report.png, and
# prints the table.  Every sync is traced (sync_busy.sh's SYNC_BUSY_TRACE:
# the writeback works, block requests and jbd2 commits, a few events a
# millisecond), for the account of who wrote what during it, the time the
# patched sync spent on post-call data.
# Defaults (make demo's): -f "ext4:4 ext4:2s vfat:4:5:sdcard:64
# exfat:4:1:sdcard:64" -k "vanilla for_sync patched" -r 3 -t 10
# -W 2 -p usb -o output/report -w c (busy_writer, the seed's dd loops
# without a fork per file; the dd loops themselves, -w dd, dirty so
# little under TCG that vfat stays almost idle).  -W 2 writers per
# filesystem (the seed has 10) on usb disks (20 MiB/s) leave the guest's
# CPU idle part of the time, so that the disks set the pace as on real
# hardware.  vfat and exfat write for less time because their 6.12 sync
# writes each new inode alone, at the disk's 150 IOPS.  Their writers
# dirty only about 7 MB/s a filesystem under TCG, less than a usb disk
# writes, and reach the default dirty limits only after many seconds:
# the guest's CPU, not the disks, sets the pace of their sync.  On
# sdcard disks (4 MiB/s) with a dirty limit of 64 MiB they reach the
# limits within seconds, as writers on a real machine do (lab.rst, "Why
# vfat and exfat run on sdcard disks").  -n (default 4) applies to a
# bare FSTYPE.  --short is the make check mode: -f ext4 -n 2 -r 3 -t 5 -k
# "vanilla patched".  The kernels are the lab's builds (build-kernel.sh);
# with -s, "vanilla" is Debian's stock kernel of the same source instead
# (another config: fine for a smoke run, not for the numbers).  -c runs
# the patched kernel's runs once per configuration of sync_busy.sh -c
# (e.g. "kernel wbsync": the module's overhead), reported as
# patched/CONFIG.  -k patched leaves
# out the vanilla kernel (with -c: the module's overhead alone).  -k with
# fixes, for_sync, v6 or patched-NNNN (the series without patch NNNN)
# adds the ablation (kernel_patches in lib.sh), in a table of its own; -c
# applies to the patched kernel only.  for_sync is booted only in the
# cells whose filesystem it changes (kernel_changes_fs in lib.sh: vfat,
# exfat, ext2, udf, minix; elsewhere it syncs as fixes does); -a boots
# every kernel in every cell.  -m mounts
# every cell's filesystems with MOUNT_OPTIONS (sync_busy.sh -m; e.g. -f ext4:2s -m
# nodioread_nolock).  -R renders the
# report again from OUTDIR/results.tsv and OUTDIR/params, without running
# anything (after editing or merging results), with the base and series of
# OUTDIR/meta where there is one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cmdline=$(printf '%q ' "$0" "$@") started=$(date -u '+%F %H:%M')

fstypes="ext4:4 ext4:2s vfat:4:5:sdcard:64 exfat:4:1:sdcard:64" nrs=4 runs=3 secs=10 writer=c writers=2 profile=usb
kernels="vanilla for_sync patched"
out=$WBSYNC_TOP/output/report
if [ "${1:-}" = --short ]; then
	fstypes=ext4 nrs=2 runs=3 secs=5 kernels="vanilla patched"
	shift
fi
usage="usage: sync-report.sh [--short] [-f FSTYPES] [-n NR_FS_LIST] [-r RUNS] [-t SECONDS] [-w dd|c] [-W WRITERS] [-p PROFILE] [-o OUTDIR] [-s] [-c CONFIGS] [-k KERNELS] [-a] [-m MOUNT_OPTIONS] | -R OUTDIR"
stock=0 configs=kernel render='' mount_opts='' every_cell=0
while getopts f:n:r:t:w:W:p:o:sc:k:am:R: opt; do
	case $opt in
	f) fstypes=$OPTARG ;;
	n) nrs=$OPTARG ;;
	r) runs=$OPTARG ;;
	t) secs=$OPTARG ;;
	w) writer=$OPTARG ;;
	W) writers=$OPTARG ;;
	p) profile=$OPTARG ;;
	o) out=$OPTARG ;;
	s) stock=1 ;;
	c) configs=$OPTARG ;;
	k) kernels=$OPTARG ;;
	a) every_cell=1 ;;
	m) mount_opts=$OPTARG ;;
	R) render=$OPTARG ;;
	*) usage_error "$usage" ;;
	esac
done
[ $OPTIND -gt $# ] || usage_error "$usage"
[ -n "$fstypes" ] && [ -n "$nrs" ] || usage_error "-f and -n need at least one value"
# The cells, "FSTYPE NR SECONDS PROFILE DIRTY_MIB" each (DIRTY_MIB "-":
# the kernel's limits): -f FSTYPE:NR is that one cell, a
# bare FSTYPE one cell per -n value.  NR is 1 to 5 busy filesystems on as
# many disks, or with "s" (2s) on as many partitions of one disk.
# FSTYPE:NR:SECONDS[:PROFILE[:DIRTY_MIB]] writes for SECONDS in that cell
# instead of -t's (on PROFILE's disks instead of -p's, with a dirty limit
# of DIRTY_MIB MiB instead of the kernel's).
cell_list=() cell_secs='' cell_profiles='' cell_dirty=''
for f in $fstypes; do
	IFS=: read -r ft fn fs fp fd extra <<<"$f"
	case $ft in
	ext4|xfs|vfat|exfat|ext2) ;;
	*) usage_error "unknown filesystem type '$ft' (ext4, xfs, vfat, exfat, ext2)" ;;
	esac
	[ -z "$extra" ] && { [ -z "$fs" ] || [[ "$fs" =~ ^[1-9][0-9]*$ ]]; } ||
		usage_error "a cell is FSTYPE[:NR[:SECONDS[:PROFILE[:DIRTY_MIB]]]], not '$f'"
	[ -z "$fp" ] || profile_check "$fp"
	[ -z "$fd" ] || [[ "$fd" =~ ^[1-9][0-9]{0,5}$ ]] ||
		usage_error "a cell's dirty limit is a number of MiB (1 to 999999), not '$fd'"
	for n in ${fn:-$nrs}; do
		[[ "$n" =~ ^[1-5]s?$ ]] ||
			usage_error "a number of filesystems must be 1 to 5 (2s: partitions of one disk), not '$n'"
		[[ " ${cell_list[*]} " != *" $ft $n "* ]] ||
			usage_error "the cell $ft:$n is given twice (the results are keyed by FSTYPE:NR)"
		cell_list+=("$ft $n ${fs:-$secs} ${fp:-$profile} ${fd:--}")
		[ -z "$fs" ] || cell_secs+="${cell_secs:+, }$ft x$n: $fs s"
		[ -z "$fp" ] || [ "$fp" = "$profile" ] ||
			cell_profiles+="${cell_profiles:+, }$ft x$n: $fp"
		[ -z "$fd" ] || cell_dirty+="${cell_dirty:+, }$ft x$n: $fd MiB"
	done
done
# KERNEL/CONFIG: KERNEL with what users do instead of a faster sync(2)
# (sync_busy.sh -c: syncfs, dirty=LIMIT/BACKGROUND), beside KERNEL.
for k in $kernels; do
	kernel_patches "${k%%/*}" >/dev/null || usage_error "unknown kernel '${k%%/*}' (-k takes some of: $KERNEL_NAMES)"
	[[ "$k" != */* ]] || [[ "${k#*/}" =~ ^(syncfs|dirty=[1-9][0-9]{0,5}/[1-9][0-9]{0,5})$ ]] ||
		usage_error "unknown workaround '${k#*/}' in '$k' (syncfs, dirty=LIMIT/BACKGROUND in MiB)"
	[[ "$k" != */* ]] || [[ " $kernels " = *" ${k%%/*} "* ]] ||
		usage_error "$k needs ${k%%/*} in -k as well"
done
[[ " $kernels " = *" patched "* ]] || usage_error "-k must include patched"
[ "$(wc -w <<<"$kernels")" = "$(tr ' ' '\n' <<<"$kernels" | sort -u | wc -l)" ] ||
	usage_error "-k lists a kernel twice: '$kernels'"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || usage_error "-r must be a positive number, not '$runs'"
[[ "$secs" =~ ^[1-9][0-9]*$ ]] || usage_error "-t must be a positive number, not '$secs'"
case $writer in dd|c) ;; *) usage_error "-w must be dd or c, not '$writer'" ;; esac
[[ "$writers" =~ ^[1-9][0-9]*$ ]] || usage_error "-W must be a positive number, not '$writers'"
[ "$writer" = c ] || [ "$writers" = 10 ] || usage_error "-W needs -w c (the seed's dd loops are 10)"
profile_check "$profile"

# The base and series the report names: a run's own (meta), or the tree's.
if [ -n "$render" ] && [ -f "$render/meta" ]; then
	base=$(sed -n 's/^base: //p' "$render/meta") series=$(sed -n 's/^series: //p' "$render/meta")
else
	base=$(base_version)
	series="$(series_files | hash_files) ($(series_files | wc -l) patches)"
fi

if [ -n "$render" ]; then
	out=$render
	[ -f "$out/results.tsv" ] && [ -f "$out/params" ] || die "no results.tsv and params in '$out'"
	# params before cell seconds, profiles and dirty limits had none
	cell_secs='' cell_profiles='' cell_dirty=''
	# shellcheck source=/dev/null
	. "$out/params"
	tsv=$out/results.tsv failed=0
else
	# The boots: each cell's kernels, less the halves that sync there
	# as vanilla does (unless -a).
	runs_of()
	{
		local k

		for k in $kernels; do
			[ "$every_cell" = 1 ] || kernel_changes_fs "$k" "$1" && echo "$k"
		done
	}
	declare -A boot
	boot[patched]="--kernel $("$WBSYNC_TOP/scripts/build-kernel.sh" patched)" ||
		die "building the patched kernel failed"
	# A half of the series is built only if a cell boots it.
	for k in $(for fn in "${cell_list[@]}"; do runs_of "${fn%% *}"; done | sort -u); do
		case $k in vanilla|patched|*/*) continue ;; esac
		boot[$k]="--kernel $("$WBSYNC_TOP/scripts/build-kernel.sh" "$k")" ||
			die "building the $k kernel failed"
	done
	if [[ " $kernels " != *" vanilla "* ]]; then
		vanilla_name="not run"
	elif [ "$stock" = 1 ]; then
		mapfile -t ki < <("$WBSYNC_TOP/scripts/stock-initrd.sh")
		[ "${#ki[@]}" = 2 ] || die "no stock kernel"
		boot[vanilla]="--kernel ${ki[0]} --initrd ${ki[1]}"
		vanilla_name="Debian's stock ${ki[0]##*/vmlinuz-}"
	else
		boot[vanilla]="--kernel $("$WBSYNC_TOP/scripts/build-kernel.sh" vanilla)" ||
			die "building the vanilla kernel failed"
		vanilla_name="the lab's build of the base"
	fi
	module=
	[ "$configs" = kernel ] ||
		module=$("$WBSYNC_TOP/scripts/build-module.sh" "${boot[patched]#--kernel }" patched) ||
		die "building wbsync.ko failed"
	build_selftests >/dev/null || die "building the selftests failed"

	rm -rf "$out"
	mkdir -p "$out"
	# What the header of the report says, for -R.
	declare -p vanilla_name profile runs secs cell_secs cell_profiles cell_dirty writer writers kernels mount_opts every_cell >"$out/params"
	tsv=$out/results.tsv
	printf 'kernel\tfstype\tnr_fs\trun\tsync_seconds\tdirty_bytes\twritten_bytes\tbound_seconds\tcpu_idle_pct\tdisk_busy_pct\twrite_requests\thost_disk_busy_pct\trate_bound_seconds\tcalib_rate_bytes_s\tdirty_thresh_bytes\tbg_thresh_bytes\tpass_bytes\tkick_bytes\tbackground_bytes\tperiodic_bytes\tother_wb_bytes\tpasses_seconds\ttrace_lost\tmeta_bytes\tdisk_idle_seconds\tdisk_idle_unqueued_seconds\twriter_bytes_s\n' >"$tsv"

	cells=0
	for fn in "${cell_list[@]}"; do
		cells=$((cells + $(runs_of "${fn%% *}" | wc -l)))
	done
	cell=0 failed=0
	for fn in "${cell_list[@]}"; do
		read -r f n t p d <<<"$fn"
		[ "$d" != - ] || d=''
		# 2G a filesystem, on its own disk or on a partition of one
		nr=${n%s} disks=(--disks "$nr" --disk-size 2G) layout=separate
		[ "$n" = "$nr" ] || disks=(--disks 1 --disk-size $((2 * nr))G) layout=shared
		# Alternate the kernels cell by cell, so that drift hits both.
		for k in $(runs_of "$f"); do
			cell=$((cell + 1))
			dir=$out/$f-$n-${k//\//_}
			c=kernel
			[ "$k" != patched ] || c=$configs
			[[ "$k" != */* ]] || c=${k#*/}
			log "[$cell/$cells] $k: $nr busy $f ($layout) on $p disks, $runs runs of ${t} s${d:+, dirty limit $d MiB}${module:+ ($c)}"
			if ! "$WBSYNC_TOP/scripts/vm-run" --quiet ${boot[${k%%/*}]} --out "$dir" \
				"${disks[@]}" --profile "$p" \
				--timeout $((300 + runs * (t + 600))) -- \
				env BUSY_WRITER="$WBSYNC_TOP/output/selftests/busy_writer" \
				WBSYNC_MODULE="$module" SYNC_BUSY_TRACE=1 \
				"$WBSYNC_TOP/selftests/sync_busy.sh" -f "$f" -n "$nr" -l "$layout" \
				-t "$t" -r "$runs" -w "$writer" -W "$writers" -c "$c" \
				${mount_opts:+-m "$mount_opts"} ${d:+-d "$d"}; then
				log "  guest failed: see $dir/output and $dir/console.log"
				failed=1
			fi
			# The host's disk under the images (vm-run's host-disk
			# samples) over each sync: busy with other work, it slows
			# the guest's disks whatever the kernel.
			awk -v k="$k" -v hostf="$dir/host-disk" '
			BEGIN { while ((getline l < hostf) > 0) { split(l, a, " "); ht[++hn] = a[1]; hb[hn] = a[2] } }
			function host_busy(t0, t1,   i, j) {
				for (i = 1; i <= hn && ht[i] < t0; i++)
					;
				for (j = hn; j >= 1 && ht[j] > t1; j--)
					;
				return (t0 != "" && j > i) ? sprintf("%.0f", (hb[j] - hb[i]) / (10 * (ht[j] - ht[i]))) : ""
			}
			/^# run=/ {
				delete v
				for (i = 2; i <= NF; i++) if ((e = index($i, "="))) v[substr($i, 1, e - 1)] = substr($i, e + 1)
				label = (v["config"] == "" || v["config"] == "kernel" || index(k, "/")) ? k : k "/" v["config"]
				nr = v["nr_fs"] (v["layout"] == "shared" ? "s" : "")
				hbusy = host_busy(v["start_epoch"], v["start_epoch"] + v["sync_seconds"])
				printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", label, v["fstype"], nr,
					v["run"], v["sync_seconds"], v["dirty_bytes"],
					v["written_bytes"], v["bound_seconds"], v["cpu_idle_pct"], v["disk_busy_pct"],
					v["write_requests"], hbusy, v["rate_bound_seconds"],
					v["calib_rate_bytes_s"], v["dirty_thresh_bytes"], v["bg_thresh_bytes"]
				printf "\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v["pass_bytes"], v["kick_bytes"],
					v["background_bytes"], v["periodic_bytes"], v["other_wb_bytes"],
					v["passes_seconds"], v["trace_lost"], v["meta_bytes"],
					v["disk_idle_seconds"], v["disk_idle_unqueued_seconds"], v["writer_bytes_s"]
				printf "  run %s %s: sync %.2f s, %.1f MiB dirty at start, %.1f MiB written in %s requests, bound %.2f s (%s s at the disks\047 rate), CPU idle %s %%, disk busy %s %%, host disk busy %s %%\n",
					v["run"], label, v["sync_seconds"], v["dirty_bytes"] / 1048576,
					v["written_bytes"] / 1048576, v["write_requests"] == "" ? "?" : v["write_requests"],
					v["bound_seconds"], v["rate_bound_seconds"] == "" ? "?" : v["rate_bound_seconds"],
					v["cpu_idle_pct"], v["disk_busy_pct"],
					hbusy == "" ? "?" : hbusy > "/dev/stderr"
			}' "$dir/output" >>"$tsv"
			cp "$dir/output" "$dir.tap" 2>/dev/null || true
		done
	done

	# What ran, for the results of record (scripts/results.sh): the
	# accelerator is the one vm-run's probe chose; the kernels, their
	# builds (or Debian's image).
	accel=TCG
	[ ! -w /dev/kvm ] ||
		[ "$(cat "$WBSYNC_CACHE/kvm-probe-$(cat /proc/sys/kernel/random/boot_id)" 2>/dev/null)" != kvm ] ||
		accel=KVM
	knames=
	for k in $kernels; do
		kb=${boot[${k%%/*}]:-} kb=${kb#--kernel } kb=${kb%% *} kb=${kb##*/}
		knames+="${knames:+, }$k ${kb:-(not booted)}"
	done
	printf '%s\n' "command: ${cmdline% }" "date: $started UTC" "series: $series" "base: $base" \
		"host: $(nproc) CPUs, $accel" "kernels: $knames" >"$out/meta"
fi

# "2s" (busy filesystems on partitions of one disk) as the tables say it.
AWK_BUSY='function busy(n) { return n ~ /s$/ ? substr(n, 1, length(n) - 1) " on one disk" : n }'

# Per cell: min/median/max of sync seconds and the median bound.
summary=$out/summary.tsv
tail -n +2 "$tsv" | sort -t$'\t' -k2,2 -k3,3 -k1,1 -k5,5g | awk -F'\t' "$AWK_MEDIAN"'
function flush() {
	if (!cnt)
		return
	printf "%s\t%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f, n, k, cnt, s[1],
		(cnt % 2 ? s[(cnt + 1) / 2] : (s[cnt / 2] + s[cnt / 2 + 1]) / 2), s[cnt],
		median(b, cnt), ni ? sprintf("%.0f", median(idle, ni)) : "-",
		nb ? sprintf("%.0f", median(busy, nb)) : "-",
		nh ? sprintf("%.0f", median(host, nh)) : "-",
		nq ? sprintf("%.2f", median(q, nq)) : "-",
		nq ? sprintf("%.2f", median(qr, nq)) : "-",
		nw ? sprintf("%.0f", median(held, nw)) : "-",
		nr ? sprintf("%.1f", median(wr, nr) / 1e6) : "-"
}
{
	if ($2 != f || $3 != n || $1 != k) { flush(); cnt = 0; ni = 0; nb = 0; nh = 0; nq = 0; nw = 0; nr = 0 }
	f = $2; n = $3; k = $1; cnt++; s[cnt] = $5; b[cnt] = $8
	# runs measured before the regime was recorded have no value
	if ($9 != "") idle[++ni] = $9
	if ($10 != "") busy[++nb] = $10
	if ($12 != "") host[++nh] = $12
	# the rate of the writers over the load and the sync
	if ($27 != "" && $27 != "-") wr[++nr] = $27
	# the rate bound (sync_measure.sh), and the sync of each run over it
	if ($13 != "" && $13 != "-" && $13 > 0) { q[++nq] = $13; qr[nq] = $5 / $13 }
	# the busiest disk idle while its flusher had work, % of the sync,
	# where the trace'"'"'s idle time is io_ticks'"'"' within 5 % of the sync
	# (lab.rst: they disagree in some cells, unexplained)
	if ($25 != "" && $5 > 0 && (d = 100 * $25 / $5 - (100 - $10)) <= 5 && d >= -5)
		held[++nw] = 100 * ($25 - $26) / $5
}
END { flush() }' >"$summary"

# Where each sync's time went, phase by phase (wbsync.ko's stats of the
# runs with a module configuration, sync_busy.sh -c): one line per run.
phases=$out/phases.tsv
for st in "$out"/*-*-*/stats-*; do
	[ -f "$st" ] || continue
	d=${st%/*} r=${st##*/stats-}
	awk -v cell="${d##*/}" -v run="${r%%-*}" -v conf="${r#*-}" '
	NR == 1 { next }
	# seconds of the row: count x mean
	{ t = $4 * $6 / 1e6 }
	$1 == "-" && $3 == "sync" { sync = t }
	$1 == "-" && ($3 == "bdev_wait" || $3 == "bdev_nowait") { bdevs += t }
	$1 == "-" && $3 == "wb_none" { none += t }
	$1 != "-" && $2 != "bdev" && $3 == "wb_all" { pass += t; if (t > 0.0005) per = per sprintf("%s%s %.2f", per == "" ? "" : ", ", $2, t) }
	$1 != "-" && $2 != "bdev" && $3 == "wait_inodes" { wait += t }
	$1 != "-" && $2 != "bdev" && ($3 == "sync_fs_wait" || $3 == "sync_fs_nowait") { fs += t }
	END {
		if (sync == "")
			exit
		printf "%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n", cell, conf, run, sync,
			pass, wait, fs, bdevs, sync - pass - fs - bdevs - none, per
	}' "$st"
done >"$phases"

{
	echo "# sync(2) under load: vanilla vs patched"
	echo
	echo "| fs | busy fs | vanilla | patched | vanilla/patched | bound | patched/bound | rate bound | patched/rate bound | CPU idle, disk busy, held, host disk busy (vanilla; patched) |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' "$AWK_BUSY"'
	function regime(idle, busy, host, held,   traced) {
		if (idle == "" || idle == "-")
			return "-"
		traced = held != "" && held != "-"
		# the guest CPU, not the disk, may set the pace
		return idle " %, " busy " %" (traced ? ", held " held " %" : "") \
			(host == "" || host == "-" ? "" : ", host " host " %") \
			(idle < 10 && (traced ? held >= 10 : busy < 90) ? " (CPU-bound)" : "")
	}
	{ key = $1 "\t" $2; cell[key, $3] = sprintf("%.2f / %.2f / %.2f", $5, $6, $7)
	  med[key, $3] = $6; bound[key, $3] = $8; reg[key, $3] = regime($9, $10, $11, $14)
	  qb[key, $3] = $12; qr[key, $3] = $13
	  if (!(key in seen)) { seen[key] = 1; order[++o] = key } }
	END {
		for (i = 1; i <= o; i++) {
			key = order[i]; split(key, fk, "\t")
			v = med[key, "vanilla"]; p = med[key, "patched"]; b = bound[key, "patched"]
			q = qb[key, "patched"]; r = qr[key, "patched"]
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s; %s |\n", fk[1], busy(fk[2]),
				cell[key, "vanilla"], cell[key, "patched"],
				(p > 0 && v != "") ? sprintf("%.2fx", v / p) : "-",
				b != "" ? sprintf("%.2f", b) : "-",
				(b > 0 && p != "") ? sprintf("%.2fx", p / b) : "-",
				(q != "" && q != "-") ? q : "-",
				(r != "" && r != "-") ? r "x" : "-",
				reg[key, "vanilla"] == "" ? "-" : reg[key, "vanilla"],
				reg[key, "patched"] == "" ? "-" : reg[key, "patched"]
		}
	}' "$summary"
	conf_table=0 ablation_table=0
	if awk -F'\t' '$3 ~ /^patched\// { found = 1 } END { exit !found }' "$summary"; then
		conf_table=1
		echo
		echo "| fs | busy fs | configuration | sync seconds | vs patched | vs vanilla |"
		echo "|---|---|---|---|---|---|"
		awk -F'\t' "$AWK_BUSY"'
		{ key = $1 "\t" $2; med[key, $3] = $6; row[NR] = $0 }
		END {
			for (i = 1; i <= NR; i++) {
				split(row[i], r, "\t")
				if (r[3] !~ /^patched\//)
					continue
				key = r[1] "\t" r[2]; p = med[key, "patched"]; v = med[key, "vanilla"]
				printf "| %s | %s | %s | %.2f / %.2f / %.2f | %s | %s |\n", r[1], busy(r[2]),
					substr(r[3], 9), r[5], r[6], r[7],
					(p > 0 ? sprintf("%+.1f%%", (r[6] / p - 1) * 100) : "-"),
					(v > 0 ? sprintf("%.2fx", r[6] / v) : "-")
			}
		}' "$summary"
	fi
	if awk -F'\t' '$3 == "fixes" || $3 == "for_sync" || $3 == "v6" || $3 ~ /^patched-/ || ($3 ~ /\// && $3 !~ /^patched\//) { found = 1 } END { exit !found }' "$summary"; then
		ablation_table=1
		echo
		printf '| fs | busy fs |'
		for k in $kernels; do printf ' %s |' "$k"; done
		for k in $kernels; do [ "$k" = vanilla ] || printf ' vanilla/%s |' "$k"; done
		echo ' CPU idle / disk busy / host disk busy |'
		printf '|---|---|'
		for k in $kernels; do printf -- '---|'; done
		for k in $kernels; do [ "$k" = vanilla ] || printf -- '---|'; done
		echo '---|'
		awk -F'\t' -v kernels="$kernels" "$AWK_BUSY"'
		{ key = $1 "\t" $2; cell[key, $3] = sprintf("%.2f / %.2f / %.2f", $5, $6, $7)
		  med[key, $3] = $6; reg[key, $3] = $9 == "-" ? "-" : $9 "/" $10 "/" $11
		  if (!(key in seen)) { seen[key] = 1; order[++o] = key } }
		END {
			nk = split(kernels, ks, " ")
			for (i = 1; i <= o; i++) {
				key = order[i]; split(key, fk, "\t")
				line = "| " fk[1] " | " busy(fk[2]) " |"; regs = ""
				for (j = 1; j <= nk; j++) {
					line = line " " ((key, ks[j]) in cell ? cell[key, ks[j]] : "-") " |"
					regs = regs (j > 1 ? "; " : "") ((key, ks[j]) in reg ? reg[key, ks[j]] : "-")
				}
				v = med[key, "vanilla"]
				for (j = 1; j <= nk; j++) {
					if (ks[j] == "vanilla")
						continue
					m = med[key, ks[j]]
					line = line " " ((v != "" && m > 0) ? sprintf("%.2fx", v / m) : "-") " |"
				}
				print line " " regs " % |"
			}
		}' "$summary"
	fi
	# What each kernel or workaround leaves the writers: their rate over
	# the load and the sync (runs before sync_busy.sh measured it have none).
	writer_table=0
	if awk -F'\t' 'NR > 1 && $27 != "" { f = 1 } END { exit !f }' "$tsv"; then
		writer_table=1
		echo
		printf '| fs | busy fs |'
		for k in $kernels; do printf ' %s |' "$k"; done
		echo
		printf '|---|---|'
		for k in $kernels; do printf -- '---|'; done
		echo
		tail -n +2 "$tsv" | awk -F'\t' -v kernels="$kernels" "$AWK_MEDIAN$AWK_BUSY"'
		$27 != "" { key = $2 "\t" $3; i = ++n[key, $1]; w[key, $1, i] = $27 / 1e6
		  if (!(key in seen)) { seen[key] = 1; order[++o] = key } }
		END {
			nk = split(kernels, ks, " ")
			for (i = 1; i <= o; i++) {
				key = order[i]; split(key, c, "\t"); line = "| " c[1] " | " busy(c[2]) " |"
				for (j = 1; j <= nk; j++) {
					m = n[key, ks[j]]
					delete x
					for (r = 1; r <= m; r++) x[r] = w[key, ks[j], r]
					med = m ? median(x, m) : 0
					line = line (m ? sprintf(" %.1f / %.1f / %.1f |", x[1], med, x[m]) : " - |")
				}
				print line
			}
		}'
	fi
	# The legend: the run, a few words a column; the definitions are
	# Documentation/lab.rst's.  (scripts/results.sh prints the Runs line.)
	echo
	echo "- Kernels: base $base, series $series; vanilla is $vanilla_name."
	dirty=${cell_dirty:+; dirty limit ${cell_dirty} (background writeback at half), elsewhere the default}
	echo "- Runs: $runs of ${secs} s of writing${cell_secs:+ (${cell_secs})} a cell and kernel;" \
		"${writer:-c (vfat: dd)} writers, ${writers:-10} per filesystem, 16 KiB files;" \
		"disks: $profile${cell_profiles:+ (${cell_profiles})}${mount_opts:+, mounted -o $mount_opts}$dirty."
	echo "- vanilla, patched: sync seconds, min / median / max of the runs; vanilla/patched: the ratio of the medians."
	echo "- bound, rate bound: seconds to write the data dirty at the call, the busiest disk's at its calibrated rate;" \
		"each disk's at the rate it wrote during the sync, the largest (medians).  patched/bound: the ratio of" \
		"the medians; patched/rate bound: the median of the runs' ratios."
	echo "- Regime (medians): guest CPU idle; busiest disk busy (io_ticks); held: that disk idle with writeback" \
		"queued (trace); host disk busy.  CPU-bound: under 10 % idle and held 10 % or more (untraced: disk under 90 % busy)."
	[ "$conf_table" = 0 ] ||
		echo "- configuration: one boot of patched, wbsync.ko's configurations in turn (sync_busy.sh -c);" \
			"vs patched, vs vanilla: its median against that boot's without the module and vanilla's."
	[ "$ablation_table" = 0 ] ||
		echo "- Ablation: fixes is patches $(kernel_patches fixes), for_sync $(kernel_patches for_sync) (->write_inode(): vfat, exfat, ext2," \
			"udf, minix), v6 for_sync with the per-inode cutoff of selftests/fixtures/v6, patched-NNNN the series without NNNN; vanilla/KERNEL: the ratio of the medians.$([ "$every_cell" = 1 ] ||
				echo "  -: not booted, as the half does not change the filesystem (-a boots it).")"
	[ "$writer_table" = 0 ] ||
		echo "- Writers: MB/s the writers created over the load and the sync, min / median / max of the runs." \
			"KERNEL/syncfs: one syncfs(2) a filesystem at once instead of sync(2); KERNEL/dirty=L/B: vm.dirty_bytes L MiB, vm.dirty_background_bytes B MiB."
	echo "- Definitions: Documentation/lab.rst, \"The rate bound\" and \"The regime\"."
	# Who wrote what (sync_measure.sh's account of each run's trace).
	if awk -F'\t' 'NR > 1 && $17 != "" { f = 1 } END { exit !f }' "$tsv"; then
		echo
		echo "## Who wrote what"
		echo
		echo "| fs | busy fs | kernel | sync (s) | passes (s) | dirty | written | passes | kick | background, kupdate | other works | journal | other writes | post-call | trace events lost |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		tail -n +2 "$tsv" | awk -F'\t' -v kernels="$kernels" "$AWK_MEDIAN$AWK_BUSY"'
		$17 != "" {
			key = $2 "\t" $3 "\t" $1; i = ++cnt[key]
			if (!(key in seen)) { seen[key] = 1; order[++o] = key }
			works = $17 + $18 + $19 + $20 + $21
			v[key, 1, i] = $5; v[key, 2, i] = $22; v[key, 3, i] = $6 / 1e6
			v[key, 4, i] = $7 / 1e6; v[key, 5, i] = $17 / 1e6; v[key, 6, i] = $18 / 1e6
			v[key, 7, i] = ($19 + $20) / 1e6; v[key, 8, i] = $21 / 1e6
			if ($24 == "") nometa[key] = 1
			v[key, 9, i] = $24 / 1e6
			v[key, 10, i] = ($7 - works - $24) / 1e6
			v[key, 11, i] = (works > $6 ? works - $6 : 0) / 1e6
			lost[key] += $23
		}
		END {
			nk = split(kernels, ks, " ")
			for (k = 1; k <= nk; k++) rank[ks[k]] = k
			# cells in the order of the runs, kernels in -k order
			for (i = 1; i <= o; i++)
				for (j = i + 1; j <= o; j++) {
					split(order[i], a, "\t"); split(order[j], b, "\t")
					if (a[1] "\t" a[2] == b[1] "\t" b[2] && rank[b[3]] < rank[a[3]]) {
						t = order[i]; order[i] = order[j]; order[j] = t
					}
				}
			for (i = 1; i <= o; i++) {
				key = order[i]; split(key, c, "\t")
				line = sprintf("| %s | %s | %s |", c[1], busy(c[2]), c[3])
				for (m = 1; m <= 11; m++) {
					for (r = 1; r <= cnt[key]; r++) x[r] = v[key, m, r]
					if (m == 9 && nometa[key])
						line = line " - |"
					else
						line = line sprintf(m <= 2 ? " %.2f |" : " %.0f |", median(x, cnt[key]))
				}
				print line " " lost[key] " |"
			}
		}'
		echo
		echo "- MB, medians of the runs, from each sync's trace (sync_measure.sh); passes (s): the first pass's start to the last one's end."
		echo "- dirty: Dirty + Writeback at the call; written: by the disks during the sync; passes, kick, background" \
			"and kupdate, other works: the writeback works' data by who queued them; journal: REQ_META writes" \
			"(-: not counted); other writes: written less works and journal; post-call: the works' data beyond dirty."
		echo "- Other writes and post-call are estimates, off by tens of MB; definitions: Documentation/lab.rst, \"Who wrote what\"."
		# What remains of the patched sync beyond its own data, where it
		# is over 1.2 times the rate bound: the time each part took at the
		# rate the disks wrote during the sync.
		echo
		echo "The patched sync, where over 1.2 times its rate bound (the median of the runs' ratios): MB of the run" \
			"with the median sync time, what sync(2) promises (the data dirty at the call, the journal) and post-call data," \
			"whose share of the sync at the disks' rate is the seconds given (on one disk about what leaving it out" \
			"would save, on separate disks at most that); then who wrote it, and whether sync(2) needs it:"
		echo
		tail -n +2 "$tsv" | awk -F'\t' "$AWK_MEDIAN$AWK_BUSY"'
		$1 == "patched" && $17 != "" && $7 > 0 {
			key = $2 "\t" $3; i = ++cnt[key]
			if (!(key in seen)) { seen[key] = 1; order[++o] = key }
			run[key, i] = $0
			# a run without a rate bound ("-") has no ratio
			if ($13 + 0 > 0) q[key, ++nq[key]] = $5 / $13
		}
		END {
			for (i = 1; i <= o; i++) {
				key = order[i]; split(key, c, "\t")
				if (!nq[key]) continue
				for (r = 1; r <= nq[key]; r++) x[r] = q[key, r]
				ratio = median(x, nq[key])
				if (ratio <= 1.2) {
					printf "- %s, %s: %.2f times the rate bound: within 1.2.\n", c[1], busy(c[2]), ratio
					continue
				}
				# the run with the median sync time (the lower of two middles)
				n = cnt[key]
				for (r = 1; r <= n; r++) { split(run[key, r], f, "\t"); x[r] = f[5] }
				med_s = median(x, n)
				if (n % 2 == 0) med_s = x[n / 2]
				for (r = 1; r <= n; r++) { split(run[key, r], f, "\t"); if (f[5] == med_s) break }
				works = f[17] + f[18] + f[19] + f[20] + f[21]
				post = works > f[6] ? works - f[6] : 0
				if (f[24] == "")
					others = sprintf("%.0f MB of other writes (journal, metadata, in flight at the call)",
						(f[7] - works) / 1e6)
				else
					others = sprintf("%.0f MB of journal (REQ_META), %.0f MB of other writes" \
						" (metadata, in flight at the call)", f[24] / 1e6, (f[7] - works - f[24]) / 1e6)
				printf "- %s, %s: %.2f times the rate bound.  The run of %.1f s: the disks wrote %.0f MB:" \
					" %.0f MB dirty at the call, %s, %.0f MB (%.0f %%) post-call, %.1f s of the sync." \
					"  The works wrote" \
					" %.0f MB in the passes (%.1f s), %.0f MB in sync(2)\047s kick, %.0f MB in" \
					" background and kupdate writeback.\n",
					c[1], busy(c[2]), ratio, f[5], f[7] / 1e6, f[6] / 1e6, others,
					post / 1e6, 100 * post / f[7], f[5] * post / f[7], f[17] / 1e6, f[22],
					f[18] / 1e6, (f[19] + f[20]) / 1e6
				# who wrote it: of the works besides the passes, the one
				# that wrote the most
				bg = f[19] + f[20]
				if (post == 0)
					why = " no post-call data beyond the estimate\047s error; the rest is" \
						" the journal and metadata."
				else if (bg >= f[18])
					why = sprintf(" background and kupdate writeback wrote more than" \
						" sync(2)\047s kick (%.0f against %.0f MB): the flusher writing" \
						" for the writers held at the dirty limits.  sync(2) does not" \
						" queue it or need its data, but needs it to go on (held back," \
						" it leaves the writers, a loop device\047s worker among them," \
						" at the dirty limit; Documentation/lab.rst, \"Who wrote what\").", bg / 1e6, f[18] / 1e6)
				else
					why = sprintf(" sync(2)\047s WB_SYNC_NONE kick wrote more than" \
						" background and kupdate writeback (%.0f against %.0f MB): it" \
						" writes what is dirty when it runs, post-call data included;" \
						" sync(2) does not need the post-call part.", f[18] / 1e6, bg / 1e6)
				print "  Why it remains:" why
			}
		}'
	fi
	if [ -s "$phases" ]; then
		echo
		echo "## Where the sync's time went (wbsync.ko's statistics)"
		echo
		echo "| cell | kernel/configuration | sync | passes | of which inode waits | ->sync_fs | block devices | rest | per filesystem |"
		echo "|---|---|---|---|---|---|---|---|---|"
		sort -t$'\t' -k1,1 -k2,2 -k3,3n "$phases" | awk -F'\t' "$AWK_MEDIAN"'
		function flush(   i, j, line, name) {
			if (!cnt)
				return
			line = "| " cell " | " kern "/" conf " |"
			for (j = 4; j <= 9; j++) {
				for (i = 1; i <= cnt; i++) x[i] = col[j, i]
				line = line sprintf(" %.2f |", median(x, cnt))
			}
			for (i = 2; i <= nf; i++)	# by name: vda, vdb, ...
				for (j = i; j > 1 && fsn[j - 1] > fsn[j]; j--) {
					name = fsn[j]; fsn[j] = fsn[j - 1]; fsn[j - 1] = name
				}
			for (i = 1; i <= nf; i++) {
				name = fsn[i]
				for (j = 1; j <= fc[name]; j++) x[j] = fv[name, j]
				line = line (i > 1 ? ", " : " ") name " " sprintf("%.2f", median(x, fc[name]))
			}
			print line " |"
		}
		{
			if ($1 != key || $2 != conf) { flush(); cnt = 0; nf = 0; delete fc; delete fsn }
			key = $1; conf = $2; cnt++
			cell = key; kern = key; sub(/-[^-]*$/, "", cell); sub(/^.*-/, "", kern)
			for (j = 4; j <= 9; j++) col[j, cnt] = $j
			n = split($10, per, ", ")
			for (i = 1; i <= n; i++) {
				split(per[i], nv, " ")
				if (!(nv[1] in fc)) { fsn[++nf] = nv[1]; fc[nv[1]] = 0 }
				fv[nv[1], ++fc[nv[1]]] = nv[2]
			}
		}
		END { flush() }'
		echo
		echo "- Seconds, medians of the runs with a module configuration.  passes: the WB_SYNC_ALL passes" \
			"(sync_inodes_sb(), one filesystem after another), inode waits included; ->sync_fs: both calls, all" \
			"filesystems; block devices: sync_bdevs(); rest: the call less those and the kick's queueing;" \
			"per filesystem: each one's pass, by device name."
	fi
} >"$out/report.md"

# One cluster per (fs, busy fs), one bar per kernel: medians, min-max
# error bars.
awk -F'\t' -v kernels="$kernels" "$AWK_BUSY"'
	{ key = $1 " x" busy($2); if (!(key in row)) { row[key] = ++r; name[r] = key }
	     v[key, $3] = $5 " " $6 " " $7 }
	END { nk = split(kernels, ks, " ")
	      for (i = 1; i <= r; i++) {
		key = name[i]; line = "\"" key "\""
		for (j = 1; j <= nk; j++)
			line = line " " ((key, ks[j]) in v ? v[key, ks[j]] : "0 0 0")
		print line } }' \
	"$summary" >"$out/plot.dat"
plot= col=2
for k in $kernels; do
	plot+="${plot:+, }'$out/plot.dat' using $((col + 1)):$col:$((col + 2))"
	if [ $col = 2 ]; then plot+=":xtic(1)"; fi
	plot+=" title '$k'"
	col=$((col + 3))
done
gnuplot <<EOF || log "gnuplot failed; the PNG is missing"
set terminal pngcairo size 900,500 noenhanced
set output '$out/report.png'
set title 'sync(2) with busy filesystems ($profile disks${cell_profiles:+ (${cell_profiles})}, median and min-max of $runs runs)'
set ylabel 'sync seconds'
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set yrange [0:*]
set key top left
plot $plot
EOF

echo
cat "$out/report.md"
echo
log "results: $out/report.md, $out/report.png, $out/results.tsv"
exit $failed
