#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fresh-check.sh [-d DIR] [-m MIRROR] [-k]
#
# make check as on a fresh Debian 12 machine (make fresh-check): a minimal
# Debian 12 root made by debootstrap (minbase, plus git to clone with), a
# clone of this repository's HEAD in it, and CI's .ci/run there under
# chroot, with an empty kernel cache.  Whatever the lab needs and does not
# install itself fails there, however this machine was set up.  The
# chroot has the host's apt sources (a fresh install's archive), /proc,
# /sys and /dev; its guests get the chroot as their root over 9p.
#
# Writes output/fresh-check/: log (of .ci/run), summary (make check's
# closing line), installed (the packages the run installed: deps.sh's
# work) and host-only (packages installed on this machine that the run
# did not need).  Exit status: .ci/run's.
#   -d DIR     the chroot (default $WBSYNC_CACHE/fresh-root, made anew)
#   -m MIRROR  the Debian mirror for debootstrap (default deb.debian.org)
#   -k         keep the chroot afterwards (its cache holds the cold builds)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

root=$WBSYNC_CACHE/fresh-root mirror=http://deb.debian.org/debian keep=0
while getopts d:m:kh opt; do
	case $opt in
	d) root=$OPTARG ;;
	m) mirror=$OPTARG ;;
	k) keep=1 ;;
	*) usage_error "usage: fresh-check.sh [-d DIR] [-m MIRROR] [-k]" ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || usage_error "usage: fresh-check.sh [-d DIR] [-m MIRROR] [-k]"
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"
case $root in /*) ;; *) usage_error "-d needs an absolute path, not '$root'" ;; esac
[ "$root" != / ] || usage_error "-d / would be this machine"
command -v debootstrap >/dev/null || "$WBSYNC_TOP/scripts/deps.sh" || die "installing debootstrap failed"
out=$WBSYNC_TOP/output/fresh-check
rm -rf "$out"
mkdir -p "$out"

mounts=()
cleanup()
{
	local i

	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -l "${mounts[i]}" || log "cannot unmount ${mounts[i]}"
	done
	if [ "$keep" = 0 ] && [ -d "$root" ]; then
		rm -rf --one-file-system "$root"
	fi
}
trap cleanup EXIT

# Only a root of an earlier run is removed (it has the marker), and never
# one that still has mounts: this machine's /dev or /proc may be inside.
marker=.wbsync-fresh-root
if [ -e "$root" ]; then
	[ -e "$root/$marker" ] || { keep=1; die "$root exists and is no fresh-check root: not touching it"; }
	grep -q " $root/" /proc/mounts && { keep=1; die "$root still has mounts: unmount them first"; }
	rm -rf --one-file-system "$root"
fi
mkdir -p "$root" && touch "$root/$marker" || die "cannot make $root"
log "debootstrap bookworm (minbase + git) into $root"
debootstrap --variant=minbase --include=git,ca-certificates bookworm "$root" "$mirror" \
	>"$out/debootstrap.log" 2>&1 || die "debootstrap failed (see $out/debootstrap.log)"
# The archive of a fresh install (main, updates, security), as on this host.
rm -f "$root/etc/apt/sources.list"
cp -a /etc/apt/sources.list /etc/apt/sources.list.d "$root/etc/apt/" 2>/dev/null
cp /etc/resolv.conf "$root/etc/"
for m in proc sys dev dev/pts; do
	mount --bind "/$m" "$root/$m" || die "cannot bind /$m"
	mounts+=("$root/$m")
done
mount -t tmpfs tmpfs "$root/dev/shm" || die "cannot mount $root/dev/shm"
mounts+=("$root/dev/shm")

packages() { chroot "$root" dpkg-query -W -f '${Package}\n' | sort; }
git clone -q --no-hardlinks "$WBSYNC_TOP" "$root/root/wbsync" || die "cannot clone $WBSYNC_TOP"
packages >"$out/before"
log "make check in the chroot, from a clone of $(git -C "$WBSYNC_TOP" rev-parse --short HEAD) (log: $out/log)"
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/bin/bash -c 'cd /root/wbsync && .ci/run' >"$out/log" 2>&1
rc=$?
packages >"$out/after"
comm -13 "$out/before" "$out/after" >"$out/installed"
dpkg-query -W -f '${Package}\n' | sort | comm -23 - "$out/after" >"$out/host-only"
cp "$root/root/wbsync/output/check/summary" "$out/summary" 2>/dev/null ||
	echo "no output/check/summary: make check did not finish" >"$out/summary"
log "exit status $rc; $(wc -l <"$out/installed") packages installed by the run," \
	"$(wc -l <"$out/host-only") on this machine not needed"
cat "$out/summary"
exit "$rc"
