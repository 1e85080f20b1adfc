#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# integrity.sh vanilla|patched|naive [run_integrity.sh options]
#
# Build (or reuse) the kernel and run the integrity crash test on it
# (selftests/integrity/run_integrity.sh), work directory
# output/integrity-KERNEL.  "naive" is the test fixture: the seed's patch
# forward-ported without any dirtied_when fix (selftests/integrity/naive/).
# The test must fail on it; here that is the expected outcome, so for
# naive the exit status is 0 when the test caught lost data and 1 when it
# did not.  Otherwise it is run_integrity.sh's.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: integrity.sh vanilla|patched|naive [run_integrity.sh options]"
kernel=$1
shift
case $kernel in
vanilla) kdir=$("$WBSYNC_TOP/scripts/build-kernel.sh" vanilla) ;;
patched) kdir=$("$WBSYNC_TOP/scripts/build-kernel.sh" patched) ;;
naive) kdir=$(WBSYNC_SERIES=$WBSYNC_TOP/selftests/integrity/naive \
		"$WBSYNC_TOP/scripts/build-kernel.sh" patched) ;;
*) die "unknown kernel '$kernel' (vanilla, patched, naive)" ;;
esac
[ -n "$kdir" ] || die "building the $kernel kernel failed"

out=$WBSYNC_TOP/output/integrity-$kernel
rm -rf "$out"
KSRC=$("$WBSYNC_TOP/scripts/prepare-tree.sh" --vanilla) \
	"$WBSYNC_TOP/selftests/integrity/run_integrity.sh" "$kdir" --out "$out" "$@" |
	tee "$out.tap"
rc=${PIPESTATUS[0]}
[ "$kernel" = naive ] || exit "$rc"

# The fixture: a "not ok" for durability is the expected result.
lost=$(grep -c '^not ok .*boot 2: every file closed before' "$out.tap")
ran=$(grep -c '^ok .*boot 2: every file closed before' "$out.tap")
if [ "$rc" = 1 ] && [ "$lost" -gt 0 ]; then
	log "naive fixture: $lost of $((lost + ran)) verify boots found lost or stale files, as expected"
	grep -h '^# *fs2: ' "$out"/c*/verify/output 2>/dev/null | sort | uniq -c | head -n 5
	exit 0
fi
log "naive fixture: the integrity test did NOT catch the naive kernel's data loss"
exit 1
