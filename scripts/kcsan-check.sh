#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kcsan-check.sh [-k KERNEL[,KERNEL]] [-f FS[,FS]] [-o OUTDIR] [-h]
#
# make kcsan-check: the integrity crash test in every mode on the kcsan
# variant (WBSYNC_VARIANT=kcsan, kconfig/kcsan.config: the kernel's data
# race detector, which cannot share a kernel with KASAN), on the lab's
# vanilla and patched kernels, one guest per kernel at a time.  Data races
# do not fail a guest (vm-run); any other kernel report, KCSAN's
# assertions included, does.  scripts/kcsan-report sums each kernel's
# races (OUTDIR/KERNEL.md); OUTDIR/report.md lists the races with a
# function in fs/fs-writeback.c, and those seen on patched and not on
# vanilla.  KCSAN samples: a race not seen is not proved absent.  First,
# on each kernel, a positive control: a guest loads a module with a
# deliberate data race (scripts/kcsan-control), and KCSAN must report it.
#   -k  kernels (default vanilla,patched)
#   -f  filesystems, shared layout (default ext4,xfs,vfat)
#   -o  results directory (default output/kcsan-check)
# Prints each control's and integrity run's TAP and a closing line;
# exit 1 if one failed.
# CHECK_INTEGRITY_ARGS as for check.sh (default "--files 400 --budget 32").
set -uo pipefail
. "$(dirname "$0")/lib.sh"
export WBSYNC_VARIANT=kcsan

kernels=vanilla,patched fss=ext4,xfs,vfat out=$WBSYNC_TOP/output/kcsan-check
usage="usage: kcsan-check.sh [-k KERNEL[,KERNEL]] [-f FS[,FS]] [-o OUTDIR]"
while getopts :k:f:o:h opt; do
	case $opt in
	k) kernels=$OPTARG ;;
	f) fss=$OPTARG ;;
	o) out=$OPTARG ;;
	h) lab_help ;;
	:) usage_error "option -$OPTARG needs an argument; $usage" ;;
	*) usage_error "bad option -$OPTARG; $usage" ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || usage_error "unexpected argument '$1'"
IFS=", " read -r -a kernels <<<"$kernels"
IFS=", " read -r -a fss <<<"$fss"
for fs in "${fss[@]}"; do
	case $fs in ext4 | xfs | vfat) ;; *) usage_error "-f: '$fs' is not ext4, xfs or vfat" ;; esac
done
for k in "${kernels[@]}"; do
	case " $KERNEL_NAMES " in
	*" $k "* | *" ${k%-[0-9][0-9][0-9][0-9]}-NNNN "*) ;;
	*) usage_error "-k: unknown kernel '$k' ($KERNEL_NAMES)" ;;
	esac
done
CHECK_INTEGRITY_ARGS=${CHECK_INTEGRITY_ARGS:---files 400 --budget 32}

"$WBSYNC_TOP/scripts/deps.sh" || die "installing dependencies failed"
rm -rf "$out"
mkdir -p "$out"
ksrc=$("$WBSYNC_TOP/scripts/prepare-tree.sh" --vanilla) || die "no base tree"
declare -A kdir
for k in "${kernels[@]}"; do
	kdir[$k]=$("$WBSYNC_TOP/scripts/build-kernel.sh" "$k") || die "building the $k kernel (kcsan) failed"
done

# One kernel's runs, one after the other.
runs()
{
	local k=$1 fs

	for fs in "${fss[@]}"; do
		# shellcheck disable=SC2086
		KSRC=$ksrc "$WBSYNC_TOP/scripts/integrity.sh" "${kdir[$k]}" --fs "$fs" --modes all \
			$CHECK_INTEGRITY_ARGS --out "$out/kcsan-$k-$fs" >"$out/kcsan-$k-$fs.tap" 2>&1
		log "$k $fs: $(tail -n 1 "$out/kcsan-$k-$fs.tap")"
	done
}
# The positive control, first on each kernel: a module with a deliberate
# data race (scripts/kcsan-control).  A kernel that does not report it
# under this accelerator would not report one in fs-writeback.c either:
# its silence on the integrity runs would prove nothing.
control()
{
	local k=$1 ko n
	local dir=$out/control-$k

	{
		tap_plan 1
		if ! ko=$("$WBSYNC_TOP/scripts/build-module.sh" "${kdir[$k]}" "kcsan-$k" \
			"$WBSYNC_TOP/scripts/kcsan-control" 2>"$dir.log"); then
			tap "not ok" "control: building wbsync_race.ko against $k failed (log: $dir.log)"
		elif ! vm_run --kernel "${kdir[$k]}/vmlinux" --quiet --out "$dir" -- \
			insmod "$ko" >>"$dir.log" 2>&1; then
			tap "not ok" "control: the guest loading wbsync_race.ko failed (log: $dir.log)"
		else
			# The module's race, not any race of that boot.
			n=$(grep -c 'BUG: KCSAN: data-race in .*wbsync_race_' "$dir/console.log")
			if [ "${n:-0}" -gt 0 ]; then
				tap ok "control: KCSAN on $k reports the deliberate race ($n reports)"
			else
				tap "not ok" "control: KCSAN on $k does not report wbsync_race.ko's race: a silent run would prove nothing"
			fi
		fi
	} >"$dir.tap"
	log "$k control: $(tail -n 1 "$dir.tap")"
}
for k in "${kernels[@]}"; do
	control "$k"
done

log "integrity in every mode on ${fss[*]}, kernels ${kernels[*]} (kcsan), a guest per kernel"
for k in "${kernels[@]}"; do
	runs "$k" &
done
wait

# Every console of a kernel's runs: the crash boots' and the verify boots'.
for k in "${kernels[@]}"; do
	find "$out" -path "$out/kcsan-$k-*" -name console.log | sort >"$out/$k.consoles"
	if [ -s "$out/$k.consoles" ]; then
		xargs -d '\n' "$WBSYNC_TOP/scripts/kcsan-report" -b "${kdir[$k]}" <"$out/$k.consoles" >"$out/$k.md"
	else
		echo "No console." >"$out/$k.md"
	fi
done

# The races of fs-writeback.c, per kernel; those on patched alone.
races()
{
	sed -n 's/^| \(.*\) | \(.*fs\/fs-writeback\.c.*\) | \([0-9]*\) | \([0-9]*\) |$/\1|\3/p' "$out/$1.md"
}
{
	echo "# KCSAN on the integrity crash test"
	echo
	echo "Series: $(series_files | wc -l) patches ($(series_files | hash_files)); $(date -u '+%F %H:%M') UTC."
	echo "Runs: integrity.sh --modes all $CHECK_INTEGRITY_ARGS on ${fss[*]} (shared layout)."
	echo
	for k in "${kernels[@]}"; do
		echo "## $k: $(head -n 1 "$out/$k.md")"
		echo
		echo "Races with a function in fs/fs-writeback.c (reports):"
		echo
		races "$k" | sed 's/^\(.*\)|\(.*\)$/- \1 (\2)/'
		echo
	done
	if [ -n "${kdir[vanilla]:-}" ] && [ -n "${kdir[patched]:-}" ]; then
		echo "## In fs/fs-writeback.c, on patched and not on vanilla"
		echo
		comm -23 <(races patched | cut -d'|' -f1 | sort) <(races vanilla | cut -d'|' -f1 | sort) |
			sed 's/^/- /' | grep . || echo "none"
	fi
} >"$out/report.md"
cat "$out/report.md" >&2

log "results in $out (report.md, KERNEL.md)"
taps=()
for k in "${kernels[@]}"; do
	taps+=("$out/control-$k.tap")
	for fs in "${fss[@]}"; do
		taps+=("$out/kcsan-$k-$fs.tap")
	done
done
cat "${taps[@]}"
"$WBSYNC_TOP/scripts/tap-summary" "${taps[@]}"
