#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prepare-tree.sh [--vanilla]
#
# Print the path of a kernel source tree: Debian's linux-source-6.12 as a
# git tree (the pristine source is commit "base"), with patches/*.patch
# applied by git am unless --vanilla.  Trees are cached in $WBSYNC_CACHE,
# keyed by the base version and the series content.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

vanilla=0
case "${1:-}" in
--vanilla) vanilla=1 ;;
"") ;;
*) usage_error "usage: prepare-tree.sh [--vanilla]" ;;
esac

# The cache trees are scratch: no identity needed, and no automatic gc
# (a repack of the 80000-file base costs minutes).
git_q() { git -c user.name=wbsync -c user.email=wbsync@localhost -c gc.auto=0 "$@"; }

[ "$vanilla" = 1 ] || series_dir_check
ver=$(base_version)
base=$WBSYNC_CACHE/src/linux-$ver
mkdir -p "$WBSYNC_CACHE/src" "$WBSYNC_CACHE/trees"
exec 9>"$WBSYNC_CACHE/.tree.lock"
flock 9

if [ ! -e "$base/.wbsync-base" ]; then
	tarball=$(base_tarball)
	log "unpacking $tarball (base $ver)"
	rm -rf "$base"
	mkdir -p "$base"
	tar -C "$base" --strip-components=1 -xf "$tarball"
	git_q -C "$base" init -q
	# Debian's top-level .gitignore ignores "/*": take the tarball as is.
	git_q -C "$base" add -f -A .
	git_q -C "$base" commit -q -m "Linux $(make -s -C "$base" kernelversion) from Debian $(base_package) $ver"
	git_q -C "$base" tag base
	echo "$ver" >"$base/.wbsync-base"
	echo .wbsync-base >>"$base/.git/info/exclude"
fi
log "base: Linux $(make -s -C "$base" kernelversion) (Debian $(base_package) $ver)"

mapfile -t series < <(series_files)
if [ "$vanilla" = 1 ] || [ "${#series[@]}" = 0 ]; then
	echo "$base"
	exit 0
fi

key=$(printf '%s\n' "${series[@]}" | hash_files)
tree=$WBSYNC_CACHE/trees/linux-$ver-$key
if [ ! -e "$tree/.wbsync-applied" ]; then
	[ -d "$tree" ] && git_q -C "$base" worktree remove --force "$tree"
	git_q -C "$base" worktree prune
	git_q -C "$base" worktree add -q --detach "$tree" base
	for p in "${series[@]}"; do
		if ! out=$(git_q -C "$tree" am -q "$p" 2>&1); then
			git_q -C "$tree" am --abort >/dev/null 2>&1 || true
			hunk=$(echo "$out" | grep -E '^error: ' | head -n 3 | tr '\n' ' ')
			die "${p#"$WBSYNC_TOP"/} does not apply to Linux $ver: ${hunk:-$out}"
		fi
	done
	# Worktrees share the base tree's exclude file.
	exclude=$(git -C "$tree" rev-parse --git-path info/exclude)
	grep -qx .wbsync-applied "$exclude" || echo .wbsync-applied >>"$exclude"
	printf '%s\n' "${series[@]##*/}" >"$tree/.wbsync-applied"
	log "applied ${#series[@]} patches on $tree"
fi
echo "$tree"
