# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the wbsync tests that change the dirty limits: they save
# them first and restore them at exit.
#
# Of each pair, vm.dirty_ratio and vm.dirty_bytes, vm.dirty_background_ratio
# and vm.dirty_background_bytes, the limit in force is the one that is
# not 0, and writing it back zeroes the other (the kernel does so when a
# pair's half changes).  A pair that reads 0 both cannot be written back:
# save_dirty_limits then fails, and the test must leave the limits alone.
# DIRTY_LIMITS_DIR stands for /proc/sys/vm in the lab's own tests.
saved_dirty_limits=()
dirty_limits_dir=${DIRTY_LIMITS_DIR:-/proc/sys/vm}

# save_dirty_limits: remember the limits in force, for restore_dirty_limits.
save_dirty_limits()
{
	local k v

	saved_dirty_limits=()
	for k in dirty_ratio dirty_bytes dirty_background_ratio dirty_background_bytes; do
		read -r v <"$dirty_limits_dir/$k" || return 1
		[ "$v" = 0 ] || saved_dirty_limits+=("$k=$v")
	done
	[ "${#saved_dirty_limits[@]}" = 2 ]
}

# restore_dirty_limits: write back what save_dirty_limits remembered.
# shellcheck disable=SC2317 # called from EXIT traps
restore_dirty_limits()
{
	local kv rc=0

	for kv in "${saved_dirty_limits[@]}"; do
		echo "${kv#*=}" >"$dirty_limits_dir/${kv%%=*}" ||
			{ echo "cannot restore vm.$kv" >&2; rc=1; }
	done
	return "$rc"
}
