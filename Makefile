# SPDX-License-Identifier: GPL-2.0
#
# wbsync: bounded sync(2) for Linux 6.12 -- patches, module, selftests, lab.
#
#   make demo     build vanilla + patched kernels, boot both, print the sync report
#                 (DEMO_ARGS: scripts/sync-report.sh options, e.g. "-f vfat -n 4"),
#                 then the pgbench benchmark (PGBENCH_ARGS: pgbench-report.sh's)
#   make sfr-bench  the fio sync_file_range benchmark (WB_SYNC_NONE
#                 against WB_SYNC_ALL forced by wbsync.ko)
#   make pgbench-bench  PostgreSQL's pgbench (TPC-B) on an hdd disk, WB_SYNC_NONE
#                 against WB_SYNC_ALL forced by wbsync.ko for sync_file_range(2)
#                 (PGBENCH_ARGS: scripts/pgbench-report.sh options)
#   make wait-inodes-bench  the s_op->wait_inodes benchmark: syncfs(2) under
#                 small-file creates, generic walk against the test hook
#                 (WAIT_INODES_ARGS: wait-inodes-report.sh options)
#   make check    the tests (closing line: "N passed, N failed, N skipped")
#   make debug-check  the guest selftests (with wbsync.ko's KUnit tests), the
#                 integrity test (ext4, xfs, vfat; every mode and layout) and
#                 fstests on ext4 (DEBUG_FSTESTS_ARGS: fstests.sh options)
#                 on the debug variant (lockdep, KASAN, kmemleak): hours
#   make kcsan-check  the integrity test in every mode (ext4, xfs, vfat) on
#                 the kcsan variant of vanilla and patched kernels; the data
#                 races KCSAN reports, per function and file, in
#                 output/kcsan-check/report.md (KCSAN_ARGS: kcsan-check.sh's)
#   make fresh-check  make check as on a fresh Debian 12 machine: in a
#                 debootstrap chroot with an empty cache (FRESH_ARGS:
#                 scripts/fresh-check.sh options; root, about an hour)
#   make soak     the integrity crash test, SOAK_CYCLES (67) cycles of each of
#                 sync, syncfs and overwrite: 201 crash cycles; then the
#                 holes tests (scripts/holes.sh, h1, h2 and h4, 2 cycles each)
#   make naive-check  the integrity test against the naive fixture kernel:
#                 succeeds when the test catches its data loss
#   make module-stress  100 insmod/rmmod cycles of wbsync.ko under sync,
#                 syncfs and sync_file_range loops, on the debug variant
#                 (MODULE_STRESS_ARGS: module-stress.sh options, e.g. "1000")
#   make module-overhead  wbsync.ko's cost per event and on the reproducer
#   make bisect-check  every prefix of the series builds (W=1) and boots
#   make fstests  fstests (xfstests) on ext4 and xfs, vanilla against patched
#                 kernel, from XFSTESTS_DIR (a checkout; FSTESTS_ARGS:
#                 scripts/fstests.sh options); not part of make check
#   make deps     install the Debian packages the lab needs
#   make kernels  build (or reuse) both kernels; WBSYNC_VARIANT=debug for lockdep/KASAN
#   make          build wbsync.ko against KDIR (default: the running kernel's
#                 headers, /lib/modules/$(uname -r)/build), as kbuild does
#   make module KDIR=...  the same, against another kernel build or headers
#   make dkms-tree  the module's source as DKMS wants it, without .git, output/
#                 or disk images: $(DKMS_TREE) (default /usr/src/wbsync-VERSION;
#                 the version is dkms.conf's), then "dkms add $(DKMS_TREE)"
#   make clean    remove the module's build objects
#   make distclean  also remove the results (output/) and the kernel cache
#                 ($(WBSYNC_CACHE))
#
# Kernel trees and builds are cached in WBSYNC_CACHE (default /var/cache/wbsync).

WBSYNC_CACHE ?= /var/cache/wbsync
export WBSYNC_CACHE WBSYNC_VARIANT

SOAK_CYCLES ?= 67
KDIR ?= /lib/modules/$(shell uname -r)/build
# The module's version: dkms.conf's PACKAGE_VERSION, nowhere else.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
DKMS_TREE ?= /usr/src/wbsync-$(VERSION)

.PHONY: all demo check debug-check kcsan-check fresh-check soak naive-check module-stress module-overhead sfr-bench wait-inodes-bench \
	pgbench-bench bisect-check fstests deps kernels module dkms-tree clean distclean

all: module

demo:
	PGBENCH_ARGS="$(PGBENCH_ARGS)" scripts/demo.sh $(DEMO_ARGS)

check:
	scripts/check.sh

debug-check:
	DEBUG_FSTESTS_ARGS="$(DEBUG_FSTESTS_ARGS)" scripts/check.sh --debug

kcsan-check:
	scripts/kcsan-check.sh $(KCSAN_ARGS)

fresh-check:
	scripts/fresh-check.sh $(FRESH_ARGS)

soak: deps
	scripts/integrity.sh patched --cycles $(SOAK_CYCLES) --modes sync,syncfs,overwrite $(INTEGRITY_ARGS)
	scripts/holes.sh patched --hole all --cycles 2

naive-check: deps
	scripts/integrity.sh naive --modes sync,overwrite $(INTEGRITY_ARGS)

sfr-bench: deps
	scripts/sfr-report.sh $(SFR_ARGS)

pgbench-bench: deps
	scripts/pgbench-report.sh $(PGBENCH_ARGS)

wait-inodes-bench: deps
	scripts/wait-inodes-report.sh $(WAIT_INODES_ARGS)

module-overhead: deps
	scripts/module-overhead.sh

bisect-check: deps
	scripts/bisect-check.sh

fstests: deps
	scripts/fstests.sh $(FSTESTS_ARGS)

module-stress: deps
	WBSYNC_VARIANT=debug scripts/module-stress.sh $(MODULE_STRESS_ARGS)

deps:
	scripts/deps.sh

kernels: deps
	scripts/build-kernel.sh vanilla
	scripts/build-kernel.sh patched

module:
	@test -d $(KDIR) || { echo "no kernel build or headers in $(KDIR): install them or set KDIR" >&2; exit 2; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)

# The tracked files DKMS builds, and nothing else.
dkms-tree:
	@test -n "$(VERSION)" || { echo "no PACKAGE_VERSION in dkms.conf" >&2; exit 2; }
	rm -rf $(DKMS_TREE)
	mkdir -p $(DKMS_TREE)
	git archive --format=tar HEAD Kbuild dkms.conf module | tar -x -C $(DKMS_TREE)
	@echo "$(DKMS_TREE): now run dkms add $(DKMS_TREE)"

clean:
	$(RM) module/*.o module/*.ko module/*.mod module/*.mod.c module/.*.cmd \
		module/modules.order .*.cmd modules.order Module.symvers *.mod.c *.mod

distclean: clean
	rm -rf output $(WBSYNC_CACHE)
