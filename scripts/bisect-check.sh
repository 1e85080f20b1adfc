#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect-check.sh [-k KERNEL] [--alone]
#
# Every prefix of the series builds and boots (bisectability): applies the
# patches one at a time in a tree of its own, builds each step
# incrementally in one build directory (the objects a patch touches
# compiled with W=1 as well, which must not warn), and boots each step with
# the smoke test (write, sync(2), remount, verify on ext4 and xfs).  TAP on
# stdout; work in $WBSYNC_CACHE/bisect and output/bisect.
#   -k KERNEL  the patches of this lab kernel (default patched: all of them;
#              fixes: the fixes, which go to stable one by one)
#   --alone    each patch applied alone on the base, not on the ones before
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

kernel=patched alone=
while [ $# -gt 0 ]; do
	case $1 in
	-k) [ $# -ge 2 ] || usage_error "-k needs a kernel ($KERNEL_NAMES)"
	    kernel=$2; shift ;;
	--alone) alone=1 ;;
	*) usage_error "usage: bisect-check.sh [-k KERNEL] [--alone]" ;;
	esac
	shift
done
WBSYNC_PATCHES=$(kernel_patches "$kernel") ||
	usage_error "unknown kernel '$kernel' ($KERNEL_NAMES)"
[ "$kernel" != vanilla ] || usage_error "vanilla has no patches to check"
export WBSYNC_PATCHES
full=$("$WBSYNC_TOP/scripts/prepare-tree.sh") || die "the series does not apply"
ksrc=$("$WBSYNC_TOP/scripts/prepare-tree.sh" --vanilla)
mapfile -t commits < <(git -C "$full" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || die "the series is empty"
build_selftests || die "building the selftests failed"

tree=$WBSYNC_CACHE/bisect/tree
build=$WBSYNC_CACHE/bisect/build
out=$WBSYNC_TOP/output/bisect
mkdir -p "$WBSYNC_CACHE/bisect" "$out"
exec 9>"$WBSYNC_CACHE/bisect.lock"
flock 9
git -C "$ksrc" worktree prune
[ -d "$tree" ] || git -C "$ksrc" worktree add -q --detach "$tree" base ||
	die "cannot make the bisect tree"

export CCACHE_DIR=$WBSYNC_CACHE/ccache CCACHE_BASEDIR=$WBSYNC_CACHE CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
kmake=(make -C "$tree" O="$build" ARCH=x86_64 -j"$WBSYNC_JOBS")
command -v ccache >/dev/null && kmake+=(CC="ccache gcc")
# The configuration of the lab's build of that kernel.
cfg=$("$WBSYNC_TOP/scripts/build-kernel.sh" "$kernel")/.config
[ -f "$cfg" ] || die "no configuration of the $kernel kernel"

tap_plan ${#commits[@]}
for ((i = 0; i < ${#commits[@]}; i++)); do
	c=${commits[i]} n=$((i + 1))
	subject=$(git -C "$full" log -1 --format=%s "$c")
	step="patch $n/${#commits[@]}${alone:+ alone} ($subject)"
	log "$step"
	if [ "$alone" = 1 ]; then
		git -C "$tree" checkout -q -f --detach base &&
			git -C "$full" diff "$c^" "$c" | git -C "$tree" apply --index
	else
		git -C "$tree" checkout -q -f --detach "$c"
	fi || die "cannot check out $step"
	mkdir -p "$build"
	cp "$cfg" "$build/.config"
	if ! "${kmake[@]}" olddefconfig vmlinux >"$out/build-$n.log" 2>&1; then
		tap "not ok" "$step builds"
		continue
	fi
	# The touched objects this configuration builds (a file the configuration
	# leaves out, such as fs/ext2/xattr.c without EXT2_FS_XATTR, is not built).
	touched=$(git -C "$tree" diff --name-only "$c^" "$c" -- '*.c' | sed 's/\.c$/.o/' |
		  while read -r o; do [ ! -f "$build/$o" ] || echo "$o"; done)
	# shellcheck disable=SC2086
	if [ -n "$touched" ] && { ! "${kmake[@]}" W=1 $touched >"$out/w1-$n.log" 2>&1 ||
				  grep -q 'warning:' "$out/w1-$n.log"; }; then
		tap "not ok" "$step has W=1 warnings ($out/w1-$n.log)"
		continue
	fi
	if "$WBSYNC_TOP/scripts/vm-run" --quiet --kernel "$build" --out "$out/boot-$n" \
		--disks 2 --timeout 600 -- "$WBSYNC_TOP/output/selftests/smoke_test" >/dev/null; then
		tap ok "$step builds and boots (smoke test)"
	else
		tap "not ok" "$step boots (smoke test: $out/boot-$n)"
	fi
done
tap_finish "work directory $out"
