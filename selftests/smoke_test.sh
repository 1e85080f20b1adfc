#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smoke_test (smoke_test.c) on two disks: the lab's, else loop devices
# (need_disks).  $WBSYNC_BIN if the built program is not next to this script.
# shellcheck source=selftests/wbsync_lib.sh
. "$(dirname "$0")/wbsync_lib.sh"

need_disks 2
"${WBSYNC_BIN:-$(dirname "$0")}/smoke_test"
