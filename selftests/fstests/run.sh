#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh FSTYPE XFSTESTS_BUILD TEST...
#
# fstests in a wbsync guest (scripts/fstests.sh boots it): TEST_DEV and
# SCRATCH_DEV are the first two disks of $WBSYNC_DISKS, TEST_DEV made
# FSTYPE here; the third, if there is one, is LOGWRITES_DEV, the log of
# the tests of dm-log-writes (generic/455, generic/482).  One ./check -R
# xunit runs the tests; the results go to $WBSYNC_OUT/results: fstests'
# result.xml at the end, partial.xml while it runs (so that a guest killed
# at its timeout keeps what it ran), and the .out.bad, .full, .dmesg and
# .notrun files of each test.
set -euo pipefail

fail()
{
	echo "run.sh: $*" >&2
	exit 2
}

[ -n "${WBSYNC_OUT:-}" ] || fail "run me in a guest (scripts/vm-run)"
[ $# -ge 3 ] || fail "usage: run.sh FSTYPE XFSTESTS_BUILD TEST..."
fs=$1 build=$2
shift 2
read -r test_dev scratch_dev logwrites_dev _ <<<"$WBSYNC_DISKS"
[ -n "${scratch_dev:-}" ] || fail "need two disks, have '$WBSYNC_DISKS'"

# The build is the host's, read-only over 9p; check writes its config,
# and tests write beside it: run a copy in tmpfs.
here=/var/tmp/xfstests
cp -a "$build" "$here"
mkdir -p /mnt/test /mnt/scratch "$WBSYNC_OUT/results"
case $fs in
ext4) mkfs.ext4 -q -F "$test_dev" ;;
xfs) mkfs.xfs -q -f "$test_dev" ;;
*) fail "no mkfs recipe for $fs" ;;
esac
cat >"$here/local.config" <<CONF
export FSTYP=$fs
export TEST_DEV=$test_dev
export TEST_DIR=/mnt/test
export SCRATCH_DEV=$scratch_dev
export SCRATCH_MNT=/mnt/scratch
export RESULT_BASE=$WBSYNC_OUT/results
${logwrites_dev:+export LOGWRITES_DEV=$logwrites_dev}
# No udevd in the guest (started here, it left dmsetup create waiting):
# "udevadm wait" for a dm device would wait for ever, so fstests' own
# fallback where udev is missing; dmsetup makes the /dev/mapper nodes, as
# udev's links to dm-N.
export DM_DISABLE_UDEV=1
export DMSETUP_PROG=$(cd "$(dirname "$0")" && pwd)/dmsetup
export UDEV_SETTLE_PROG="sleep 1"
unset UDEV_WAIT_PROG
CONF

cd "$here"
# In the list's order (check sorts them otherwise): the long ones last.
# check's exit status goes to a file as it exits: the one run that gave
# no status of its own (127, after 2.4 hours of a debug guest) left
# nothing to tell whether check or this script made it.
rm -f "$WBSYNC_OUT/results/check.rc"
(
	rc=0
	./check -R xunit --exact-order "$@" || rc=$?
	echo "$rc" >"$WBSYNC_OUT/results/check.rc"
	exit "$rc"
) &
pid=$!
# check keeps each test's xunit record in /tmp until the end: copy them
# out as they come (one ./check per test would cost a minute a test).
# Nothing in this loop may end the script: errexit is off here.
set +e
while kill -0 "$pid" 2>/dev/null; do
	cat /tmp/*.report.xunit.*.xml >"$WBSYNC_OUT/results/partial.tmp" 2>/dev/null &&
		mv "$WBSYNC_OUT/results/partial.tmp" "$WBSYNC_OUT/results/partial.xml"
	sleep 10
done
wait "$pid"
wait_rc=$?
set -e
if ! read -r rc <"$WBSYNC_OUT/results/check.rc"; then
	echo "run.sh: check left no exit status (wait: $wait_rc)" >&2
	exit 2
fi
echo "run.sh: check exited $rc"
[ "$wait_rc" = "$rc" ] || echo "run.sh: but wait said $wait_rc" >&2
exit "$rc"
