#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh [sync-report.sh options]
#
# The main job (make demo): install what the lab needs, build the vanilla
# and patched kernels and for_sync (the series up to its writeback change), boot
# each with busy filesystems on throttled disks and print the report of
# scripts/sync-report.sh (its options are demo.sh's; the report goes to
# output/report/, whatever -o says); then the seed's sync_file_range(2)
# number, PostgreSQL's pgbench with WB_SYNC_NONE against WB_SYNC_ALL, of
# scripts/pgbench-report.sh (output/pgbench-report/, and appended to the
# sync report; options in $PGBENCH_ARGS, on the report's disk profile
# unless they give one).  The fio benchmark of sync_file_range(2) and the
# s_op->wait_inodes one have targets of their own (make sfr-bench, make
# wait-inodes-bench).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$WBSYNC_TOP/scripts/deps.sh" || die "installing dependencies failed"
# The output directories are demo.sh's: given last, they win.
out=$WBSYNC_TOP/output/report pg_out=$WBSYNC_TOP/output/pgbench-report
"$WBSYNC_TOP/scripts/sync-report.sh" "$@" -o "$out"
rc=$?
read -ra pgbench <<<"${PGBENCH_ARGS:-}"
# The report's disk profile (its params) reaches pgbench too, unless
# $PGBENCH_ARGS sets one.
if [[ " ${pgbench[*]} " != *" -p "* ]] && [ -f "$out/params" ]; then
	# shellcheck source=/dev/null
	pgbench+=(-p "$(. "$out/params" && echo "$profile")")
fi
if "$WBSYNC_TOP/scripts/pgbench-report.sh" "${pgbench[@]}" -o "$pg_out"; then
	# One report: pgbench's table goes into the sync report too.
	[ ! -f "$out/report.md" ] ||
		{ echo; sed 's/^# /## /' "$pg_out/report.md"; } >>"$out/report.md"
else
	rc=1
fi
exit $rc
