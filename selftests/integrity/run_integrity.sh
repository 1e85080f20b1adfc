#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_integrity.sh KERNEL_BUILD_DIR [options]
#
# KERNEL_BUILD_DIR is a kernel build (its vmlinux is booted), or with
# --boot and --initrd the headers of a distribution kernel.
#
# The wbsync integrity test, driven from the host.  Builds wbsync_fault.ko
# against KERNEL_BUILD_DIR and the guest helper.  Then, for each cycle and
# mode, boots the kernel twice with scripts/vm-run on the same disk image:
# boot 1 writes, syncs and crashes (sysrq-b), boot 2 checks that every file
# closed before the sync started is intact (integrity_test.sh).  With
# --layout flakey, a single boot on two disks with dm-flakey does both.
# Prints TAP; exits 0 if everything passed, 1 if not, 2 on bad arguments.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)

usage()
{
	cat <<USAGE
usage: run_integrity.sh KERNEL_BUILD_DIR [options]
  --cycles N       crash/verify cycles per mode (default 1)
  --modes LIST     comma-separated: sync, syncfs, overwrite, nosync (the
                   control: no sync, every fs2 file must be lost), or all
                   (all four; default sync)
  --fs TYPE        ext4, xfs, vfat, exfat, ext2, udf or minix (default ext4)
  --layout L       shared: two partitions of one disk, sysrq-b, two boots
                   flakey: dm-flakey on two disks, one boot (default shared)
  --profile P      disk profile: none, ssd or hdd (default none)
  --files N        fs2 files (default 1000)
  --writers1 N     fs1 writers, running through the sync (default 4)
  --writers2 N     fs2 writers, stopped before the sync (default 2)
  --size1 BYTES    fs1 file size (default 65536)
  --size2 BYTES    fs2 file size (default 16384)
  --budget MIB     fs1 data before the fs2 writers start (default 64)
  --pace-us US     fs1 writer pause per file after the budget (default 2000)
  --inflight       rewrite each fs2 file while its writeback may run
  --no-fault       do not load wbsync_fault.ko (sync(2) kicks the flushers)
  --wait-user      build wbsync_wait_user.ko (../wait_inodes) and sync both
                   filesystems through its ->wait_inodes() (kernels with the series)
  --wait-user-skip as --wait-user, with a hook that skips the wait: the
                   negative control, which must lose files
  --trace          shared layout: trace the writeback works of the sync
                   (dumped before the crash, which it delays)
  --boot IMAGE     boot this kernel image instead of KERNEL_BUILD_DIR/vmlinux
  --initrd FILE    with --boot: its initramfs (scripts/stock-initrd.sh)
  --timeout SEC    per boot (default 900)
  --out DIR        work directory (default $here/output/run-DATE-PID)
  --keep           keep the disk images of passing cycles
USAGE
	exit 2
}

die()
{
	echo "run_integrity.sh: $*" >&2
	exit 2
}

[ $# -gt 0 ] || die "no kernel build directory given (see --help)"
case "$1" in -h|--help) usage ;; esac
kdir=$1
shift
boot='' initrd='' wait_user=0 cycles=1 modes=sync fstype=ext4 layout=shared profile=none timeout=900 out='' keep=0
gopts=()
need_arg() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs an argument"; }
need_num()
{
	[[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive number, not '${2:-}'"
}
while [ $# -gt 0 ]; do
	case "$1" in
	--cycles) need_num "$@"; cycles=$2; shift 2 ;;
	--modes) need_arg "$@"; modes=$2; shift 2 ;;
	--layout) need_arg "$@"; layout=$2; shift 2 ;;
	--fs) need_arg "$@"; fstype=$2; shift 2 ;;
	--profile) need_arg "$@"; profile=$2; shift 2 ;;
	--files|--writers1|--writers2|--size1|--size2|--budget|--pace-us)
		need_num "$@"; gopts+=("$1" "$2"); shift 2 ;;
	--inflight|--no-fault|--trace) gopts+=("$1"); shift ;;
	--wait-user) wait_user=1; shift ;;
	--wait-user-skip) wait_user=1; gopts+=(--wait-user-mode skip); shift ;;
	--timeout) need_num "$@"; timeout=$2; shift 2 ;;
	--boot) need_arg "$@"; boot=$2; shift 2 ;;
	--initrd) need_arg "$@"; initrd=$2; shift 2 ;;
	--out) need_arg "$@"; out=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) usage ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done

[ -d "$kdir" ] || die "kernel build directory '$kdir' does not exist"
kdir=$(cd "$kdir" && pwd)
[ -f "$kdir/Module.symvers" ] || die "'$kdir' is not a kernel build directory (no Module.symvers)"
if [ -z "$boot" ]; then
	boot=$kdir/vmlinux
	[ -f "$boot" ] || die "no $boot (use --boot for a distribution kernel)"
fi
[ -f "$boot" ] || die "kernel image '$boot' does not exist"
[ -z "$initrd" ] || [ -f "$initrd" ] || die "initrd '$initrd' does not exist"
vmkernel=(--kernel "$boot" ${initrd:+--initrd "$initrd"})
[ "$modes" != all ] || modes=nosync,sync,syncfs,overwrite
IFS=, read -r -a mode_list <<<"$modes"
[ "${#mode_list[@]}" -gt 0 ] || die "--modes is empty"
for m in "${mode_list[@]}"; do
	case "$m" in
	sync|syncfs|overwrite|nosync) ;;
	*) die "unknown mode '$m' (sync, syncfs, overwrite, nosync)" ;;
	esac
done
case "$fstype" in
ext4|xfs|vfat|exfat|ext2|udf|minix) ;;
*) die "unknown filesystem type '$fstype' (ext4, xfs, vfat, exfat, ext2, udf, minix)" ;;
esac
case "$layout" in shared|flakey) ;; *) die "unknown layout '$layout' (shared, flakey)" ;; esac
case "$profile" in none|ssd|hdd) ;; *) die "unknown profile '$profile' (none, ssd, hdd)" ;; esac

# The lab: scripts/vm-run of the repository this lives in.
vmrun=${WBSYNC_VMRUN:-}
for f in "$here/../../scripts/vm-run" "$here/../scripts/vm-run"; do
	[ -n "$vmrun" ] && break
	[ -x "$f" ] && vmrun=$(cd "$(dirname "$f")" && pwd)/vm-run
done
[ -x "$vmrun" ] || die "scripts/vm-run not found (set WBSYNC_VMRUN)"
ktap=
for f in "$kdir/source/tools/testing/selftests/kselftest/ktap_helpers.sh" \
	"${KSRC:-/nonexistent}/tools/testing/selftests/kselftest/ktap_helpers.sh" \
	"${WBSYNC_CACHE:-/var/cache/wbsync}"/src/linux-*/tools/testing/selftests/kselftest/ktap_helpers.sh; do
	[ -f "$f" ] && { ktap=$f; break; }
done
[ -n "$ktap" ] || die "ktap_helpers.sh not found (set KSRC to the kernel tree)"

work=${out:-$here/output/run-$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$work/bin/kselftest" || die "cannot create '$work'"
work=$(cd "$work" && pwd)

testno=0 failed=0
per_mode=2
[ "$layout" = shared ] || per_mode=1
plan=$((2 + wait_user + cycles * ${#mode_list[@]} * per_mode))

tap()
{
	local res=$1

	shift
	testno=$((testno + 1))
	[ "$res" = ok ] || failed=$((failed + 1))
	echo "$res $testno $*"
}

# Guest output as TAP comments.
comment()
{
	sed 's/^/#   /' "$@"
}

echo "TAP version 13"
echo "1..$plan"
echo "# kernel $kdir, $fstype, layout $layout, profile $profile, modes ${mode_list[*]}, $cycles cycle(s)${gopts[*]:+, ${gopts[*]}}"
echo "# work directory $work"

cp "$here/integrity_test.sh" "$work/bin/" && cp "$ktap" "$work/bin/kselftest/" &&
	${CC:-cc} -O2 -g -Wall -o "$work/bin/wbsync_integrity" \
		"$here/wbsync_integrity.c" >"$work/build-helper.log" 2>&1
rc=$?
if [ "$rc" = 0 ]; then
	tap ok "build: wbsync_integrity"
else
	tap "not ok" "build: wbsync_integrity"
	comment "$work/build-helper.log"
	echo "Bail out! cannot build the helper"
	exit 1
fi
# build_module SRCDIR NAME: build NAME.ko from SRCDIR (a Kbuild and
# NAME.c) against the kernel into $work/bin, as one TAP result; bail out
# if it fails.
build_module()
{
	local src=$1 name=$2 dir=$work/$2

	if mkdir -p "$dir" && cp "$src/$name.c" "$src/Kbuild" "$dir/" &&
	   make -C "$kdir" M="$dir" >"$work/build-$name.log" 2>&1 &&
	   cp "$dir/$name.ko" "$work/bin/"; then
		tap ok "build: $name.ko against $kdir"
		return
	fi
	tap "not ok" "build: $name.ko against $kdir"
	tail -n 20 "$work/build-$name.log" | comment
	echo "Bail out! cannot build $name.ko"
	exit 1
}
build_module "$here/fault" wbsync_fault
if [ "$wait_user" = 1 ]; then
	build_module "$here/../wait_inodes" wbsync_wait_user
	gopts+=(--wait-user "$work/bin/wbsync_wait_user.ko")
fi

trap 'echo "Bail out! interrupted (work directory $work)"; exit 130' INT TERM
cd "$work" || exit 1
# The guest runs the command in the current directory: keep it the work
# directory, so that what the guest needs is visible there.

# vm-run, once more if the guest died before it ran the command (exit
# status 125: an early-boot failure of the emulated machine, not the test).
vm_run()
{
	"$vmrun" "$@"
	local rc=$?

	if [ "$rc" = 125 ]; then
		echo "# the guest died before the command ran: booting it again" >&2
		"$vmrun" "$@"
		rc=$?
	fi
	return "$rc"
}

record_value()
{
	awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }' "$2" 2>/dev/null
}

# "sync returned after 1.01 s, fs1 1514 fs2 1000 files closed before it"
summary()
{
	local m=$1 r=$2

	if [ "$m" = nosync ]; then
		printf 'no sync (control), fs1 %s files closed' \
			"$(record_value files "$r" | sed 's/^fs1 //')"
		return
	fi
	printf '%s returned after %s, %s files closed before it' \
		"$([ "$m" = syncfs ] && echo "syncfs(2)" || echo "sync(2)")" \
		"$(awk '/^sync_ns/ { printf "%.2f s", $2 / 1e9 }' "$r")" \
		"$(record_value files "$r")"
}

verdict()
{
	if [ "$1" = nosync ]; then
		echo "every fs2 file was lost without a sync"
	else
		echo "every file closed before the $([ "$1" = syncfs ] && echo "syncfs(2)" || echo "sync(2)") is intact"
	fi
}

# --trace: one line per queue_io of the sync's WB_SYNC_ALL works on the
# disk's bdi, with the superblock of the work that did it.
trace_digest()
{
	awk '
	/ writeback_start: / && / sync_mode=1 / && !/ bdi 9p/ {
		match($0, /sb_dev [0-9:]+/); sb = substr($0, RSTART + 7, RLENGTH - 7)
		if (t0 == "") t0 = $4 + 0
	}
	/ writeback_queue_io: / && / reason=sync / && !/ bdi 9p/ && sb != "" {
		t = $4 + 0
		sub(/^.* writeback_queue_io: /, "")
		printf "# trace: +%4.0f ms pass on sb %s: queue_io %s\n", (t - t0) * 1000, sb, $0
	}' "$1" | sed 's/ cgroup_ino=[0-9]*//'
}

run_shared()
{
	local c=$1 m=$2 cdir=$work/c$1-$2 rc ok

	rm -rf "$cdir"
	mkdir -p "$cdir"
	vm_run "${vmkernel[@]}" --disks 1 --disk-size 2G --profile "$profile" \
		--keep-disks "$cdir/disks" --allow-crash --timeout "$timeout" \
		--quiet --out "$cdir/crash" -- \
		"$work/bin/integrity_test.sh" crash --fs "$fstype" --mode "$m" "${gopts[@]}" \
		>"$cdir/crash.log" 2>&1
	rc=$?
	comment "$cdir/crash/output" 2>/dev/null
	ok=1
	if [ "$rc" != 0 ]; then
		echo "# vm-run exit status $rc"
		tail -n 5 "$cdir/crash.log" | comment
		ok=0
	elif [ -f "$cdir/crash/rc" ]; then
		echo "# the guest exited (status $(cat "$cdir/crash/rc")) instead of crashing"
		ok=0
	elif ! grep -qx sync_done "$cdir/crash/record" 2>/dev/null; then
		echo "# the guest crashed before the sync returned"
		ok=0
	fi
	if [ "$ok" = 0 ]; then
		tap "not ok" "cycle $c $m: boot 1: $m, then sysrq-b"
		tap "not ok" "cycle $c $m: boot 2: verify # SKIP boot 1 failed"
		return 1
	fi
	[ ! -f "$cdir/crash/trace" ] || trace_digest "$cdir/crash/trace"
	tap ok "cycle $c $m: boot 1: $(summary "$m" "$cdir/crash/record"), then sysrq-b"

	vm_run "${vmkernel[@]}" --disks 1 --disk-size 2G --profile "$profile" \
		--keep-disks "$cdir/disks" --timeout "$timeout" \
		--quiet --out "$cdir/verify" -- \
		"$work/bin/integrity_test.sh" verify --fs "$fstype" --record "$cdir/crash/record" \
		>"$cdir/verify.log" 2>&1
	rc=$?
	comment "$cdir/verify/output" 2>/dev/null
	if [ "$rc" != 0 ]; then
		tail -n 5 "$cdir/verify.log" | comment
		tap "not ok" "cycle $c $m: boot 2: $(verdict "$m") (vm-run exit status $rc)"
		return 1
	fi
	tap ok "cycle $c $m: boot 2: $(verdict "$m")"
}

run_flakey()
{
	local c=$1 m=$2 cdir=$work/c$1-$2 rc

	rm -rf "$cdir"
	mkdir -p "$cdir"
	vm_run "${vmkernel[@]}" --disks 2 --disk-size 1G --profile "$profile" \
		--keep-disks "$cdir/disks" --timeout "$timeout" \
		--quiet --out "$cdir/flakey" -- \
		"$work/bin/integrity_test.sh" flakey --fs "$fstype" --mode "$m" "${gopts[@]}" \
		>"$cdir/flakey.log" 2>&1
	rc=$?
	comment "$cdir/flakey/output" 2>/dev/null
	if [ "$rc" != 0 ]; then
		tail -n 5 "$cdir/flakey.log" | comment
		tap "not ok" "cycle $c $m: flakey: $(verdict "$m") (vm-run exit status $rc)"
		return 1
	fi
	tap ok "cycle $c $m: flakey: $(summary "$m" "$cdir/flakey/record"); $(verdict "$m")"
}

for ((c = 1; c <= cycles; c++)); do
	for m in "${mode_list[@]}"; do
		start=$SECONDS
		if "run_$layout" "$c" "$m"; then
			[ "$keep" = 1 ] || rm -rf "$work/c$c-$m/disks"
		fi
		echo "# cycle $c $m took $((SECONDS - start)) s"
	done
done

echo "# Totals: pass:$((testno - failed)) fail:$failed"
if [ "$failed" = 0 ] && [ "$testno" = "$plan" ]; then
	echo "# PASS"
	exit 0
fi
echo "# FAIL (work directory $work)"
exit 1
