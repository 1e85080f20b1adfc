#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh FSTYPE XFSTESTS_BUILD TEST...
#
# fstests in a wbsync guest (scripts/fstests.sh boots it): TEST_DEV and
# SCRATCH_DEV are the first two disks of $WBSYNC_DISKS, TEST_DEV made
# FSTYPE here.  Each test runs in its own ./check -R xunit, so that a
# guest killed at its timeout keeps the results of the tests before;
# the results go to $WBSYNC_OUT/results (one TEST.xml each, and fstests'
# .out.bad, .full, .dmesg and .notrun files).
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
# A test that hangs is killed after this long, and the next one runs.
per_test=${FSTESTS_TEST_TIMEOUT:-1200}

# The build is the host's, read-only over 9p; check writes its config,
# and tests write beside it: run a copy in tmpfs.
here=/var/tmp/xfstests
cp -a "$build" "$here"
mkdir -p /mnt/test /mnt/scratch "$WBSYNC_OUT/results/xml"
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
for t in "$@"; do
	start=$(date +%s)
	rc=0
	timeout -k 30 "$per_test" ./check -R xunit "$t" || rc=$?
	xml=$WBSYNC_OUT/results/xml/${t//\//-}.xml
	if [ -f "$WBSYNC_OUT/results/result.xml" ]; then
		mv "$WBSYNC_OUT/results/result.xml" "$xml"
	fi
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		# check was killed: its xml is missing; the host reports a timeout.
		echo "run.sh: $t killed after ${per_test} s" >&2
		echo "$t timeout $(($(date +%s) - start))" >>"$WBSYNC_OUT/results/killed"
		umount /mnt/scratch /mnt/test 2>/dev/null || true
	fi
done
