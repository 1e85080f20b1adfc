#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh [sync-report.sh options]
#
# The main job (make demo): install what the lab needs, build the vanilla
# and patched kernels, boot each with busy filesystems on throttled "hdd"
# disks and print the report of scripts/sync-report.sh (output/report/);
# then the sync_file_range(2) benchmark of scripts/sfr-report.sh
# (output/sfr-report/; options in $SFR_ARGS) and the s_op->wait_inodes
# benchmark of scripts/wait-inodes-report.sh (output/wait-inodes/;
# options in $WAIT_INODES_ARGS).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$WBSYNC_TOP/scripts/deps.sh" || die "installing dependencies failed"
"$WBSYNC_TOP/scripts/sync-report.sh" "$@"
rc=$?
# shellcheck disable=SC2086
"$WBSYNC_TOP/scripts/sfr-report.sh" ${SFR_ARGS:-} || rc=1
# shellcheck disable=SC2086
"$WBSYNC_TOP/scripts/wait-inodes-report.sh" ${WAIT_INODES_ARGS:-} || rc=1
exit $rc
