#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sync_busy.sh [-f FSTYPE] [-n NR_FS] [-t SECONDS]
#
# In a wbsync guest: make FSTYPE (ext4, xfs or vfat) on the first NR_FS
# disks of $WBSYNC_DISKS, run the seed reproducer on all of them and print
# its sync time.  Unmounts everything on exit.
set -u
fstype=ext4 nr=1 secs=40
while getopts f:n:t: opt; do
	case $opt in
	f) fstype=$OPTARG ;;
	n) nr=$OPTARG ;;
	t) secs=$OPTARG ;;
	*) echo "usage: sync_busy.sh [-f FSTYPE] [-n NR_FS] [-t SECONDS]" >&2; exit 2 ;;
	esac
done
case $fstype in
ext4) mkfs=(mkfs.ext4 -q -F) ;;
xfs) mkfs=(mkfs.xfs -q -f) ;;
vfat) mkfs=(mkfs.vfat) ;;
*) echo "sync_busy.sh: unknown filesystem type '$fstype' (ext4, xfs, vfat)" >&2; exit 2 ;;
esac
read -r -a disks <<<"${WBSYNC_DISKS:-}"
[[ "$nr" =~ ^[1-5]$ ]] || { echo "sync_busy.sh: -n must be 1 to 5, not '$nr'" >&2; exit 2; }
[ "${#disks[@]}" -ge "$nr" ] ||
	{ echo "sync_busy.sh: need $nr disks, have ${#disks[@]} (WBSYNC_DISKS)" >&2; exit 2; }

mnts=()
cleanup()
{
	local m

	for m in "${mnts[@]}"; do
		umount "$m" && rmdir "$m"
	done
}
trap cleanup EXIT

for ((k = 0; k < nr; k++)); do
	"${mkfs[@]}" "${disks[k]}" >/dev/null || exit 1
	m=$(mktemp -d /tmp/wbsync-busy.XXXXXX)
	mount -t "$fstype" "${disks[k]}" "$m" || exit 1
	mnts+=("$m")
done
"$(dirname "$0")/seed_reproducer.sh" -t "$secs" "${mnts[@]}"
