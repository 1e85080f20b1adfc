#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stock-initrd.sh [ABI]
#
# Print the kernel and an initramfs with which scripts/vm-run boots one of
# Debian's stock kernels (default: the generic amd64 flavour of the base's
# ABI, e.g. 6.12.117+deb12-amd64) in the lab:
#   /boot/vmlinuz-ABI
#   $WBSYNC_CACHE/stock/initrd-ABI-HASH.cpio.gz
# The initramfs holds busybox and the modules the root needs (9p over
# virtio, virtio-blk for the disks), decompressed for busybox insmod.  Its
# /init mounts the host root over 9p and switches to the init= of the
# command line (scripts/guest-init), which then finds every other module in
# the host's /lib/modules.  The cloud-amd64 flavour has no 9p at all.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -le 1 ] || usage_error "usage: stock-initrd.sh [ABI]"
abi=${1:-$(stock_abi)-amd64}
kernel=/boot/vmlinuz-$abi
moddir=/lib/modules/$abi
[ -f "$kernel" ] && [ -d "$moddir" ] ||
	die "Debian kernel $abi is not installed (linux-image-$abi-unsigned; make deps installs the default)"
command -v busybox >/dev/null || die "busybox is not installed"

key=$( { echo "$abi"; cat "$0"; md5sum "$kernel"; } | sha256sum | cut -c1-16)
initrd=$WBSYNC_CACHE/stock/initrd-$abi-$key.cpio.gz
if [ ! -f "$initrd" ]; then
	mkdir -p "$WBSYNC_CACHE/stock"
	root=$(mktemp -d "$WBSYNC_CACHE/stock/root.XXXXXX")
	trap 'rm -rf "$root"' EXIT
	mkdir -p "$root"/{bin,dev,proc,sys,newroot,lib/x86_64-linux-gnu,lib64,modules}
	cp /usr/bin/busybox "$root/bin/"
	ln -s busybox "$root/bin/sh"
	for lib in $(ldd /usr/bin/busybox | grep -oE '/[^ ]+'); do
		cp -L "$lib" "$root$lib"
	done
	# Dependencies first, in load order, each module once.
	modprobe -S "$abi" --show-depends -a 9p 9pnet_virtio virtio_blk |
		awk '$1 == "insmod" && !seen[$2]++ { print $2 }' >"$root/modules.list"
	[ -s "$root/modules.list" ] || die "no 9p modules in $moddir"
	while read -r ko; do
		name=${ko##*/}
		case $ko in
		*.xz) xz -dc "$ko" >"$root/modules/${name%.xz}" ;;
		*.zst) zstd -qdc "$ko" >"$root/modules/${name%.zst}" ;;
		*) cp "$ko" "$root/modules/" ;;
		esac
		echo "${name%.*z*}"
	done <"$root/modules.list" | sed 's/\.ko$//' >"$root/modules.order"
	cat >"$root/init" <<'EOF'
#!/bin/sh
# wbsync stock-kernel initramfs: load 9p and virtio-blk, mount the host
# root read-only, hand over to the init= of the command line.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t devtmpfs devtmpfs /dev
while read -r m; do
	insmod "/modules/$m.ko" || echo "initramfs: insmod $m failed"
done </modules.order
init=/sbin/init
for arg in $(cat /proc/cmdline); do
	case $arg in init=*) init=${arg#init=} ;; esac
done
mount -t 9p -o ro,trans=virtio,version=9p2000.L,cache=loose,msize=262144 \
	/dev/root /newroot || { echo "initramfs: cannot mount the root"; reboot -f; }
umount /dev /proc
exec switch_root /newroot "$init"
EOF
	chmod +x "$root/init"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -9) >"$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
	log "built $initrd ($(wc -l <"$root/modules.order") modules)"
fi
echo "$kernel"
echo "$initrd"
