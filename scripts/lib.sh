# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the wbsync lab scripts; source it, do not run it.

WBSYNC_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Kernel trees and builds live outside the work tree: they are large and
# shared by every clone on the machine.
WBSYNC_CACHE=${WBSYNC_CACHE:-/var/cache/wbsync}
WBSYNC_VARIANT=${WBSYNC_VARIANT:-default}
WBSYNC_JOBS=${WBSYNC_JOBS:-$(($(nproc) + 1))}

die()
{
	echo "${0##*/}: $*" >&2
	exit 1
}

log()
{
	echo "[${0##*/}] $*" >&2
}

# Debian package that provides the base tree, and the tarball it ships.
base_package()
{
	echo linux-source-6.12
}

base_tarball()
{
	local t

	t=$(dpkg -L "$(base_package)" 2>/dev/null | grep -E '/linux-source-[0-9.]+\.tar\.(xz|bz2|gz)$' | head -n1)
	[ -n "$t" ] && [ -f "$t" ] || die "$(base_package) is not installed (run: make deps)"
	echo "$t"
}

# "6.12.57-1~bpo12+1": the Debian version of the base source package.
base_version()
{
	dpkg-query -W -f '${Version}' "$(base_package)" 2>/dev/null ||
		die "$(base_package) is not installed (run: make deps)"
}

series_dir()
{
	echo "${WBSYNC_SERIES:-$WBSYNC_TOP/patches}"
}

# Call before series_files, which runs in a subshell and cannot stop us.
series_dir_check()
{
	[ -d "$(series_dir)" ] || die "patch directory $(series_dir) does not exist"
}

# The patch series, in the order git am applies it (the cover letter of
# git format-patch carries no diff).
series_files()
{
	find "$(series_dir)" -maxdepth 1 -name '[0-9]*.patch' \
		! -name '0000-cover-letter.patch' | LC_ALL=C sort
}

# Content hash of a list of files given on stdin (names do not matter,
# order and content do).
hash_files()
{
	local f

	while read -r f; do
		[ -n "$f" ] && sha256sum <"$f"
	done | sha256sum | cut -c1-16
}
