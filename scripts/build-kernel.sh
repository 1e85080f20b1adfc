#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh [--config-only|--modules-prepare] vanilla|fixes|for_sync|patched|v6|patched-NNNN
#
# Configure and build a guest kernel (vmlinux, plus what out-of-tree
# "make M=" module builds need) and print its build directory.  Builds are
# cached in $WBSYNC_CACHE/builds, keyed by a hash of the base version, the
# series, the config fragments and $WBSYNC_VARIANT (default, debug, kcsan
# or nfs), so an unchanged input never rebuilds and a changed one always
# does.
# --config-only stops after checking the configuration; --modules-prepare
# stops after "make modules_prepare", which is all that out-of-tree
# modules need to build (not to load: there is no vmlinux), in a minute
# instead of a kernel build.  fixes, for_sync and patched-NNNN are partial
# series, v6 a fixture on top of one (kernel_patches in lib.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Bump when the way a build is made changes, to invalidate old builds.
RECIPE=1

frags=("$WBSYNC_TOP/kconfig/base.config" "$WBSYNC_TOP/selftests/config")
case "$WBSYNC_VARIANT" in
default) ;;
debug) frags+=("$WBSYNC_TOP/kconfig/debug.config") ;;
kcsan) frags+=("$WBSYNC_TOP/kconfig/kcsan.config") ;;
nfs) frags+=("$WBSYNC_TOP/kconfig/nfs.config") ;;
*) usage_error "unknown WBSYNC_VARIANT '$WBSYNC_VARIANT' (default, debug, kcsan or nfs)" ;;
esac

config_only=0 target="vmlinux modules"
case "${1:-}" in
--config-only) config_only=1; shift ;;
--modules-prepare) target=modules_prepare; shift ;;
esac
usage="usage: build-kernel.sh [--config-only|--modules-prepare] ${KERNEL_NAMES// /|}"
[ $# = 1 ] && WBSYNC_PATCHES=$(kernel_patches "$1") || usage_error "$usage"
if [ -n "$WBSYNC_PATCHES" ]; then
	# A renumbered series must not silently build another selection.
	n=$(series_files | wc -l)
	[ "$n" = "$(wc -w <<<"$WBSYNC_PATCHES")" ] ||
		die "$1 is patches $WBSYNC_PATCHES, but $(series_dir) has $n of them"
fi
mapfile -t extra < <(kernel_extra_patches "$1")
if [ ${#extra[@]} -gt 0 ]; then
	# The selection and the extra patches in a scratch series (the tree's
	# key is their content and order, not their names or place).
	sdir=$(mktemp -d) || die "cannot create a scratch directory"
	trap 'rm -rf "$sdir"' EXIT
	series_files | xargs cp -t "$sdir" && cp "${extra[@]}" "$sdir/" ||
		die "cannot copy the $1 series"
	export WBSYNC_SERIES=$sdir
	WBSYNC_PATCHES=
fi
case $1 in
vanilla) tree=$("$WBSYNC_TOP/scripts/prepare-tree.sh" --vanilla) ;;
*) tree=$(WBSYNC_PATCHES=$WBSYNC_PATCHES "$WBSYNC_TOP/scripts/prepare-tree.sh") ;;
esac

applied=()
[ -f "$tree/.wbsync-applied" ] && mapfile -t applied <"$tree/.wbsync-applied"
key=$({
	echo "recipe $RECIPE variant $WBSYNC_VARIANT"
	base_version
	gcc --version | head -n1
	git -C "$tree" rev-parse HEAD^{tree}
	cat "${frags[@]}"
} | sha256sum | cut -c1-16)
# Named by the key alone: while the series is empty, "patched" is the
# vanilla build itself rather than a second copy of it.  The objects are
# in the tree itself (builds/ links to them): every tree's sources are
# then at ".." from its objects, the same compiler command lines, and
# ccache hits every file a series does not touch.
name=linux-$WBSYNC_VARIANT-$key
[ "$target" = modules_prepare ] && name+=-modprep
out=$WBSYNC_CACHE/builds/$name

mkdir -p "$WBSYNC_CACHE/builds"
exec 9>"$out.lock"
flock 9
if [ -e "$out/.wbsync-built" ]; then
	log "$1 ($WBSYNC_VARIANT, ${#applied[@]} patches): cached $out"
	echo "$out"
	exit 0
fi

rm -rf "$out"
mkdir -p "$tree/.build"
rm -rf "$tree/.build/$name"
mkdir "$tree/.build/$name"
ln -s "$tree/.build/$name" "$out"
if [ "$config_only" = 1 ]; then
	log "$1 ($WBSYNC_VARIANT, ${#applied[@]} patches): configuring in $out"
else
	log "$1 ($WBSYNC_VARIANT, ${#applied[@]} patches): building in $out"
fi
start=$SECONDS
# Depend mode: no extra preprocessor run on a miss; base dir: paths
# relative to the objects, the same in every tree.
export CCACHE_DIR=$WBSYNC_CACHE/ccache CCACHE_BASEDIR=$WBSYNC_CACHE CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
kmake=(make -C "$tree" O="$out" ARCH=x86_64 -j"$WBSYNC_JOBS")
command -v ccache >/dev/null && kmake+=(CC="ccache gcc")

{
	"${kmake[@]}" allnoconfig
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}"
	"${kmake[@]}" olddefconfig
} >"$out/config.log" 2>&1 || { tail -n 30 "$out/config.log"; die "configuring $1 failed"; }

# merge_config.sh only warns about options Kconfig dropped (a missing
# dependency); a test that silently lacks its option is worse than a
# failed build.
missing=$(grep -h -E '^CONFIG_[A-Z0-9_]+=' "${frags[@]}" | while read -r opt; do
	grep -qx -F "$opt" "$out/.config" || echo "$opt"
done)
[ -z "$missing" ] || die "config fragments not satisfied in $out/.config:" $missing
if [ "$config_only" = 1 ]; then
	log "$1 ($WBSYNC_VARIANT): configuration is complete"
	rm -rf "$(readlink "$out")" "$out"
	exit 0
fi

# shellcheck disable=SC2086
if ! "${kmake[@]}" $target >"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -n 20 >&2
	die "building $1 failed (log: $out/build.log)"
fi
echo "$((SECONDS - start))" >"$out/.build-seconds"
{
	echo "base: Debian $(base_package) $(base_version)"
	echo "tree: $tree"
	[ ${#applied[@]} = 0 ] || printf 'patch: %s\n' "${applied[@]}"
} >"$out/.wbsync-built"
log "$1 built in $((SECONDS - start)) s"
echo "$out"
