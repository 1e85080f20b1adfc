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
	e2fsprogs xfsprogs dosfstools dmsetup fdisk fio trace-cmd
	# reports
	gnuplot-nox
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
log "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
