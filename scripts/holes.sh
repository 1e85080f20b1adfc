#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# holes.sh KERNEL [--hole h1|h2|h4|h5|h7|h8|h9|h10|h11|all] [--cycles N] [options]
#
# Crash tests of the holes through which data closed before sync(2)
# started can miss the sync: h1, h2 and h4, which a sync-start cutoff must
# not open, and h5, h7 and h8 of 6.12 itself
# (selftests/integrity/holes_test.sh; Documentation/testing.rst, "Hole
# tests").  KERNEL is one
# of the lab's kernels ($KERNEL_NAMES in lib.sh,
# patched+PATCH: the series with the patch file PATCH on top) or a kernel
# build directory.  Builds the guest helper (and for h1
# wbsync_fault.ko against the kernel), then per cycle and hole boots the
# kernel twice with scripts/vm-run on the same two disk images: boot 1
# writes, syncs and crashes with sysrq-b, boot 2 checks.  Prints TAP;
# exits 0 if everything passed, 1 if a test failed (data written before
# sync(2) was lost), 2 on bad arguments.  h5 (the inherited batch, a hole
# of 6.12 itself) is not in "all": it keeps background writeback on; a
# cycle that did not reach its window (by boot 1's trace) and kept F's
# mtime is a SKIP, and the run fails if fewer than --min-reached cycles
# reached it.  h5 ends with a summary: cycles reached, passed, failed,
# skipped.  h7 (__mark_inode_dirty()'s window: chmod of a lazytime inode
# holding I_DIRTY_TIME only, a hole of 6.12 itself) is not in "all"
# either: wbsync_h7.ko (selftests/integrity/h7_module, built here against
# the kernel) holds the chmod in the window while sync(2)'s pass writes
# the inode; a cycle whose pass did not write F in the window (the
# module's count) and kept F's mtime is a SKIP; --min-reached and the
# summary as for h5.  h8 (the same window when F also has dirty pages,
# also 6.12's, not in "all" either): the same module in its mode h8 holds
# the chmod while sync(2)'s WB_SYNC_NONE flush writes F's pages and drops
# F as clean, until the WB_SYNC_ALL pass has queued; a cycle in which the
# flush did not (the module's count) and F kept its mtime and data is a
# SKIP; --min-reached and the summary as for h5.  h9 (syncfs(2) of an
# eCryptfs mount) and h10 (sync(2) of an eCryptfs page dirtied through a
# mapping, with the flusher kick skipped) are 6.12's too, not in "all":
# no window, 6.12 loses the data every time; so is h11 (fsync(2) of an
# inode the flushers wrote, on --fs: ext2, minix, vfat or udf).
#
# Options (-p and -o as in the table of scripts/lib.sh):
#   --hole H         h1, h2, h4, h5, h7, h8, h9, h10, h11 or all (default: h1, h2, h4); h2 (NFS) runs the
#                    kernel's nfs variant (WBSYNC_VARIANT=nfs), built here
#   --cycles N       crash/verify cycles per hole (default 1)
#   -p, --profile P  disk profile: none, ssd or hdd (default hdd)
#   --slow-mb MIB    data dirty on the slow ext4 at the sync (default 256)
#   --read-delay-ms MS  h1: dm-delay read delay (default 30000)
#   --a-ms MS        h1: from A's directory read in flight to the sync (default 300)
#   --b-ms MS        h1: from the sync start to B's dirtying (default 500)
#   --kick           h1, h10: keep sync(2)'s flusher kick (no wbsync_fault.ko)
#   --trace          trace the writeback events of the sync (crash/trace)
#   --upper-delay-ms MS  h4: write delay between the upper fs and the loop
#                    device (default 300)
#   --nfs-delay-ms MS  h2: netem delay on the guest's lo during the sync
#                    (default 300)
#   --nfs-write MODE h2: the NFS client's write= mount option, eager or
#                    lazy (default eager; lazy makes the hole a race)
#   --upper TYPE     h4: ext2 or vfat on the loop device (default ext2)
#   --fs TYPE        h11: ext2, minix, vfat or udf (default ext2)
#   --files N        h4: upper files (default 64)
#   --write-delay-ms MS  h5: dm-delay write delay under the ext2 (default 0)
#   --writers N      h5: writers (default 2)
#   --run-s S        h5: seconds the writers run before the sync (default 5)
#   --bg-kb KIB      h5: vm.dirty_background_bytes (default 1024)
#   --file-kb KIB    h5: size of the writers' files (default 4)
#   --window-ms MS   h7, h8: longest hold of the chmod in the window (1 to
#                    15000, default 5000)
#   --hold-ms MS     h7: hold after the pass wrote F in the window, h8: after
#                    the pass queued (0 to 1000, default 200)
#   --min-reached N  h5, h7, h8: fail the run if fewer than N cycles reached
#                    the window (default 1; 0: never)
#   --timeout SEC    per boot (default 600)
#   -o, --out DIR    work directory (default output/holes-KERNEL)
#   --keep           keep the disk images of passing cycles
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/crash-lib.sh
. "$(dirname "$0")/crash-lib.sh"

here=$WBSYNC_TOP/selftests/integrity

[ $# -gt 0 ] || usage_error "no kernel given (see --help)"
kernel=$1
shift
holes=all cycles=1 profile=hdd timeout=600 out='' keep=0 kick=0 min_reached=1 min_set=0 h7_opt=
fs_set=0
gopts=()
while [ $# -gt 0 ]; do
	case "$1" in
	--hole) need_arg "$@"; holes=$2; shift 2 ;;
	--cycles) need_num "$@"; cycles=$2; shift 2 ;;
	-p|--profile) need_arg "$@"; profile=$2; shift 2 ;;
	--slow-mb|--read-delay-ms|--a-ms|--b-ms|--files|--upper-delay-ms|--nfs-delay-ms|\
	--writers|--run-s|--bg-kb|--file-kb)
		need_num "$@"; gopts+=("$1" "$2"); shift 2 ;;
	--upper) need_arg "$@"; gopts+=("$1" "$2"); shift 2 ;;
	--fs)
		need_arg "$@"
		case $2 in ext2|minix|vfat|udf) ;; *) usage_error "--fs must be ext2, minix, vfat or udf, not '$2'" ;; esac
		gopts+=("$1" "$2"); fs_set=1; shift 2 ;;
	--write-delay-ms)	# 0: no delay (dm-delay passes bios through)
		[[ "${2:-}" =~ ^[0-9]+$ ]] || usage_error "$1 needs a number, not '${2:-}'"
		gopts+=("$1" "$2"); shift 2 ;;
	--nfs-write)
		need_arg "$@"
		case $2 in eager|lazy) ;; *) usage_error "--nfs-write must be eager or lazy, not '$2'" ;; esac
		gopts+=("$1" "$2"); shift 2 ;;
	--window-ms)
		[[ "${2:-}" =~ ^[0-9]+$ ]] && [ "$((10#$2))" -ge 1 ] && [ "$((10#$2))" -le 15000 ] ||
			usage_error "$1 needs a number from 1 to 15000, not '${2:-}'"
		gopts+=("$1" "$((10#$2))"); h7_opt=$1; shift 2 ;;
	--hold-ms)
		[[ "${2:-}" =~ ^[0-9]+$ ]] && [ "$((10#$2))" -le 1000 ] ||
			usage_error "$1 needs a number from 0 to 1000, not '${2:-}'"
		gopts+=("$1" "$((10#$2))"); h7_opt=$1; shift 2 ;;
	--min-reached)
		[[ "${2:-}" =~ ^[0-9]+$ ]] || usage_error "$1 needs a number, not '${2:-}'"
		min_reached=$((10#$2)) min_set=1; shift 2 ;;
	--kick) kick=1; gopts+=(--kick); shift ;;
	--trace) gopts+=(--trace); shift ;;
	--timeout) need_num "$@"; timeout=$2; shift 2 ;;
	-o|--out) need_arg "$@"; out=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) lab_help ;;
	*) usage_error "unknown option '$1' (see --help)" ;;
	esac
done
case "$holes" in
all) hole_list=(h1 h2 h4) ;;
h1|h2|h4|h5|h7|h8|h9|h10|h11) hole_list=("$holes") ;;
*) usage_error "unknown hole '$holes' (h1, h2, h4, h5, h7, h8, h9, h10, h11, all)" ;;
esac
# has_h5: a hole with a window and a summary (h5, h7 or h8); has_h7: one of
# wbsync_h7.ko (h7, or h8: its mode h8)
has_h5=0 has_h7=0
[ "$holes" != h7 ] && [ "$holes" != h8 ] || has_h7=1
[ "$holes" != h5 ] && [ "$has_h7" = 0 ] || has_h5=1
[ "$min_set" = 0 ] || [ "$has_h5" = 1 ] || usage_error "--min-reached is for --hole h5, h7 or h8"
[ -z "$h7_opt" ] || [ "$has_h7" = 1 ] || usage_error "$h7_opt is for --hole h7 or h8"
[ "$fs_set" = 0 ] || [ "$holes" = h11 ] || usage_error "--fs is for --hole h11"
[ "$has_h5" = 0 ] || [ "$min_reached" -le "$cycles" ] ||
	usage_error "--min-reached $min_reached is more than --cycles $cycles"
# h2 needs an NFS server and client in the guest: the nfs variant of the
# kernel, a superset of the default one.
has_h2=0
[[ " ${hole_list[*]} " != *" h2 "* ]] || has_h2=1
if [ "$has_h2" = 1 ]; then
	case $WBSYNC_VARIANT in
	default|nfs) ;;
	*) usage_error "--hole h2 needs the nfs variant, not WBSYNC_VARIANT=$WBSYNC_VARIANT" ;;
	esac
	[ "${#hole_list[@]}" -gt 1 ] || export WBSYNC_VARIANT=nfs
fi
profile_check "$profile"
ktap=$(ktap_helpers) || exit 2

# Only now, with the arguments good: this may build a kernel.
crash_kernel "$kernel"
[ -f "$kdir/vmlinux" ] || usage_error "no $kdir/vmlinux"
# The kernel of h2; a build directory given must be of the nfs variant.
kdir_h2=$kdir
if [ "$has_h2" = 1 ] && [ "$WBSYNC_VARIANT" != nfs ] && [[ "$kernel" != */* ]]; then
	kdir_h2=$(WBSYNC_VARIANT=nfs "$WBSYNC_TOP/scripts/build-kernel.sh" "$kernel") &&
		[ -f "$kdir_h2/vmlinux" ] || die "building the nfs variant of $kernel failed"
fi

work=${out:-$WBSYNC_TOP/output/holes-$name}
[ -n "$out" ] || rm -rf "$work"
mkdir -p "$work/bin" "$work/kselftest" || die "cannot create '$work'"
work=$(cd "$work" && pwd)

need_fault=0 need_h7=0
for h in "${hole_list[@]}"; do
	[[ "$h" = h1 || "$h" = h10 ]] && [ "$kick" = 0 ] && need_fault=1
	case $h in h7|h8) need_h7=1 ;; esac
done
plan=$((1 + need_fault + need_h7 + cycles * ${#hole_list[@]} * 2 + has_h5))
# h5: the cycles that reached the window, and their outcomes
h5_reached=0 h5_passed=0 h5_failed=0 h5_failed_out=0 h5_skipped=0 h5_other=0

tap_plan "$plan"
echo "# kernel $kdir$([ "$kdir_h2" = "$kdir" ] || echo " (h2: $kdir_h2)"), holes ${hole_list[*]}, profile $profile, $cycles cycle(s)${gopts[*]:+, ${gopts[*]}}"
echo "# work directory $work"

if cp "$here/holes_test.sh" "$here/../wbsync_lib.sh" "$work/bin/" &&
   cp "$ktap" "$work/kselftest/" &&
   ${CC:-cc} -O2 -g -Wall -pthread -o "$work/bin/wbsync_holes" \
	"$here/wbsync_holes.c" >"$work/build-helper.log" 2>&1; then
	tap ok "build: wbsync_holes"
else
	tap "not ok" "build: wbsync_holes"
	comment "$work/build-helper.log"
	echo "Bail out! cannot build the helper"
	exit 1
fi
if [ "$need_fault" = 1 ]; then
	if ko=$("$WBSYNC_TOP/scripts/build-module.sh" "$kdir" "${work##*/}" "$here/test_modules" \
		2>"$work/build-fault.log") && cp "$ko" "$work/bin/"; then
		tap ok "build: wbsync_fault.ko against $kdir"
	else
		tap "not ok" "build: wbsync_fault.ko against $kdir"
		tail -n 20 "$work/build-fault.log" | comment
		echo "Bail out! cannot build wbsync_fault.ko"
		exit 1
	fi
fi

if [ "$need_h7" = 1 ]; then
	if ko=$("$WBSYNC_TOP/scripts/build-module.sh" "$kdir" "${work##*/}" "$here/h7_module" \
		2>"$work/build-h7.log") && cp "$ko" "$work/bin/"; then
		tap ok "build: wbsync_h7.ko against $kdir"
	else
		tap "not ok" "build: wbsync_h7.ko against $kdir"
		tail -n 20 "$work/build-h7.log" | comment
		echo "Bail out! cannot build wbsync_h7.ko"
		exit 1
	fi
fi

trap 'echo "Bail out! interrupted (work directory $work)"; exit 130' INT TERM
cd "$work" || exit 1

# The guest's steps with their times, from the console (kernel clock).
steps()
{
	grep -a 'wbsync_holes: ' "$1" | sed 's/^.*\[ *\([0-9.]*\)\] *wbsync_holes: /# step [\1] /'
}

# --trace, h4: when the backing file was first dirtied, and what the lower
# ext4's WB_SYNC_ALL pass of the sync queued and wrote.
trace_digest()
{
	local r=$1 t=$2 ino dev

	ino=$(awk '$1 == "backing_ino" { print $2 }' "$r")
	dev=$(awk '$1 == "lower_dev" { print $2 }' "$r")
	[ -n "$ino" ] && [ -n "$dev" ] || return 0
	awk -v ino="$ino" -v dev="$dev" -v dev2="$(echo "$dev" | tr : ,)" '
	/ writeback_start: / && / sync_mode=1 / && $0 ~ "bdi " dev ":" && !pass {
		pass = 1
		c = match($0, / sync_cutoff=[0-9]+/) ? substr($0, RSTART + 1, RLENGTH - 1) : "no sync cutoff"
		printf "# trace: %s lower pass starts (%s)\n", $4, c
	}
	/ writeback_queue_io: / && $0 ~ "bdi " dev ":" && pass == 1 {
		sub(/^.* writeback_queue_io: /, ""); printf "# trace: lower pass queue_io %s\n", $0; pass = 2
	}
	/ writeback_dirty_inode_enqueue: / && $0 ~ "dev " dev2 " ino " ino " " {
		match($0, /dirtied [0-9]+/)
		printf "# trace: %s backing file (ino %s) dirtied, %s\n", $4, ino, substr($0, RSTART, RLENGTH)
	}
	/ writeback_start: / && / reason=(background|periodic) / { bg++ }
	END { if (bg) printf "# trace: %d background or periodic writeback work(s) ran\n", bg }
	/ writeback_single_inode: / && $0 ~ "bdi " dev ":" && $0 ~ " ino=" ino " " {
		match($0, /wrote=[0-9]+/)
		printf "# trace: %s backing file written by %s, %s\n", $4, $1, substr($0, RSTART, RLENGTH)
	}' "$t" | sed 's/ cgroup_ino=[0-9]*//'
}

run_cycle()
{
	local c=$1 h=$2 cdir=$work/c$1-$2 rc k=$kdir call='sync(2)'
	[ "$h" != h9 ] || call='syncfs(2)'
	[ "$h" != h11 ] || call='fsync(2)'
	[ "$h" != h2 ] || k=$kdir_h2
	local vm=(--kernel "$k" --disks 2 --disk-size 1G --profile "$profile" --timeout "$timeout")

	rm -rf "$cdir"
	mkdir -p "$cdir"
	crash_boot "$cdir" "${vm[@]}" -- "$work/bin/holes_test.sh" crash --hole "$h" "${gopts[@]}"
	rc=$?
	steps "$cdir/crash/console.log"
	if [ "$rc" != 0 ]; then
		[ "$h" != h5 ] && [ "$has_h7" = 0 ] || h5_other=$((h5_other + 1))
		tap "not ok" "cycle $c $h: boot 1: write, $call, sysrq-b"
		tap "not ok" "cycle $c $h: boot 2: verify # SKIP boot 1 failed"
		return 1
	fi
	[ ! -f "$cdir/crash/trace" ] || trace_digest "$cdir/crash/record" "$cdir/crash/trace"
	tap ok "cycle $c $h: boot 1: $call returned after $(sync_seconds "$cdir/crash/record"), then sysrq-b"

	verify_boot "$cdir" "${vm[@]}" -- \
		"$work/bin/holes_test.sh" verify --hole "$h" --record "$cdir/crash/record"
	rc=$?
	[ "$h" != h5 ] && [ "$has_h7" = 0 ] || { h5_verdict "$c" "$cdir" "$h"; return; }
	if [ "$rc" != 0 ]; then
		tap "not ok" "cycle $c $h: boot 2: $(verify_failure "$cdir") (vm-run exit status $boot_rc)"
		return 1
	fi
	tap ok "cycle $c $h: boot 2: everything written before $call is on disk"
}

# What failed in boot 2: the record, the mount, or the data check.
verify_failure()
{
	local o=$1/verify/output

	if [ ! -s "$o" ]; then
		echo "the guest gave no output (boot or vm-run failure)"
	elif grep -aq '^not ok [0-9]* record' "$o"; then
		echo "the record says sync(2) did not return before the crash"
	elif grep -aq '^not ok [0-9]* mount' "$o"; then
		echo "the filesystem did not mount after the crash"
	elif grep -aq '^not ok [0-9]* \(fsck\|h[0-9]*\):' "$o"; then
		echo "data written before the call was lost"
	else
		echo "the check did not complete"
	fi
}

# h5's, h7's and h8's boot 2: the guest's verdict ("h5 verdict:
# PASS|FAIL|SKIP window reached|not-reached (a= b= c= d=) mtime kept|lost";
# h7 and h8: the module's counts in the parentheses, then "data RESULT"),
# counted.
h5_verdict()
{
	local c=$1 cdir=$2 h=${3:-h5} v w lost="F's pre-call timestamps"
	local d="cycle $c $h: boot 2: F's pre-call mtime on disk"

	[ "$h" != h8 ] || { d="$d, and its data"; lost="F's pre-call timestamps or data"; }

	v=$(grep -a "$h verdict: " "$cdir/verify/output" | sed "s/^.*$h verdict: //" | tail -n 1)
	read -r verdict _ w _ <<<"$v"
	echo "# cycle $c $h: ${v:-no verdict}"
	[ "$w" != reached ] || h5_reached=$((h5_reached + 1))
	case $verdict in
	PASS)
		h5_passed=$((h5_passed + 1))
		tap ok "$d (the window was reached)" ;;
	SKIP)
		h5_skipped=$((h5_skipped + 1))
		tap ok "$d # SKIP the window was not reached" ;;
	FAIL)
		if [ "$w" = reached ]; then
			h5_failed=$((h5_failed + 1))
			tap "not ok" "$d: lost in the window: sync(2) left $lost"
		else
			h5_failed_out=$((h5_failed_out + 1))
			tap "not ok" "$d: lost outside the window (by the trace's account)"
		fi
		return 1 ;;
	*)
		h5_other=$((h5_other + 1))
		tap "not ok" "$d: no verdict: $(verify_failure "$cdir") (vm-run exit status $boot_rc)"
		return 1 ;;
	esac
}

for ((c = 1; c <= cycles; c++)); do
	for h in "${hole_list[@]}"; do
		start=$SECONDS
		if run_cycle "$c" "$h"; then
			[ "$keep" = 1 ] || rm -rf "$work/c$c-$h/disks"
		fi
		echo "# cycle $c $h took $((SECONDS - start)) s"
	done
done

if [ "$has_h5" = 1 ]; then
	echo "# $holes summary: $cycles cycle(s), $h5_reached reached the window: $h5_passed passed, $h5_failed failed; $h5_skipped skipped (not reached, mtime kept); $h5_failed_out lost outside the window; $h5_other without a verdict (boot 1 or 2 failed)"
	if [ "$h5_reached" -ge "$min_reached" ]; then
		tap ok "$holes: $h5_reached of $cycles cycle(s) reached the window (--min-reached $min_reached)"
	else
		tap "not ok" "$holes: only $h5_reached of $cycles cycle(s) reached the window (--min-reached $min_reached): nothing proven"
	fi
fi

tap_finish "work directory $work"
