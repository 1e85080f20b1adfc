#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh FSTYPE XFSTESTS_BUILD TEST...
#
# fstests in a wbsync guest (scripts/fstests.sh boots it): TEST_DEV and
# SCRATCH_DEV are the first two disks of $WBSYNC_DISKS, TEST_DEV made
# FSTYPE here.  One ./check -R xunit runs the tests; the results go to
# $WBSYNC_OUT/results: fstests' result.xml at the end, partial.xml while
# it runs (so that a guest killed at its timeout keeps what it ran), and
# the .out.bad, .full, .dmesg and .notrun files of each test.
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
read -r test_dev scratch_dev _ <<<"$WBSYNC_DISKS"
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
CONF

# fstests expects udev: without it dmsetup's /dev/mapper/NAME is a node,
# not a link to dm-N, xfs's sysfs directory of a dm-flakey device is not
# found, and "udevadm wait" for one waits for ever.
/lib/systemd/systemd-udevd --daemon
udevadm trigger --action=add
udevadm settle

cd "$here"
rc=0
# In the list's order (check sorts them otherwise): the long ones last.
./check -R xunit --exact-order "$@" &
pid=$!
# check keeps each test's xunit record in /tmp until the end: copy them
# out as they come (one ./check per test would cost a minute a test).
while kill -0 "$pid" 2>/dev/null; do
	cat /tmp/*.report.xunit.*.xml >"$WBSYNC_OUT/results/partial.tmp" 2>/dev/null &&
		mv "$WBSYNC_OUT/results/partial.tmp" "$WBSYNC_OUT/results/partial.xml"
	sleep 10
done
wait "$pid" || rc=$?
exit "$rc"
