#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A fresh machine has what the lab runs (KTAP): every program that a
# script of the repository runs is in scripts/deps.sh's table, every
# program of the table is installed, and each comes from the package the
# table names, so that a program installed by hand on this machine cannot
# hide a package that deps.sh does not install.
#
# Needs KSRC (for ktap_helpers.sh) and deps.sh run first.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
helpers=$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh
. "$helpers"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ktap_print_header
ktap_set_plan 4

# The shell scripts of the repository, and the kselftest helpers they
# source (for the functions those define).
mapfile -t scripts < <(cd "$top" && git ls-files -co --exclude-standard |
	while read -r f; do
		[ -f "$f" ] || continue
		case $f in
		*.sh | .ci/run) echo "$top/$f" ;;
		*) head -n1 "$f" | grep -q '^#!.*\(bash\|/sh\)' && echo "$top/$f" ;;
		esac
	done)
"$top/scripts/deps.sh" --list >"$tmp/table"
listed()
{
	awk -v c="$1" '{ for (i = 2; i <= NF; i++) if ($i == c) f = 1 } END { exit !f }' "$tmp/table"
}

if "$top/scripts/lab-commands" "$helpers" "${scripts[@]}" >"$tmp/used" 2>"$tmp/err"; then
	ktap_test_pass "lab-commands reads all ${#scripts[@]} scripts"
else
	ktap_print_msg "$(cat "$tmp/err")"
	ktap_test_fail "lab-commands reads all ${#scripts[@]} scripts"
fi

# Programs of the repository itself (scripts, and selftests built from a
# .c file of the same name) are no package's.
git -C "$top" ls-files | sed -e 's,.*/,,' -e 'p' -e 's/\.c$//' | sort -u >"$tmp/own"
: >"$tmp/missing"
while read -r cmd where; do
	grep -qxF "$cmd" "$tmp/own" && continue
	[[ $cmd == *.ko ]] && continue
	listed "$cmd" || echo "$cmd (${where#"$top"/})" >>"$tmp/missing"
done <"$tmp/used"
if [ -s "$tmp/missing" ]; then
	ktap_print_msg "not in deps.sh's table: $(sort -u "$tmp/missing" | tr '\n' ' ')"
	ktap_test_fail "every program the scripts run is in deps.sh's table"
else
	ktap_test_pass "every program the scripts run is in deps.sh's table"
fi

# A package's programs, wherever PATH would find another copy first.
: >"$tmp/absent" && : >"$tmp/foreign"
while read -r entry; do
	pkg=${entry%%:*}
	for cmd in ${entry#*:}; do
		command -v "$cmd" >/dev/null || echo "$cmd" >>"$tmp/absent"
		# the package holds the program, or what it links to (alternatives)
		found=0
		for dir in /usr/bin /usr/sbin /bin /sbin; do
			[ -e "$dir/$cmd" ] || continue
			for path in "$dir/$cmd" "$(readlink -f "$dir/$cmd")"; do
				dpkg-query -L "$pkg" 2>/dev/null |
					grep -qxE "(/usr)?${path#/usr}" && found=1
			done
		done
		[ "$found" = 1 ] ||
			echo "$cmd (not in $pkg)" >>"$tmp/foreign"
	done
done <"$tmp/table"
if [ -s "$tmp/absent" ]; then
	ktap_print_msg "not found: $(tr '\n' ' ' <"$tmp/absent")"
	ktap_test_fail "every program of the table is installed"
else
	ktap_test_pass "every program of the table is installed"
fi
if [ -s "$tmp/foreign" ]; then
	ktap_print_msg "$(tr '\n' ' ' <"$tmp/foreign")"
	ktap_test_fail "every program of the table comes from its package"
else
	ktap_test_pass "every program of the table comes from its package"
fi
ktap_finished
