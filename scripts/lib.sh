# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the wbsync lab scripts; source it, do not run it.
#
# The options of the host scripts (scripts/*.sh, vm-run): one letter, one
# meaning, whichever script takes it.  A script's --help says which it
# takes; an option without a letter below is a long one only.
#   -a                 sync-report: every kernel in every cell
#   -b BUILD           kcsan-report: the kernel build of the consoles
#   -c CONFIGS         sync-report: sync_busy.sh -c configurations
#   -d RESULTS_DIR     results.sh: the results of record (default results)
#   -e EVERY           sfr-report: sync_file_range(2) every EVERY writes
#   -f, --fs FSTYPES   filesystem type(s)
#   -h, --help         the script's header comment
#   -j GUESTS          fstests: guests at a time
#   -k KERNELS         kernel(s) to boot: vanilla, patched, ...
#   -l LIST            fstests: a list file of tests
#   -m MOUNT_OPTIONS   sync-report: mount options of every filesystem
#   -n NR_FS           number of busy filesystems
#   -o, --out OUTDIR   output or work directory
#   -p, --profile P    disk profile (PROFILES below)
#   -r, --runs RUNS    runs (boots, or runs in one boot)
#   -R OUTDIR          sync-report: render OUTDIR's report again
#   -s                 sync-report: Debian's stock kernel as vanilla
#   -t SECONDS         seconds of load in each run
#   -w dd|c            sync-report: the writer program
#   -W WRITERS         writers per filesystem
#   --keep             keep what a passing run removes (disk images, chroot)
#   --timeout SEC      per boot (vm-run's)
#   --cycles N         crash/verify cycles (integrity, holes)
# Long only where a letter would clash: pgbench-report --clients and
# --scale, module-stress --arm, fstests --report (its tests are arguments,
# as for fstests' ./check), integrity --layout, fresh-check --root and
# --mirror, results.sh --rst and --readme, kcsan-report --file.  The guest tests (selftests/)
# have letters of their own (sync_busy.sh -l LAYOUT, pgbench_bench.sh -c
# CLIENTS -s SCALE): the host scripts translate.

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

# A bad argument or option: exit status 2, as for every lab script.
usage_error()
{
	echo "${0##*/}: $*" >&2
	exit 2
}

# -h or --help as the first argument of any lab script: its header
# comment (from the line after the SPDX tag up to the code), exit 0.
lab_help()
{
	sed -n '3,/^[^#]/{/^[^#]/d;s/^# \{0,1\}//;s/^#$//;p}' "$0"
	exit 0
}
case "${1:-}" in -h|--help) lab_help ;; esac

# TAP, the one writer of the host scripts (scripts/tap-summary sums it):
# tap_plan N, then tap ok|"not ok" DESCRIPTION per result ("... # SKIP
# why" skips), then tap_finish [NOTE]: the totals; exit 0 if all N
# results came and passed or skipped, else 1 (NOTE says where to look).
# Or tap_all, for results known beforehand.
# shellcheck disable=SC2034 # testno, failed and plan are the callers'
tap_plan()
{
	testno=0 failed=0 plan=$1
	echo "TAP version 13"
	echo "1..$plan"
}

tap()
{
	local res=$1

	shift
	testno=$((testno + 1))
	[ "$res" = ok ] || failed=$((failed + 1))
	echo "$res $testno $*"
}

# tap_all "ok|DESCRIPTION" "not ok|DESCRIPTION"...: TAP of these results.
tap_all()
{
	local r

	tap_plan $#
	for r; do
		tap "${r%%|*}" "${r#*|}"
	done
}

tap_finish()
{
	echo "# Totals: pass:$((testno - failed)) fail:$failed"
	if [ "$failed" = 0 ] && [ "$testno" = "$plan" ]; then
		echo "# PASS"
		exit 0
	fi
	echo "# FAIL${1:+ ($1)}"
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

# Debian's stock kernels that wbsync.ko is built for and booted on: the
# 6.12 ABI of the base source ("6.12.117+deb12"), and the newest 6.1 ABI
# in the archive ("6.1.0-57").
stock_abi()
{
	echo "$(base_version)" | sed -E 's/^([0-9]+\.[0-9]+\.[0-9]+)-.*/\1+deb12/'
}

stock_abi_61()
{
	apt-cache search --names-only '^linux-headers-6\.1\.0-[0-9]+-cloud-amd64$' |
		awk '{ print $1 }' | sort -V | tail -n 1 | sed -E 's/^linux-headers-(.*)-cloud-amd64$/\1/'
}

# The module's build matrix besides the lab's own kernels: name and
# kernel build (headers) directory.
stock_kdirs()
{
	local abi

	abi=$(stock_abi)
	echo "debian-$abi-cloud-amd64 /usr/src/linux-headers-$abi-cloud-amd64"
	echo "debian-$abi-amd64 /usr/src/linux-headers-$abi-amd64"
	abi=$(stock_abi_61)
	echo "debian-$abi-cloud-amd64 /usr/src/linux-headers-$abi-cloud-amd64"
}

# The patch series, in the order git am applies it (the cover letter of
# git format-patch carries no diff).
# The patches of the series, in order; with $WBSYNC_PATCHES ("0001 0005"),
# only those whose number is listed (a partial series, e.g. the ablation's
# kernels below).
series_files()
{
	local f n

	find "$(series_dir)" -maxdepth 1 -name '[0-9]*.patch' \
		! -name '0000-cover-letter.patch' | LC_ALL=C sort |
		while read -r f; do
			n=${f##*/} n=${n%%-*}
			[ -z "${WBSYNC_PATCHES:-}" ] || [[ " $WBSYNC_PATCHES " = *" $n "* ]] ||
				continue
			echo "$f"
		done
}

# The kernels the lab builds and compares: vanilla (the base), fixes (the
# fixes for 6.12's own holes, patches 1-13), for_sync (the fixes and the
# per-filesystem ->write_inode() patches), patched (the whole series),
# patched-NNNN (the series without patch NNNN, the simplest alternative to
# that patch) and v6 (for_sync with the per-inode sync-start cutoff of
# selftests/fixtures/v6/ on top: the ablation's earlier design).  Prints
# the patch numbers for $WBSYNC_PATCHES ("" for the whole series), or
# fails.
WBSYNC_FIXES="0001 0002 0003 0004 0005 0006 0007 0008 0009 0010 0011 0012 0013"
kernel_patches()
{
	local n

	case $1 in
	vanilla|patched) echo "" ;;
	fixes) echo "$WBSYNC_FIXES" ;;
	for_sync|v6) echo "$WBSYNC_FIXES 0014 0015 0016 0017 0018" ;;
	patched-[0-9][0-9][0-9][0-9])
		n=$(WBSYNC_PATCHES='' series_files | sed 's|.*/||; s|-.*||')
		grep -qx "${1#patched-}" <<<"$n" || return 1
		grep -vx "${1#patched-}" <<<"$n" | paste -sd " "
		;;
	*) return 1 ;;
	esac
}
KERNEL_NAMES="vanilla fixes for_sync patched v6 patched-NNNN"

# The patches kernel $1 adds on top of kernel_patches' selection (v6's).
kernel_extra_patches()
{
	[ "$1" != v6 ] || find "$WBSYNC_TOP/selftests/fixtures/v6" -name '[0-9]*.patch' | LC_ALL=C sort
}

# Whether kernel $1 changes the sync of filesystem type $2: for_sync
# changes ->write_inode() of its filesystems only (elsewhere it syncs as
# fixes does, and the ablation need not boot it there).  The other
# kernels: always.
kernel_changes_fs()
{
	case $1 in
	for_sync) [[ " vfat msdos exfat ext2 udf minix " = *" $2 "* ]] ;;
	*) return 0 ;;
	esac
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

# For the reports' awk programs: median(a, c) of a[1..c], which it sorts
# (so a[1] and a[c] are then the minimum and the maximum).
# shellcheck disable=SC2034
AWK_MEDIAN='
function median(a, c,   i, j, t) {
	for (i = 1; i <= c; i++)
		for (j = i + 1; j <= c; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
}'

# mode_table TSV MODES NUM DEN: Markdown rows of a benchmark table from
# TSV (header line; column 1 the mode, column 2 the run, the rest
# metrics): per metric, min / median / max of each of MODES (a
# space-separated list, in column order), then the ratio of the medians
# of modes NUM and DEN.
mode_table()
{
	awk -F'\t' -v modes="$2" -v num="$3" -v den="$4" "$AWK_MEDIAN"'
	function fmt(x) { return x == int(x) ? sprintf("%d", x) : sprintf("%.1f", x) }
	NR == 1 { for (i = 3; i <= NF; i++) name[i] = $i; nf = NF; next }
	{ m = $1; c[m]++; for (i = 3; i <= NF; i++) v[m, i, c[m]] = $i }
	END {
		nm = split(modes, mode, " ")
		for (i = 3; i <= nf; i++) {
			line = "| " name[i]
			for (k = 1; k <= nm; k++) {
				m = mode[k]
				delete a
				for (j = 1; j <= c[m]; j++) a[j] = v[m, i, j]
				med[m] = c[m] ? median(a, c[m]) : 0
				line = line (c[m] ? " | " fmt(a[1]) " / " fmt(med[m]) " / " fmt(a[c[m]]) : " | -")
			}
			print line (med[den] > 0 ? sprintf(" | %.2fx |", med[num] / med[den]) : " | - |")
		}
	}' "$1"
}

# Disk profiles: the QEMU I/O throttling of each virtio disk (vm-run
# --profile), the one list that every script's -p or --profile takes.
# hdd is one SATA spindle (IOPS-bound: ~150 random IOPS, ~100 MiB/s
# streaming); usb a USB stick or SD card (150 IOPS, 20 MiB/s), also the
# disk that keeps a TCG guest, whose CPU is many times slower than the
# host's, disk-bound as a real machine with an hdd is; sdcard an SD card
# of speed class 4 (150 IOPS, 4 MiB/s), the disk vfat and exfat are made
# for, and slow enough that their TCG guests wait on it.
PROFILES="none ssd hdd usb sdcard"
profile_throttle()
{
	case $1 in
	hdd) echo "throttling.iops-total=150,throttling.bps-total=$((100 << 20))" ;;
	usb) echo "throttling.iops-total=150,throttling.bps-total=$((20 << 20))" ;;
	sdcard) echo "throttling.iops-total=150,throttling.bps-total=$((4 << 20))" ;;
	ssd) echo "throttling.iops-total=20000,throttling.bps-total=$((500 << 20))" ;;
	none) echo ;;
	*) return 1 ;;
	esac
}
# profile_device NAME: the virtio-blk-pci properties of the profile: hdd
# and usb have one queue, as a SATA drive or a USB stick (so the guest
# kernel gives them mq-deadline, as on real hardware), the others one
# queue per vCPU, as NVMe has.
profile_device()
{
	case $1 in
	hdd | usb | sdcard) echo "num-queues=1" ;;
	*) echo ;;
	esac
}
# profile_check NAME: a usage error unless NAME is a disk profile.
profile_check()
{
	profile_throttle "$1" >/dev/null ||
		usage_error "unknown disk profile '$1' (${PROFILES// /, })"
}

# build_selftests: the selftests' programs, built once into
# output/selftests, where every script's guests find them ($WBSYNC_BIN).
build_selftests()
{
	local ksrc

	ksrc=$("$WBSYNC_TOP/scripts/prepare-tree.sh" --vanilla) || return 1
	mkdir -p "$WBSYNC_TOP/output/selftests"
	make -s -C "$WBSYNC_TOP/selftests" KSRC="$ksrc" OUTPUT="$WBSYNC_TOP/output/selftests" &&
		make -s -C "$WBSYNC_TOP/selftests/wait_inodes" KSRC="$ksrc" \
			OUTPUT="$WBSYNC_TOP/output/selftests"
}

# host_disk_stat PATH: the stat file (/sys/dev/block/MAJ:MIN/stat) of the
# host's block device that holds PATH, or nothing (tmpfs, overlayfs and
# btrfs have none).
host_disk_stat()
{
	local dev f

	dev=$(stat -c %d "$1" 2>/dev/null) || return 0
	f=/sys/dev/block/$(((dev >> 8) & 0xfff)):$(((dev & 0xff) | ((dev >> 12) & 0xfff00)))/stat
	[ ! -r "$f" ] || echo "$f"
}

# vm_run VM-RUN-ARGS...: vm-run, once more if the guest died before it ran
# the command (exit status 125: an early-boot failure of the emulated
# machine under TCG, not the test's).  The debug variant's kernel (KASAN,
# lockdep, kmemleak) boots several times slower: on a loaded host it took
# more than vm-run's default 240 s to reach the command; KCSAN's delays
# slow the kcsan variant too.
vm_run()
{
	local rc boot=()

	case ${WBSYNC_VARIANT:-default} in debug | kcsan) boot=(--boot-timeout 900) ;; esac
	"$WBSYNC_TOP/scripts/vm-run" "${boot[@]}" "$@"
	rc=$?
	if [ "$rc" = 125 ]; then
		log "the guest died before the command ran: booting it again"
		"$WBSYNC_TOP/scripts/vm-run" "${boot[@]}" "$@"
		rc=$?
	fi
	return "$rc"
}
