#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh KDIR NAME
#
# Build wbsync.ko as users build it (make -C KDIR M=...), W=1 and with
# sparse, in a copy of module/ at output/module-NAME so that objects of
# different kernels do not mix.  Prints the .ko; fails, showing the log,
# on a build error or any compiler or sparse warning.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || die "usage: build-module.sh KDIR NAME"
kd=$1 name=$2
[ -f "$kd/Makefile" ] || die "'$kd' is not a kernel build or headers directory"
m=$WBSYNC_TOP/output/module-$name
rm -rf "$m"
mkdir -p "$m"
cp "$WBSYNC_TOP/Kbuild" "$m/"
rsync -a --exclude '*.o' --exclude '*.ko' --exclude '*.mod*' --exclude '.*.cmd' \
	--exclude modules.order "$WBSYNC_TOP/module" "$m/"
# A tree only prepared for modules (build-kernel.sh --modules-prepare) has
# no Module.symvers to resolve the kernel's symbols against: compile and
# check, and let modpost report unresolved symbols without failing.
modpost=()
[ -f "$kd/Module.symvers" ] || modpost=(KBUILD_MODPOST_WARN=1)
if ! make -C "$kd" M="$m" W=1 C=1 "${modpost[@]}" >"$m/build.log" 2>&1 ||
   grep -qE 'warning:|error:' "$m/build.log"; then
	cat "$m/build.log" >&2
	die "wbsync.ko does not build cleanly against $kd"
fi
echo "$m/module/wbsync.ko"
