#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh [sync-report.sh options]
#
# The main job (make demo): install what the lab needs, build the vanilla
# and patched kernels and the ablation's two halves of the series, boot
# each with busy filesystems on throttled disks and print the report of
# scripts/sync-report.sh (output/report/; its options are demo.sh's);
# then the seed's sync_file_range(2) number, PostgreSQL's pgbench with
# WB_SYNC_NONE against WB_SYNC_ALL, of scripts/pgbench-report.sh
# (output/pgbench-report/; options in $PGBENCH_ARGS, its disk profile the
# report's if the options give one).  The fio benchmark of
# sync_file_range(2) and the s_op->wait_inodes one have targets of their
# own (make sfr-bench, make wait-inodes-bench).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$WBSYNC_TOP/scripts/deps.sh" || die "installing dependencies failed"
"$WBSYNC_TOP/scripts/sync-report.sh" "$@"
rc=$?
# A disk profile given to the report reaches pgbench too, unless
# $PGBENCH_ARGS sets one.
profile=()
while getopts f:n:r:t:w:W:p:o:sc:k:am:R: opt 2>/dev/null; do
	[ "$opt" != p ] || profile=(-p "$OPTARG")
done
read -ra pgbench <<<"${PGBENCH_ARGS:-}"
[[ " ${pgbench[*]} " = *" -p "* ]] || pgbench+=("${profile[@]}")
"$WBSYNC_TOP/scripts/pgbench-report.sh" "${pgbench[@]}" || rc=1
exit $rc
