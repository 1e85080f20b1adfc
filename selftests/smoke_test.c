// SPDX-License-Identifier: GPL-2.0
/*
 * Lab smoke test: on each filesystem type, on its own virtio disk, write
 * files, sync(2), remount and verify every byte.  It proves the guest, the
 * disks and the kernel's writeback path work before the real tests run.
 * It cannot prove that sync(2) itself wrote the data: umount writes back
 * whatever sync left.  That is the crash test's job (selftests/integrity).
 *
 * The disks come from $WBSYNC_DISKS (set by scripts/guest-init, or by
 * smoke_test.sh for loop devices): the first one for ext4, the second for
 * xfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define NR_FILES	256
#define MAX_SIZE	(64 * 1024)

/* Returns the n-th word of $WBSYNC_DISKS in @buf, or NULL. */
static const char *nth_disk(int n, char *buf, size_t len)
{
	const char *disks = getenv("WBSYNC_DISKS");
	const char *p = disks;
	size_t l;

	while (p && *p) {
		p += strspn(p, " ");
		l = strcspn(p, " ");
		if (l && n-- == 0 && l < len) {
			memcpy(buf, p, l);
			buf[l] = '\0';
			return buf;
		}
		p += l;
	}
	return NULL;
}

/* File @i holds its own name, then a pattern that depends on @i. */
static size_t file_size(int i)
{
	return 1 + (i * 4093) % MAX_SIZE;
}

static void fill(char *buf, int i, size_t size)
{
	char name[32];
	size_t j, n;

	for (j = 0; j < size; j++)
		buf[j] = (char)(i * 131 + j * 7 + (j >> 12));
	n = snprintf(name, sizeof(name), "file %d\n", i);
	memcpy(buf, name, n < size ? n : size);
}

static int run(const char *fmt, const char *arg)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), fmt, arg);
	return system(cmd);
}

FIXTURE(fs) {
	char dev[64];
	char mnt[64];
	bool mounted;
};

FIXTURE_VARIANT(fs) {
	const char *fstype;
	const char *mkfs;
	int disk;
};

FIXTURE_VARIANT_ADD(fs, ext4) {
	.fstype = "ext4",
	.mkfs = "mkfs.ext4 -q -F %s",
	.disk = 0,
};

FIXTURE_VARIANT_ADD(fs, xfs) {
	.fstype = "xfs",
	.mkfs = "mkfs.xfs -q -f %s",
	.disk = 1,
};

FIXTURE_SETUP(fs)
{
	if (!nth_disk(variant->disk, self->dev, sizeof(self->dev)))
		SKIP(return, "no disk %d in WBSYNC_DISKS", variant->disk);
	ASSERT_EQ(0, run(variant->mkfs, self->dev));
	snprintf(self->mnt, sizeof(self->mnt), "/tmp/wbsync-smoke.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->mnt));
	ASSERT_EQ(0, mount(self->dev, self->mnt, variant->fstype, 0, NULL))
		TH_LOG("mount %s: %s", self->dev, strerror(errno));
	self->mounted = true;
}

FIXTURE_TEARDOWN(fs)
{
	if (self->mounted)
		umount(self->mnt);
	if (self->mnt[0])
		rmdir(self->mnt);
}

/*
 * The harness's 30 s default includes the fixture's mkfs, which takes a
 * minute on the debug kernel (KASAN, lockdep) under TCG: this bound only
 * catches a hang.
 */
TEST_F_TIMEOUT(fs, write_sync_remount_verify, 600)
{
	char path[128], *want, *got;
	int i, fd;

	want = malloc(MAX_SIZE);
	got = malloc(MAX_SIZE);
	ASSERT_TRUE(want && got);

	for (i = 0; i < NR_FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%d", self->mnt, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		ASSERT_LE(0, fd);
		fill(want, i, file_size(i));
		ASSERT_EQ((ssize_t)file_size(i), write(fd, want, file_size(i)));
		ASSERT_EQ(0, close(fd));
	}
	sync();

	/* Unmount evicts the page cache: what we read next is on disk. */
	ASSERT_EQ(0, umount(self->mnt));
	self->mounted = false;
	ASSERT_EQ(0, mount(self->dev, self->mnt, variant->fstype, 0, NULL));
	self->mounted = true;

	for (i = 0; i < NR_FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%d", self->mnt, i);
		fd = open(path, O_RDONLY);
		ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
		fill(want, i, file_size(i));
		ASSERT_EQ((ssize_t)file_size(i), read(fd, got, MAX_SIZE));
		ASSERT_EQ(0, memcmp(want, got, file_size(i)))
			TH_LOG("%s: content differs", path);
		close(fd);
	}
	free(want);
	free(got);
}

TEST_HARNESS_MAIN
