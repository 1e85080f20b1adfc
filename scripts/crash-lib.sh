# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared parts of the host-side crash tests (integrity.sh, holes.sh):
# arguments, TAP comments, the crash boot and the verify boot.  Source it
# after lib.sh.
# shellcheck disable=SC2034 # kdir, name out

# vm-run's exit status of the last verify_boot
boot_rc=0

# crash_kernel KERNEL: the kernel build directory of KERNEL, a lab kernel
# ($KERNEL_NAMES; naive: the base with selftests/fixtures/naive.patch
# alone; patched+PATCH: the series with the patch file PATCH on top, e.g.
# a fixture of selftests/fixtures/),
# built or reused, or a build directory, in $kdir; $name names it in work
# directories.
crash_kernel()
{
	case $1 in
	naive) fixture_alone "$WBSYNC_TOP/selftests/fixtures/naive.patch" ;;
	patched+*) series_plus "${1#patched+}" ;;
	*/*|.*) kdir=$1 ;;
	*) kernel_patches "$1" >/dev/null ||
		usage_error "unknown kernel '$1' ($KERNEL_NAMES, naive, patched+PATCH, or a build directory)"
	   kdir=$("$WBSYNC_TOP/scripts/build-kernel.sh" "$1") ;;
	esac
	[ -n "$kdir" ] || die "building the $1 kernel failed"
	[ -d "$kdir" ] || usage_error "kernel build directory '$kdir' does not exist"
	kdir=$(cd "$kdir" && pwd)
	name=$1
	[[ "$1" != */* ]] || name=${kdir##*/}
	[[ "$1" != patched+* ]] || name=patched+$(basename "${1#patched+}" .patch)
}

# fixture_alone PATCH: build (or reuse) the base with PATCH alone in
# place of the series, into $kdir.
fixture_alone()
{
	local sdir

	sdir=$(mktemp -d) || die "cannot create a scratch directory"
	if cp "$1" "$sdir/0001-$(basename "$1")"; then
		kdir=$(WBSYNC_SERIES=$sdir "$WBSYNC_TOP/scripts/build-kernel.sh" patched) || kdir=
	else
		kdir=
	fi
	rm -rf "$sdir"
}

# series_plus PATCH: build (or reuse) the series with PATCH on top, into
# $kdir.  The build cache keys on the patches' content and order, not on
# their names, so a copy in a scratch directory is the same build.
series_plus()
{
	local sdir

	[ -f "$1" ] || usage_error "patched+PATCH: no patch file '$1'"
	sdir=$(mktemp -d) || die "cannot create a scratch directory"
	if WBSYNC_PATCHES='' series_files | xargs cp -t "$sdir" &&
	   cp "$1" "$sdir/9999-$(basename "$1")"; then
		kdir=$(WBSYNC_SERIES=$sdir "$WBSYNC_TOP/scripts/build-kernel.sh" patched) || kdir=
	else
		kdir=
	fi
	rm -rf "$sdir"
}

need_arg()
{
	[ $# -ge 2 ] && [ -n "$2" ] || usage_error "$1 needs an argument"
}

need_num()
{
	[[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || usage_error "$1 needs a positive number, not '${2:-}'"
}

# Guest output as TAP comments.
comment()
{
	sed 's/^/#   /' "$@"
}

# The kselftest helpers the guest scripts source: from $KSRC, else the
# base tree (prepare-tree.sh).
ktap_helpers()
{
	local tree=${KSRC:-}

	[ -n "$tree" ] || tree=$("$WBSYNC_TOP/scripts/prepare-tree.sh" --vanilla 2>/dev/null)
	[ -f "$tree/tools/testing/selftests/kselftest/ktap_helpers.sh" ] ||
		usage_error "ktap_helpers.sh not found (set KSRC to a kernel tree)"
	echo "$tree/tools/testing/selftests/kselftest/ktap_helpers.sh"
}

# crash_boot DIR VM-RUN-ARGS... -- COMMAND...: boot 1, which must sync
# ("sync_done" in DIR/crash/record) and crash with sysrq-b (no exit
# status of the command).  Its output as comments; fails if it did not
# crash after the sync.
crash_boot()
{
	local dir=$1 args=() rc

	shift
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	vm_run "${args[@]}" --keep-disks "$dir/disks" --allow-crash --quiet \
		--out "$dir/crash" "$@" >"$dir/crash.log" 2>&1
	rc=$?
	comment "$dir/crash/output" 2>/dev/null
	if [ "$rc" != 0 ]; then
		echo "# vm-run exit status $rc"
		tail -n 5 "$dir/crash.log" | comment
		return 1
	fi
	if [ -f "$dir/crash/rc" ]; then
		echo "# the guest exited (status $(cat "$dir/crash/rc")) instead of crashing"
		return 1
	fi
	if ! grep -qx sync_done "$dir/crash/record" 2>/dev/null; then
		echo "# the guest crashed before the sync returned"
		return 1
	fi
}

# verify_boot DIR VM-RUN-ARGS... -- COMMAND...: boot 2 on the same disks;
# its output as comments; fails if vm-run's exit status, left in the
# global $boot_rc, is not 0.
verify_boot()
{
	local dir=$1 args=()

	shift
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	vm_run "${args[@]}" --keep-disks "$dir/disks" --quiet --out "$dir/verify" \
		"$@" >"$dir/verify.log" 2>&1
	boot_rc=$?
	comment "$dir/verify/output" 2>/dev/null
	[ "$boot_rc" = 0 ] && return 0
	tail -n 5 "$dir/verify.log" | comment
	return 1
}

# sync_seconds RECORD: "1.01 s", the sync's duration from the guest's record.
sync_seconds()
{
	awk '/^sync_ns/ { printf "%.2f s", $2 / 1e9 }' "$1"
}
