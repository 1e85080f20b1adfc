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
# (output/pgbench-report/, and appended to the sync report; options in
# $PGBENCH_ARGS, its disk profile the report's if the options give one).  The fio benchmark of
# sync_file_range(2) and the s_op->wait_inodes one have targets of their
# own (make sfr-bench, make wait-inodes-bench).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$WBSYNC_TOP/scripts/deps.sh" || die "installing dependencies failed"
"$WBSYNC_TOP/scripts/sync-report.sh" "$@"
rc=$?
# A disk profile given to the report reaches pgbench too, unless
# $PGBENCH_ARGS sets one.
profile=() out=$WBSYNC_TOP/output/report
while getopts f:n:r:t:w:W:p:o:sc:k:am:R: opt 2>/dev/null; do
	case $opt in
	p) profile=(-p "$OPTARG") ;;
	o) out=$OPTARG ;;
	esac
done
read -ra pgbench <<<"${PGBENCH_ARGS:-}"
[[ " ${pgbench[*]} " = *" -p "* ]] || pgbench+=("${profile[@]}")
pg_out=$WBSYNC_TOP/output/pgbench-report
for ((i = 0; i + 1 < ${#pgbench[@]}; i++)); do
	[ "${pgbench[i]}" != -o ] || pg_out=${pgbench[i + 1]}
done
if "$WBSYNC_TOP/scripts/pgbench-report.sh" "${pgbench[@]}"; then
	# One report: pgbench's table goes into the sync report too.
	[ ! -f "$out/report.md" ] ||
		{ echo; sed 's/^# /## /' "$pg_out/report.md"; } >>"$out/report.md"
else
	rc=1
fi
exit $rc
