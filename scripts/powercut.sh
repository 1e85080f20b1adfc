#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# powercut.sh [-k KERNELS] [-f FSTYPES] [--modes LIST] [--cycles N]
#             [-p PROFILE] [-o OUTDIR] [--files N] [--budget MIB] [--keep]
# powercut.sh -R OUTDIR
#
# The power-cut matrix: which filesystems lose data closed before sync(2)
# or syncfs(2) when the power fails as the call returns, that is, which do
# not flush the disk's write cache before returning.  For each kernel and
# filesystem, one run of scripts/integrity.sh KERNEL --layout logwrites
# (dm-log-writes, replayed up to the call's return), --cycles boots per
# mode; its TAP in OUTDIR/KERNEL-FS.tap, its work directory
# OUTDIR/KERNEL-FS (the disk images are removed unless --keep).  Then
# writes OUTDIR/results.tsv (one line a cycle: kept, lost, or error when
# the cycle failed before its checks), OUTDIR/params, OUTDIR/meta (as
# sync-report.sh's: what scripts/results.sh prints of a run of record)
# and OUTDIR/report.md, the table filesystem x mode x kernel: kept or
# lost, in how many cycles, with the fs2 files found intact, and prints
# it.  -R renders the table again from OUTDIR's files.  Exit status 0 if
# every cycle kept or lost (the table's answer either way; -R: rendered),
# 1 if a cycle failed otherwise, 2 on bad arguments.
#   -k KERNELS    lab kernels, as integrity.sh takes them (default vanilla)
#   -f FSTYPES    default "ext4 xfs vfat exfat exfat-dirty ext2 udf minix";
#                 (integrity.sh's types)
#   --modes LIST  comma-separated: sync, syncfs, overwrite (default
#                 sync,syncfs)
#   --cycles N    cycles a mode (default 2)
#   -p PROFILE    disk profile (default none)
#   -o OUTDIR     default output/powercut
#   --files N, --budget MIB  integrity.sh's (default 400 and 32, as make
#                 check's)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

cmdline=$(printf '%q ' "$0" "$@") started=$(date -u '+%F %H:%M')
kernels=vanilla fstypes="ext4 xfs vfat exfat exfat-dirty ext2 udf minix" modes=sync,syncfs cycles=2
profile=none out=$WBSYNC_TOP/output/powercut files=400 budget=32 keep=0 render=''
need() { [ -n "${2:-}" ] || usage_error "$1 needs an argument (see --help)"; }
num() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || usage_error "$1 needs a positive number, not '$2'"; }
while [ $# -gt 0 ]; do
	case $1 in
	-k) need "$@"; kernels=$2 ;;
	-f|--fs) need "$@"; fstypes=$2 ;;
	--modes) need "$@"; modes=$2 ;;
	--cycles) need "$@"; num "$@"; cycles=$2 ;;
	-p|--profile) need "$@"; profile=$2 ;;
	-o|--out) need "$@"; out=$2 ;;
	--files) need "$@"; num "$@"; files=$2 ;;
	--budget) need "$@"; num "$@"; budget=$2 ;;
	-R) need "$@"; render=$2 ;;
	--keep) keep=1; shift; continue ;;
	*) usage_error "unknown option '$1' (see --help)" ;;
	esac
	shift 2
done

if [ -n "$render" ]; then
	out=$render
	[ -f "$out/results.tsv" ] || die "no results.tsv in '$out'"
	[ -f "$out/params" ] || die "no params in '$out'"
	# shellcheck source=/dev/null
	. "$out/params"
else
	for f in $fstypes; do
		case $f in
		ext4|xfs|vfat|exfat|exfat-dirty|ext2|udf|minix) ;;
		*) usage_error "unknown filesystem type '$f' (ext4, xfs, vfat, exfat, exfat-dirty, ext2, udf, minix)" ;;
		esac
	done
	for m in ${modes//,/ }; do
		case $m in
		sync|syncfs|overwrite) ;;
		*) usage_error "unknown mode '$m' (sync, syncfs, overwrite)" ;;
		esac
	done
	[ -n "${modes//,/}" ] || usage_error "--modes is empty"
	for k in $kernels; do
		kernel_patches "$k" >/dev/null || usage_error "unknown kernel '$k' ($KERNEL_NAMES)"
	done
	profile_check "$profile"
fi

tsv=$out/results.tsv
if [ -z "$render" ]; then
	declare -A kdir
	for k in $kernels; do
		kdir[$k]=$("$WBSYNC_TOP/scripts/build-kernel.sh" "$k") || die "building the $k kernel failed"
	done
	# One run an OUTDIR: a lock on the directory itself, then empty it.
	mkdir -p "$out"
	exec 8<"$out"
	flock -n 8 || die "another powercut.sh is writing '$out'"
	find "$out" -mindepth 1 -delete
	out=$(cd "$out" && pwd) tsv=$out/results.tsv
	# shellcheck disable=SC2034 # read back by -R and results.sh
	report=powercut
	declare -p report kernels fstypes modes cycles profile files budget >"$out/params"
	printf 'kernel\tfstype\tmode\tcycle\tresult\tsync_seconds\tcycle_seconds\tfs2_files\tfs2_ok\tfs2_missing\tfs2_empty\tfs2_size\tfs2_stale\tfs2_torn\tfs2_unreadable\tfs1_files\tfs1_ok\n' >"$tsv"
	for k in $kernels; do
		for f in $fstypes; do
			log "$k $f: integrity.sh --layout logwrites --modes $modes --cycles $cycles"
			"$WBSYNC_TOP/scripts/integrity.sh" "$k" --layout logwrites -f "$f" \
				--modes "$modes" --cycles "$cycles" -p "$profile" --files "$files" \
				--budget "$budget" -o "$out/$k-$f" >"$out/$k-$f.tap" 2>&1 || true
			log "$k $f: $(tail -n 1 "$out/$k-$f.tap")"
			for ((c = 1; c <= cycles; c++)); do
				for m in ${modes//,/ }; do
					d=$out/$k-$f/c$c-$m/logwrites
					# The guest's record and KTAP: its file checks,
					# and whether the cycle reached them.
					mkdir -p "$d" && touch "$d/record" "$d/output"
					awk -F'\t' -v OFS='\t' -v k="$k" -v f="$f" -v m="$m" -v c="$c" \
						-v secs="$(sed -n "s/^# cycle $c $m took \([0-9]*\) s$/\1/p" "$out/$k-$f.tap")" '
					FILENAME == ARGV[1] && /^sync_ns / { split($0, a, " "); sync = sprintf("%.2f", a[2] / 1e9) }
					FILENAME == ARGV[2] && /^# fs[12]: [0-9]+ files closed before the sync:/ {
						n = $0; sub(/^# fs/, "", n); fs = substr(n, 1, 1)
						split(n, w, /[:,] */); tot[fs] = w[2] + 0
						for (i = 3; i in w; i++) { split(w[i], p, " "); cnt[fs, p[2] == "wrong" ? "size" : p[2]] = p[1] }
					}
					FILENAME == ARGV[2] && /^not ok [0-9]+ fs[12]: every file/ { lost = 1 }
					FILENAME == ARGV[2] && /^not ok / { bad = 1 }
					FILENAME == ARGV[2] && /^ok [0-9]+ fs2: every file/ { ok2 = 1 }
					END {
						r = lost ? "lost" : (!bad && ok2) ? "kept" : "error"
						print k, f, m, c, r, sync == "" ? "-" : sync, secs == "" ? "-" : secs,
							tot[2] + 0, cnt[2, "ok"] + 0, cnt[2, "missing"] + 0, cnt[2, "empty"] + 0,
							cnt[2, "size"] + 0, cnt[2, "stale"] + 0, cnt[2, "torn"] + 0,
							cnt[2, "unreadable"] + 0, tot[1] + 0, cnt[1, "ok"] + 0
					}' "$d/record" "$d/output" >>"$tsv"
				done
			done
			[ "$keep" = 1 ] || rm -rf "$out/$k-$f"/c*/disks
		done
	done
	knames=
	for k in $kernels; do
		knames+="${knames:+, }$k ${kdir[$k]##*/}"
	done
	accel=TCG
	[ ! -w /dev/kvm ] ||
		[ "$(cat "$WBSYNC_CACHE/kvm-probe-$(cat /proc/sys/kernel/random/boot_id)" 2>/dev/null)" != kvm ] ||
		accel=KVM
	printf '%s\n' "command: ${cmdline% }" "date: $started UTC" \
		"series: $(series_files | hash_files) ($(series_files | wc -l) patches)" \
		"base: $(base_version)" "host: $(nproc) CPUs, $accel" "kernels: $knames" >"$out/meta"
fi

# The table, filesystem x (mode, kernel), as TSV (results.sh renders it
# in reStructuredText) and Markdown.  A cell: "kept N/N", or "lost N/N"
# with the fs2 files found intact in each lost cycle, and the cycles
# that failed before their checks.
awk -F'\t' -v OFS='\t' -v kernels="$kernels" -v fstypes="$fstypes" -v modes="${modes//,/ }" '
NR == 1 { next }
{
	key = $2 SUBSEP $3 SUBSEP $1
	n[key]++; r[key, $5]++
	if ($5 == "lost") intact[key] = intact[key] (intact[key] == "" ? "" : ", ") $9
	if ($8 > files[key]) files[key] = $8
}
END {
	nk = split(kernels, ks, " "); nf = split(fstypes, fs, " "); nm = split(modes, ms, " ")
	line = "fs"
	for (j = 1; j <= nm; j++) for (i = 1; i <= nk; i++) line = line OFS ms[j] ", " ks[i]
	print line
	for (f = 1; f <= nf; f++) {
		line = fs[f]
		for (j = 1; j <= nm; j++) for (i = 1; i <= nk; i++) {
			key = fs[f] SUBSEP ms[j] SUBSEP ks[i]; cell = ""
			if (r[key, "lost"]) cell = "lost " r[key, "lost"] "/" n[key] " (fs2 intact: " intact[key] " of " files[key] ")"
			if (r[key, "kept"]) cell = cell (cell == "" ? "" : "; ") "kept " r[key, "kept"] "/" n[key]
			if (r[key, "error"]) cell = cell (cell == "" ? "" : "; ") "error " r[key, "error"] "/" n[key]
			line = line OFS (n[key] ? cell : "-")
		}
		print line
	}
}' "$tsv" >"$out/table.tsv"
{
	echo "# Power cut when sync(2) or syncfs(2) returns: data closed before the call"
	echo
	sed -e 's/^/| /; s/$/ |/; s/\t/ | /g' "$out/table.tsv" | sed '1{p;s/[^|]/-/g;s/--*/---/g}'
	echo
	echo "- kept: every file closed before the call was in the log up to the call's return (on stable media);"
	echo "  lost: some were not (fs2 intact: how many of its files were, in each lost cycle);"
	echo "  error: the cycle failed before its checks (its TAP: KERNEL-FS.tap)."
	[ ! -f "$out/meta" ] || sed -n 's/^\(command\|date\|series\|kernels\): /- \u\1: /p' "$out/meta"
	echo "- Cycles: $cycles a cell (a boot each) of scripts/integrity.sh --layout logwrites --files $files --budget $budget, disk profile $profile."
} >"$out/report.md"
cat "$out/report.md"
[ -n "$render" ] || ! awk -F'\t' 'NR > 1 && $5 == "error" { f = 1 } END { exit !f }' "$tsv"
