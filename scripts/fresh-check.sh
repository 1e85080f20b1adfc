#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fresh-check.sh [--root DIR] [--mirror MIRROR] [--keep]
#
# make check as on a fresh Debian 12 machine (make fresh-check): a minimal
# Debian 12 root made by debootstrap (minbase, plus git to clone with), a
# clone of this repository's HEAD in it, and CI's .ci/run there under
# chroot, with an empty kernel cache.  Whatever the lab needs and does not
# install itself fails there, however this machine was set up.  The
# chroot has a fresh install's apt sources (bookworm, bookworm-updates and
# bookworm-security of MIRROR), and /proc, /sys and /dev mounted in a
# mount namespace of this script's own (unshare), so that the host never
# sees them (nor can a "make distclean" remove its /dev through them); its
# guests get the chroot as their root over 9p.
#
# Writes output/fresh-check/: log (of .ci/run), summary (make check's
# closing line), installed (the packages the run installed: deps.sh's
# work) and host-only (packages installed on this machine that the run
# did not need).  Exit status: .ci/run's.
#   --root DIR       the chroot (default $WBSYNC_CACHE/fresh-root, made anew;
#                    an existing DIR is removed only if an earlier run made it)
#   --mirror MIRROR  the Debian mirror (default http://deb.debian.org/debian)
#   --keep           keep the chroot afterwards (its cache holds the cold builds)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

usage="usage: fresh-check.sh [--root DIR] [--mirror MIRROR] [--keep]"
args=("$@")
root=$WBSYNC_CACHE/fresh-root mirror=http://deb.debian.org/debian keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--root | --mirror) [ $# -ge 2 ] || usage_error "$1 needs an argument; $usage" ;;&
	--root) root=$2; shift ;;
	--mirror) mirror=$2; shift ;;
	--keep) keep=1 ;;
	*) usage_error "$usage" ;;
	esac
	shift
done
case $root in /*) ;; *) usage_error "--root needs an absolute path, not '$root'" ;; esac
root=$(realpath -m -- "$root")
[ "$root" != / ] || usage_error "--root / would be this machine"
case $mirror in http://* | https://*) ;; *) usage_error "--mirror needs an http(s) URL, not '$mirror'" ;; esac
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"

# Everything below runs in a private mount namespace: its mounts go with
# the last process in it, whatever happens to this script.
if [ -z "${WBSYNC_FRESH_NS:-}" ]; then
	WBSYNC_FRESH_NS=1 exec unshare --mount --propagation=private "$0" "${args[@]}"
fi

command -v debootstrap >/dev/null || "$WBSYNC_TOP/scripts/deps.sh" || die "installing debootstrap failed"
out=$WBSYNC_TOP/output/fresh-check
rm -rf "$out"
mkdir -p "$out"

# The mounts of this namespace at or under $root.
mounts_under()
{
	awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo
}
made=0
cleanup()
{
	local p m

	# What still runs in the chroot (a guest, a daemon) goes first, then
	# the mounts, then the tree, and the tree only when no mount is left.
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" != "$root" ] || kill -9 "${p#/proc/}" 2>/dev/null
	done
	for m in $(mounts_under | sort -r); do
		umount -l "$m" || log "cannot unmount $m"
	done
	if [ -n "$(mounts_under)" ]; then
		log "mounts left under $root: not removing it"
	elif [ "$keep" = 0 ] && [ "$made" = 1 ]; then
		rm -rf --one-file-system "$root"
	fi
}
trap cleanup EXIT

# Only a root that an earlier run made (it has the marker) is removed.
marker=.wbsync-fresh-root
if [ -e "$root" ]; then
	[ -e "$root/$marker" ] || die "$root exists and is no fresh-check root: not touching it"
	[ -z "$(mounts_under)" ] || die "$root has mounts: unmount them first"
	rm -rf --one-file-system "$root" || die "cannot remove the old $root"
fi
mkdir -p "$root" && touch "$root/$marker" || die "cannot make $root"
made=1
log "debootstrap bookworm (minbase and git) into $root"
debootstrap --variant=minbase --include=git,ca-certificates bookworm "$root" "$mirror" \
	>"$out/debootstrap.log" 2>&1 || die "debootstrap failed (see $out/debootstrap.log)"

# A fresh install's archive: main, updates and security.
security=http://deb.debian.org/debian-security
case $mirror in */debian | */debian/) security=${mirror%/}-security ;; esac
rm -f "$root/etc/apt/sources.list"
printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n\n' \
	"$mirror" "bookworm bookworm-updates" /usr/share/keyrings/debian-archive-keyring.gpg \
	"$security" bookworm-security /usr/share/keyrings/debian-archive-keyring.gpg \
	>"$root/etc/apt/sources.list.d/debian.sources"
# No package's daemon starts in the chroot.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/resolv.conf"
for m in proc sys dev dev/pts; do
	mount --bind "/$m" "$root/$m" || die "cannot bind /$m"
done
mount -t tmpfs tmpfs "$root/dev/shm" || die "cannot mount a tmpfs on $root/dev/shm"

# The installed packages ("ii"), a foreign architecture's with its name.
packages()
{
	"$@" dpkg-query -W -f '${db:Status-Abbrev} ${binary:Package}\n' |
		awk '$1 == "ii" { print $2 }' | sort -u
}
git clone -q --no-hardlinks "$WBSYNC_TOP" "$root/root/wbsync" || die "cannot clone $WBSYNC_TOP"
packages chroot "$root" >"$out/before"
log "make check in the chroot, on a clone of $(git -C "$WBSYNC_TOP" rev-parse --short HEAD) (log: $out/log)"
start=$SECONDS
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/bin/bash -c 'cd /root/wbsync && .ci/run' >"$out/log" 2>&1
rc=$?
packages chroot "$root" >"$out/after"
comm -13 "$out/before" "$out/after" >"$out/installed"
packages | comm -23 - "$out/after" >"$out/host-only"
cp "$root/root/wbsync/output/check/summary" "$out/summary" 2>/dev/null ||
	echo "no output/check/summary: make check did not finish" >"$out/summary"
log "exit status $rc after $(((SECONDS - start) / 60)) min; $(wc -l <"$out/installed")" \
	"packages installed by the run, $(wc -l <"$out/host-only") of this machine's not needed"
cat "$out/summary"
exit "$rc"
