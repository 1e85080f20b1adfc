#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh [sync-report.sh options]
#
# The main job (make demo): install what the lab needs, build the vanilla
# and patched kernels and the ablation's two halves of the series, boot
# each with busy filesystems on throttled disks (-p, default "hdd") and
# print the report of scripts/sync-report.sh (output/report/);
# then the sync_file_range(2) benchmark of scripts/sfr-report.sh
# (output/sfr-report/; options in $SFR_ARGS) and the s_op->wait_inodes
# benchmark of scripts/wait-inodes-report.sh (output/wait-inodes/;
# options in $WAIT_INODES_ARGS), both on the report's disk profile unless
# their options give one.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$WBSYNC_TOP/scripts/deps.sh" || die "installing dependencies failed"
"$WBSYNC_TOP/scripts/sync-report.sh" "$@"
rc=$?
# The disk profile of the report reaches the other benchmarks too, unless
# their own arguments set one.
profile=()
while getopts f:n:r:t:w:p:o:sc:k:R: opt 2>/dev/null; do
	[ "$opt" != p ] || profile=(-p "$OPTARG")
done
read -ra sfr <<<"${SFR_ARGS:-}"
read -ra wait <<<"${WAIT_INODES_ARGS:-}"
[[ " ${sfr[*]} " = *" -p "* ]] || sfr+=("${profile[@]}")
[[ " ${wait[*]} " = *" -p "* ]] || wait+=("${profile[@]}")
"$WBSYNC_TOP/scripts/sfr-report.sh" "${sfr[@]}" || rc=1
"$WBSYNC_TOP/scripts/wait-inodes-report.sh" "${wait[@]}" || rc=1
exit $rc
