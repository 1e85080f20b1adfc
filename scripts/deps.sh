#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [--list]
#
# Install the Debian packages the lab needs (only what is missing).  The
# table below names each package and the programs of it that the lab's
# scripts run, on the host or in a guest (whose root is the host's);
# scripts/tests/deps_test.sh checks that no script runs a program missing
# from it and that each program comes from its package, so that a fresh
# machine has all a run needs.  --list prints the table and installs
# nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

table=(
	# kernel source and build
	"$(base_package):"
	"build-essential:"
	"gcc: gcc"
	# kcsan-report reads the build's symbol tables
	"binutils: nm"
	"make: make"
	"bc: bc"
	"bison:" "flex:" "libelf-dev:" "libssl-dev:"
	"cpio: cpio"
	"kmod: insmod modprobe rmmod"
	"ccache: ccache"
	"git: git"
	"xz-utils: xz"
	"zstd: zstd"
	"gzip: gzip"
	"tar: tar"
	"python3:" "python3-minimal: python3"
	"sparse: sparse"
	"rsync: rsync"
	# make dkms-tree's user (lab_test)
	"dkms: dkms"
	# make fresh-check: a minimal Debian 12 root to run make check in
	"debootstrap: debootstrap"
	# guests
	"qemu-system-x86: qemu-system-x86_64"
	"busybox: busybox"
	"libc-bin: getconf ldd"
	"procps: pgrep pkill sysctl"
	"util-linux: blockdev dmesg flock mountpoint mkfs.minix fsck.minix lsblk runuser unshare"
	"mount: mount umount losetup"
	"fdisk: sfdisk"
	"hostname: hostname"
	# filesystems and devices in the guests
	"e2fsprogs: mkfs.ext4 mkfs.ext2 e2fsck"
	"xfsprogs: mkfs.xfs xfs_io xfs_repair"
	"dosfstools: mkfs.vfat fsck.vfat"
	"exfatprogs: mkfs.exfat fsck.exfat"
	"udftools: mkudffs"
	"dmsetup: dmsetup"
	# hole H2's crash test: an NFS server and client in the guest
	"nfs-kernel-server: rpc.nfsd rpc.mountd exportfs" "nfs-common: mount.nfs"
	"iproute2: ip tc"
	# the eCryptfs crash tests (h9, h10): the passphrase key for its mount
	"ecryptfs-utils: ecryptfs-add-passphrase" "keyutils: keyctl"
	# fstests (make fstests): its build, and what its tests run
	"autoconf: autoconf" "automake:" "libtool: libtoolize" "libtool-bin:"
	"libacl1-dev:" "libattr1-dev:" "libaio-dev:" "libcap-dev:" "libgdbm-dev:"
	"liburing-dev:" "uuid-dev:" "xfslibs-dev:"
	"acl:" "attr:" "dbench:" "dump:" "psmisc:" "quota:" "uuid-runtime:" "xfsdump:"
	# fstests needs gawk (strtonum, gensub); installed, it is awk
	"gawk: awk gawk"
	# load, tracing and reports
	"fio: fio"
	"jq: jq"
	"trace-cmd: trace-cmd"
	"linux-perf: perf"
	"gnuplot-nox: gnuplot"
	# Documentation/ (make docs, and its check in make check)
	"python3-sphinx: sphinx-build"
	# make pgbench-bench: the server, initdb, pg_ctl and pgbench (postgresql-15),
	# psql (postgresql-client-15), run from /usr/lib/postgresql/15/bin.  On a
	# fresh machine its postinst also creates (and may start) cluster 15/main,
	# which the lab does not use.
	"postgresql-15:" "postgresql-client-15:"
	# the lab's own tests (scripts/lab-commands)
	"shfmt: shfmt"
	# in every Debian system, listed for their programs
	"apt: apt-get apt-cache"
	"dpkg: dpkg dpkg-query"
	"coreutils: basename cat chmod chown chroot comm cp cut date dd df dirname env head id ln ls md5sum mkdir mktemp mv nproc paste readlink realpath rm rmdir sha256sum sleep sort stat sync tail tee timeout touch tr truncate uname uniq wc"
	"bash: bash"
	"dash: sh"
	"diffutils: cmp diff"
	"findutils: find xargs"
	"grep: grep"
	"mawk: mawk"
	"sed: sed"
)

if [ "${1:-}" = --list ]; then
	printf '%s\n' "${table[@]}"
	exit 0
fi
[ $# = 0 ] || { echo "usage: deps.sh [--list]" >&2; exit 2; }

updated=0
install()
{
	local p missing=()

	for p in "$@"; do
		dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	[ "$updated" = 1 ] || apt-get update -qq
	updated=1
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install "${table[@]%%:*}"
# Debian's stock kernels, matching the base (known once it is installed):
# headers for the module's build matrix, and the generic flavour's image,
# which has 9p as modules (cloud-amd64 has no 9p) for the stock guest.
abi=$(stock_abi) abi61=$(stock_abi_61)
[ -n "$abi61" ] || die "no linux-headers-6.1.0-*-cloud-amd64 in the archive"
install "linux-headers-$abi-cloud-amd64" "linux-headers-$abi-amd64" \
	"linux-image-$abi-amd64-unsigned" "linux-headers-$abi61-cloud-amd64"
