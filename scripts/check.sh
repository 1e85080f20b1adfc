#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [--full | --debug | --quick]: the test command (make check).
# Builds the patched kernel and the module, tests the lab on the host,
# boots the patched kernel and Debian's stock kernel of the same source
# with the selftests, runs the integrity crash test on ext4 (every mode),
# with the ->wait_inodes() test user, and as a power cut (--layout
# logwrites) on $CHECK_POWERCUT_FS, and sums every TAP result into one
# closing line.  Exit 1 on any failure.
#
# --full (make full-check): the same, with the crash test on every
# filesystem and layout, the power cut on every filesystem, 10 module
# loads under stress and a one-run sync report.  Results in
# output/full-check.
#
# --debug (make debug-check): the same on the patched kernel of the debug
# variant (lockdep, KASAN, DEBUG_LIST, kmemleak, KUnit), where any kernel
# report fails the guest's run: the guest selftests with the module's
# KUnit tests, the integrity test in every mode on ext4, xfs and vfat and
# in every layout, and fstests on ext4
# ($DEBUG_FSTESTS_ARGS, default the whole selftests/fstests/sync.list:
# hours).  No stock kernel, lab tests or report.  Results in
# output/debug-check.
#
# --quick (make quick): for a change in progress, on the patched kernel
# alone: the module's build, the documentation, the guest selftests and
# one crash cycle of the integrity test.  Results in output/quick.
#
# Variables: CHECK_PROFILE, the disk profile of the selftest guests and of
# the short report (default hdd: slow disks keep the sync paths busy);
# CHECK_INTEGRITY_CYCLES, crash cycles per mode of the main ext4
# integrity run (default 1); CHECK_INTEGRITY_ARGS, options for every
# integrity run (default "--files 400 --budget 32"); CHECK_POWERCUT_FS,
# the filesystems of the power-cut runs (default below).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

debug=0 quick=0 full=0
case "${1:-}" in
--debug) debug=1; export WBSYNC_VARIANT=debug ;;
--quick) quick=1 ;;
--full) full=1 ;;
"") ;;
*) usage_error "usage: check.sh [--full | --debug | --quick]" ;;
esac
out=$WBSYNC_TOP/output/check
[ "$full" = 0 ] || out=$WBSYNC_TOP/output/full-check
[ "$debug" = 0 ] || out=$WBSYNC_TOP/output/debug-check
[ "$quick" = 0 ] || out=$WBSYNC_TOP/output/quick
# Crash cycles per mode of the main integrity run (4 modes).
CHECK_INTEGRITY_CYCLES=${CHECK_INTEGRITY_CYCLES:-1}
CHECK_PROFILE=${CHECK_PROFILE:-hdd}
profile_check "$CHECK_PROFILE"
CHECK_INTEGRITY_ARGS=${CHECK_INTEGRITY_ARGS:---files 400 --budget 32}
# The power-cut runs (integrity.sh --layout logwrites, sync mode, one boot
# a filesystem): on 6.12, vfat, ext2, udf, minix and exfat mounted dirty
# lose what sync(2) wrote (scripts/powercut.sh's table); the series'
# fixes flush for them.  make check: FAT and ext2's block-device
# metadata; make full-check: every filesystem.
if [ "$full" = 1 ]; then
	CHECK_POWERCUT_FS=${CHECK_POWERCUT_FS:-ext4 xfs vfat exfat exfat-dirty ext2 udf minix}
else
	CHECK_POWERCUT_FS=${CHECK_POWERCUT_FS:-vfat ext2}
fi
rm -rf "$out"
mkdir -p "$out"
"$WBSYNC_TOP/scripts/deps.sh" || die "installing dependencies failed"

# guest_status STATUS DIR NAME: a guest that failed without TAP (kernel
# report, timeout, no boot) still counts, as one failed test.
guest_status()
{
	mkdir -p "$2"
	echo "vm-run exit status $1" >"$2/vm-run.status"
	[ "$1" = 0 ] || tap_all "not ok|$3 guest run (vm-run exit status $1)" >"$2/guest.tap"
}

# The TAP files the closing line sums, each added where it is written (a
# missing one counts as a failure); benchmarks write none.
taps=()

# Host-side results of the build steps, as TAP.
build_results=()
result()
{
	build_results+=("$1|$2")
}

ksrc=$("$WBSYNC_TOP/scripts/prepare-tree.sh" --vanilla) || die "no base tree"
if "$WBSYNC_TOP/scripts/prepare-tree.sh" >/dev/null; then
	result ok "series applies to the base"
else
	result "not ok" "series applies to the base"
fi

# Two kernels: the lab's build of the series, and as vanilla Debian's stock
# kernel of the same source (generic flavour, booted with the lab's
# initramfs).  Building the lab's vanilla kernel as well would not fit the
# time of a cold check; make demo and make kernels build it.
declare -A boot kdir
if kdir[patched]=$("$WBSYNC_TOP/scripts/build-kernel.sh" patched); then
	result ok "patched kernel builds"
	boot[patched]="--kernel ${kdir[patched]}"
else
	result "not ok" "patched kernel builds"
fi
stock=debian-$(stock_abi)-amd64
kdir[vanilla]=/usr/src/linux-headers-$(stock_abi)-amd64
if [ "$debug" = 1 ] || [ "$quick" = 1 ]; then
	:	# the debug variant and the quick check: the patched kernel alone
elif mapfile -t ki < <("$WBSYNC_TOP/scripts/stock-initrd.sh") && [ "${#ki[@]}" = 2 ]; then
	result ok "initramfs for Debian's stock $stock kernel"
	boot[vanilla]="--kernel ${ki[0]} --initrd ${ki[1]}"
else
	result "not ok" "initramfs for Debian's stock $stock kernel"
fi

# The module, built as users build it (make -C KDIR M=...), in a copy per
# kernel so that objects do not mix: the series, the vanilla base tree
# (prepared for modules only: a kernel build would not fit a cold check)
# and Debian's stock headers (6.12 generic and cloud, 6.1 cloud).
module_matrix=("patched ${kdir[patched]:-}"
	       "vanilla $("$WBSYNC_TOP/scripts/build-kernel.sh" --modules-prepare vanilla)")
if [ "$debug" = 1 ] || [ "$quick" = 1 ]; then
	module_matrix=("patched ${kdir[patched]:-}")
else
	mapfile -t -O "${#module_matrix[@]}" module_matrix < <(stock_kdirs)
fi
for entry in "${module_matrix[@]}"; do
	k=${entry%% *} kd=${entry#* }
	if [ -n "$kd" ] && "$WBSYNC_TOP/scripts/build-module.sh" "$kd" "$k" >/dev/null; then
		result ok "module builds against $k without W=1 or sparse warnings"
	else
		result "not ok" "module builds against $k without W=1 or sparse warnings"
	fi
done
declare -A module=([patched]=$WBSYNC_TOP/output/module-patched/module/wbsync.ko
		   [vanilla]=$WBSYNC_TOP/output/module-$stock/module/wbsync.ko)
# The test-only ->wait_inodes() user: only a kernel with the series has the hook.
declare -A wait_user=([vanilla]="")
if [ -n "${kdir[patched]:-}" ] &&
   wait_user[patched]=$("$WBSYNC_TOP/scripts/build-module.sh" "${kdir[patched]}" patched \
			 "$WBSYNC_TOP/selftests/wait_inodes/test_modules"); then
	result ok "wait_inodes test module builds against patched without W=1 or sparse warnings"
else
	wait_user[patched]=
	result "not ok" "wait_inodes test module builds against patched without W=1 or sparse warnings"
fi

if build_selftests >"$out/selftests-build.log" 2>&1; then
	result ok "selftests build"
else
	cat "$out/selftests-build.log" >&2
	result "not ok" "selftests build"
fi

# Documentation: Sphinx builds it without a warning, and results.rst is
# what scripts/results.sh writes from results/.
if sphinx-build -q -W -b html -d "$out/docs/doctrees" "$WBSYNC_TOP/Documentation" \
	"$out/docs/html" >"$out/docs.log" 2>&1; then
	result ok "Documentation builds with Sphinx without warnings"
else
	cat "$out/docs.log" >&2
	result "not ok" "Documentation builds with Sphinx without warnings"
fi
if "$WBSYNC_TOP/scripts/results.sh" --check >"$out/results-check.log" 2>&1; then
	result ok "Documentation/results.rst and README are generated from results/"
else
	cat "$out/results-check.log" >&2
	result "not ok" "Documentation/results.rst and README are generated from results/"
fi

tap_all "${build_results[@]}" >"$out/build.tap"
cat "$out/build.tap"
taps+=("$out/build.tap")

if [ "$quick" = 0 ]; then
	log "checking that deps.sh installs every program the scripts run"
	KSRC=$ksrc "$WBSYNC_TOP/scripts/tests/deps_test.sh" | tee "$out/deps_test.tap"
	taps+=("$out/deps_test.tap")
fi
# The lab's own tests, on the host beside the selftest guests below.
lab_test()
{
	[ -n "${kdir[patched]:-}" ] && [ "$debug" = 0 ] && [ "$quick" = 0 ] || return 0
	KSRC=$ksrc KERNEL=${kdir[patched]} "$WBSYNC_TOP/scripts/tests/lab_test.sh" >"$out/lab_test.tap"
	log "lab tests: $(tail -n 1 "$out/lab_test.tap")"
}

# The guest selftests; guest-tests writes NAME.tap for each.  KASAN and
# lockdep make the debug guest several times slower.
guest_timeout=1200
[ "$debug" = 0 ] || guest_timeout=3600
guest_progs=("$WBSYNC_TOP/output/selftests/smoke_test"
	     "$WBSYNC_TOP/selftests/module_test.sh"
	     "$WBSYNC_TOP/selftests/module_stress.sh"
	     "$WBSYNC_TOP/selftests/sync_file_range.sh"
	     "$WBSYNC_TOP/selftests/wait_inodes/wait_inodes_test.sh"
	     "$WBSYNC_TOP/selftests/sync_loop_throttle.sh")

# These guests load and unload wbsync.ko over and over: single-threaded
# TCG, where no vCPU runs code that another one has just patched
# (Documentation/lab.rst, "Code patching under multi-threaded TCG").
guest_selftests()
{
	local k=$1

	# shellcheck disable=SC2086
	vm_run --quiet --accel tcg-single ${boot[$k]} --out "$out/$k" \
		--disks 2 --disk-size 1G --profile "$CHECK_PROFILE" --timeout "$guest_timeout" -- \
		env KSRC="$ksrc" WBSYNC_MODULE="${module[$k]}" WBSYNC_STRESS_LOADS=$((full ? 10 : 3)) \
		WBSYNC_WAIT_USER="${wait_user[$k]}" WBSYNC_BIN="$WBSYNC_TOP/output/selftests" \
		"$WBSYNC_TOP/scripts/guest-tests" "${guest_progs[@]}"
}

selftests()
{
	local k=$1 rc

	[ -n "${boot[$k]:-}" ] || return 0
	guest_selftests "$k"
	rc=$?
	guest_status "$rc" "$out/$k" "$k"
	log "selftests in the $k guest: $(cat "$out/$k/vm-run.status")"
	cat "$out/$k"/*.tap
}

# selftests/ as kselftest targets (wbsync, and wbsync/wait_inodes and
# wbsync/integrity with their test modules built against the patched
# kernel): copied to tools/testing/selftests/wbsync of a copy of the base
# tree's kselftest framework, installed as kselftest_install.sh does
# ("make install", with TARGETS given: the script itself, whose make
# appends every target to TARGETS from the environment, installs all), and
# run by the kernel's run_kselftest.sh in a patched guest, with a short
# load stress.  The guest has none of the lab's disks: the tests make
# loop devices, as on a developer's machine, over files in the guest's
# /tmp, a tmpfs of half its memory (4G: room for two full 1G disks).
kselftest_target()
{
	local tree=$WBSYNC_TOP/output/kselftest-tree inst=$WBSYNC_TOP/output/kselftest

	rm -rf "$tree" "$inst"
	mkdir -p "$tree/tools/testing" "$tree/scripts" &&
		cp -a "$ksrc/tools/testing/selftests" "$tree/tools/testing/" &&
		cp "$ksrc/scripts/subarch.include" "$tree/scripts/" &&
		cp -a "$WBSYNC_TOP/selftests" "$tree/tools/testing/selftests/wbsync" &&
		make -s -C "$tree/tools/testing/selftests" KDIR="${kdir[patched]}" \
			TARGETS="wbsync wbsync/wait_inodes wbsync/integrity" \
			INSTALL_PATH="$inst" install >"$out/kselftest-install.log" 2>&1 ||
		{ cat "$out/kselftest-install.log"; return 1; }
	vm_run --quiet --accel tcg-single --kernel "${kdir[patched]}" \
		--out "$out/kselftest" --mem 4G --timeout 1800 -- \
		env WBSYNC_MODULE="${module[patched]}" WBSYNC_STRESS_LOADS=3 \
		"$WBSYNC_TOP/scripts/guest-tests" "$inst/run_kselftest.sh"
}
kselftest()
{
	local rc

	[ -n "${kdir[patched]:-}" ] && [ "$debug" = 0 ] && [ "$quick" = 0 ] || return 0
	kselftest_target
	rc=$?
	guest_status "$rc" "$out/kselftest" kselftest
	log "kselftest target: $(cat "$out/kselftest/vm-run.status")"
}

# The integrity crash test.  make check: one cycle of each mode on ext4
# (shared layout: two filesystems on one disk's bdi; its nosync mode is
# the control that must lose files), sync(2) and syncfs(2) with both
# filesystems hooked by the ->wait_inodes() test user, and a power cut
# (dm-log-writes) when sync(2) returns on each of $CHECK_POWERCUT_FS.
# make full-check adds every mode on vfat and xfs and with dm-flakey on
# two disks, and exfat, ext2, udf and minix, whose inode writes the
# for_sync patches leave to the block device sync.  make soak runs
# vanilla's.
# Two guests at a time: one guest leaves a core idle much of the time.
# The naive fixture needs a third kernel build: make naive-check.
integrity()
{
	local name=$1 k=$2

	shift 2
	[ -n "${boot[$k]:-}" ] || return 0
	set -- "$@" $CHECK_INTEGRITY_ARGS
	# shellcheck disable=SC2086
	set -- ${boot[$k]} "$@"
	# "--kernel DIR" or "--kernel IMAGE --initrd FILE"
	if [ "$3" = --initrd ]; then
		set -- --boot "$2" --initrd "$4" "${@:5}"
	else
		shift 2
	fi
	KSRC=$ksrc "$WBSYNC_TOP/scripts/integrity.sh" "${kdir[$k]}" \
		"$@" --out "$out/integrity-$name" >"$out/integrity-$name.tap" 2>&1
	log "integrity $name: $(tail -n 1 "$out/integrity-$name.tap")"
}
# The runs: "GROUP NAME KERNEL integrity.sh-options", groups a and b
# in two guests at a time.
if [ "$quick" = 1 ]; then
	integrity_runs=("a patched-ext4 patched --modes sync")
elif [ "$debug" = 1 ]; then
	integrity_runs=("a patched-ext4 patched --modes all"
			"a patched-vfat patched --fs vfat --modes all"
			"a patched-wait-user patched --wait-user --modes sync,syncfs"
			"b patched-xfs patched --fs xfs --modes all"
			"b patched-flakey patched --layout flakey --modes all")
elif [ "$full" = 0 ]; then
	integrity_runs=("a patched-ext4 patched --cycles $CHECK_INTEGRITY_CYCLES --modes all"
			"b patched-wait-user patched --wait-user --modes sync,syncfs")
else
	integrity_runs=("a patched-ext4 patched --cycles $CHECK_INTEGRITY_CYCLES --modes all"
			"a patched-vfat patched --fs vfat --modes all"
			"a patched-exfat patched --fs exfat --modes sync,syncfs"
			"b patched-xfs patched --fs xfs --modes all"
			"b patched-flakey patched --layout flakey --modes all"
			"b patched-wait-user patched --wait-user --modes sync,syncfs"
			"b patched-ext2 patched --fs ext2 --modes sync"
			"b patched-udf patched --fs udf --modes syncfs"
			"b patched-minix patched --fs minix --modes sync")
fi
if [ "$quick" = 0 ] && [ "$debug" = 0 ]; then
	# make check: beside the ext4 run's four modes; make full-check: both groups.
	g=b
	for f in $CHECK_POWERCUT_FS; do
		integrity_runs+=("$g patched-powercut-$f patched --layout logwrites --fs $f --modes sync")
		[ "$full" = 0 ] || { [ "$g" = a ] && g=b || g=a; }
	done
	log "power-cut runs on $CHECK_POWERCUT_FS"
fi
integrity_group()
{
	local r

	for r in "${integrity_runs[@]}"; do
		# shellcheck disable=SC2086
		[ "${r%% *}" != "$1" ] || integrity ${r#* }
	done
}
# Three single-threaded guests, one host thread each, and the lab's tests
# on the host; make quick's one crash cycle runs beside its one selftest
# guest.
log "selftests in a vanilla and a patched guest, and as a kselftest target"
selftests vanilla >"$out/selftests-vanilla.log" 2>&1 &
selftests patched >"$out/selftests-patched.log" 2>&1 &
if [ "$quick" = 1 ]; then
	integrity_group a &
else
	kselftest >"$out/kselftest.log" 2>&1 &
fi
lab_test
wait
cat "$out/selftests-vanilla.log" "$out/selftests-patched.log" "$out/kselftest.log" \
	"$out/lab_test.tap" 2>/dev/null
[ ! -f "$out/lab_test.tap" ] || taps+=("$out/lab_test.tap")
for k in vanilla patched; do
	[ -n "${boot[$k]:-}" ] || continue
	for p in "${guest_progs[@]}"; do
		taps+=("$out/$k/${p##*/}.tap")
	done
	# a guest that failed without TAP
	[ ! -f "$out/$k/guest.tap" ] || taps+=("$out/$k/guest.tap")
done
if [ -n "${kdir[patched]:-}" ] && [ "$debug" = 0 ] && [ "$quick" = 0 ]; then
	taps+=("$out/kselftest/run_kselftest.sh.tap")
	[ ! -f "$out/kselftest/guest.tap" ] || taps+=("$out/kselftest/guest.tap")
fi

if [ "$quick" = 0 ]; then
	log "integrity crash test: ${#integrity_runs[@]} runs in two guests at a time"
	integrity_group a &
	integrity_group b &
	wait
fi
for r in "${integrity_runs[@]}"; do
	r=${r#* } k=${r#* }
	[ -z "${boot[${k%% *}]:-}" ] || taps+=("$out/integrity-${r%% *}.tap")
done

if [ "$debug" = 1 ]; then
	# fstests: one result per test, and one for the guest (its exit
	# status is not 0 when the console has a kernel report).
	log "fstests on ext4 on the debug kernel"
	# shellcheck disable=SC2086
	"$WBSYNC_TOP/scripts/fstests.sh" -k patched -f ext4 -o "$out/fstests" \
		${DEBUG_FSTESTS_ARGS:-} >"$out/fstests.log" 2>&1
	if read -r rc _ 2>/dev/null <"$out/fstests/patched-ext4.status" && [ -f "$out/fstests/results.txt" ]; then
		mapfile -t rows < <(awk '{ print ($3 == "pass" || $3 == "notrun" ? "ok" : "not ok") "|fstests " $1 " on " $2 \
			($3 == "notrun" ? " # SKIP not run" : $3 == "pass" ? "" : " (" $3 ")") }' "$out/fstests/results.txt")
		r=ok && [ "$rc" = 0 ] || r="not ok"
		tap_all "${rows[@]}" "$r|fstests guest: no kernel report (vm-run exit status $rc)"
	else
		tap_all "not ok|fstests on the debug kernel ran (see $out/fstests.log)"
	fi >"$out/fstests.tap"
	taps+=("$out/fstests.tap")
	log "fstests: $(grep -c '^ok' "$out/fstests.tap") ok, $(grep -c '^not ok' "$out/fstests.tap") not ok"
fi

if [ -n "${boot[vanilla]:-}" ] && [ -n "${boot[patched]:-}" ] && [ "$full" = 1 ]; then
	log "sync report, short mode, one run (its timings do not fail the check)"
	"$WBSYNC_TOP/scripts/sync-report.sh" --short -r 1 -s -p "$CHECK_PROFILE" -c "kernel wbsync" \
		-o "$out/report"
fi

echo
# The closing line, also kept in output/check/summary for README's reader,
# after what ran and how long it took.
{
	echo "# $(date -u '+%F %H:%M') UTC, series: $(series_files | wc -l) patches" \
		"($(series_files | hash_files)), $((SECONDS / 60)) min"
	"$WBSYNC_TOP/scripts/tap-summary" "${taps[@]}"
} | tee "$out/summary"
exit "${PIPESTATUS[0]}"
