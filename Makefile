# SPDX-License-Identifier: GPL-2.0
#
# wbsync: bounded sync(2) for Linux 6.12 -- patches, module, selftests, lab.
#
# Targets (make help prints this list):
#   make demo         build vanilla and patched kernels, boot both, print the
#                     sync report (DEMO_ARGS: scripts/sync-report.sh options),
#                     then pgbench (PGBENCH_ARGS: pgbench-report.sh options)
#   make check        the tests; closing line "N passed, N failed, N skipped"
#   make full-check   make check with the crash test on every filesystem and
#                     layout and the power cut on every filesystem
#   make quick        the module, the docs, the kselftests in a patched guest
#                     and one crash cycle: for a change in progress
#   make debug-check  the guest selftests, the crash tests and fstests on ext4
#                     on the debug kernel (lockdep, KASAN, kmemleak, KUnit)
#                     (DEBUG_FSTESTS_ARGS: fstests.sh options); hours
#   make kcsan-check  the crash tests on KCSAN kernels, vanilla and patched
#   make fresh-check  make check in a debootstrap chroot with an empty cache
#   make soak         201 crash cycles, the hole tests, vanilla's (SOAK_CYCLES),
#                     power cuts on every filesystem (SOAK_POWERCUT_CYCLES)
#   make naive-check  the crash test catches the naive fixture's data loss
#   make fstests      fstests' sync list on ext4 and xfs, vanilla against
#                     patched (XFSTESTS_DIR, FSTESTS_ARGS: fstests.sh options)
#   make bisect-check every prefix of the series builds (W=1) and boots
#                     (BISECT_ARGS="-k fixes --alone": each fix on its own)
#   make sfr-bench, pgbench-bench, wait-inodes-bench, module-overhead,
#   module-stress     the benchmarks and the module's stress test
#   make results      Documentation/results.rst and README's table from results/
#   make docs         Documentation as HTML in output/docs
#   make deps         install the Debian packages the lab needs
#   make kernels      build (or reuse) both kernels (WBSYNC_VARIANT=debug)
#   make [module]     wbsync.ko against KDIR (default: the running kernel's
#                     headers, /lib/modules/$(uname -r)/build)
#   make dkms-tree    the module's source for "dkms add" in /usr/src/wbsync-VERSION
#   make clean, distclean  the module's objects; also output/ and the cache
#
# Kernel trees and builds are cached in WBSYNC_CACHE (default /var/cache/wbsync).

WBSYNC_CACHE ?= /var/cache/wbsync
export WBSYNC_CACHE WBSYNC_VARIANT

SOAK_CYCLES ?= 67
SOAK_POWERCUT_CYCLES ?= 3
POWERCUT_FS := ext4 xfs vfat exfat exfat-dirty ext2 udf minix
KDIR ?= /lib/modules/$(shell uname -r)/build
# The module's version: dkms.conf's PACKAGE_VERSION, nowhere else.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
DKMS_TREE ?= /usr/src/wbsync-$(VERSION)

.PHONY: all help quick docs results demo check full-check debug-check kcsan-check fresh-check soak naive-check module-stress module-overhead sfr-bench wait-inodes-bench \
	pgbench-bench bisect-check fstests deps kernels module dkms-tree clean distclean

all: module

demo:
	PGBENCH_ARGS="$(PGBENCH_ARGS)" scripts/demo.sh $(DEMO_ARGS)

help:
	@sed -n '/^# Targets/,/^#$$/{s/^# \{0,1\}//;p}' Makefile

check:
	scripts/check.sh

full-check:
	scripts/check.sh --full

quick:
	scripts/check.sh --quick

docs: deps
	sphinx-build -W -b html -d output/docs/doctrees Documentation output/docs/html
	@echo "output/docs/html/index.html"

results:
	scripts/results.sh

debug-check:
	DEBUG_FSTESTS_ARGS="$(DEBUG_FSTESTS_ARGS)" scripts/check.sh --debug

kcsan-check:
	scripts/kcsan-check.sh $(KCSAN_ARGS)

fresh-check:
	scripts/fresh-check.sh $(FRESH_ARGS)

soak: deps
	scripts/integrity.sh patched --cycles $(SOAK_CYCLES) --modes sync,syncfs,overwrite $(INTEGRITY_ARGS)
	scripts/holes.sh patched --hole all --cycles 2
	for h in h5 h7 h8; do scripts/holes.sh fixes --hole $$h --cycles 3 || exit; done
	for h in h9 h10; do scripts/holes.sh patched --hole $$h || exit; done
	for f in ext2 minix vfat udf; do scripts/holes.sh patched --hole h11 --fs $$f || exit; done
	scripts/integrity.sh vanilla --modes sync,nosync $(INTEGRITY_ARGS)
	rc=0; for f in $(POWERCUT_FS); do \
		scripts/integrity.sh patched --layout logwrites --fs $$f --modes sync,syncfs \
			--cycles $(SOAK_POWERCUT_CYCLES) $(INTEGRITY_ARGS) -o output/soak-powercut-$$f || rc=1; \
	done; exit $$rc

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
	scripts/bisect-check.sh $(BISECT_ARGS)

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
