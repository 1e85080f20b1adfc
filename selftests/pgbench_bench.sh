#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pgbench_bench.sh [-r RUNS] [-t SECONDS] [-c CLIENTS] [-s SCALE]
#
# The seed's sync_file_range(2) benchmark, PostgreSQL's pgbench (TPC-B),
# in a wbsync guest: a cluster of Debian's PostgreSQL (the newest
# /usr/lib/postgresql/*/bin) on ext4 on the first disk of $WBSYNC_DISKS,
# initialised once with "pgbench -i -s SCALE", then RUNS runs of
# "pgbench -M prepared -T SECONDS -c CLIENTS -j (vCPUs) -P 1" in each mode
# of wbsync.ko's sfr_sync_mode knob: "auto" (the kernel's choice:
# WB_SYNC_NONE for SYNC_FILE_RANGE_WRITE) and "all" (WB_SYNC_ALL forced,
# as before Linux 4.4), alternating which goes first.  Before each run:
# pgbench's own preparation (vacuum of the small tables, history
# emptied), a CHECKPOINT, and a settle that puts the timed checkpoints at
# the same point of every run (see below).  checkpoint_flush_after,
# backend_flush_after and bgwriter_flush_after keep PostgreSQL's defaults
# on Linux; what the cluster sets is in write_conf below.
#
# Per run, in $WBSYNC_OUT: pgbench-RUN-MODE.txt, pgbench's output and
# sync_measure.sh's line over the run (the guest's CPU idle share, the
# disk's busy share: the regime); settings-RUN-MODE, SHOW of the flush
# settings; pgstat-RUN-MODE, pg_stat_bgwriter over the run (who wrote the
# buffers); stats-RUN-MODE, the module's statistics (how many
# sync_file_range calls, their latency).  Once: init.txt (pgbench -i) and
# postgres.log (the checkpoints, stamped in seconds since the epoch).
# scripts/pgbench-report.sh makes the table.  Needs $WBSYNC_MODULE
# (wbsync.ko).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# Where user postgres can read (pg_ctl and psql want their directory).
cd / || exit 2
runs=3 secs=60 clients=16 scale=30
usage="usage: pgbench_bench.sh [-r RUNS] [-t SECONDS] [-c CLIENTS] [-s SCALE]"
while getopts r:t:c:s: opt; do
	case $opt in
	r) runs=$OPTARG ;;
	t) secs=$OPTARG ;;
	c) clients=$OPTARG ;;
	s) scale=$OPTARG ;;
	*)
		echo "$usage" >&2
		exit 2
		;;
	esac
done
fail()
{
	echo "pgbench_bench.sh: $*" >&2
	exit 2
}
[ $OPTIND -gt $# ] || fail "$usage"
for v in "$runs" "$secs" "$clients" "$scale"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || fail "-r, -t, -c and -s take positive numbers, not '$v'"
done
read -r disk _ <<<"${WBSYNC_DISKS:-}"
[ -b "${disk:-}" ] || fail "no disk in WBSYNC_DISKS"
[ -d "${WBSYNC_OUT:-}" ] || fail "run me in a guest (scripts/vm-run)"
[ -f "${WBSYNC_MODULE:-}" ] || fail "WBSYNC_MODULE (wbsync.ko) is not set"
# Debian's server and client programs are under /usr/lib/postgresql/V/bin
# (postgresql-V, postgresql-client-V); /usr/bin has only pg_wrapper links.
pgbin=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
for p in initdb pg_ctl postgres psql pgbench; do
	[ -x "$pgbin/$p" ] || fail "no $p in /usr/lib/postgresql/*/bin: install postgresql-15 (make deps)"
done
id postgres >/dev/null 2>&1 || fail "no postgres user (install postgresql-15: make deps)"

mnt=$(mktemp -d)
data=$mnt/pgdata
knob=/sys/kernel/debug/wbsync/sfr_sync_mode
started=0
# checkpoint_timeout, in seconds (write_conf).
ckpt=30
# As user postgres: the server refuses root.
as_pg()
{
	runuser -u postgres -- "$@"
}
sql()
{
	as_pg "$pgbin/psql" -h "$data" -X -q -At -v ON_ERROR_STOP=1 -d postgres -c "$1"
}
cleanup()
{
	if [ "$started" = 1 ]; then
		as_pg "$pgbin/pg_ctl" -D "$data" -m fast -w -t 120 stop >/dev/null ||
			echo "pgbench_bench.sh: cannot stop postgres" >&2
		cp "$mnt/postgres.log" "$WBSYNC_OUT/postgres.log" 2>/dev/null
	fi
	[ ! -e "$knob" ] || echo auto >$knob
	mountpoint -q "$mnt" && umount "$mnt"
	grep -q '^wbsync ' /proc/modules && rmmod wbsync
	rmdir "$mnt"
}
trap cleanup EXIT

# What the lab changes from PostgreSQL's defaults, and why; the flush
# settings stay as they are.
write_conf()
{
	cat >>"$data/postgresql.conf" <<-EOF

		# pgbench_bench.sh
		# Unix socket only, in the data directory: the guest's /run is an
		# empty tmpfs without /run/postgresql.
		listen_addresses = ''
		unix_socket_directories = '$data'
		# Log lines stamped in seconds since the epoch, the clock of
		# sync_measure.sh's start_epoch: the report matches the checkpoints
		# (log_checkpoints is on by default) with the runs.
		log_line_prefix = '%n [%p] '
		# The shortest timeout (default 5min): a run of a minute holds two
		# timed checkpoints, each spread over 27 s (checkpoint_completion_target
		# 0.9), whose writes checkpoint_flush_after follows with
		# sync_file_range(2).  max_wal_size keeps its default (1GB): a
		# checkpoint's WAL distance is tens of MB here, so checkpoints stay
		# time-driven (the log: "checkpoint starting: time", not "wal").
		# shared_buffers keeps its default (128MB): the database of -s 30 is
		# 3.6 times larger, yet the checkpointer writes most buffers (the
		# log's "wrote N buffers" against pgstat-*: buffers_backend), so most
		# writes go through its flushes.
		checkpoint_timeout = ${ckpt}s
	EOF
}

insmod "$WBSYNC_MODULE" || fail "insmod $WBSYNC_MODULE failed"
[ "$(cat $knob)" != unsupported ] || fail "sfr_sync_mode is unsupported on $(uname -r)"
# Inode tables and journal written now, not by ext4lazyinit during the runs.
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$disk" && mount "$disk" "$mnt" ||
	fail "cannot mount $disk"
chmod 755 "$mnt"
mkdir "$data" && chown postgres:postgres "$data" "$mnt" || fail "cannot make $data"
as_pg "$pgbin/initdb" -D "$data" --no-locale -E UTF8 -A trust >"$WBSYNC_OUT/initdb.log" 2>&1 ||
	fail "initdb failed (see initdb.log)"
write_conf
as_pg "$pgbin/pg_ctl" -D "$data" -l "$mnt/postgres.log" -w -t 120 start >/dev/null ||
	fail "postgres does not start: $(tail -n 3 "$mnt/postgres.log")"
started=1
jobs=$(nproc)
[ "$jobs" -le "$clients" ] || jobs=$clients
dev=${disk#/dev/}
flush="checkpoint_flush_after backend_flush_after bgwriter_flush_after"

echo "TAP version 13"
echo "1..$((1 + runs * 2))"
echo "# $("$pgbin/postgres" --version), data directory on $disk (ext4)"
echo "# $dev: scheduler $(cat "/sys/block/$dev/queue/scheduler")," \
	"wbt_lat_usec $(cat "/sys/block/$dev/queue/wbt_lat_usec" 2>/dev/null || echo -)"
for s in $flush; do
	echo "# $s = $(sql "SHOW $s") (the default)"
done
for s in shared_buffers checkpoint_timeout max_wal_size; do
	echo "# $s = $(sql "SHOW $s")"
done
start=$SECONDS
if as_pg "$pgbin/pgbench" -h "$data" -i -q -s "$scale" postgres >"$WBSYNC_OUT/init.txt" 2>&1 &&
	sql CHECKPOINT; then
	echo "ok 1 pgbench -i -s $scale ($((SECONDS - start)) s," \
		"$(sql "SELECT pg_size_pretty(pg_database_size('postgres'))"))"
else
	echo "not ok 1 pgbench -i -s $scale (see init.txt)"
	exit 1
fi

n=1 failed=0
for ((r = 1; r <= runs; r++)); do
	modes="auto all"
	[ $((r % 2)) = 0 ] && modes="all auto"
	for mode in $modes; do
		n=$((n + 1))
		echo "$mode" >$knob
		out=$WBSYNC_OUT/pgbench-$r-$mode.txt
		for s in server_version $flush shared_buffers checkpoint_timeout max_wal_size; do
			echo "$s=$(sql "SHOW $s")"
		done >"$WBSYNC_OUT/settings-$r-$mode"
		# pgbench's own preparation, done here (pgbench -n) to leave it
		# out of the measured time; then nothing dirty at the start.  A
		# timed checkpoint starts checkpoint_timeout after the start of
		# the last one: the second CHECKPOINT, with nothing to write,
		# starts that clock at t0 (the first one's length depends on
		# what the last run left dirty).  The run starts 5 to 34 s later,
		# so that it ends halfway between two timed checkpoints: the
		# same phase in every run, and no checkpoint starts between its
		# end and the statistics read after it.
		t0=
		if sql "VACUUM pgbench_branches" && sql "VACUUM pgbench_tellers" &&
			sql "TRUNCATE pgbench_history" && sql CHECKPOINT && sync; then
			t0=${EPOCHREALTIME/./}
			sql CHECKPOINT || t0=
		fi
		if [ -z "$t0" ]; then
			echo "not ok $n run $r sfr_sync_mode=$mode (no vacuum or checkpoint)"
			failed=1
			continue
		fi
		sql "SELECT pg_stat_reset_shared('bgwriter')" >/dev/null
		lead=$((5 + ((ckpt / 2 - 5 - secs % ckpt + ckpt) % ckpt)))
		us=$((t0 + lead * 1000000 - ${EPOCHREALTIME/./}))
		[ "$us" -le 0 ] || sleep "$((us / 1000000)).$(printf %06d $((us % 1000000)))"
		echo 1 >/sys/kernel/debug/wbsync/reset
		if "$here/sync_measure.sh" "$dev" -- runuser -u postgres -- "$pgbin/pgbench" -h "$data" \
			-n -M prepared -T "$secs" -c "$clients" -j "$jobs" -P 1 postgres >"$out" 2>&1 &&
			grep -q '^tps = ' "$out" && grep -q '^sync_seconds=' "$out"; then
			echo "ok $n run $r sfr_sync_mode=$mode: $(grep '^tps = ' "$out")"
		else
			echo "not ok $n run $r sfr_sync_mode=$mode (see ${out##*/})"
			failed=1
		fi
		# The kernel's view of the run's sync_file_range calls, and
		# PostgreSQL's of who wrote the buffers.
		cp /sys/kernel/debug/wbsync/stats "$WBSYNC_OUT/stats-$r-$mode"
		sql "SELECT 'checkpoints_timed=' || checkpoints_timed, 'checkpoints_req=' || checkpoints_req,
			'checkpoint_write_ms=' || checkpoint_write_time, 'checkpoint_sync_ms=' || checkpoint_sync_time,
			'buffers_checkpoint=' || buffers_checkpoint, 'buffers_clean=' || buffers_clean,
			'buffers_backend=' || buffers_backend FROM pg_stat_bgwriter" |
			tr '|' '\n' >"$WBSYNC_OUT/pgstat-$r-$mode"
	done
done
exit $failed
