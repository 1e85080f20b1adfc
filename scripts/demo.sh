#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh [sync-report.sh options]
#
# The main job (make demo): install what the lab needs, build the vanilla
# and patched kernels, boot each with busy filesystems on throttled "hdd"
# disks and print the report of scripts/sync-report.sh (output/report/).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$WBSYNC_TOP/scripts/deps.sh"
exec "$WBSYNC_TOP/scripts/sync-report.sh" "$@"
