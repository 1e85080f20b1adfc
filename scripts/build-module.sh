#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh KDIR NAME [TESTDIR]
#
# Build wbsync.ko as users build it (make -C KDIR M=...), W=1 and with
# sparse, in a copy of module/ at output/module-NAME so that objects of
# different kernels do not mix.  With TESTDIR (a selftests directory with
# a Kbuild, e.g. selftests/wait_inodes), build its test-only module the
# same way instead, in output/module-NAME-<TESTDIR's name>.  Prints the
# .ko; fails, showing the log, on a build error or any compiler or sparse
# warning.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || [ $# = 3 ] || usage_error "usage: build-module.sh KDIR NAME [TESTDIR]"
kd=$1 name=$2 testdir=${3:-}
[ -f "$kd/Makefile" ] || die "'$kd' is not a kernel build or headers directory"
[ -z "$testdir" ] || [ -f "$testdir/Kbuild" ] || die "'$testdir' has no Kbuild"
m=$WBSYNC_TOP/output/module-$name${testdir:+-${testdir##*/}}
rm -rf "$m"
mkdir -p "$m"
if [ -n "$testdir" ]; then
	cp "$testdir/Kbuild" "$testdir"/*.c "$m/"
	ko=$m/$(sed -n 's/^obj-m += \(.*\)\.o$/\1/p' "$testdir/Kbuild").ko
else
	cp "$WBSYNC_TOP/Kbuild" "$m/"
	rsync -a --exclude '*.o' --exclude '*.ko' --exclude '*.mod*' --exclude '.*.cmd' \
		--exclude modules.order "$WBSYNC_TOP/module" "$m/"
	ko=$m/module/wbsync.ko
fi
# A tree only prepared for modules (build-kernel.sh --modules-prepare) has
# no Module.symvers to resolve the kernel's symbols against: compile and
# check, and let modpost report unresolved symbols without failing.
modpost=()
[ -f "$kd/Module.symvers" ] || modpost=(KBUILD_MODPOST_WARN=1)
if ! make -C "$kd" M="$m" W=1 C=1 "${modpost[@]}" >"$m/build.log" 2>&1 ||
   grep -qE 'warning:|error:' "$m/build.log"; then
	cat "$m/build.log" >&2
	die "${ko##*/} does not build cleanly against $kd"
fi
echo "$ko"
