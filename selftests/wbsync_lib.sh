# SPDX-License-Identifier: GPL-2.0
# Sourced by the wbsync shell tests: the kselftest KTAP helpers and
# skip_all.  ktap_helpers.sh is looked up next to this file in a kernel
# tree or an installed kselftest (../kselftest/), else in the kernel tree
# $KSRC; without it a test skips.
for ktap in "$(dirname "${BASH_SOURCE[0]}")/../kselftest/ktap_helpers.sh" \
	"${KSRC:-/nonexistent}/tools/testing/selftests/kselftest/ktap_helpers.sh"; do
	[ -f "$ktap" ] && break
done
# shellcheck source=/dev/null
. "$ktap" 2>/dev/null || { echo "1..0 # SKIP ktap_helpers.sh not found (set KSRC)"; exit 4; }

# skip_all REASON: the test cannot run here (no disk, no module).
skip_all()
{
	ktap_skip_all "$@"
	exit "$KSFT_SKIP"
}
