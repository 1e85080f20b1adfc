#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# module_overhead.sh [-N CALLS] [-r ROUNDS]
#
# The cost of wbsync.ko's probes per event, in a wbsync guest: on an idle
# ext4 filesystem on the first disk of $WBSYNC_DISKS, times CALLS
# syncfs(2) calls in one process, ROUNDS times without and with the module
# loaded (alternating which goes first), and counts the module's events
# per call from its statistics.  Prints one line per measurement:
#   # overhead config=kernel|wbsync round=R us_per_call=T events_per_call=E
# Needs $WBSYNC_MODULE.
set -u
calls=2000 rounds=5
while getopts N:r: opt; do
	case $opt in
	N) calls=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) echo "usage: module_overhead.sh [-N CALLS] [-r ROUNDS]" >&2; exit 2 ;;
	esac
done
fail() { echo "module_overhead.sh: $*" >&2; exit 2; }
for v in "$calls" "$rounds"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || fail "-N and -r take positive numbers, not '$v'"
done
read -r disk _ <<<"${WBSYNC_DISKS:-}"
[ -b "${disk:-}" ] || fail "no disk in WBSYNC_DISKS"
[ -f "${WBSYNC_MODULE:-}" ] || fail "WBSYNC_MODULE (wbsync.ko) is not set"
mnt=$(mktemp -d)
cleanup()
{
	mountpoint -q "$mnt" && umount "$mnt"
	grep -q '^wbsync ' /proc/modules && rmmod wbsync
	rmdir "$mnt"
}
trap cleanup EXIT
mkfs.ext4 -q -F "$disk" && mount "$disk" "$mnt" || fail "cannot mount $disk"
echo data >"$mnt/f" && sync

# syncfs(2) CALLS times from one process (no fork per call): microseconds
# per call.
time_calls()
{
	python3 - "$mnt" "$calls" <<'PY'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDONLY)
n = int(sys.argv[2])
t = time.perf_counter()
for _ in range(n):
    if libc.syncfs(fd):
        sys.exit("syncfs: " + os.strerror(ctypes.get_errno()))
print("%.2f" % ((time.perf_counter() - t) / n * 1e6))
PY
}

for ((r = 1; r <= rounds; r++)); do
	configs="kernel wbsync"
	[ $((r % 2)) = 0 ] && configs="wbsync kernel"
	for c in $configs; do
		events=0
		if [ "$c" = wbsync ]; then
			insmod "$WBSYNC_MODULE" || fail "insmod failed"
		fi
		us=$(time_calls) || fail "syncfs loop failed"
		if [ "$c" = wbsync ]; then
			events=$(awk 'NR > 1 { s += $4 } END { print s + 0 }' /sys/kernel/debug/wbsync/stats)
			rmmod wbsync || fail "rmmod failed"
		fi
		echo "# overhead config=$c round=$r us_per_call=$us events_per_call=$(echo "scale=2; $events / $calls" | bc)"
	done
done
