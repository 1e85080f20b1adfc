#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the lab itself (KTAP): the console scanner on fixture logs, the
# TAP summary, prepare-tree.sh's handling of a series, and vm-run's exit
# status, timeout and bad-input handling; the report's trace account and
# layout, and results.sh's rendering of the results of record.
#
# Needs KSRC (a tree from prepare-tree.sh, for ktap_helpers.sh) and
# KERNEL (a build directory from build-kernel.sh).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"
fixtures=$top/scripts/tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# No QEMU process of ours may outlive vm-run.
no_qemu_left()
{
	! pgrep -f "qemu-system.*$tmp" >/dev/null
}

# expect_error DESCRIPTION PATTERN CMD...: CMD fails with a one-line error
# that matches PATTERN, and leaves no QEMU behind.
expect_error()
{
	local desc=$1 pattern=$2 rc
	shift 2
	"$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	if [ $rc != 0 ] && [ "$(wc -l <"$tmp/stderr")" = 1 ] &&
	   grep -q -- "$pattern" "$tmp/stderr" && no_qemu_left; then
		ktap_test_pass "$desc"
	else
		ktap_print_msg "exit $rc, stderr: $(cat "$tmp/stderr")"
		ktap_test_fail "$desc"
	fi
}

# expect_status DESCRIPTION STATUS PATTERN CMD...: CMD exits with STATUS, a
# message on stderr matches PATTERN, and no QEMU is left behind.
expect_status()
{
	local desc=$1 status=$2 pattern=$3 rc
	shift 3
	"$@" >/dev/null 2>"$tmp/stderr"
	rc=$?
	if [ $rc = "$status" ] && grep -q -- "$pattern" "$tmp/stderr" && no_qemu_left; then
		ktap_test_pass "$desc"
	else
		ktap_print_msg "exit $rc: $(cat "$tmp/stderr")"
		ktap_test_fail "$desc"
	fi
}

vm=("$top/scripts/vm-run" --kernel "$KERNEL" --quiet)

ktap_print_header
ktap_set_plan 83

# Console scanner.
ktap_test_result "scan-console passes a clean log" \
	"$top/scripts/scan-console" "$fixtures/clean.log"
for f in warning kasan kcsan kcsan-assert lockdep hung-task kmemleak oops; do
	"$top/scripts/scan-console" "$fixtures/$f.log" >"$tmp/report"
	rc=$?
	if [ $rc = 1 ] && grep -q 'kernel report 1' "$tmp/report"; then
		ktap_test_pass "scan-console reports $f"
	else
		ktap_test_fail "scan-console reports $f (exit $rc)"
	fi
done
# The report's account of who wrote what during a sync (the fixture's
# header has the expected numbers).
account_ok()
{
	[ "$("$top/selftests/writeback_account.sh" "$fixtures/writeback.trace")" = \
		"pass_bytes=4096000 kick_bytes=8192000 background_bytes=3252224 periodic_bytes=409600 other_wb_bytes=1228800 passes_seconds=1.360 meta_bytes=12288" ]
}
ktap_test_result "writeback_account.sh counts each work's rounds per wb, by who queued it, and the REQ_META writes" account_ok
# A pass of 600000 pages (2.4 GB) with Debian's default awk, mawk, whose
# %d stops at 2^31 - 1.
account_big_ok()
{
	local pre="    kworker/u8:1-30      [001] ....." sfx="sync_mode=1 kupdate=0 range_cyclic=0 background=0 reason=sync cgroup_ino=1"

	mkdir -p "$tmp/mawk" && ln -sf "$(command -v mawk || command -v awk)" "$tmp/mawk/awk" &&
	printf '%s 10.000000: writeback_start: bdi 254:0: sb_dev 254:0 nr_pages=9223372036854775807 %s\n%s 12.500000: writeback_written: bdi 254:0: sb_dev 254:0 nr_pages=9223372036854175807 %s\n' \
		"$pre" "$sfx" "$pre" "$sfx" >"$tmp/big.trace" &&
	[ "$(PATH=$tmp/mawk:$PATH "$top/selftests/writeback_account.sh" "$tmp/big.trace")" = \
		"pass_bytes=$((600000 * $(getconf PAGESIZE))) kick_bytes=0 background_bytes=0 periodic_bytes=0 other_wb_bytes=0 passes_seconds=2.500 meta_bytes=0" ]
}
ktap_test_result "writeback_account.sh counts past 2^31 bytes with mawk" account_big_ok
expect_error "writeback_account.sh refuses a missing trace" "usage: writeback_account.sh" \
	"$top/selftests/writeback_account.sh" "$tmp/no-such-trace"
# The busiest disk's idle time within the sync, and of it the time no
# work was queued for its bdi (the fixture's comment has the sums).
idle_ok()
{
	local line

	line=$("$top/selftests/writeback_account.sh" -d 254:16 "$fixtures/disk-idle.trace") &&
		[ "${line#* meta_bytes=0 }" = "disk_idle_seconds=0.950 disk_idle_unqueued_seconds=0.600" ]
}
ktap_test_result "writeback_account.sh -d: a disk's idle time in the sync, and of it with nothing queued" idle_ok
expect_error "writeback_account.sh -d refuses a device that is not MAJ:MIN" "usage: writeback_account.sh" \
	"$top/selftests/writeback_account.sh" -d vdb "$fixtures/disk-idle.trace"
# The kcsan variant: data races are summed by kcsan-report, not failed on;
# KCSAN's assertions still fail.
races_ok()
{
	"$top/scripts/scan-console" --no-data-races "$fixtures/kcsan.log" >/dev/null &&
		! "$top/scripts/scan-console" --no-data-races "$fixtures/kcsan-assert.log" >/dev/null
}
ktap_test_result "scan-console --no-data-races passes data races, not assertions" races_ok
kcsan_report_ok()
{
	"$top/scripts/kcsan-report" -b "$KERNEL" "$fixtures/kcsan.log" >"$tmp/kcsan.md" &&
		grep -q '^KCSAN: 3 data-race reports, 2 distinct races' "$tmp/kcsan.md" &&
		grep -qx '| __mark_inode_dirty / writeback_sb_inodes | fs/fs-writeback.c / fs/fs-writeback.c | 2 | 1 |' \
			"$tmp/kcsan.md" &&
		grep -q '^### __mark_inode_dirty / writeback_sb_inodes (2 reports)' "$tmp/kcsan.md" &&
		! grep -q '^### blk_mq' "$tmp/kcsan.md"
}
ktap_test_result "kcsan-report sums races per function and source file" kcsan_report_ok

# TAP summary: a result a plan promised but never came is a failure.
printf 'TAP version 13\n1..3\nok 1 a\nok 2 b # SKIP no disk\n' >"$tmp/short.tap"
"$top/scripts/tap-summary" "$tmp/short.tap" >"$tmp/sum"
if [ $? = 1 ] && grep -qx '1 passed, 1 failed, 1 skipped' "$tmp/sum"; then
	ktap_test_pass "tap-summary counts missing results as failed"
else
	ktap_test_fail "tap-summary counts missing results as failed"
fi

# A test that skipped as a whole ("1..0 # SKIP", exit 4) is one skip.
printf 'TAP version 13\n1..0 # SKIP no disk in WBSYNC_DISKS\n' >"$tmp/skipped.tap"
printf 'TAP version 13\n1..1\nok 1 a\n' >"$tmp/one.tap"
if "$top/scripts/tap-summary" "$tmp/skipped.tap" "$tmp/one.tap" >"$tmp/sum" &&
   grep -qx '1 passed, 0 failed, 1 skipped' "$tmp/sum"; then
	ktap_test_pass "tap-summary counts a test skipped as a whole as one skip"
else
	ktap_print_msg "$(cat "$tmp/sum")"
	ktap_test_fail "tap-summary counts a test skipped as a whole as one skip"
fi

# A results file that never came (a step that did not run), or came empty.
: >"$tmp/empty.tap"
"$top/scripts/tap-summary" "$tmp/one.tap" "$tmp/empty.tap" "$tmp/never.tap" >"$tmp/sum"
if [ $? = 1 ] && grep -qx '1 passed, 2 failed, 0 skipped' "$tmp/sum"; then
	ktap_test_pass "tap-summary counts a missing or empty file as a failure"
else
	ktap_print_msg "$(cat "$tmp/sum")"
	ktap_test_fail "tap-summary counts a missing or empty file as a failure"
fi

# Series handling: a series of only a cover letter is the base tree; a
# patch that does not apply is named with the failing hunk.
mkdir -p "$tmp/empty" "$tmp/bad"
printf 'Subject: [PATCH 0/0] cover\n\n*** BLURB HERE ***\n' >"$tmp/empty/0000-cover-letter.patch"
base=$(WBSYNC_SERIES=$tmp/empty "$top/scripts/prepare-tree.sh" 2>/dev/null)
if [ -n "$base" ] && [ "$(git -C "$base" rev-parse HEAD)" = "$(git -C "$base" rev-parse base)" ]; then
	ktap_test_pass "an empty series (cover letter only) gives the base tree"
else
	ktap_test_fail "an empty series (cover letter only) gives the base tree"
fi
cat >"$tmp/bad/0001-bad.patch" <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Nobody <nobody@example.com>
Subject: [PATCH] does not apply

---
diff --git a/fs/sync.c b/fs/sync.c
--- a/fs/sync.c
+++ b/fs/sync.c
@@ -1,3 +1,3 @@
-this line is not in fs/sync.c
+neither is this one
 nor this
 nor that
PATCH
WBSYNC_SERIES=$tmp/bad "$top/scripts/prepare-tree.sh" >/dev/null 2>"$tmp/stderr"
rc=$?
if [ $rc != 0 ] && grep -q '0001-bad.patch does not apply.*fs/sync.c' "$tmp/stderr"; then
	ktap_test_pass "a series that does not apply names the patch and hunk"
else
	ktap_print_msg "exit $rc: $(cat "$tmp/stderr")"
	ktap_test_fail "a series that does not apply names the patch and hunk"
fi

# Configs: the debug variant's options (lockdep, KASAN, kmemleak) all
# survive olddefconfig; an unknown variant is refused.
if WBSYNC_VARIANT=debug "$top/scripts/build-kernel.sh" --config-only vanilla 2>"$tmp/stderr"; then
	ktap_test_pass "the debug variant's config is complete"
else
	ktap_print_msg "$(cat "$tmp/stderr")"
	ktap_test_fail "the debug variant's config is complete"
fi
expect_error "build-kernel.sh refuses an unknown variant" "unknown WBSYNC_VARIANT" \
	env WBSYNC_VARIANT=fast "$top/scripts/build-kernel.sh" vanilla

expect_error "prepare-tree.sh refuses a missing patch directory" "does not exist" \
	env WBSYNC_SERIES="$tmp/no-such-dir" "$top/scripts/prepare-tree.sh"

# The ablation's partial series: $WBSYNC_PATCHES picks patches by number;
# a series that lacks some of a kernel's patches is refused, not built.
mkdir -p "$tmp/three"
for n in 0001 0002 0003; do touch "$tmp/three/$n-p.patch"; done
picked=$(WBSYNC_SERIES=$tmp/three WBSYNC_PATCHES="0001 0003" bash -c \
	'. "$1/scripts/lib.sh"; series_files' _ "$top" | sed 's|.*/||' | tr '\n' ' ')
if [ "$picked" = "0001-p.patch 0003-p.patch " ]; then
	ktap_test_pass "WBSYNC_PATCHES picks patches by number"
else
	ktap_test_fail "WBSYNC_PATCHES picks patches by number (got '$picked')"
fi
# patched-NNNN: the series without patch NNNN, which must exist.
left=$(WBSYNC_SERIES=$tmp/three WBSYNC_PATCHES=0001 bash -c \
	'. "$1/scripts/lib.sh"; kernel_patches patched-0002' _ "$top")
if [ "$left" = "0001 0003" ]; then
	ktap_test_pass "patched-NNNN is the whole series but patch NNNN"
else
	ktap_test_fail "patched-NNNN is the whole series but patch NNNN (got '$left')"
fi
# The ablation boots for_sync only where it changes the sync: that list
# must follow the series, the fs/ directories its patches change.
changes=$(bash -c '. "$1/scripts/lib.sh"
	for n in $(kernel_patches for_sync); do
		[[ " $WBSYNC_FIXES " = *" $n "* ]] && continue
		sed -n "s|^+++ b/fs/\([a-z0-9]*\)/.*|\1|p" "$1"/patches/$n-*.patch
	done | sed "s|^fat$|vfat|" | sort -u
	for f in ext4 xfs vfat exfat ext2 udf minix; do
		kernel_changes_fs for_sync $f && echo "$f"
	done' _ "$top" | sort | uniq -u)
if [ -z "$changes" ]; then
	ktap_test_pass "the ablation boots for_sync where its patches change the sync"
else
	ktap_test_fail "the ablation boots for_sync where its patches change the sync (differ: ${changes//$'\n'/, })"
fi
# v6 is for_sync with the fixture's patches, which must apply.
v6=$(bash -c '. "$1/scripts/lib.sh"; kernel_extra_patches v6 | wc -l; kernel_patches v6' _ "$top" | paste -sd " ")
if [[ "$v6" = "8 0001 "*" 0018" ]]; then
	ktap_test_pass "v6 is patches 1-18 and the fixture's 8 patches"
else
	ktap_test_fail "v6 is patches 1-18 and the fixture's 8 patches (got '$v6')"
fi
expect_error "sync-report.sh refuses patched-NNNN of a patch not in the series" \
	"unknown kernel 'patched-0099'" \
	"$top/scripts/sync-report.sh" -k "vanilla patched-0099 patched"
expect_error "build-kernel.sh refuses a series without the ablation kernel's patches" \
	"for_sync is patches .* has 0 of them" \
	env WBSYNC_SERIES="$tmp/empty" "$top/scripts/build-kernel.sh" for_sync
expect_error "build-kernel.sh refuses an unknown kernel" "usage: build-kernel.sh" \
	"$top/scripts/build-kernel.sh" nightly
expect_error "sync-report.sh refuses an unknown kernel" "unknown kernel 'nightly'" \
	"$top/scripts/sync-report.sh" -k "vanilla nightly patched"
expect_error "sync-report.sh refuses an unknown workaround" "unknown workaround 'nope'" \
	"$top/scripts/sync-report.sh" -k "vanilla vanilla/nope patched"
expect_error "sync-report.sh refuses a workaround without its kernel" "vanilla/syncfs needs vanilla" \
	"$top/scripts/sync-report.sh" -k "vanilla/syncfs patched"
expect_error "sync-report.sh refuses kernels without patched" "must include patched" \
	"$top/scripts/sync-report.sh" -k "vanilla for_sync"

# The report says why the patched sync wrote more than its data (fixture
# results: background writeback on ext4 x4 and exfat, where the passes
# also select post-call inodes; the kick on ext4 x2s; xfs within 1.2 of
# the rate bound), and splits the journal (REQ_META) from the other
# writes where the runs counted it (not exfat's).
why_ok()
{
	local md=$tmp/sync-report/report.md

	cp -r "$fixtures/report" "$tmp/sync-report" &&
	"$top/scripts/sync-report.sh" -R "$tmp/sync-report" >/dev/null 2>&1 &&
	grep -A1 '^- ext4, 4: 1.42 times' "$md" | grep -q 'background and kupdate writeback wrote more than sync(2).s kick (399 against 17 MB)' &&
	grep -A1 '^- ext4, 2 on one disk: 1.50 times' "$md" | grep -q 'kick wrote more than background and kupdate writeback (250 against 50 MB)' &&
	grep -q '^- xfs, 4: 1.11 times the rate bound: within 1.2.$' "$md" &&
	[ "$(grep -c 'Why it remains' "$md")" = 3 ] &&
	grep -q '^| ext4 | 4 | patched | 6.80 | 5.40 | 404 | 567 | 98 | 17 | 399 | 0 | 40 | 13 | 110 | 0 |$' "$md" &&
	grep -q '^| exfat | 4 | patched | 84.00 | 80.00 | 300 | 600 | 500 | 10 | 20 | 0 | - | 70 | 230 | 0 |$' "$md" &&
	grep -q '^- ext4, 4: .* 40 MB of journal (REQ_META), 13 MB of other writes' "$md"
}
ktap_test_result "the report splits out the journal, says who wrote the post-call data and whether sync(2) needs it" why_ok

# The report opens with its table; after the tables, a legend of at most
# 8 lines that points to lab.rst, the kernels of the run's meta in it.
layout_ok()
{
	local md=$tmp/sync-report/report.md

	[ "$(sed -n 3p "$md")" = "| fs | busy fs | vanilla | patched | vanilla/patched | bound | patched/bound | rate bound | patched/rate bound | CPU idle, disk busy, held, host disk busy (vanilla; patched) |" ] &&
	[ "$(awk '/^\|/ { t = 1; next } t && /^- / { n++ } t && /^##/ { exit } END { print n }' "$md")" -le 8 ] &&
	grep -qx -- '- Kernels: base 6.12.118-1~deb12u1, series 0123456789abcdef (14 patches); vanilla is not run.' "$md" &&
	grep -qx -- '- Definitions: Documentation/lab.rst, "The rate bound" and "The regime".' "$md" &&
	grep -q 'Documentation/lab.rst, "Who wrote what".$' "$md"
}
ktap_test_result "the report opens with its table, then a legend of at most 8 lines that points to lab.rst" layout_ok

# A cell's own disk profile (-f FSTYPE:NR:SECONDS:PROFILE, make demo's
# vfat and exfat on sdcard disks) is in the report's legend, which -R
# renders from params; a bad one is refused by name.  Without a meta
# (a run before it), the base and series are the tree's.
cell_profile_ok()
{
	local d=$tmp/sync-report-profile

	cp -r "$fixtures/report" "$d" && rm "$d/meta" &&
	printf 'declare -- %s\n' 'cell_profiles="exfat x4: sdcard"' \
		'cell_dirty="exfat x4: 64 MiB"' >>"$d/params" &&
	"$top/scripts/sync-report.sh" -R "$d" >/dev/null 2>&1 &&
	grep -q '; disks: usb (exfat x4: sdcard); dirty limit exfat x4: 64 MiB (background writeback at half), elsewhere the default\.$' "$d/report.md" &&
	grep -qE '^- Kernels: base [^ ]+, series [0-9a-f]{16} \([0-9]+ patches\); ' "$d/report.md"
}
ktap_test_result "a cell's own disk profile and dirty limit are in the report's legend" cell_profile_ok
# The CPU-bound mark from the trace: exfat's runs, 0 % CPU idle and 80 %
# busy (marked by the old rule), their ~84 s idle 17 s in the trace, as
# io_ticks says: with 15.3 s of it unqueued the disk was held 2 %, with
# 6.6 s 12 %.  A trace idle 1 s, where io_ticks says 20 %, is not used.
held_ok()
{
	local d=$tmp/sync-report-held

	cp -r "$fixtures/report" "$d" &&
	awk -F'\t' -v OFS='\t' '$2 == "exfat" { $25 = 17; $26 = 15.3 } 1' \
		"$fixtures/report/results.tsv" >"$d/results.tsv" &&
	"$top/scripts/sync-report.sh" -R "$d" >/dev/null 2>&1 &&
	grep -q '^| exfat | 4 | .* | -; 0 %, 80 %, held 2 %, host 1 % |$' "$d/report.md" &&
	awk -F'\t' -v OFS='\t' '$2 == "exfat" { $25 = 17; $26 = 6.6 } 1' \
		"$fixtures/report/results.tsv" >"$d/results.tsv" &&
	"$top/scripts/sync-report.sh" -R "$d" >/dev/null 2>&1 &&
	grep -q '^| exfat | 4 | .* | -; 0 %, 80 %, held 12 %, host 1 % (CPU-bound) |$' "$d/report.md" &&
	awk -F'\t' -v OFS='\t' '$2 == "exfat" { $25 = 1; $26 = 1 } 1' \
		"$fixtures/report/results.tsv" >"$d/results.tsv" &&
	"$top/scripts/sync-report.sh" -R "$d" >/dev/null 2>&1 &&
	grep -q '^| exfat | 4 | .* | -; 0 %, 80 %, host 1 % (CPU-bound) |$' "$d/report.md"
}
ktap_test_result "the report marks a cell CPU-bound when its busiest disk sat idle with work queued" held_ok

# results.sh renders the results of record (here the fixture report as
# one, with vanilla runs twice as long in the cell ext4 x4): generated,
# says by what, the run's meta, then per cell and kernel (in -k order)
# the sync seconds, vanilla's median over the kernel's, the sync over
# its rate bound and the regime, as sync-report.sh -R computes them.
results=$tmp/results-of-record
readme=$tmp/README
printf 'wbsync\n\n[results.sh] begin\nold table\n[results.sh] end\n\nmore\n' >"$readme"
# shellcheck disable=SC2016
results_ok()
{
	local r=$results/sync-under-load rst=$tmp/results.rst

	mkdir -p "$results" && cp -r "$fixtures/report" "$r" &&
	awk -F'\t' -v OFS='\t' '{ print } $1 == "patched" && $2 == "ext4" && $3 == 4 { $1 = "vanilla"; $5 *= 2; print }' \
		"$fixtures/report/results.tsv" >"$r/results.tsv" &&
	sed -i 's/^declare -- kernels=.*/declare -- kernels="vanilla patched"/' "$r/params" &&
	"$top/scripts/results.sh" -d "$results" --rst "$rst" --readme "$readme" --headline sync-under-load &&
	sed -n 3p "$rst" | grep -q '^\.\. Generated by scripts/results\.sh from results/: do not edit' &&
	grep -qx 'Results of record' "$rst" && grep -qx 'sync(2) under load: vanilla vs patched (sync-under-load)' "$rst" &&
	grep -qxF ':Command: ``scripts/sync-report.sh -f exfat:4\ ext4:4\ ext4:2s\ xfs:4 -k patched -o results/sync-under-load``' "$rst" &&
	grep -qx ':Date: 2025-01-01 00:00 UTC' "$rst" && grep -qx ':Series: 0123456789abcdef (14 patches)' "$rst" &&
	grep -qx ':Base: Debian linux-source-6.12 6.12.118-1~deb12u1' "$rst" &&
	grep -A1 -E '^ext4 +4 +vanilla +3 +12\.24 / 13\.60 / 14\.96 +1\.00x +2\.83x +67 +100 +\\-$' "$rst" |
		grep -qE '^ext4 +4 +patched +3 +6\.12 / 6\.80 / 7\.48 +2\.00x +1\.42x +67 +100 +\\-$' &&
	grep -qE '^ext4 +2 on one disk +patched +3 +27\.00 / 30\.00 / 33\.00 +\\- +1\.50x +85 +90 +\\-$' "$rst" &&
	# README: the markers stay, the table replaces what was between them
	! grep -q 'old table' "$readme" && grep -qx 'more' "$readme" &&
	[ "$(grep -c '^\[results.sh\]' "$readme")" = 2 ] &&
	grep -qx 'sync(2) under load: vanilla vs patched (sync-under-load):' "$readme" &&
	grep -qE '^  ext4 +4 +patched +6\.12 / 6\.80 / 7\.48 +2\.00x +1\.42x$' "$readme"
}
ktap_test_result "results.sh renders each run of record, and README's table between its markers" results_ok
# --check passes on what it wrote, and fails (exit 1) once the file or
# the results change.
results_check_ok()
{
	local rst=$tmp/results.rst

	"$top/scripts/results.sh" --check -d "$results" --rst "$rst" --readme "$readme" --headline sync-under-load 2>"$tmp/stderr" || return 1
	sed -i 's/1\.50x/1.60x/' "$rst"
	"$top/scripts/results.sh" --check -d "$results" --rst "$rst" --readme "$readme" --headline sync-under-load 2>"$tmp/stderr"
	[ $? = 1 ] && grep -q 'is not what results/ gives: run scripts/results.sh' "$tmp/stderr" || return 1
	"$top/scripts/results.sh" -d "$results" --rst "$rst" --readme "$readme" --headline sync-under-load &&
	"$top/scripts/results.sh" --check -d "$results" --rst "$rst" --readme "$readme" --headline sync-under-load 2>/dev/null || return 1
	sed -i 's/2\.00x/2.10x/' "$readme"
	"$top/scripts/results.sh" --check -d "$results" --rst "$rst" --readme "$readme" --headline sync-under-load 2>"$tmp/stderr"
	[ $? = 1 ] && grep -q "README's table is not what results/ gives" "$tmp/stderr" || return 1
	"$top/scripts/results.sh" -d "$results" --rst "$rst" --readme "$readme" --headline sync-under-load || return 1
	awk -F'\t' -v OFS='\t' 'NR == 2 { $5 = 99 } 1' "$results/sync-under-load/results.tsv" >"$tmp/tsv" &&
		mv "$tmp/tsv" "$results/sync-under-load/results.tsv" || return 1
	"$top/scripts/results.sh" --check -d "$results" --rst "$rst" --readme "$readme" --headline sync-under-load 2>/dev/null
	[ $? = 1 ]
}
ktap_test_result "results.sh --check fails when the file, README's table or the results of record changed" results_check_ok
# shellcheck disable=SC2016
results_empty_ok()
{
	mkdir -p "$tmp/no-results" &&
	"$top/scripts/results.sh" -d "$tmp/no-results" --rst "$tmp/results-empty.rst" --readme "$readme" &&
	grep -qx 'No run is recorded yet: ``results/`` holds no run.s files.' "$tmp/results-empty.rst"
}
ktap_test_result "results.sh says when no run is recorded" results_empty_ok
# A run of powercut.sh (the fixture: vanilla and fixes, ext4 and vfat):
# a section with its meta and its table, per mode and kernel, of the
# cycles that kept and lost data, with fs2's intact files when lost.
# shellcheck disable=SC2016
results_powercut_ok()
{
	local r=$tmp/results-powercut-dir rst=$tmp/results-powercut.rst

	mkdir -p "$r" && cp -r "$fixtures/powercut" "$r/" &&
	"$top/scripts/results.sh" -d "$r" --rst "$rst" --readme "$readme" &&
	grep -qx 'Power cut when sync(2) or syncfs(2) returns' "$rst" &&
	grep -qxF ':Command: ``scripts/powercut.sh -k vanilla\ fixes -f ext4\ vfat -o results/powercut``' "$rst" &&
	grep -qxF ':Cycles: 2 a cell (a boot each) of scripts/integrity.sh --layout logwrites --files 400 --budget 32, disk profile none.' "$rst" &&
	grep -qE '^fs +sync, vanilla +sync, fixes +syncfs, vanilla +syncfs, fixes$' "$rst" &&
	grep -qE '^ext4 +kept 2/2 +kept 2/2 +kept 2/2 +kept 2/2$' "$rst" &&
	grep -qE '^vfat +lost 1/2 \(fs2 intact: 0 of 400\); error 1/2 +kept 2/2 +lost 2/2 \(fs2 intact: 12, 0 of 400\) +lost 1/2 \(fs2 intact: 399 of 400\); kept 1/2$' "$rst" &&
	! grep -q 'Power cut' "$readme"
}
ktap_test_result "results.sh renders a power-cut run's table, not in README" results_powercut_ok
# Both build under Sphinx without a warning (beside a stand-in lab.rst).
results_sphinx_ok()
{
	local d=$tmp/docs f

	for f in results results-empty results-powercut; do
		mkdir -p "$d/$f" && cp "$tmp/$f.rst" "$d/$f/results.rst" || return 1
		echo "master_doc = 'index'" >"$d/$f/conf.py"
		printf 'Index\n=====\n\n.. toctree::\n\n   results\n   lab\n   testing\n' >"$d/$f/index.rst"
		printf 'wbsync lab\n==========\n' >"$d/$f/lab.rst"
		printf 'Testing\n=======\n' >"$d/$f/testing.rst"
		if ! sphinx-build -q -W -b html -d "$d/$f.doctrees" "$d/$f" "$d/$f.html" >"$tmp/sphinx.log" 2>&1; then
			ktap_print_msg "$(cat "$tmp/sphinx.log")"
			return 1
		fi
	done
}
if command -v sphinx-build >/dev/null; then
	ktap_test_result "results.sh's file builds under Sphinx without warnings" results_sphinx_ok
else
	ktap_test_skip "results.sh's file builds under Sphinx without warnings (no sphinx-build)"
fi
expect_error "sync-report.sh refuses a cell's unknown disk profile" "unknown disk profile 'floppy'" \
	"$top/scripts/sync-report.sh" -f vfat:4:5:floppy
expect_error "sync-report.sh refuses a cell's dirty limit that is not a number of MiB" \
	"a cell's dirty limit is a number of MiB (1 to 999999), not '64M'" \
	"$top/scripts/sync-report.sh" -f vfat:4:5:sdcard:64M
expect_error "sync-report.sh refuses a cell given twice" "the cell vfat:4 is given twice" \
	"$top/scripts/sync-report.sh" -f "vfat:4:5:sdcard vfat:4:15:sdcard"
# The tests' save and restore of the dirty limits, on files standing for
# /proc/sys/vm: the limit in force of each pair back, a 0/0 pair refused.
dirty_limits_ok()
{
	local d=$tmp/vm

	mkdir -p "$d" && printf '%s\n' 0 >"$d/dirty_ratio" && printf '%s\n' 67108864 >"$d/dirty_bytes" &&
	printf '%s\n' 10 >"$d/dirty_background_ratio" && printf '%s\n' 0 >"$d/dirty_background_bytes" &&
	(
		DIRTY_LIMITS_DIR=$d
		. "$top/selftests/dirty_limits.sh"
		save_dirty_limits || exit 1
		echo 5 >"$d/dirty_bytes" && echo 7 >"$d/dirty_background_ratio" &&
		restore_dirty_limits &&
		[ "$(cat "$d/dirty_bytes")" = 67108864 ] && [ "$(cat "$d/dirty_background_ratio")" = 10 ] &&
		[ "$(cat "$d/dirty_ratio")" = 0 ] && [ "$(cat "$d/dirty_background_bytes")" = 0 ] &&
		echo 0 >"$d/dirty_background_ratio" && ! save_dirty_limits
	)
}
ktap_test_result "dirty_limits.sh restores the limit in force of each pair and refuses a 0/0 pair" dirty_limits_ok
expect_error "sync_busy.sh refuses a dirty limit of 0 before it touches a disk or sysctl" \
	"-d must be a number of MiB (1 to 999999), not '0'" \
	"$top/selftests/sync_busy.sh" -d 0

# make dkms-tree: exactly the tracked Kbuild, dkms.conf and module/, which
# build against the kernel as DKMS builds them.
dkms_tree_ok()
{
	local t=$tmp/dkms/wbsync-test

	make -s -C "$top" dkms-tree DKMS_TREE="$t" >/dev/null || return 1
	diff <(cd "$t" && find . -type f | sed 's|^\./||' | sort) \
	     <(git -C "$top" ls-files Kbuild dkms.conf module | sort) || return 1
	make -s -C "$KERNEL" M="$t" >"$tmp/dkms.log" 2>&1 && [ -f "$t/module/wbsync.ko" ] ||
		{ ktap_print_msg "$(tail -n 5 "$tmp/dkms.log")"; return 1; }
}
ktap_test_result "make dkms-tree: the tracked module sources only, and they build" dkms_tree_ok

# What a user then runs: dkms add, build and remove of that tree, in DKMS
# trees of its own (--dkmstree, --sourcetree, --installtree) so that the
# machine's /var/lib/dkms and /lib/modules stay as they were.
dkms_ok()
{
	local d=$tmp/dkms kver dkms before

	kver=$(cat "$KERNEL/include/config/kernel.release") || return 1
	mkdir -p "$d/var" "$d/install"
	dkms=(dkms --dkmstree "$d/var" --sourcetree "$d/src" --installtree "$d/install")
	make -s -C "$top" dkms-tree DKMS_TREE="$d/src/wbsync-$version" >/dev/null || return 1
	before=$(ls -A /var/lib/dkms 2>/dev/null)
	"${dkms[@]}" add "wbsync/$version" >"$tmp/dkms.log" 2>&1 &&
		"${dkms[@]}" build "wbsync/$version" -k "$kver" --kernelsourcedir "$KERNEL" \
			>>"$tmp/dkms.log" 2>&1 &&
		"${dkms[@]}" status "wbsync/$version" 2>&1 | grep -q "$kver.*: built" &&
		[ -f "$d/var/wbsync/$version/$kver/x86_64/module/wbsync.ko" ] &&
		"${dkms[@]}" remove "wbsync/$version" --all >>"$tmp/dkms.log" 2>&1 &&
		[ ! -e "$d/var/wbsync" ] && [ "$(ls -A /var/lib/dkms 2>/dev/null)" = "$before" ] ||
		{ ktap_print_msg "$(tail -n 5 "$tmp/dkms.log")"; return 1; }
}
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
ktap_test_result "dkms add, build and remove of wbsync/$version against the patched kernel" dkms_ok

# demo.sh: the report and pgbench go to their own directories; pgbench
# runs on the report's disk profile (its params) unless PGBENCH_ARGS gives
# one, and its table is appended to the report (stubs for the rest).
demo_ok()
{
	local d=$tmp/demo

	mkdir -p "$d/scripts" && cp "$top/scripts/demo.sh" "$top/scripts/lib.sh" "$d/scripts/" || return 1
	printf '#!/bin/sh\nexit 0\n' >"$d/scripts/deps.sh"
	# shellcheck disable=SC2016
	printf '#!/bin/bash\nwhile getopts p:o: o; do case $o in p) p=$OPTARG ;; o) out=$OPTARG ;; esac; done\nmkdir -p "$out" && declare -p p | sed "s/ p=/ profile=/" >"$out/params" && echo "# sync" >"$out/report.md"\n' >"$d/scripts/sync-report.sh"
	# shellcheck disable=SC2016
	printf '#!/bin/bash\necho "$*" >>"%s/pgbench.args"\nwhile [ $# -gt 1 ]; do [ "$1" != -o ] || out=$2; shift; done\nmkdir -p "$out" && echo "# pgbench" >"$out/report.md"\n' "$d" >"$d/scripts/pgbench-report.sh"
	chmod +x "$d/scripts/"*.sh
	"$d/scripts/demo.sh" -p sdcard -o "$d/elsewhere" >/dev/null 2>&1 &&
	PGBENCH_ARGS="-r 1 -p hdd" "$d/scripts/demo.sh" -p sdcard >/dev/null 2>&1 || return 1
	[ "$(cat "$d/pgbench.args")" = "-p sdcard -o $d/output/pgbench-report
-r 1 -p hdd -o $d/output/pgbench-report" ] &&
	[ "$(cat "$d/output/report/report.md")" = "# sync

## pgbench" ] && [ ! -e "$d/elsewhere" ]
}
ktap_test_result "demo.sh runs pgbench on the report's profile unless PGBENCH_ARGS gives one, and appends its table" demo_ok
# One vocabulary: every lab script answers -h with its synopsis (exit 0),
# and a bad option or argument with exit status 2.
help_ok()
{
	local f bad=0

	for f in "$top"/scripts/*.sh "$top"/scripts/vm-run "$top"/scripts/tap-summary \
		 "$top"/scripts/scan-console "$top"/scripts/kcsan-report "$top"/scripts/guest-tests \
		 "$top"/scripts/lab-commands; do
		case $f in */lib.sh|*/crash-lib.sh) continue ;; esac
		if ! timeout 30 "$f" -h 2>&1 | grep -q "${f##*/}"; then
			ktap_print_msg "${f##*/} -h: no synopsis, or a failure"
			bad=1
		fi
	done
	return $bad
}
ktap_test_result "every lab script answers -h with its synopsis" help_ok
usage_status_ok()
{
	local c bad=0 rc

	for c in "sync-report.sh -Z" "sync-report.sh -r x" "sync-report.sh -W 0" \
		 "sync-report.sh -f ext4:4:x" "sync-report.sh -f ext4:4:5:usb:64:1" "sfr-report.sh -Z" \
		 "results.sh -Z" "results.sh extra" "pgbench-report.sh -Z" "pgbench-report.sh -r 0" "pgbench-report.sh --clients x" \
		 "pgbench-report.sh -p floppy" "pgbench-report.sh extra" \
		 "pgbench-report.sh -c 16" "pgbench-report.sh -s 30" "results.sh -m README" \
		 "fstests.sh -t generic/001" "fstests.sh -r" "fstests.sh -l x generic/001" \
		 "module-stress.sh -a insmod" "integrity.sh patched -l shared" "fresh-check.sh -k" \
		 "wait-inodes-report.sh -p floppy" "module-overhead.sh -n 9" \
		 "module-stress.sh -k nightly" "fstests.sh -Z" "build-kernel.sh nightly" \
		 "integrity.sh patched --nope" "integrity.sh patched -f nofs" \
		 "holes.sh patched --hole h12" "holes.sh patched --hole h11 --fs ext4" "holes.sh patched --hole h9 --fs vfat" "holes.sh patched -p floppy" "holes.sh patched --nfs-write often" "sync-report.sh -p floppy" \
		 "check.sh --nope" "prepare-tree.sh --nope" "bisect-check.sh x" \
		 "bisect-check.sh -k nightly" "bisect-check.sh -k vanilla" "bisect-check.sh -k" \
		 "fstests.sh -T x" "fstests.sh -T 0" "integrity.sh patched -f exfat-clean" \
		 "build-module.sh" "stock-initrd.sh a b" "deps.sh --nope" "vm-run --nope" \
		 "fresh-check.sh --root relative/dir" "kcsan-report" "kcsan-report -b /nonexistent x" "kcsan-report -f fs/x.c x" \
		 "kcsan-check.sh --nope" "integrity.sh cutoff" "integrity.sh patched --layout nope" \
		 "powercut.sh -f nofs" "powercut.sh --modes nosync" "powercut.sh -k nightly" \
		 "powercut.sh --cycles 0" "powercut.sh -o"; do
		# shellcheck disable=SC2086
		timeout 30 "$top/scripts/"$c >/dev/null 2>&1
		rc=$?
		[ $rc = 2 ] || { ktap_print_msg "$c: exit status $rc, not 2"; bad=1; }
	done
	return $bad
}
ktap_test_result "bad options and arguments exit with status 2" usage_status_ok

# holes.sh, holes_test.sh and wbsync_holes (h5): bad numbers are refused
# with one line, before any build or boot.
expect_error "holes.sh refuses --bg-kb 0" "positive number" \
	"$top/scripts/holes.sh" patched --hole h5 --bg-kb 0
expect_error "holes.sh refuses a --min-reached that is not a number" "needs a number" \
	"$top/scripts/holes.sh" patched --hole h5 --min-reached x
expect_error "holes.sh refuses --min-reached above --cycles" "more than --cycles" \
	"$top/scripts/holes.sh" patched --hole h5 --cycles 2 --min-reached 3
expect_error "holes.sh refuses --min-reached without --hole h5" "is for --hole h5" \
	"$top/scripts/holes.sh" patched --hole h1 --min-reached 1
expect_error "holes_test.sh refuses --file-kb 0" "positive number" \
	"$top/selftests/integrity/holes_test.sh" crash --hole h5 --file-kb 0
expect_error "holes.sh refuses --window-ms 0" "from 1 to 15000" \
	"$top/scripts/holes.sh" patched --hole h7 --window-ms 0
expect_error "holes.sh refuses --hold-ms without --hole h7" "is for --hole h7" \
	"$top/scripts/holes.sh" patched --hole h5 --hold-ms 10
expect_error "holes_test.sh refuses --hold-ms 2000" "from 0 to 1000" \
	"$top/selftests/integrity/holes_test.sh" crash --hole h7 --hold-ms 2000
# h8 takes h7's options and h5's --min-reached
expect_error "holes.sh refuses --window-ms 0 for h8" "from 1 to 15000" \
	"$top/scripts/holes.sh" patched --hole h8 --window-ms 0
expect_error "holes.sh refuses --min-reached above --cycles for h8" "more than --cycles" \
	"$top/scripts/holes.sh" patched --hole h8 --cycles 1 --min-reached 2
expect_error "holes_test.sh refuses --hold-ms 2000 for h8" "from 0 to 1000" \
	"$top/selftests/integrity/holes_test.sh" crash --hole h8 --hold-ms 2000
helper_errors_ok()
{
	local bad=0 a

	"${CC:-cc}" -O2 -Wall -pthread -o "$tmp/wbsync_holes" \
		"$top/selftests/integrity/wbsync_holes.c" || return 1
	for a in "spray -d $tmp -n 64x" "spray -d $tmp -n 0" "h5 -f F -o R -b 1:2 -w I -D -1" \
		 "h5 -f F -o R -b 1:2 -w I -D 10001" "h5 -f F -o R -b 1:2 -w I -D 5ms"; do
		# shellcheck disable=SC2086
		"$tmp/wbsync_holes" $a >"$tmp/stdout" 2>"$tmp/stderr"
		if [ $? != 2 ] || [ "$(wc -l <"$tmp/stderr")" != 1 ] ||
		   ! grep -q 'needs a number from' "$tmp/stderr"; then
			ktap_print_msg "wbsync_holes $a: $(cat "$tmp/stderr")"
			bad=1
		fi
	done
	# -n 65536 is 64 KiB, not the old default's 4 KiB (f1, a directory,
	# stops the writer)
	mkdir -p "$tmp/spray/f1" || return 1
	"$tmp/wbsync_holes" spray -d "$tmp/spray" -n 65536 2>/dev/null
	if [ "$(stat -c %s "$tmp/spray/f0")" != 65536 ]; then
		ktap_print_msg "spray -n 65536 wrote $(stat -c %s "$tmp/spray/f0" 2>&1)"
		bad=1
	fi
	rm -rf "$tmp/spray"
	return $bad
}
ktap_test_result "wbsync_holes refuses bad numbers with one line; spray -n 65536 is 64 KiB" helper_errors_ok

# The power-cut layout's replayer (selftests/integrity/replay_log.py) on
# synthetic dm-log-writes logs (scripts/tests/replay_log_test.py).
replay_log_ok()
{
	"$top/scripts/tests/replay_log_test.py" >"$tmp/replay_log.log" 2>&1 && return 0
	ktap_print_msg "$(tail -n 20 "$tmp/replay_log.log")"
	return 1
}
ktap_test_result "replay_log.py replays dm-log-writes logs up to a mark; refuses bad ones" replay_log_ok

# vm-run: bad input is refused before QEMU starts.
expect_error "vm-run refuses an unknown disk profile" "unknown disk profile" \
	"${vm[@]}" --out "$tmp/o" --disks 1 --profile floppy -- true
expect_error "vm-run refuses a missing kernel" "does not exist" \
	"$top/scripts/vm-run" --kernel "$tmp/no-such-kernel" --out "$tmp/o" -- true
expect_error "vm-run refuses --disks 0" "from 1 to" \
	"${vm[@]}" --out "$tmp/o" --disks 0 -- true
expect_error "vm-run refuses too many disks" "from 1 to" \
	"${vm[@]}" --out "$tmp/o" --disks 99 -- true
expect_error "vm-run refuses a command that does not exist" "not found" \
	"${vm[@]}" --out "$tmp/o" -- no-such-command-wbsync

# vm-run: the guest command's exit status is the run's exit status, and
# the command runs in the caller's directory even below the guest's tmpfs.
(cd "$tmp" && "${vm[@]}" --out "$tmp/o" -- sh -c "[ \"\$PWD\" = '$tmp' ] && exit 3") >/dev/null 2>&1
rc=$?
if [ $rc = 3 ] && no_qemu_left; then
	ktap_test_pass "vm-run returns the guest command's exit status"
else
	ktap_test_fail "vm-run returns the guest command's exit status (got $rc)"
fi

# vm-run: a $WBSYNC_CACHE below the guest's tmpfs (here /tmp) is still the
# host's, where the guest's tests find the kernel tree.
mkdir -p "$tmp/cache" && touch "$tmp/cache/seen-by-guest"
if (cd / && WBSYNC_CACHE=$tmp/cache "${vm[@]}" --out "$tmp/o" -- \
	test -f "$tmp/cache/seen-by-guest") >/dev/null 2>&1; then
	ktap_test_pass "vm-run shows the guest a cache below its tmpfs"
else
	ktap_test_fail "vm-run shows the guest a cache below its tmpfs"
fi

# vm-run: an argument with a newline, a tab and quotes reaches the guest
# command unchanged.
arg=$(printf "a'b\n\t\"c")
if "${vm[@]}" --out "$tmp/o" -- sh -c '[ "$1" = "$2" ]' _ "$arg" "$arg" >/dev/null 2>&1 &&
   ! "${vm[@]}" --out "$tmp/o" -- sh -c '[ "$1" = "$2" ]' _ "$arg" "x$arg" >/dev/null 2>&1; then
	ktap_test_pass "vm-run passes every argument to the guest unchanged"
else
	ktap_test_fail "vm-run passes every argument to the guest unchanged"
fi

# vm-run: /dev/stdout, /dev/stderr and /dev/fd exist in the guest: the
# kselftest runner writes each test's output with >>/dev/stdout, which
# without them lands in a regular file on devtmpfs (a lost log).
if "${vm[@]}" --out "$tmp/o" -- sh -c \
	'[ "$(echo out >>/dev/stdout)" = out ] &&
	 [ "$({ echo err >>/dev/stderr; } 2>&1)" = err ] && [ -e /dev/fd/0 ]' >/dev/null 2>&1; then
	ktap_test_pass "vm-run's guest writes to /dev/stdout reach the caller's pipe"
else
	ktap_test_fail "vm-run's guest writes to /dev/stdout reach the caller's pipe"
fi

# fstests' run.sh in a guest with three disks, a stub for fstests' check:
# local.config names the third LOGWRITES_DEV, and the kernel has the
# log-writes target (generic/455 and generic/482 run, not "not run").
fstests_logwrites_ok()
{
	local b=$tmp/xfstests-stub

	mkdir -p "$b" && cat >"$b/check" <<'STUB' && chmod +x "$b/check" || return 1
#!/bin/bash
. ./local.config
echo "TEST_DEV=$TEST_DEV SCRATCH_DEV=$SCRATCH_DEV LOGWRITES_DEV=$LOGWRITES_DEV"
[ -b "$LOGWRITES_DEV" ] && [ "$LOGWRITES_DEV" != "$SCRATCH_DEV" ] &&
	[ "$LOGWRITES_DEV" != "$TEST_DEV" ] && dmsetup targets | grep -q '^log-writes '
STUB
	# the guest sees below its tmpfs /tmp only the directory it runs in
	(cd "$tmp" && "${vm[@]}" --out "$tmp/fstests-o" --disks 3 --disk-size 64M -- \
		"$top/selftests/fstests/run.sh" ext4 "$b" generic/455) >"$tmp/fstests.log" 2>&1 && return 0
	ktap_print_msg "$(tail -n 5 "$tmp/fstests.log")"
	return 1
}
ktap_test_result "fstests' run.sh gives LOGWRITES_DEV, a third disk, to a kernel with dm-log-writes" fstests_logwrites_ok

# vm-run: a hung guest is killed at the timeout, with a message.
expect_status "vm-run kills a hung guest at the timeout" 124 'timed out after 20 s' \
	"${vm[@]}" --out "$tmp/o" --timeout 20 -- sleep 600

# vm-run: a guest that dies before the command runs (here: no init) is a
# lab failure with a status of its own, not the command's failure.
expect_status "vm-run tells a guest that died before the command (125)" 125 \
	'died before it ran the command' \
	"${vm[@]}" --out "$tmp/o" --append init=/no-such-init-wbsync -- true

# vm-run: a guest that hangs before the command (here: an init that
# sleeps) is killed at the boot timeout, not at the command's, with 125.
expect_status "vm-run gives up on a guest that hangs before the command (125)" 125 \
	'did not start the command in 15 s' \
	"${vm[@]}" --out "$tmp/o" --boot-timeout 15 --append "init=/bin/sleep -- 600" -- true
expect_error "vm-run refuses a bad --boot-timeout" "bad --boot-timeout" \
	"${vm[@]}" --out "$tmp/o" --boot-timeout 0 -- true

# vm-run: an hdd disk is a SATA drive's, one queue with mq-deadline, as
# Debian's kernel gives it; the host's disk under the images is sampled
# while the guest runs (when the images are on a block device).
rm -rf "$tmp/o"
if "${vm[@]}" --out "$tmp/o" --disks 1 --profile hdd -- sh -c \
	'grep -q "\[mq-deadline\]" /sys/block/vda/queue/scheduler && [ "$(ls /sys/block/vda/mq)" = 0 ]' \
	>/dev/null 2>&1; then
	ktap_test_pass "vm-run gives an hdd disk one queue and mq-deadline"
else
	ktap_test_fail "vm-run gives an hdd disk one queue and mq-deadline"
fi
# (ktap_test_result splits its command into words: no awk program there)
if [ -z "$(. "$top/scripts/lib.sh" && host_disk_stat "$tmp/o")" ]; then
	ktap_test_result "vm-run samples no host disk where the images are on none" \
		test ! -e "$tmp/o/host-disk"
elif awk 'NF != 3 { exit 1 } END { exit NR < 1 }' "$tmp/o/host-disk"; then
	ktap_test_pass "vm-run samples the host disk under the images"
else
	ktap_test_fail "vm-run samples the host disk under the images"
fi

ktap_finished
