#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# wbsync.ko in a guest: it loads, its statistics and tracepoints move
# when sync(2) and syncfs(2) run on a real disk, pass_lag times sync(2)'s
# pass on that disk, malformed writes are refused without a state change,
# the knob round-trips its values, and it unloads.  Needs $WBSYNC_MODULE
# (the .ko; it skips without) and a disk (need_disks), $KSRC for
# ktap_helpers.sh outside a kernel tree, $WBSYNC_BIN if the built sfr
# program is not next to this script.
# shellcheck source=selftests/wbsync_lib.sh
. "$(dirname "$0")/wbsync_lib.sh"

dbg=/sys/kernel/debug/wbsync
bin=${WBSYNC_BIN:-$(cd "$(dirname "$0")" && pwd)}
mnt=
cleanup()
{
	[ -z "$mnt" ] || umount "$mnt"
	grep -q '^wbsync ' /proc/modules && rmmod wbsync
	grep -q '^wbsync_kunit ' /proc/modules && rmmod wbsync_kunit
}
trap cleanup EXIT

ktap_print_header
[ -f "${WBSYNC_MODULE:-}" ] || skip_all "no wbsync.ko in WBSYNC_MODULE"
need_disks 1
read -r disk _ <<<"$WBSYNC_DISKS"
ktap_set_plan 13

ktap_test_result "insmod wbsync.ko" insmod "$WBSYNC_MODULE"

mkfs.ext4 -q -F "$disk" && mnt=$(mktemp -d) && mount "$disk" "$mnt" ||
	ktap_exit_fail_msg "cannot mount $disk"
echo 1 >/sys/kernel/tracing/events/wbsync/enable
# Enough for the flusher that sync(2) kicks first not to have
# written it all before sync(2) queues its pass (pass_lag below).
dd if=/dev/zero of="$mnt/f" bs=64k count=512 status=none
sync
sync -f "$mnt"
dev=$(mountpoint -d "$mnt")

# stats: "dev s_id phase count ..." rows; the disk's own WB_SYNC_ALL pass
# ran once for sync(2) and once for syncfs(2), or, on a kernel whose
# sync(2) runs every bdi's pass at once (sync_inodes_all()), sync(2)'s is
# in the global row ("-", "*").
count=$(awk -v d="$dev" '$1 == d && $3 == "wb_all" { print $4 }' $dbg/stats)
global=$(awk '$1 == "-" && $2 == "*" && $3 == "wb_all" { print $4 }' $dbg/stats)
both_passes()
{
	if grep -q '^wb_all_global .* attached ' $dbg/probes; then
		[ "${count:-0}" -ge 1 ] && [ "${global:-0}" -ge 1 ]
	else
		[ "${count:-0}" -ge 2 ]
	fi
}
ktap_test_result "stats count both WB_SYNC_ALL passes of $disk" both_passes
# (ktap_test_result splits its arguments: test through functions.)
traced_syncfs() { grep -q 'wbsync_sync_end: syncfs' /sys/kernel/tracing/trace; }
ktap_test_result "tracepoints fired for syncfs(2)" traced_syncfs
# pass_lag: per bdi, whose dev is the disk's; sync(2) had data to write
# there, so its pass on that bdi started once at least.
lag=$(awk -v d="$dev" '$1 == d && $3 == "pass_lag" { print $4 }' $dbg/stats)
awk 'NR == 1 || $3 == "wb_all" || $3 == "pass_lag"' $dbg/stats | sed 's/^/# /'
ktap_test_result "stats time the lag of sync(2)'s pass on $disk" [ "${lag:-0}" -ge 1 ]

# The events work from trace-cmd, as users record them.
trace_cmd_records()
{
	local dat

	dat=$(mktemp) || return 1
	trace-cmd record -q -o "$dat" -e wbsync sync -f "$mnt" >/dev/null 2>&1 &&
		trace-cmd report -i "$dat" 2>/dev/null | grep -q 'wbsync_sync_end: *syncfs'
	local rc=$?
	rm -f "$dat"
	return $rc
}
ktap_test_result "trace-cmd records the wbsync events" trace_cmd_records
perf_counts()
{
	local n

	n=$(perf stat -x, -e wbsync:wbsync_sync_end sync -f "$mnt" 2>&1 >/dev/null |
		awk -F, '/wbsync_sync_end/ { print $1 }')
	ktap_print_msg "perf stat: ${n:-no} wbsync_sync_end event(s)"
	[ "${n:-0}" -ge 1 ] 2>/dev/null
}
ktap_test_result "perf counts the wbsync events" perf_counts
# trace-cmd leaves the events off: on again for the tests below.
echo 1 >/sys/kernel/tracing/events/wbsync/enable

# sync_file_range events name the writeback mode each call got.
traced_sfr_modes()
{
	local t=/sys/kernel/tracing/trace

	"$bin/sfr" "$mnt/f" 0 65536 write &&
		"$bin/sfr" "$mnt/f" 0 65536 before write after &&
		"$bin/sfr" "$mnt/f" 0 65536 after || return 1
	grep -q 'wbsync_sync_file_range: .* flags=WRITE sync_mode=WB_SYNC_NONE ret=0' $t &&
		grep -q 'flags=WAIT_BEFORE|WRITE|WAIT_AFTER sync_mode=WB_SYNC_ALL ret=0' $t &&
		grep -q 'flags=WAIT_AFTER sync_mode=none ret=0' $t
}
ktap_test_result "sync_file_range events carry the writeback mode" traced_sfr_modes

before=$(cat $dbg/enable)
bad=0
# (printf writes "1\n1\n" as two lines, two valid writes: not malformed)
for v in abc 2 1x -1 ' 1' '' 0x2 "$(head -c 200 /dev/zero | tr '\0' 1)"; do
	printf '%s\n' "$v" >$dbg/enable 2>/dev/null && bad=1
done
for v in 0 2 x; do
	printf '%s\n' "$v" >$dbg/reset 2>/dev/null && bad=1
done
ktap_test_result "malformed writes to enable and reset are refused" [ $bad = 0 ]
ktap_test_result "refused writes leave enable unchanged" [ "$(cat $dbg/enable)" = "$before" ]

# The A/B knob: supported, it takes each of its values and refuses
# anything else without a change; unsupported (off x86-64), it refuses
# even valid values with EOPNOTSUPP.
declare -A values=([sfr_sync_mode]="auto all")
knob_ok()
{
	local k=$1 v bad=0

	if [ "$(cat $dbg/$k)" = unsupported ]; then
		(echo "${values[$k]%% *}" >$dbg/$k) 2>&1 | grep -q 'not supported'
		return
	fi
	for v in ${values[$k]}; do
		echo "$v" >$dbg/$k && [ "$(cat $dbg/$k)" = "$v" ] || return 1
	done
	for v in bogus '' "${values[$k]%% *}x"; do
		printf '%s\n' "$v" >$dbg/$k 2>/dev/null && bad=1
	done
	[ $bad = 0 ] && [ "$(cat $dbg/$k)" = "${values[$k]##* }" ] || return 1
	echo "${values[$k]%% *}" >$dbg/$k
}
# sfr_sync_mode's function exists in every 6.x kernel: on x86-64 the knob
# must work, whatever the kernel's build options (IBT, for one).
sfr_knob_supported()
{
	[ "$(uname -m)" != x86_64 ] || [ "$(cat $dbg/sfr_sync_mode)" != unsupported ]
}
ktap_test_result "knob sfr_sync_mode is supported on x86-64" sfr_knob_supported
ktap_print_msg "sfr_sync_mode: $(cat $dbg/sfr_sync_mode)"
ktap_test_result "knob sfr_sync_mode: values round-trip, bad ones refused; EOPNOTSUPP if unsupported" \
	knob_ok sfr_sync_mode

umount "$mnt"
mnt=
ktap_test_result "rmmod wbsync" rmmod wbsync

# The KUnit tests of the statistics (module/tests/): built next to
# wbsync.ko where the kernel has KUnit, run when wbsync_kunit.ko loads.
kunit_ko=${WBSYNC_MODULE%/*}/wbsync_kunit.ko
kunit_results=/sys/kernel/debug/kunit/wbsync_stats/results
kunit_stats()
{
	insmod "$kunit_ko" || return 1
	[ -r $kunit_results ] || { ktap_print_msg "no $kunit_results"; return 1; }
	sed 's/^/# /' $kunit_results
	grep -Eq '^ok [0-9]+ wbsync_stats$' $kunit_results && rmmod wbsync_kunit
}
if [ -f "$kunit_ko" ]; then
	ktap_test_result "KUnit tests of the statistics pass" kunit_stats
else
	ktap_test_skip "KUnit tests of the statistics (kernel without KUnit)"
fi
ktap_finished
