# SPDX-License-Identifier: GPL-2.0
# Sourced by the wbsync shell tests: the kselftest KTAP helpers,
# skip_all, and the disks of the tests that need some.  ktap_helpers.sh
# is looked up next to this file in a kernel tree or an installed
# kselftest (../kselftest/), else in the kernel tree $KSRC; without it a
# test skips.
for ktap in "$(dirname "${BASH_SOURCE[0]}")/../kselftest/ktap_helpers.sh" \
	"${KSRC:-/nonexistent}/tools/testing/selftests/kselftest/ktap_helpers.sh"; do
	[ -f "$ktap" ] && break
done
# shellcheck source=/dev/null
. "$ktap" 2>/dev/null || { echo "1..0 # SKIP ktap_helpers.sh not found (set KSRC)"; exit 4; }

# skip_all REASON: the test cannot run here (no disk, no module).
skip_all()
{
	ktap_skip_all "$@"
	exit "$KSFT_SKIP"
}

# need_disks N [SIZE]: $WBSYNC_DISKS lists N disks or more.  The lab's
# (scripts/vm-run) if it has N, else N loop devices (with partitions) over
# sparse files of SIZE (default 1G) in a temporary directory, detached and
# removed at exit, after the EXIT trap the test set before the call (its
# cleanup unmounts them).
need_disks()
{
	local n=$1 size=${2:-1G} why="needs $1 disks in WBSYNC_DISKS or loop devices" lab i dev

	read -r -a lab <<<"${WBSYNC_DISKS:-}"
	[ "${#lab[@]}" -ge "$n" ] && return
	[ "$(id -u)" = 0 ] || skip_all "$why: not root"
	command -v losetup >/dev/null || skip_all "$why: no losetup"
	modprobe -q loop 2>/dev/null	# a module on distribution kernels
	[ -e /dev/loop-control ] || skip_all "$why: no loop driver"
	loop_dir=$(mktemp -d) || ktap_exit_fail_msg "cannot make a temporary directory"
	eval "set -- $(trap -p EXIT)"
	# shellcheck disable=SC2064 # the test's trap, as it is now
	trap "${3:-:}; put_disks" EXIT
	WBSYNC_DISKS=
	for ((i = 0; i < n; i++)); do
		dev=$(truncate -s "$size" "$loop_dir/$i" && losetup -f -P --show "$loop_dir/$i") ||
			ktap_exit_fail_msg "cannot attach $loop_dir/$i to a loop device"
		WBSYNC_DISKS+="${WBSYNC_DISKS:+ }$dev"
	done
}

# put_disks: detach need_disks' loop devices and remove their files.
# shellcheck disable=SC2317 # called from the EXIT trap
put_disks()
{
	local dev

	for dev in $WBSYNC_DISKS; do
		losetup -d "$dev"
	done
	rm -rf "$loop_dir"
}

# part DISK N: the name of partition N of DISK (/dev/vda1, /dev/loop0p1).
part()
{
	case $1 in
	*[0-9]) echo "$1p$2" ;;
	*) echo "$1$2" ;;
	esac
}
