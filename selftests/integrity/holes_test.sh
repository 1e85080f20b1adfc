#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# holes_test.sh crash|verify --hole h1|h2|h4|h5|h7|h8|h9|h10|h11 [options]
#
# Crash tests for three holes of the series' v2 sync-start cutoff (issue
# 12, H1, H2 and H4).  Each must lose data closed before sync(2) started on a
# kernel with v2 (patches 6-12) and lose nothing on 6.12.  scripts/holes.sh
# drives them: boot 1 (crash) sets up, writes, syncs and crashes with
# sysrq-b the moment sync(2) returns; boot 2 (verify) checks the same
# disks (vm-run --keep-disks).  Periodic and background writeback are off
# in boot 1 (by sysctl, and min_ratio 20 on every bdi of the test against
# per-bdi background writeback), so what is on disk is what the sync (and
# the test's own fsync) wrote.  Documentation/testing.rst, "Hole tests".
#
# Disks ($WBSYNC_DISKS): the first holds the "slow" ext4, mounted first,
# with --slow-mb MiB dirty at the sync, so that iterate_supers() (oldest
# mount first) reaches the filesystem under test seconds after the sync
# started.
#
# h1  redirty while another task holds I_SYNC.  vfat on dm-delay over the
#     second disk.  F is created and made durable; the pre-sync data is
#     appended (write(2) returns); caches are dropped (the FSINFO sector
#     is read back), the dm table is reloaded with a read delay of
#     --read-delay-ms; task A fsync()s F and
#     blocks in fat_write_inode()'s sb_bread() of F's directory block,
#     holding I_SYNC with I_DIRTY already cleared; sync(2) starts (C); task
#     B dirties F through a shared mapping (no content change).  v2 stamps
#     F clean->dirty at "now" > C and leaves it out of vfat's WB_SYNC_ALL
#     pass, which so never waits for A; vfat has no ->sync_fs and the
#     directory buffer is not dirty yet for sync_bdevs(): sync(2) returns
#     before F's new size and cluster chain start are on disk.  6.12 queues
#     F (its pass starts after B) and waits for A's I_SYNC.  sync(2)'s
#     WB_SYNC_NONE flusher kick would wait for that I_SYNC as well (its
#     wb_writeback() sleeps on the b_more_io inode) and hide the hole, so
#     h1 skips it with wbsync_fault.ko, as integrity_test.sh does (--kick
#     keeps it: then the test must pass on every kernel).
# h4  inodes first dirtied by writeback itself.  The second disk holds
#     the lower ext4 (mounted second, noatime) with an image file,
#     fully written and durable; a loop device on it, dm-delay on that and
#     ext2 (--upper vfat: vfat) on top, mounted third.  The upper files are
#     created and made durable, the flushers are kicked until nothing of
#     the lower disk is dirty, dm-delay gets a write delay (the loop worker
#     then dirties the backing file well after C's jiffy), and the files
#     are rewritten in place with generation 2 (no allocation).  Then
#     sync(2), with its flusher kick: the kick writes the upper data through
#     the loop device, whose worker (a kworker) dirties the clean backing
#     file after C, while the slow ext4 is synced; the lower ext4's pass
#     comes after.  6.12 selects the backing file (dirtied before that pass
#     started); v2 stamps it after C and skips it, and neither ext2 nor
#     vfat sends a flush that would make the loop driver fsync it.  Boot 2
#     checks the image: fsck -n and generation 2 in every file.
# h2  an NFS write's COMMIT.  The second disk holds an ext4 that knfsd
#     exports (sync export, NFSv4 over loopback), mounted first, before
#     the slow ext4; the client's mount of it (-o write=eager) comes
#     third.  F is created through the client.  Then netem delays every
#     packet on lo by --nfs-delay-ms, the helper writes --size bytes of
#     generation 1 to F from a descriptor it never closes (every close(2)
#     of an NFS file writes and COMMITs it), which sends them at once as an
#     UNSTABLE WRITE, and sync(2) starts (C).  Its flusher kick finds F's
#     pages under writeback and nothing to COMMIT yet, and takes the inode
#     off the lists as clean.  The export's pass is over before nfsd puts
#     the data in the export's page cache; the WRITE's completion then
#     marks the client inode dirty for its COMMIT (nfs_mark_request_commit()
#     before nfs_page_end_writeback(), in rpciod) while the slow ext4 is
#     synced.  6.12's client pass selects the inode and nfs_write_inode()
#     sends the COMMIT, whose fsync on the server writes F.  v2 stamps the
#     inode after C and skips it: no COMMIT, and no pass writes F.  The
#     record counts the client's WRITEs and COMMITs around the sync; boot 2
#     checks F on the export's ext4.  With --nfs-write lazy (the default
#     mount), the kick itself sends the WRITE with a COMMIT to follow its
#     completion (nfs_io_completion_commit()), which may reach the server
#     before the crash: the hole is then a race, not a certainty.  Needs
#     an NFS server and client and netem in the kernel
#     (WBSYNC_VARIANT=nfs), nfs-kernel-server and tc.
# h5  the inherited batch (Documentation/sync-fixes.rst), a hole of 6.12
#     itself.  Unlike the others, background
#     writeback stays ON (dirty_background_bytes --bg-kb, 1 MiB; periodic
#     writeback off; no min_ratio), and there is no slow ext4.  ext2
#     (-o lazytime; ext4 is no use: its i_version makes every mtime update
#     I_DIRTY_SYNC) on dm-delay over the second disk, by default without
#     delay (--write-delay-ms): the hdd profile's full queue is what keeps
#     background writeback in its batch (a dm-delay delay holds the bios
#     in dm-delay, and background writeback never blocks).
#     --writers writers create --file-kb files (4 KiB) for --run-s
#     seconds and on through the sync, faster than the hdd profile's disk
#     writes them, so that background writeback is running when sync(2)
#     starts and has a batch in b_io.  (If it is not running, sync(2)'s
#     flusher kick runs first, ends with b_io empty, and the pass starts
#     with an empty b_io: no window.)  The helper calls sync(2) when it
#     sees background writeback start on the bdi.  F is created,
#     fsync()ed (on-disk mtime T0), and 1.5 s later its first block is
#     rewritten with O_DIRECT: pages clean, I_DIRTY_TIME only, on
#     b_dirty_time, in-memory mtime T1 > T0 (checked in the inode table
#     buffer with debugfs).  sync(2) starts; its pass, queued on the
#     work list, stops background writeback, which leaves its batch in
#     b_io, and wb_writeback() calls queue_io() only once b_io is empty.
#     A thread of the helper that sees the pass's writeback_start (a
#     tracefs instance) writes one byte to F with pwrite(2):
#     __mark_inode_dirty() sees no I_DIRTY, stamps dirtied_when = now
#     (after the pass's start) and moves F to b_dirty; the pass's
#     queue_io() does not select it, and F's timestamps (T1) are not
#     written.  A pass that starts with b_io empty moves F (b_dirty_time,
#     for_sync) to b_io under I_SYNC_QUEUED first and writes T1.  Boot 2
#     mounts the ext2 and expects an mtime >= T1, and reads the trace
#     (always on for h5, global clock): the window was reached if (a)
#     the pass wrote an inode that a queue_io before it had moved to b_io
#     (an inherited batch), (b) F's write came 5 ms or more after the
#     pass's first writeback_start, (c) F was I_DIRTY_TIME only then and
#     (d) the pass's first round had not ended (h5_window() has the
#     details).  These hold with or without the fix ("writeback: let a
#     sync pass queue its inodes before it writes any", which
#     queues on the pass's first round whatever b_io holds).  Reached and
#     T1 lost: FAIL; reached and kept: PASS; not reached and kept: SKIP;
#     lost outside the window: FAIL as well.
# h7  __mark_inode_dirty()'s window, a hole of 6.12 itself.  Periodic and
#     background writeback off, no slow ext4: ext2 -o lazytime,noatime
#     on the second disk.  F is created, fsync()ed (T0), and 1.5 s later
#     its first block is rewritten with O_DIRECT: I_DIRTY_TIME only, on
#     b_dirty_time, in-memory mtime T1 > T0 (checked in the inode table
#     buffer).  wbsync_h7.ko (h7_module/) is armed for F.  A thread of the
#     helper on CPU 0 fchmod()s F: notify_change() -> ext2_setattr() ->
#     mark_inode_dirty() -> __mark_inode_dirty(I_DIRTY), which clears
#     I_DIRTY_TIME under i_lock and drops it; the module's probe on
#     writeback_dirty_inode_start spins there (--window-ms at most).  The
#     helper then calls sync(2) on CPU 1: the pass's queue_io() (for_sync)
#     moves F from b_dirty_time to b_io (I_SYNC_QUEUED), writeback finds
#     neither I_DIRTY_TIME nor I_DIRTY, writes nothing, and requeue_inode()
#     takes F off the lists, clearing I_SYNC_QUEUED.  The module sees that
#     write (writeback_single_inode_start, WB_SYNC_ALL, for_sync, then
#     writeback_single_inode: "reached"; with the fix F still holds
#     I_DIRTY_TIME there and is written) and ends the spin
#     --hold-ms later: the task sets I_DIRTY, sees no I_SYNC_QUEUED, stamps
#     dirtied_when after the pass's cutoff and moves F to b_dirty.  sync(2)
#     returns without writing T1.  Boot 2 mounts the ext2 and expects an
#     mtime >= T1.  Reached (the module's count) and T1 lost: FAIL; reached
#     and kept: PASS; not reached and kept: SKIP; lost outside the window:
#     FAIL.
# h8  the same window when F also has dirty pages, a hole of 6.12 itself.
#     As h7 (same code), but F's 64 KiB are rewritten with write(2),
#     generation 2, instead of the O_DIRECT block: I_DIRTY_PAGES and
#     I_DIRTY_TIME, on b_dirty, T1 in memory.  G, created and rewritten
#     with F, gets h7's O_DIRECT block instead (I_DIRTY_TIME only, on
#     b_dirty_time, which the WB_SYNC_NONE flush leaves alone): without
#     it the wb has nothing dirty once the flush has dropped F, and
#     sync_inodes_sb()'s bdi_split_work_to_wbs() queues no pass at all.
#     The module runs in mode h8.
#     The chmod is held in the window (I_DIRTY_TIME cleared, I_DIRTY_SYNC
#     not yet set); sync(2)'s WB_SYNC_NONE flush (wakeup_flusher_threads())
#     writes F's pages, finds no I_DIRTY_TIME and no inode flag, writes no
#     inode, and requeue_inode() takes F off the lists as clean
#     (reached: the module saw that write start with I_DIRTY_PAGES and end
#     before the pass queued; with the fix F keeps I_DIRTY_TIME and stays
#     on b_dirty_time for the pass).  The pass's queue_io()
#     finds F on no list; the module ends the spin --hold-ms after it
#     (queued): the task stamps dirtied_when after the pass's cutoff and
#     moves F to b_dirty, and ext2's ->write_inode() is never called for
#     it.  Boot 2 expects an mtime >= T1 and generation 2 in F (the
#     data, which the flush wrote and the sync waited for), and G's
#     mtime (the pass wrote it).  Reached and T1 lost: FAIL; reached and
#     kept: PASS; not reached and kept: SKIP; anything lost outside the
#     window: FAIL.
# h9  syncfs(2) of an eCryptfs mount, a hole of 6.12 itself.  eCryptfs on
#     a directory of the ext4 on the second disk (no slow ext4).  F is
#     created and made durable; --size bytes of generation 1 are written
#     to it with write(2), which puts them in the lower file's page cache
#     at once (ecryptfs_write_end()); syncfs(2) of the eCryptfs mount.
#     eCryptfs has no ->sync_fs() and no block device: 6.12 writes
#     nothing of the lower filesystem.  Boot 2 mounts both again and
#     checks F.
# h10 sync(2) of a page dirtied through a mapping of an eCryptfs file, a
#     hole of 6.12 itself.  As h9, but F holds generation 1 durably and
#     generation 2 is written through a shared mapping: only eCryptfs's
#     own pass puts it in the lower file (ecryptfs_writepage()), after
#     the lower ext4's pass (mounted first, synced first), and nothing
#     writes the lower file after that.  sync(2)'s flusher kick, which
#     may get the data there in time, is skipped with wbsync_fault.ko
#     (--kick keeps it).  Boot 2 expects generation 2.
# h11 fsync(2) of an inode the flushers wrote, a hole of 6.12 itself.
#     --fs (ext2, minix, vfat or udf) on the second disk, periodic
#     writeback every second, dirty data expiring after 5 s.  F is
#     created and made durable; its mtime is set to T1 (touch); the
#     flushers write the inode (WB_SYNC_NONE: its block is only marked
#     dirty, the inode is clean; a tracefs instance sees
#     writeback_write_inode_start for F), then fsync(F) and sysrq-b the
#     moment it returns, seconds before the flushers would write the
#     block device.  6.12's fsync(2) finds F clean and writes nothing.
#     Boot 2 expects mtime T1.
set -u

usage()
{
	cat >&2 <<USAGE
usage: holes_test.sh crash|verify --hole h1|h2|h4|h5|h7|h8|h9|h10|h11 [options]
  --record FILE      record of boot 1 (default \$WBSYNC_OUT/record)
  --slow-mb MIB      data dirty on the slow ext4 at the sync (default 256)
  --read-delay-ms MS h1: dm-delay read delay (default 30000)
  --a-ms MS          h1: from A's directory read in flight to the sync
                     (default 300)
  --b-ms MS          h1: from the sync start to B's dirtying (default 500)
  --size BYTES       h1: F's size after the pre-sync append (default 65536);
                     h2, h9, h10: F's size; h4: size of each upper file
                     (default 65536)
  --files N          h4: upper files (default 64)
  --upper TYPE       h4: ext2 or vfat (default ext2)
  --fs TYPE          h11: ext2, minix, vfat or udf (default ext2)
  --upper-delay-ms MS  h4: dm-delay write delay between the upper
                     filesystem and the loop device (default 300)
  --nfs-delay-ms MS  h2: netem delay of every packet on lo during the
                     sync (default 300)
  --nfs-write MODE   h2: the client's write= mount option, eager or lazy
                     (default eager)
  --kick             h1, h10: keep sync(2)'s flusher kick (no wbsync_fault.ko)
  --write-delay-ms MS  h5: dm-delay write delay under the ext2 (default 0)
  --writers N        h5: writers (default 2)
  --run-s S          h5: seconds the writers run before the sync (default 5)
  --bg-kb KIB        h5: vm.dirty_background_bytes in KiB (default 1024)
  --file-kb KIB      h5: size of the writers' files (default 4)
  --window-ms MS     h7, h8: longest hold in the window (1 to 15000,
                     default 5000)
  --hold-ms MS       h7: hold after the pass wrote F in the window, h8:
                     after the pass queued (0 to 1000, default 200)
  --trace            trace the writeback events of the sync into
                     \$WBSYNC_OUT/trace (dumped before the crash)
  --helper PATH      wbsync_holes (default: next to this script)
  --module PATH      wbsync_fault.ko, for h7 and h8 wbsync_h7.ko (default:
                     next to this script)
USAGE
	exit 2
}

die()
{
	echo "holes_test.sh: $*" >&2
	exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
phase=${1:-}
[ $# -gt 0 ] && shift
case "$phase" in
crash|verify) ;;
-h|--help) usage ;;
*) die "unknown phase '$phase' (crash, verify)" ;;
esac

hole='' record=${WBSYNC_OUT:+$WBSYNC_OUT/record} slow_mb=256 delay_ms=30000 fs=ext2
a_ms=300 b_ms=500 size=65536 files=64 upper=ext2 kick=0 trace=0 udelay_ms=300
nfs_delay_ms=300 nfs_write=eager
wdelay_ms=0 writers=2 run_s=5 bg_kb=1024 file_kb=4 bdi=
window_ms=5000 hold_ms=200
helper=$here/wbsync_holes module=
need_arg() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs an argument"; }
need_num() { [[ "${2:-}" =~ ^[0-9]+$ ]] || die "$1 needs a number, not '${2:-}'"; }
need_pos() { [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive number, not '${2:-}'"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--hole) need_arg "$@"; hole=$2; shift 2 ;;
	--record) need_arg "$@"; record=$2; shift 2 ;;
	--slow-mb) need_num "$@"; slow_mb=$2; shift 2 ;;
	--read-delay-ms) need_num "$@"; delay_ms=$2; shift 2 ;;
	--a-ms) need_num "$@"; a_ms=$2; shift 2 ;;
	--b-ms) need_num "$@"; b_ms=$2; shift 2 ;;
	--size) need_num "$@"; size=$2; shift 2 ;;
	--files) need_num "$@"; files=$2; shift 2 ;;
	--upper) need_arg "$@"; upper=$2; shift 2 ;;
	--fs) need_arg "$@"; fs=$2; shift 2 ;;
	--kick) kick=1; shift ;;
	--upper-delay-ms) need_num "$@"; udelay_ms=$2; shift 2 ;;
	--nfs-delay-ms) need_num "$@"; nfs_delay_ms=$2; shift 2 ;;
	--nfs-write) need_arg "$@"; nfs_write=$2; shift 2 ;;
	--write-delay-ms) need_num "$@"; wdelay_ms=$2; shift 2 ;;
	--writers) need_pos "$@"; writers=$2; shift 2 ;;
	--run-s) need_pos "$@"; run_s=$2; shift 2 ;;
	--bg-kb) need_pos "$@"; bg_kb=$2; shift 2 ;;
	--file-kb) need_pos "$@"; file_kb=$2; shift 2 ;;
	--window-ms) need_num "$@"; window_ms=$((10#$2)); shift 2
		[ "$window_ms" -ge 1 ] && [ "$window_ms" -le 15000 ] ||
			die "--window-ms must be from 1 to 15000, not '$window_ms'" ;;
	--hold-ms) need_num "$@"; hold_ms=$((10#$2)); shift 2
		[ "$hold_ms" -le 1000 ] || die "--hold-ms must be from 0 to 1000, not '$hold_ms'" ;;
	--trace) trace=1; shift ;;
	--helper) need_arg "$@"; helper=$2; shift 2 ;;
	--module) need_arg "$@"; module=$2; shift 2 ;;
	-h|--help) usage ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
case "$hole" in h1|h2|h4|h5|h7|h8|h9|h10|h11) ;; *) die "--hole must be h1, h2, h4, h5, h7, h8, h9, h10 or h11, not '$hole'" ;; esac
case "$fs" in ext2|minix|vfat|udf) ;; *) die "--fs must be ext2, minix, vfat or udf, not '$fs'" ;; esac
# h7mod: a hole of wbsync_h7.ko (h7, or h8: the module's mode h8)
h7mod=0
[ "$hole" != h7 ] && [ "$hole" != h8 ] || h7mod=1
[ "$hole" != h5 ] && [ "$h7mod" = 0 ] || trace=1
if [ -z "$module" ]; then
	module=$here/wbsync_fault.ko
	[ "$h7mod" = 0 ] || module=$here/wbsync_h7.ko
fi
case "$upper" in ext2|vfat) ;; *) die "--upper must be ext2 or vfat" ;; esac
case "$nfs_write" in eager|lazy) ;; *) die "--nfs-write must be eager or lazy" ;; esac
[ -n "$record" ] || die "no --record and no \$WBSYNC_OUT (run me in a wbsync guest)"
[ -x "$helper" ] || die "helper '$helper' is missing"
if [ "$phase" = crash ] && { [ "$h7mod" = 1 ] || { [[ "$hole" = h1 || "$hole" = h10 ]] && [ "$kick" = 0 ]; }; }; then
	[ -f "$module" ] || die "module '$module' is missing"
fi

# Next to this script (scripts/holes.sh copies it there) or one up (the tree,
# a kselftest install).
for lib in "$here/wbsync_lib.sh" "$here/../wbsync_lib.sh"; do
	[ -f "$lib" ] && break
done
# shellcheck source=../wbsync_lib.sh
. "$lib"

export DM_DISABLE_UDEV=1
read -r -a disks <<<"${WBSYNC_DISKS:-}"
slow_dev=${disks[0]:-/dev/vda} dev2=${disks[1]:-/dev/vdb}
mslow=/mnt/holes-slow mfat=/mnt/holes-fat mlower=/mnt/holes-lower mupper=/mnt/holes-upper
mexport=/srv/holes-export mnfs=/mnt/holes-nfs mh5=/mnt/holes-h5 mh7=/mnt/holes-h7
mcrypt=/mnt/holes-ecryptfs mh11=/mnt/holes-h11
img=$mlower/upper.img dm=wbsync-delay dmu=wbsync-upper udev=/dev/mapper/wbsync-upper
loopdev=
work=/run/wbsync-holes
mkdir -p "$work"

log()
{
	ktap_print_msg "$(awk '{ printf "%.3f", $1 }' /proc/uptime) $*"
	echo "wbsync_holes: $*" >/dev/kmsg 2>/dev/null
}

spray_pids=()
h5_inst=/sys/kernel/tracing/instances/wbsync-h5
cleanup()
{
	local m t=/sys/kernel/tracing

	[ "${#spray_pids[@]}" = 0 ] || { kill "${spray_pids[@]}"; wait; } 2>/dev/null
	if [ "$hole" = h5 ] && [ "$phase" = crash ]; then
		echo 0 >"$t/events/writeback/writeback_mark_inode_dirty/enable"
		echo 0 >"$t/events/writeback/writeback_mark_inode_dirty/filter"
		[ ! -d "$h5_inst" ] || rmdir "$h5_inst"
	fi 2>/dev/null

	for m in "$mnfs" "$mupper" "$mfat" "$mcrypt" "$mlower" "$mexport" "$mslow" "$mh5" "$mh7" "$mh11"; do
		mountpoint -q "$m" && umount "$m"
	done
	! pgrep -x rpc.mountd >/dev/null || { rpc.nfsd 0; exportfs -ua; pkill -x rpc.mountd; }
	dmsetup remove "$dmu" 2>/dev/null
	[ -z "$loopdev" ] || losetup -d "$loopdev" 2>/dev/null
	dmsetup remove "$dm" 2>/dev/null
	return 0
}
trap cleanup EXIT

run()
{
	ktap_test_result "$1" "test_$2"
}

record_value()
{
	awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }' "$record"
}

# --- boot 1 -----------------------------------------------------------------

test_disks()
{
	[ -b "$slow_dev" ] && [ -b "$dev2" ] ||
		{ ktap_print_msg "need 2 disks (WBSYNC_DISKS='${WBSYNC_DISKS:-}')"; return 1; }
}

test_sysctl()
{
	# No background writeback, no periodic writeback, nothing expires.
	sysctl -q -w vm.dirty_bytes=$((8 << 30)) \
		vm.dirty_background_bytes=$((4 << 30)) \
		vm.dirty_writeback_centisecs=0 \
		vm.dirty_expire_centisecs=8640000 \
		vm.laptop_mode=0
}

# Background writeback is off globally, but a bdi also starts it when its
# own dirty pages exceed its share of the background threshold, and a bdi
# that has written little lately has a share near 0 (wb_over_bg_thresh()):
# a few MiB dirty on the lower disk, the loop device or the dm-delay
# device would start it, writing before or during the sync what only the
# sync may write.  A minimum share of 20% of 4 GiB per bdi keeps it off.
BDI_MIN_RATIO=20
bdi_min_ratio()
{
	local dev f

	for dev; do
		f=/sys/class/bdi/$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ')/min_ratio
		echo "$BDI_MIN_RATIO" >"$f" && [ "$(cat "$f")" = "$BDI_MIN_RATIO" ] || return 1
	done
	ktap_print_msg "min_ratio $BDI_MIN_RATIO on the bdis of $*"
}

test_slow_fs()
{
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$slow_dev" &&
		mkdir -p "$mslow" && mount -t ext4 "$slow_dev" "$mslow" &&
		bdi_min_ratio "$slow_dev"
}

slow_cmd()
{
	echo "dd if=/dev/zero of=$mslow/dirty bs=1M count=$slow_mb status=none"
}

# Without its symbol, the module must refuse to load; with it, one sync(2)
# skips one kick.
param()
{
	cat "/sys/module/wbsync_fault/parameters/$1"
}

test_fault()
{
	local calls skipped

	insmod "$module" symbol=wbsync_no_such_symbol 2>/dev/null && return 1
	insmod "$module" skip_sync_kick=1 && [ "$(param skip_sync_kick)" = Y ] || return 1
	calls=$(param calls) skipped=$(param skipped)
	sync
	ktap_print_msg "sync(2): $(($(param calls) - calls)) kick(s), $(($(param skipped) - skipped)) skipped"
	[ "$(($(param calls) - calls))" = 1 ] && [ "$(($(param skipped) - skipped))" = 1 ]
}

dm_table()
{
	echo "0 $(blockdev --getsz "$dev2") delay $dev2 0 $1 $dev2 0 0"
}

test_h1_setup()
{
	dmsetup create "$dm" --table "$(dm_table 0)" &&
		bdi_min_ratio "/dev/mapper/$dm" &&
		mkfs.vfat -F 32 "/dev/mapper/$dm" >/dev/null &&
		mkdir -p "$mfat" && mount -t vfat "/dev/mapper/$dm" "$mfat" &&
		ktap_print_msg "mounted: $(grep -c . /proc/mounts) filesystems, $mslow before $mfat"
}

h1_crash()
{
	local pre inflight

	# Run by the helper after the append: drop the clean caches, F's
	# directory block with them; read the reserved sectors back in (the
	# FSINFO sector, which the pass reads for the fsinfo inode that the
	# append dirtied: only A's read must wait); then the read delay,
	# reloaded with --nolockfs (suspending a frozen fs would sync it).
	pre="echo 3 >/proc/sys/vm/drop_caches"
	pre+=" && dd if=/dev/mapper/$dm of=/dev/null bs=64k count=1 status=none"
	pre+=" && dmsetup suspend --nolockfs $dm && dmsetup load $dm --table '$(dm_table "$delay_ms")'"
	pre+=" && dmsetup resume $dm"
	{
		echo "hole h1"
		echo "fs vfat"
		echo "read_delay_ms $delay_ms"
		echo "kick $kick"
	} >>"$record"
	log "h1: F=$mfat/F, read delay $delay_ms ms, slow fs $slow_mb MiB, A->sync $a_ms ms, sync->B $b_ms ms"
	# dm-delay's status: "START LEN delay READS WRITES FLUSHES" held now.
	inflight="dmsetup status $dm | awk '{ exit !(\$4 > 0) }'"
	start_trace || ktap_print_msg "tracing is not available: running without it"
	exec "$helper" h1 -f "$mfat/F" -o "$record" -n "$size" -l "$(slow_cmd)" \
		-p "$pre" -w "$inflight" -A "$a_ms" -B "$b_ms" "${dump[@]}"
}

upper_table()
{
	echo "0 $(blockdev --getsz "$loopdev") delay $loopdev 0 0 $loopdev 0 $1"
}

test_h4_setup()
{
	local fmt

	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev2" &&
		mkdir -p "$mlower" && mount -t ext4 -o noatime "$dev2" "$mlower" || return 1
	# Fully written and durable: the upper writes overwrite allocated
	# blocks of the backing file, no allocation in the lower pass.
	dd if=/dev/zero of="$img" bs=1M count=160 conv=fsync status=none || return 1
	loopdev=$(losetup -f --show "$img") || return 1
	echo "$loopdev" >"$work/loop"
	case $upper in
	vfat) fmt=(mkfs.vfat -F 32) ;;
	*) fmt=(mkfs.ext2 -q -F) ;;
	esac
	# dm-delay between the upper and the loop device (no delay yet).
	dmsetup create "$dmu" --table "$(upper_table 0)" &&
		bdi_min_ratio "$dev2" "$loopdev" "$udev" &&
		"${fmt[@]}" "$udev" >/dev/null && mkdir -p "$mupper" &&
		mount -t "$upper" -o noatime "$udev" "$mupper" &&
		ktap_print_msg "$udev on $loopdev on $img; mount order $mslow, $mlower, $mupper"
}

# Generation 1, made durable through every layer: sync(2) twice, then
# syncfs(2) of the lower ext4.  Every sync(2) leaves the backing file dirty
# again: the upper's ->sync_fs() (ext2 writes its superblock) and
# sync_bdevs() run after the lower's pass.  A backing file that is dirty
# (with an age before the sync) when the test's sync(2) starts is written
# by every kernel, and the test would prove nothing: it must be clean.
test_h4_prepare()
{
	local i

	for ((i = 0; i < files; i++)); do
		"$helper" fill -f "$mupper/f$i" -n "$size" -g 1 || return 1
	done
	sync && sync && sync -f "$img" || return 1
	ktap_print_msg "after prepare: $(grep -E '^(Dirty|Writeback):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
}

# sync(2) does not take inodes off b_dirty that only the flusher writes:
# the block device inodes (jbd2's checkpoint buffers of the lower ext4, the
# upper's superblock written by its ->sync_fs()).  One on the lower disk's
# wb would make sync(2)'s kick run there too, and that kick, if it ran
# after the loop worker, would write the backing file: kick the flushers
# (a new dirty_writeback_centisecs wakes them, WB_SYNC_NONE, everything)
# until both bdis have no dirty inode, then turn periodic writeback off
# again.
all_clean()
{
	! { bdi_lists "$dev2"; echo; bdi_lists "$loopdev"; echo; bdi_lists "$udev"; } |
		grep -Eq 'b_(dirty|io|more_io|dirty_time): [1-9]'
}

test_h4_flush()
{
	local i

	for ((i = 1; i <= 10; i++)); do
		sysctl -q -w vm.dirty_writeback_centisecs=$((100 + i)) &&
			sysctl -q -w vm.dirty_writeback_centisecs=0 || return 1
		sleep 2
		all_clean && break
	done
	ktap_print_msg "after $i flusher kick(s): $dev2 bdi: $(bdi_lists "$dev2"); $loopdev bdi: $(bdi_lists "$loopdev"); $udev bdi: $(bdi_lists "$udev")"
	all_clean
}

# The writeback lists of a block device's bdi (debugfs).
bdi_lists()
{
	local d

	d=/sys/kernel/debug/bdi/$(lsblk -dno MAJ:MIN "$1" | tr -d ' ')/stats
	awk '/^b_(dirty|io|more_io|dirty_time|held):/ { printf "%s%s %s", sep, $1, $2; sep = " " }' "$d" 2>/dev/null
}

# Nothing of the lower filesystem may be dirty when the sync starts: the
# backing file is then first dirtied after C, by the loop worker.
test_h4_lower_clean()
{
	local l

	l=$(bdi_lists "$dev2")
	ktap_print_msg "$dev2 bdi: ${l:-no debugfs stats}"
	[ -n "$l" ] && ! echo "$l" | grep -Eq 'b_(dirty|io|more_io|dirty_time): [1-9]'
}

h4_crash()
{
	local i

	{
		echo "hole h4"
		echo "fs $upper"
		echo "files $files"
		echo "size $size"
		echo "gen 2"
		echo "upper_delay_ms $udelay_ms"
	} >>"$record"
	# The upper's writes reach the loop device --upper-delay-ms after
	# they are issued: the loop worker's first dirtying of the backing
	# file then comes that long after C, never in C's jiffy (which v2
	# counts as before the sync).
	dmsetup suspend --nolockfs "$dmu" && dmsetup load "$dmu" --table "$(upper_table "$udelay_ms")" &&
		dmsetup resume "$dmu" || return 1
	log "h4: writes to $udev delayed by $udelay_ms ms"
	log "h4: dirtying $slow_mb MiB on $mslow"
	eval "$(slow_cmd)" || return 1
	for ((i = 0; i < files; i++)); do
		"$helper" fill -f "$mupper/f$i" -n "$size" -g 2 || return 1
	done
	log "h4: $files upper files rewritten with generation 2 (closed)"
	log "before sync: $(grep -E '^(Dirty|Writeback):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
	log "before sync: lower $dev2 bdi: $(bdi_lists "$dev2"); loop $loopdev bdi: $(bdi_lists "$loopdev"); upper $udev bdi: $(bdi_lists "$udev")"
	# Checked once more right before the sync (the dirtying above did not
	# touch the lower filesystem).
	test_h4_lower_clean >/dev/null || { log "h4: the lower filesystem is dirty before the sync"; return 1; }
	{
		echo "backing_ino $(stat -c %i "$img")"
		echo "lower_dev $(lsblk -dno MAJ:MIN "$dev2" | tr -d ' ')"
	} >>"$record"
	log "h4: the backing file is inode $(record_value backing_ino) on $dev2 ($(record_value lower_dev))"
	start_trace || ktap_print_msg "tracing is not available: running without it"
	exec "$helper" sync -o "$record" "${dump[@]}"
}

# knfsd exports the ext4 on $dev2, mounted before the slow ext4 so that
# its pass is over before nfsd writes F (sync, so that UNSTABLE writes wait
# for a COMMIT), NFSv4 only (no rpcbind); a short grace period, which a
# new client's first OPEN must wait out.
test_h2_export()
{
	local d=/var/lib/nfs

	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev2" &&
		mkdir -p "$mexport" && mount -t ext4 -o noatime "$dev2" "$mexport" &&
		bdi_min_ratio "$dev2" || return 1
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd ||
		{ ktap_print_msg "no NFS server in this kernel (WBSYNC_VARIANT=nfs)"; return 1; }
	tc qdisc show dev lo >/dev/null || { ktap_print_msg "no tc (iproute2)"; return 1; }
	ip link set lo up && mkdir -p "$d/v4recovery" && : >"$d/etab" && : >"$d/rmtab" &&
		echo 10 >/proc/fs/nfsd/nfsv4gracetime && echo 10 >/proc/fs/nfsd/nfsv4leasetime &&
		exportfs -o rw,sync,no_root_squash,no_subtree_check,fsid=0 "127.0.0.1:$mexport" &&
		rpc.mountd -N 3 && rpc.nfsd -N 3 4
}

test_h2_client()
{
	mkdir -p "$mnfs" && mount -t nfs4 -o "write=$nfs_write" 127.0.0.1:/ "$mnfs" || return 1
	# the client's bdi has no block device
	echo "$BDI_MIN_RATIO" >"/sys/class/bdi/$(mountpoint -d "$mnfs")/min_ratio" || return 1
	ktap_print_msg "NFS: $(grep " $mnfs " /proc/mounts); mount order $mexport, $mslow, $mnfs"
}

# F exists on the export, durably (nfsd commits a CREATE's metadata on a
# sync export) and empty.
test_h2_prepare()
{
	: >"$mnfs/F" && sync -f "$mexport" && [ "$(stat -c %s "$mexport/F")" = 0 ]
}

# "WRITE n COMMIT n": the RPCs the client's mount has sent so far.
nfs_ops()
{
	awk -v m="$mnfs" '
	$1 == "device" { on = ($5 == m) }
	on && ($1 == "WRITE:" || $1 == "COMMIT:") { printf "%s%s %s", sep, substr($1, 1, length($1) - 1), $2; sep = " " }
	END { print "" }' /proc/self/mountstats
}

# A script with nfs_ops() and the commands $1, for the helper's -p and -t.
h2_script()
{
	echo "mnfs=$mnfs"
	declare -f nfs_ops
	echo "$1"
}

h2_crash()
{
	{
		echo "hole h2"
		echo "fs nfs"
		echo "size $size"
		echo "nfs_delay_ms $nfs_delay_ms"
		echo "nfs_write $nfs_write"
	} >>"$record"
	log "h2: dirtying $slow_mb MiB on $mslow"
	eval "$(slow_cmd)" || return 1
	log "before sync: $(grep -E '^(Dirty|Writeback):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
	# Before the helper's write to F: the WRITE's reply comes after the
	# kick's ->write_inode().
	h2_script "echo \"nfs_ops_before \$(nfs_ops)\" >>'$record' &&
		tc qdisc add dev lo root netem delay ${nfs_delay_ms}ms" >"$work/before-sync"
	start_trace || ktap_print_msg "tracing is not available: running without it"
	h2_script "echo \"nfs_ops_after \$(nfs_ops)\" >>'$record'${dump[1]:+; ${dump[1]}}" >"$work/after-sync"
	# The helper writes F and never closes it: every close(2) of an NFS
	# file flushes and commits it (nfs_file_flush()).
	exec "$helper" sync -o "$record" -f "$mnfs/F" -n "$size" -g 1 \
		-p "bash $work/before-sync" -t "bash $work/after-sync"
}

# --- h9, h10 ----------------------------------------------------------------

# eCryptfs on $mlower/crypt (options $1 first), with a passphrase key in
# root's user keyring; boot 2 adds the same key again.
ecryptfs_mount()
{
	local sig

	sig=$(printf '%s' wbsync-holes | ecryptfs-add-passphrase - 2>&1 |
		sed -n 's/^.*sig \[\([0-9a-f]*\)\].*$/\1/p')
	[ -n "$sig" ] || { ktap_print_msg "ecryptfs-add-passphrase gave no key"; return 1; }
	mkdir -p "$mlower/crypt" "$mcrypt" &&
		mount -i -t ecryptfs -o "$1ecryptfs_sig=$sig,ecryptfs_cipher=aes,ecryptfs_key_bytes=16" \
			"$mlower/crypt" "$mcrypt"
}

# The lower ext4 on $dev2, mounted first, and eCryptfs on it; min_ratio on
# both bdis (eCryptfs has one of its own, "ecryptfs-N").
test_ecryptfs_setup()
{
	local f

	grep -qw ecryptfs /proc/filesystems ||
		{ ktap_print_msg "no eCryptfs in this kernel (CONFIG_ECRYPT_FS)"; return 1; }
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev2" &&
		mkdir -p "$mlower" && mount -t ext4 -o noatime "$dev2" "$mlower" &&
		bdi_min_ratio "$dev2" && ecryptfs_mount "" || return 1
	for f in /sys/class/bdi/ecryptfs-*/min_ratio; do
		echo "$BDI_MIN_RATIO" >"$f" || return 1
	done
	ktap_print_msg "$(grep " $mcrypt " /proc/mounts); mount order $mlower, $mcrypt"
}

# F durable: empty (h9) or generation 1 (h10).
test_ecryptfs_prepare()
{
	if [ "$hole" = h9 ]; then
		: >"$mcrypt/F"
	else
		"$helper" fill -f "$mcrypt/F" -n "$size" -g 1
	fi && sync && [ -s "$mlower/crypt/F" ]
}

ecryptfs_crash()
{
	local gen=1 how=-s

	[ "$hole" = h9 ] || gen=2 how=-m
	{
		echo "hole $hole"
		echo "fs ecryptfs"
		echo "size $size"
		echo "gen $gen"
		echo "kick $kick"
	} >>"$record"
	log "$hole: F=$mcrypt/F, $size bytes of generation $gen $([ "$hole" = h9 ] &&
		echo "by write(2), then syncfs(2)" || echo "through a mapping, then sync(2)")"
	exec "$helper" sync -o "$record" -f "$mcrypt/F" -n "$size" -g "$gen" "$how"
}

h9_crash() { ecryptfs_crash; }
h10_crash() { ecryptfs_crash; }

# --- h11 --------------------------------------------------------------------

# Periodic writeback every second, dirty data expires after 5 s, no
# background writeback: the flushers write F's inode 5 s after its
# update, and the block device's buffer, dirtied then, 5 s later.
test_sysctl_h11()
{
	sysctl -q -w vm.dirty_bytes=$((8 << 30)) \
		vm.dirty_background_bytes=$((4 << 30)) \
		vm.dirty_writeback_centisecs=100 \
		vm.dirty_expire_centisecs=500 \
		vm.laptop_mode=0
}

test_h11_setup()
{
	case $fs in
	ext2) mkfs.ext2 -q -F "$dev2" ;;
	minix) mkfs.minix -2 "$dev2" >/dev/null ;;
	vfat) mkfs.vfat "$dev2" >/dev/null ;;
	udf) mkudffs "$dev2" >/dev/null ;;
	esac && mkdir -p "$mh11" && mount -t "$fs" "$dev2" "$mh11" && bdi_min_ratio "$dev2"
}

test_h11_prepare()
{
	"$helper" fill -f "$mh11/F" -n 4096 -g 1 && sync &&
		ktap_print_msg "F: ino $(stat -c %i "$mh11/F"), mtime $(stat -c %Y "$mh11/F")"
}

h11_crash()
{
	local i=/sys/kernel/tracing/instances/wbsync-h11 e=events/writeback/writeback_write_inode_start
	local ino t1 n

	# even: vfat keeps mtimes in 2 s units
	ino=$(stat -c %i "$mh11/F") t1=$((($(stat -c %Y "$mh11/F") + 100000) / 2 * 2))
	{
		echo "hole h11"
		echo "fs $fs"
		echo "mtime $t1"
	} >>"$record"
	mkdir "$i" && echo "ino == $ino" >"$i/$e/filter" && echo 1 >"$i/$e/enable" || return 1
	touch -m -d "@$t1" "$mh11/F" || return 1
	log "h11: F's mtime set to $t1; waiting for the flushers to write F's inode"
	for ((n = 0; n < 150; n++)); do
		grep -q 'sync_mode=0' "$i/trace" && break
		sleep 0.1
	done
	grep -q 'sync_mode=0' "$i/trace" || { log "h11: the flushers did not write F's inode"; return 1; }
	log "h11: $(grep -m 1 -o 'writeback_write_inode_start.*' "$i/trace")"
	exec "$helper" sync -o "$record" -f "$mh11/F" -y
}

# --- h5 ---------------------------------------------------------------------

# Background writeback ON (a low threshold, no min_ratio), periodic off.
test_sysctl_h5()
{
	sysctl -q -w vm.dirty_bytes=$((256 << 20)) \
		vm.dirty_background_bytes=$((bg_kb << 10)) \
		vm.dirty_writeback_centisecs=0 \
		vm.dirty_expire_centisecs=8640000 \
		vm.laptop_mode=0
}

h5_table()
{
	echo "0 $(blockdev --getsz "$dev2") delay $dev2 0 0 $dev2 0 $1"
}

test_h5_setup()
{
	local w

	dmsetup create "$dm" --table "$(h5_table "$wdelay_ms")" &&
		mkfs.ext2 -q -F "/dev/mapper/$dm" &&
		mkdir -p "$mh5" && mount -t ext2 -o lazytime,noatime "/dev/mapper/$dm" "$mh5" &&
		mkdir -p "$mh5/y" || return 1
	for ((w = 0; w < writers; w++)); do
		mkdir -p "$mh5/w$w" || return 1
	done
	ktap_print_msg "$(grep " $mh5 " /proc/mounts), write delay $wdelay_ms ms, bdi $(lsblk -dno MAJ:MIN "/dev/mapper/$dm" | tr -d ' ')"
}

# Run by the helper once F holds I_DIRTY_TIME only: F's inode in the
# inode table buffer (what ext2 would write) must still have T0 (seconds);
# writeback_mark_inode_dirty is traced for F only (every __mark_inode_dirty()
# of F, with its state before the call).  The other events are not
# filtered: boot 2 needs every inode's enqueue and writeback.
h5_state_cmd()
{
	local t=/sys/kernel/tracing e=events/writeback/writeback_mark_inode_dirty

	cat <<STATE
ino=\$(awk '\$1 == "y_ino" { print \$2 }' '$record')
t1=\$(awk '\$1 == "y_mtime_t1" { print int(\$2) }' '$record')
echo "ino == \$ino" >$t/$e/filter && echo 1 >$t/$e/enable || exit 1
buf=\$(debugfs -R "stat <\$ino>" /dev/mapper/$dm 2>/dev/null | sed -n 's/^ *mtime: 0x\([0-9a-f]\{8\}\).*/\1/p')
echo "y_buffer_mtime \$((16#\${buf:-0}))" >>'$record'
echo "wbsync_holes: h5: F's inode in the buffer cache: mtime \$((16#\${buf:-0})), in memory \$t1; bdi: \$(awk '/^b_(dirty|io|more_io|dirty_time):/ { printf "%s %s ", \$1, \$2 }' /sys/kernel/debug/bdi/$bdi/stats)" >/dev/kmsg
[ -n "\$buf" ] && [ "\$((16#\$buf))" -lt "\$t1" ]
STATE
}

# The writers still running (a writer dies on ENOSPC or any error; a
# zombie is not running).
writers_alive()
{
	local p n=0

	for p in "${spray_pids[@]}"; do
		! grep -q '^State:[[:space:]]*[^Z[:space:]]' "/proc/$p/status" 2>/dev/null || n=$((n + 1))
	done
	echo "$n"
}

h5_crash()
{
	local w alive

	bdi=$(lsblk -dno MAJ:MIN "/dev/mapper/$dm" | tr -d ' ')
	{
		echo "hole h5"
		echo "fs ext2"
		echo "bdi $bdi"
		echo "dev $(mountpoint -d "$mh5" | tr : ,)"
		echo "write_delay_ms $wdelay_ms"
		echo "writers $writers"
		echo "file_kb $file_kb"
		echo "bg_kb $bg_kb"
	} >>"$record"
	for ((w = 0; w < writers; w++)); do
		"$helper" spray -d "$mh5/w$w" -n $((file_kb << 10)) &
		spray_pids+=($!)
	done
	log "h5: $writers writers of $file_kb KiB files on $mh5, running for $run_s s"
	sleep "$run_s"
	alive=$(writers_alive)
	echo "writers_alive_before_sync $alive" >>"$record"
	if [ "$alive" != "$writers" ]; then
		log "h5: only $alive of $writers writers are still running (ENOSPC?): $(df -h "$mh5" | tail -n 1), $(df -i "$mh5" | tail -n 1)"
		return 1
	fi
	log "before sync: $(grep -E '^(Dirty|Writeback):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
	log "before sync: bdi $bdi: $(bdi_lists "/dev/mapper/$dm")"
	# The helper's trigger: an instance of its own with the WB_SYNC_ALL
	# and background writeback_start events only (the main buffer is the
	# record); the helper clears it and enables the event once it reads
	# its trace_pipe.  It calls sync(2) when background writeback starts.
	[ ! -d "$h5_inst" ] || rmdir "$h5_inst"
	if ! { mkdir "$h5_inst" && echo global >"$h5_inst/trace_clock" &&
		echo "sync_mode == 1 || for_background == 1" >"$h5_inst/events/writeback/writeback_start/filter" &&
		echo 1 >"$h5_inst/tracing_on"; }; then
		log "h5: no tracefs instance"
		return 1
	fi
	start_trace || { log "h5: tracing is not available"; return 1; }
	h5_state_cmd >"$work/h5-state"
	# Between the sync's return and the crash: are the writers still
	# running, then the trace dump.
	{
		echo "spray_pids=(${spray_pids[*]})"
		declare -f writers_alive
		echo "echo \"writers_alive_at_return \$(writers_alive)\" >>'$record'"
		echo "${dump[1]}"
	} >"$work/h5-after"
	# Not exec: if the helper fails, the EXIT trap cleans up.
	"$helper" h5 -f "$mh5/y/F" -o "$record" -b "$bdi" -w "$h5_inst" \
		-p "bash $work/h5-state" -t "bash $work/h5-after"
	log "h5: the helper exited (status $?) instead of crashing the guest"
	return 1
}

# Boot 2 of h5, h7 and h8: the ext2 of boot 1, read-only, on $1.
ext2_mount_ro()
{
	mkdir -p "$1" && mount -t ext2 -o ro "$dev2" "$1"
}

# From the trace of boot 1 (global clock: the file's order is the order
# of the events), the four conditions of the window.  Each can hold on a
# kernel with the hole and on one without it.  A round of a writeback work
# is one writeback_start .. writeback_written; the pass is the rounds with
# sync_mode=1 on the bdi.
#  (a) an inherited batch: the pass's first write (writeback_single_inode_start)
#      is of an inode X (not F) of the ext2 that a writeback_queue_io
#      before the pass moved to b_io (X dirtied, with dirty pages or
#      inode, by writeback_dirty_inode_enqueue, before that queue_io and
#      with dirtied_when <= its older=; the same dirtied_when when the
#      pass writes it) and that nothing wrote since (no
#      writeback_single_inode[_start] of it before the pass).  The batch
#      is the run of such inodes the pass writes first: it is at b_io's
#      tail, ahead of anything the pass queues itself;
#  (b) F's write (the helper's first __mark_inode_dirty() of F) comes
#      5 ms or more (a jiffy at HZ 250, and 1 ms) after the pass's first
#      writeback_start: its dirtied_when is after the pass's cutoff, on
#      6.12 (taken when the work starts) and with the fix (its first
#      round); if F moved to b_dirty (6.12), its dirtied_when must also be
#      after the older= of the pass's first queue_io;
#  (c) F held I_DIRTY_TIME and no I_DIRTY_SYNC, I_DIRTY_DATASYNC or
#      I_DIRTY_PAGES then (writeback_mark_inode_dirty's state): the pass
#      had not written F yet;
#  (d) F's write came before the pass's first round ended (its first
#      writeback_written): on 6.12 with (a), before the pass's first
#      queue_io (which waits for b_io to be empty, after that round).
# Prints "reached a b c d" (1 or 0 each) on the first line, details after.
h5_window()
{
	local tr=${record%/*}/trace

	[ -f "$tr" ] || { echo "reached 0 0 0 0"; echo "no trace"; return 0; }
	awk -v bdi="$(record_value bdi)" -v dev="$(record_value dev)" -v ino="$(record_value y_ino)" '
	function ts() { match($0, / [0-9]+\.[0-9]+: /); return substr($0, RSTART + 1, RLENGTH - 3) }
	function field(re, off) { return match($0, re) ? substr($0, RSTART + off, RLENGTH - off) : "" }
	BEGIN { b = "bdi " bdi ":" }
	/ writeback_start: / && index($0, b) {
		if (/ sync_mode=1 /) {
			if (!pass) { pass = NR; pts = ts(); ptask = $1 }
			inpass = $1 == ptask
		} else if (!pass) nbg++
		next
	}
	/ writeback_written: / && index($0, b) {
		if (inpass && $1 == ptask) { inpass = 0; if (!r1end) { r1end = NR; r1endts = ts() } }
		next
	}
	/ writeback_queue_io: / && index($0, b) {
		if (!pass) {
			lq = NR; lqts = ts(); lqn = field(" enqueue=[0-9]+", 9); lqr = field(" reason=[a-z_]+", 8)
			older = field(" older=[0-9]+", 7) + 0
			for (i in enq) if (!(i in queued) && dw[i] <= older) queued[i] = NR
		} else if (!pq && $1 == ptask) {
			pq = NR; pqts = ts(); pqn = field(" enqueue=[0-9]+", 9); pqo = field(" older=[0-9]+", 7)
		}
		next
	}
	/ writeback_dirty_inode_enqueue: / && index($0, "dev " dev " ino ") {
		i = field(" ino [0-9]+", 5)
		if (i == ino) {
			if (pass && !fenq) { fenq = NR; fenqts = ts(); fdw = field(" dirtied [0-9]+", 9) }
		} else if (!pass) {
			delete queued[i]
			if (/ state [^ ]*I_DIRTY_(PAGES|SYNC|DATASYNC)/) { enq[i] = NR; dw[i] = field(" dirtied [0-9]+", 9) + 0 }
			else delete enq[i]
		}
		next
	}
	/ writeback_single_inode(_start)?: / && index($0, b) {
		i = field(" ino=[0-9]+", 5)
		if (!pass) { delete enq[i]; delete queued[i]; next }
		if (!inpass || $1 != ptask || !/ writeback_single_inode_start: /) next
		if (i == ino) { if (!fpw) { fpw = NR; fpwts = ts() } pdone = 1; next }
		if (!r1end && fw) r1after++
		# The batch found in b_io is at its tail: the first the pass
		# writes, on 6.12 and with the fix.  An inode put back on b_dirty
		# without a write (redirty_tail: I_NEW) has its dirtied_when moved.
		if (!pdone && (i in queued) && field(" dirtied_when=[0-9]+", 14) + 0 == dw[i]) {
			if (!inh++) inh1 = ts()
			inhl = ts()
			if (fw && NR > fw) inha++
			if (pq && NR > pq) inhq++
		} else {
			pdone = 1
			if (!oth++) oth1 = ts()
		}
		next
	}
	/ writeback_mark_inode_dirty: / && index($0, b) {
		if (fw || field(" ino=[0-9]+", 5) != ino || $1 !~ /^wbsync_holes-/) next
		fw = NR; fwts = ts(); fst = field(" state=[^ ]*", 7); ffl = field(" flags=[^ ]*", 7)
		fpass = pass; fr1 = pass && !r1end
	}
	END {
		ca = inh > 0
		cb = fw && fpass && fwts - pts >= 0.005 && (!fenq || !pq || fdw + 0 > pqo + 0)
		cc = fw && fst ~ /I_DIRTY_TIME/ && fst !~ /I_DIRTY_(SYNC|DATASYNC|PAGES)/
		cd = fw && fr1
		printf "reached %d %d %d %d\n", ca, cb, cc, cd
		if (!pass) { print "no WB_SYNC_ALL pass on bdi " bdi " in the trace"; exit }
		printf "pass: writeback_start %s (%s), %d WB_SYNC_NONE round(s) before it; last queue_io before it %s (%s, enqueue=%s); first round ended %s; the pass'"'"'s first queue_io %s%s\n",
			pts, ptask, nbg, lq ? lqts : "none", lq ? lqr : "-", lq ? lqn : "-", r1end ? r1endts : "never",
			pq ? pqts : "none", pq ? sprintf(" (older=%s, enqueue=%s)", pqo, pqn) : ""
		printf "(a) inherited batch: %s: the pass first wrote %d inode(s) queued before it and not written since (first %s, last %s; %d after its own first queue_io, %d after F'"'"'s write), then %d other(s) (first %s)\n",
			ca ? "yes" : "no", inh, inh ? inh1 : "-", inh ? inhl : "-", inhq, inha, oth, oth ? oth1 : "-"
		printf "(b) F written 5 ms or more after the pass started, after its cutoff: %s (F'"'"'s first __mark_inode_dirty by the helper %s, flags=%s)\n",
			cb ? "yes" : "no", fw ? fwts : "never", fw ? ffl : "-"
		printf "(c) F I_DIRTY_TIME only at the write: %s (state=%s)\n", cc ? "yes" : "no", fw ? fst : "-"
		printf "(d) F written before the pass'"'"'s first round ended: %s (%d other inode(s) begun in that round after it)\n", cd ? "yes" : "no", r1after
		printf "F: moved to b_dirty (enqueue) %s%s; the pass began writing F %s\n",
			fenq ? fenqts : "never after the pass start (I_SYNC_QUEUED or not dirtied)",
			fenq ? sprintf(" with dirtied_when %s", fdw) : "", fpw ? fpwts : "never"
	}' "$tr"
}

# 0: F's pre-call mtime is on disk; 1: lost.  Prints the window and the
# verdict ("h5 verdict: PASS|FAIL|SKIP ...", read by scripts/holes.sh).
test_h5_durable()
{
	local t1 got w reached=0 verdict

	t1=$(record_value y_mtime_t1)
	t1=${t1%.*}
	[[ "$t1" =~ ^[0-9]+$ ]] || { ktap_print_msg "the record has no numeric y_mtime_t1 ('$t1')"; return 1; }
	got=$("$helper" mtime -f "$mh5/y/F")
	w=$(h5_window)
	ktap_print_msg "F: mtime on disk $got; T0 (fsync) $(record_value y_mtime_t0 | cut -d. -f1), T1 (in memory at the call) $t1, in the buffer cache before the call $(record_value y_buffer_mtime); written during the sync: $(record_value y_written); sync(2) took $(awk '/^sync_ns/ { printf "%.3f s", $2 / 1e9 }' "$record"); writers running before the sync $(record_value writers_alive_before_sync), at its return $(record_value writers_alive_at_return) of $(record_value writers)"
	ktap_print_msg "F data: $("$helper" check -f "$mh5/y/F" -n 65536 -g 1)"
	while IFS= read -r l; do
		ktap_print_msg "trace: $l"
	done <<<"$(sed 1d <<<"$w")"
	[ "$(head -n 1 <<<"$w")" != "reached 1 1 1 1" ] || reached=1
	if [[ ! "$got" =~ ^[0-9]+$ ]] || [ "$got" -lt "$t1" ]; then
		verdict=FAIL
	elif [ "$reached" = 1 ]; then
		verdict=PASS
	else
		verdict=SKIP
	fi
	ktap_print_msg "h5 verdict: $verdict window $(head -n 1 <<<"$w" | awk '{ printf "%s (a=%s b=%s c=%s d=%s)", ($2 && $3 && $4 && $5) ? "reached" : "not-reached", $2, $3, $4, $5 }') mtime $([[ "$got" =~ ^[0-9]+$ ]] && [ "$got" -ge "$t1" ] && echo kept || echo lost)"
	case $verdict in
	PASS) return 0 ;;
	SKIP) ktap_print_msg "the window was not reached and T1 was kept: nothing proven"; return "$KSFT_SKIP" ;;
	esac
	if [ "$reached" = 1 ]; then
		ktap_print_msg "FAIL: sync(2) lost F's pre-call timestamps in the window"
	else
		ktap_print_msg "FAIL: sync(2) lost F's pre-call timestamps outside the window (by the trace's account)"
	fi
	return 1
}

test_h5_umount()
{
	umount "$mh5"
}

# --- h7 and h8 --------------------------------------------------------------

test_h7_setup()
{
	mkfs.ext2 -q -F "$dev2" && mkdir -p "$mh7" &&
		mount -t ext2 -o lazytime,noatime "$dev2" "$mh7" && bdi_min_ratio "$dev2" &&
		ktap_print_msg "$(grep " $mh7 " /proc/mounts), bdi $(lsblk -dno MAJ:MIN "$dev2" | tr -d ' ')"
}

h7_param()
{
	cat "/sys/module/wbsync_h7/parameters/$1"
}

test_h7_module()
{
	insmod "$module" window_ms="$window_ms" hold_ms="$hold_ms" &&
		[ "$(h7_param state)" = idle ] && [ "$(h7_param window_ms)" = "$window_ms" ] &&
		ktap_print_msg "wbsync_h7: window_ms $(h7_param window_ms), hold_ms $(h7_param hold_ms)"
}

# Run by the helper once F holds I_DIRTY_TIME (h8: and dirty pages): F's
# inode in the inode table buffer must still have T0 (seconds), not T1.
h7_state_cmd()
{
	cat <<STATE
ino=\$(awk '\$1 == "y_ino" { print \$2 }' '$record')
t1=\$(awk '\$1 == "y_mtime_t1" { print int(\$2) }' '$record')
buf=\$(debugfs -R "stat <\$ino>" $dev2 2>/dev/null | sed -n 's/^ *mtime: 0x\([0-9a-f]\{8\}\).*/\1/p')
echo "y_buffer_mtime \$((16#\${buf:-0}))" >>'$record'
echo "wbsync_holes: $hole: F's inode in the buffer cache: mtime \$((16#\${buf:-0})), in memory \$t1; bdi: \$(awk '/^b_(dirty|io|more_io|dirty_time):/ { printf "%s %s ", \$1, \$2 }' /sys/kernel/debug/bdi/$bdi/stats)" >/dev/kmsg
[ -n "\$buf" ] && [ "\$((16#\$buf))" -lt "\$t1" ]
STATE
}

# h7 and h8 ($hole): the helper's command of the same name.
h7_crash()
{
	bdi=$(lsblk -dno MAJ:MIN "$dev2" | tr -d ' ')
	{
		echo "hole $hole"
		echo "fs ext2"
		echo "bdi $bdi"
		echo "window_ms $window_ms"
		echo "hold_ms $hold_ms"
	} >>"$record"
	start_trace || { log "$hole: tracing is not available"; return 1; }
	h7_state_cmd >"$work/h7-state"
	log "$hole: F=$mh7/F, bdi $bdi, window_ms $window_ms, hold_ms $hold_ms"
	"$helper" "$hole" -f "$mh7/F" -o "$record" -w /sys/module/wbsync_h7/parameters \
		-p "bash $work/h7-state" "${dump[@]}"
	log "$hole: the helper exited (status $?) instead of crashing the guest"
	return 1
}

# F's events in boot 1's trace from its O_DIRECT write (h8: its write(2);
# the first with I_DIRTY_TIME) on, with the WB_SYNC_ALL pass's rounds on
# the bdi (h8: every work's): the chmod's dirtying, the pass's queue_io
# and its write of F (h8: the flush's), and F's enqueue after the window
# (its dirtied against the queue_io's older).  h8 leaves out the dirtying
# of F's pages after the first.
h7_trace()
{
	local tr=${record%/*}/trace

	[ -f "$tr" ] || { echo "no trace"; return 0; }
	awk -v ino="$(record_value y_ino)" -v bdi="$(record_value bdi)" -v h8="$([ "$hole" = h8 ] && echo 1)" '
	/ writeback_/ && ($0 ~ " ino=" ino " " || $0 ~ " ino " ino " ") && /I_DIRTY_TIME/ { on = 1 }
	!on { next }
	h8 && / writeback_mark_inode_dirty: / && / state=[^ ]*I_DIRTY_PAGES/ && / flags=I_DIRTY_PAGES *$/ { next }
	(/ writeback_(start|queue_io|written): / && index($0, "bdi " bdi ":") && (/ sync_mode=1 / || / writeback_queue_io: / || (h8 && / writeback_start: /))) ||
	(/ writeback_/ && ($0 ~ " ino=" ino " " || $0 ~ " ino " ino " ")) {
		sub(/^ */, ""); sub(/ cgroup_ino=[0-9]+/, ""); sub(/ nr_pages=[0-9]+/, "")
		gsub(/ +/, " "); print
	}' "$tr" | head -n "$([ "$hole" = h8 ] && echo 24 || echo 16)"
}

# 0: F's pre-call mtime (h8: and its data, and G's mtime) is on disk; 1:
# lost.  Prints the verdict ("h7|h8 verdict: PASS|FAIL|SKIP window
# reached|not-reached (...) mtime kept|lost data RESULT", read by
# scripts/holes.sh).
test_h7_durable()
{
	local t1 got reached=0 verdict m l data kept=1 what= g1 g

	t1=$(record_value y_mtime_t1)
	t1=${t1%.*}
	[[ "$t1" =~ ^[0-9]+$ ]] || { ktap_print_msg "the record has no numeric y_mtime_t1 ('$t1')"; return 1; }
	got=$("$helper" mtime -f "$mh7/F")
	data=$("$helper" check -f "$mh7/F" -n 65536 -g "$(record_value gen)")
	m="fired=$(record_value h7_fired) seen=$(record_value h7_seen) reached=$(record_value h7_reached) queued=$(record_value h7_queued) start_state=$(record_value h7_start_state) spun_ms=$(record_value h7_spun_ms)"
	ktap_print_msg "F: mtime on disk $got; T0 (fsync) $(record_value y_mtime_t0 | cut -d. -f1), T1 (in memory before the chmod) $t1, in the buffer cache before it $(record_value y_buffer_mtime); sync(2) took $(awk '/^sync_ns/ { printf "%.3f s", $2 / 1e9 }' "$record"), window open at its start: $(record_value window_open_at_sync); chmod returned: $(record_value chmod_returned) (after $(record_value chmod_s) s)"
	ktap_print_msg "wbsync_h7: $m (state at the sync's return: $(record_value h7_state_at_return))"
	ktap_print_msg "F data: $data (generation $(record_value gen))"
	while IFS= read -r l; do
		ktap_print_msg "trace: $l"
	done < <(h7_trace)
	[[ "$(record_value h7_reached)" =~ ^[1-9][0-9]*$ ]] && reached=1
	if [[ ! "$got" =~ ^[0-9]+$ ]] || [ "$got" -lt "$t1" ]; then
		kept=0 what="F's pre-call timestamps"
	fi
	# h8's data was written before the call as well (h7's was fsync()ed),
	# and so was G's mtime, which the pass should have written (a control).
	if [ "$hole" = h8 ] && [ "$data" != intact ]; then
		kept=0 what="${what:+$what and }F's pre-call data ($data)"
	fi
	if [ "$hole" = h8 ]; then
		g1=$(record_value g_mtime_t1)
		g1=${g1%.*}
		g=$("$helper" mtime -f "$mh7/G")
		if [[ "$g" =~ ^[0-9]+$ ]] && [[ "$g1" =~ ^[0-9]+$ ]] && [ "$g" -ge "$g1" ]; then
			ktap_print_msg "G (I_DIRTY_TIME only, for the pass): mtime on disk $g, T1 $g1: kept"
		else
			ktap_print_msg "G (I_DIRTY_TIME only, for the pass): mtime on disk $g, T1 $g1: LOST"
			kept=0 what="${what:+$what and }G's pre-call timestamps"
		fi
	fi
	if [ "$kept" = 0 ]; then
		verdict=FAIL
	elif [ "$reached" = 1 ]; then
		verdict=PASS
	else
		verdict=SKIP
	fi
	ktap_print_msg "$hole verdict: $verdict window $([ "$reached" = 1 ] && echo reached || echo not-reached) ($m) mtime $([[ "$got" =~ ^[0-9]+$ ]] && [ "$got" -ge "$t1" ] && echo kept || echo lost) data $data"
	case $verdict in
	PASS) return 0 ;;
	SKIP)
		if [ "$hole" = h8 ]; then
			ktap_print_msg "SKIP: the flush did not write F clean in the window before the pass queued (wbsync_h7 reached=0), and T1 and the data were kept: nothing proven"
		else
			ktap_print_msg "SKIP: the pass did not write F in the window (wbsync_h7 reached=0) and T1 was kept: nothing proven"
		fi
		return "$KSFT_SKIP" ;;
	esac
	if [ "$reached" = 1 ]; then
		ktap_print_msg "FAIL: sync(2) left $what"
	else
		ktap_print_msg "FAIL: sync(2) left $what, outside the window (wbsync_h7 reached=0)"
	fi
	return 1
}

test_h7_umount()
{
	umount "$mh7"
}


# --trace: the writeback events from just before the sync to its return,
# dumped by the helper (-t) before the crash.
dump=()
start_trace()
{
	local t=/sys/kernel/tracing e

	[ "$trace" = 1 ] || return 0
	# The global clock: events of different CPUs in their true order.
	echo 0 >"$t/tracing_on" && echo global >"$t/trace_clock" && echo >"$t/trace" &&
		echo 16384 >"$t/buffer_size_kb" || return 1
	for e in writeback_dirty_inode_enqueue writeback_start writeback_queue_io \
		writeback_written writeback_single_inode writeback_wait writeback_exec; do
		echo 1 >"$t/events/writeback/$e/enable" || return 1
	done
	# h5: when the pass starts writing each inode
	if [ "$hole" = h5 ]; then
		echo 1 >"$t/events/writeback/writeback_single_inode_start/enable" || return 1
	fi
	# h7, h8: also F's dirtying (the window is between the last two)
	if [ "$h7mod" = 1 ]; then
		for e in writeback_single_inode_start writeback_mark_inode_dirty \
			writeback_dirty_inode_start writeback_dirty_inode writeback_lazytime \
			writeback_write_inode_start; do
			echo 1 >"$t/events/writeback/$e/enable" || return 1
		done
	fi
	# h2: who commits and writes F on the export
	if [ "$hole" = h2 ]; then
		for e in nfs/nfs_initiate_commit nfs/nfs_commit_done nfs/nfs_writeback_done \
			nfsd/nfsd_commit_start nfsd/nfsd_write_start ext4/ext4_sync_file_enter \
			ext4/ext4_alloc_da_blocks ext4/ext4_writepages; do
			[ ! -e "$t/events/$e/enable" ] || echo 1 >"$t/events/$e/enable" || return 1
		done
	fi
	echo 1 >"$t/tracing_on"
	dump=(-t "echo 0 >$t/tracing_on; cat $t/trace >${record%/*}/trace")
}

# --- boot 2 -----------------------------------------------------------------

test_record()
{
	grep -qx sync_done "$record" || { ktap_print_msg "$record: the sync did not return before the crash"; return 1; }
	ktap_print_msg "$(tr '\n' ' ' <"$record")"
}

test_h1_mount()
{
	mkdir -p "$mfat" && mount -t vfat "$dev2" "$mfat"
}

test_h1_durable()
{
	local got want durable

	want=$(record_value size) durable=$(record_value durable_size)

	got=$(stat -c %s "$mfat/F" 2>/dev/null)
	ktap_print_msg "F: $got bytes on disk; $want closed before sync(2); $durable before the test"
	ktap_print_msg "A's fsync had $([ "$(record_value a_done_at_sync_return)" = 1 ] && echo returned || echo "not returned") when sync(2) returned after $(awk '/^sync_ns/ { printf "%.3f s", $2 / 1e9 }' "$record")"
	ktap_print_msg "F: $("$helper" check -f "$mfat/F" -n "$want" -g 1)"
	"$helper" check -f "$mfat/F" -n "$want" -g 1 >/dev/null
}

test_h1_umount()
{
	umount "$mfat"
}

test_h2_mount()
{
	mkdir -p "$mexport" && mount -t ext4 "$dev2" "$mexport"
}

test_h2_durable()
{
	ktap_print_msg "client RPCs before the sync: $(record_value nfs_ops_before); at its return: $(record_value nfs_ops_after) (write=$(record_value nfs_write), netem delay $(record_value nfs_delay_ms) ms)"
	ktap_print_msg "F: $(stat -c %s "$mexport/F") bytes on the export; $(record_value size) written before sync(2), which took $(awk '/^sync_ns/ { printf "%.3f s", $2 / 1e9 }' "$record")"
	ktap_print_msg "F: $("$helper" check -f "$mexport/F" -n "$(record_value size)" -g 1)"
	"$helper" check -f "$mexport/F" -n "$(record_value size)" -g 1 >/dev/null
}

test_h2_umount()
{
	umount "$mexport"
}

test_ecryptfs_mount()
{
	mkdir -p "$mlower" && mount -t ext4 -o noatime "$dev2" "$mlower" && ecryptfs_mount ro,
}

test_ecryptfs_durable()
{
	local n g

	n=$(record_value size) g=$(record_value gen)
	ktap_print_msg "F: $("$helper" check -f "$mcrypt/F" -n "$n" -g "$g") ($n bytes of generation $g written before the call, which took $(awk '/^sync_ns/ { printf "%.3f s", $2 / 1e9 }' "$record"); kick $(record_value kick))"
	"$helper" check -f "$mcrypt/F" -n "$n" -g "$g" >/dev/null
}

test_ecryptfs_umount()
{
	umount "$mcrypt" && umount "$mlower"
}

test_h11_mount()
{
	mkdir -p "$mh11" && mount -t "$(record_value fs)" -o ro "$dev2" "$mh11"
}

test_h11_durable()
{
	local got want

	want=$(record_value mtime) got=$(stat -c %Y "$mh11/F")
	ktap_print_msg "F's mtime on disk $got, set to $want before fsync(2), which took $(awk '/^sync_ns/ { printf "%.3f s", $2 / 1e9 }' "$record")"
	[ "$got" = "$want" ]
}

test_h11_umount()
{
	umount "$mh11"
}

test_h4_mount_lower()
{
	mkdir -p "$mlower" && mount -t ext4 -o noatime "$dev2" "$mlower"
}

test_h4_fsck_upper()
{
	local rc

	loopdev=$(losetup -f --show -r "$img") || return 1
	case $(record_value fs) in
	vfat) fsck.vfat -n "$loopdev" >"$work/fsck.log" 2>&1 ;;
	*) e2fsck -f -n "$loopdev" >"$work/fsck.log" 2>&1 ;;
	esac
	rc=$?
	[ "$rc" = 0 ] || sed 's/^/# /' "$work/fsck.log"
	# vfat: a crash leaves the dirty bit (fsck.fat exits 1 for it).
	[ "$rc" = 0 ] || { [ "$(record_value fs)" = vfat ] && [ "$rc" = 1 ] &&
		! grep -qiv -e '^fsck.fat' -e 'dirty bit' -e 'differences' -e 'backup' \
			-e '65:01/00' -e 'automatically' -e 'leaving' -e 'files,' -e 'some data may be corrupt' -e '^$' "$work/fsck.log"; }
}

test_h4_durable()
{
	local i n sz r intact=0 stale=0 other=0

	n=$(record_value files) sz=$(record_value size)

	mkdir -p "$mupper" && mount -t "$(record_value fs)" -o ro "$loopdev" "$mupper" || return 1
	for ((i = 0; i < n; i++)); do
		r=$("$helper" check -f "$mupper/f$i" -n "$sz" -g 2)
		case $r in
		intact) intact=$((intact + 1)) ;;
		stale*) stale=$((stale + 1)) ;;
		*) other=$((other + 1)); ktap_print_msg "f$i: $r" ;;
		esac
	done
	ktap_print_msg "upper files: $intact of $n intact (generation 2), $stale stale (generation 1), $other other; sync(2) took $(awk '/^sync_ns/ { printf "%.3f s", $2 / 1e9 }' "$record")"
	umount "$mupper"
	[ "$intact" = "$n" ]
}

test_h4_umount()
{
	losetup -d "$loopdev" && loopdev= && umount "$mlower"
}

# h1, h10: sync(2)'s flusher kick skipped, unless --kick keeps it
fault_step()
{
	if [ "$kick" = 0 ]; then
		run "fault: wbsync_fault skips sync(2)'s flusher kick" fault
	else
		ktap_test_skip "fault: wbsync_fault skips sync(2)'s flusher kick (--kick)"
	fi
}

ktap_print_header
# verify_ext2_window DESC MNT DURABLE UMOUNT: boot 2 of h5, h7 and h8, four
# tests: the record, the ext2 mounted read-only on MNT, DURABLE as DESC
# (status 0 pass, KSFT_SKIP: the window was not reached), UMOUNT.
verify_ext2_window()
{
	local d=$1 mnt=$2 durable=$3 umount_fn=$4

	ktap_set_plan 4
	if ! test_record; then
		ktap_test_fail "record: sync(2) returned before the crash"
		ktap_test_skip "mount: ext2 after the crash (no record)"
		ktap_test_skip "$d (no record)"
		ktap_test_skip "umount: ext2 (not mounted)"
		return
	fi
	ktap_test_pass "record: sync(2) returned before the crash"
	if ! ext2_mount_ro "$mnt"; then
		ktap_test_fail "mount: ext2 after the crash"
		ktap_test_skip "$d (not mounted)"
		ktap_test_skip "umount: ext2 (not mounted)"
		return
	fi
	ktap_test_pass "mount: ext2 after the crash"
	"$durable"
	case $? in
	0) ktap_test_pass "$d" ;;
	"$KSFT_SKIP") ktap_test_skip "$d (the window was not reached)" ;;
	*) ktap_test_fail "$d" ;;
	esac
	run "umount: ext2" "$umount_fn"
}

case "$phase" in
crash)
	case $hole in
	h1|h10) ktap_set_plan 5 ;; h2) ktap_set_plan 6 ;; h5) ktap_set_plan 3 ;;
	h7|h8|h9|h11) ktap_set_plan 4 ;; *) ktap_set_plan 7 ;;
	esac
	run "setup: two disks" disks
	if [ "$h7mod" = 1 ]; then
		run "writeback: periodic and background writeback off" sysctl
		run "setup: ext2 -o lazytime,noatime on $dev2" h7_setup
		run "module: wbsync_h7 loaded (window_ms $window_ms, hold_ms $hold_ms)" h7_module
	elif [ "$hole" = h11 ]; then
		run "writeback: periodic writeback every second, expiry after 5 s" sysctl_h11
		run "setup: $fs on $dev2" h11_setup
		run "prepare: F, 4096 bytes, durable" h11_prepare
	elif [ "$hole" = h5 ]; then
		run "writeback: periodic writeback off, background at $bg_kb KiB" sysctl_h5
		run "setup: ext2 -o lazytime on dm-delay over $dev2 (write delay $wdelay_ms ms)" h5_setup
	else
		run "writeback: periodic and background writeback off" sysctl
	fi
	if [ "$hole" = h5 ] || [ "$h7mod" = 1 ] || [[ " h9 h10 h11 " = *" $hole "* ]]; then
		:
	elif [ "$hole" = h2 ]; then
		run "setup: ext4 on $dev2 exported by knfsd, mounted first" h2_export
		run "setup: slow ext4 on $slow_dev, mounted second" slow_fs
		run "setup: the export's NFS mount, third" h2_client
		run "prepare: F created through NFS, empty on the export" h2_prepare
	else
		run "setup: slow ext4 on $slow_dev, mounted first" slow_fs
	fi
	if [ "$hole" = h5 ] || [ "$h7mod" = 1 ] || [ "$hole" = h11 ]; then
		:
	elif [ "$hole" = h9 ] || [ "$hole" = h10 ]; then
		[ "$hole" = h9 ] || fault_step
		run "setup: ext4 on $dev2, mounted first, eCryptfs on it, second" ecryptfs_setup
		run "prepare: F on eCryptfs, $([ "$hole" = h9 ] && echo empty || echo "generation 1"), durable" ecryptfs_prepare
	elif [ "$hole" = h1 ]; then
		fault_step
		run "setup: vfat on dm-delay over $dev2, mounted second" h1_setup
	elif [ "$hole" = h2 ] || [ "$hole" = h5 ]; then
		:
	else
		run "setup: ext4 on $dev2 (mounted second), $upper on loop over a file on it (third)" h4_setup
		run "prepare: $files upper files of $size bytes, generation 1, durable" h4_prepare
		run "prepare: the flushers write what sync(2) left on b_dirty" h4_flush
		run "prepare: nothing of the lower ext4 is dirty (the backing file is clean)" h4_lower_clean
	fi
	ktap_print_totals
	[ "$KTAP_CNT_FAIL" = 0 ] || exit "$KSFT_FAIL"
	if [ "$h7mod" = 1 ]; then
		h7_crash
	else
		"${hole}_crash"
	fi
	exit 1
	;;
verify)
	[ -f "$record" ] || die "record '$record' does not exist"
	hole=$(record_value hole)
	if [ "$hole" = h7 ] || [ "$hole" = h8 ]; then
		d="$hole: F's mtime on disk is at least its in-memory mtime before the chmod"
		[ "$hole" != h8 ] || d="$d, and F holds the data written before it"
		verify_ext2_window "$d" "$mh7" test_h7_durable h7_umount
	elif [ "$hole" = h5 ]; then
		verify_ext2_window "h5: F's mtime on disk is at least its in-memory mtime at the call" \
			"$mh5" test_h5_durable h5_umount
	elif [ "$hole" = h1 ]; then
		ktap_set_plan 4
		run "record: sync(2) returned before the crash" record
		run "mount: vfat after the crash" h1_mount
		run "h1: F has its pre-sync size and content" h1_durable
		run "umount: vfat" h1_umount
	elif [ "$hole" = h11 ]; then
		ktap_set_plan 4
		run "record: fsync(2) returned before the crash" record
		run "mount: $(record_value fs) after the crash" h11_mount
		run "h11: F's mtime on disk is the one set before fsync(2)" h11_durable
		run "umount: $(record_value fs)" h11_umount
	elif [ "$hole" = h9 ] || [ "$hole" = h10 ]; then
		ktap_set_plan 4
		run "record: the sync returned before the crash" record
		run "mount: the lower ext4 and eCryptfs after the crash" ecryptfs_mount
		run "$hole: F has the data written before $([ "$hole" = h9 ] && echo "syncfs(2)" || echo "sync(2)")" ecryptfs_durable
		run "umount: eCryptfs and the lower ext4" ecryptfs_umount
	elif [ "$hole" = h2 ]; then
		ktap_set_plan 4
		run "record: sync(2) returned before the crash" record
		run "mount: the exported ext4 after the crash" h2_mount
		run "h2: F has the data written through NFS before sync(2)" h2_durable
		run "umount: the exported ext4" h2_umount
	else
		ktap_set_plan 5
		run "record: sync(2) returned before the crash" record
		run "mount: the lower ext4 after the crash" h4_mount_lower
		run "fsck: the upper $(record_value fs) image is consistent" h4_fsck_upper
		run "h4: every upper file has the generation written before sync(2)" h4_durable
		run "umount: the loop device and the lower ext4" h4_umount
	fi
	;;
esac
ktap_finished
