#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: install the Debian packages the lab needs (only what is missing).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(
	# kernel source and build
	"$(base_package)" build-essential bc bison flex libelf-dev libssl-dev
	cpio kmod ccache git xz-utils python3 sparse rsync
	# guests
	qemu-system-x86 procps util-linux
	# in the guests (the host root is the guest root)
	e2fsprogs xfsprogs dosfstools dmsetup fdisk fio jq trace-cmd linux-perf
	# reports
	gnuplot-nox
)

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

install "${pkgs[@]}"
# Debian's stock kernels, matching the base (known once it is installed):
# headers for the module's build matrix, and the generic flavour's image,
# which has 9p as modules (cloud-amd64 has no 9p) for the stock guest.
abi=$(stock_abi) abi61=$(stock_abi_61)
[ -n "$abi61" ] || die "no linux-headers-6.1.0-*-cloud-amd64 in the archive"
install "linux-headers-$abi-cloud-amd64" "linux-headers-$abi-amd64" \
	"linux-image-$abi-amd64-unsigned" "linux-headers-$abi61-cloud-amd64"
