// SPDX-License-Identifier: GPL-2.0
/*
 * sync_file_range(2): the documented errors, and what each call waits for.
 *
 * SYNC_FILE_RANGE_WRITE alone starts WB_SYNC_NONE writeback: it skips
 * pages that are dirty again while an earlier write of them is still in
 * flight, so it must return before that write completes.  The full
 * WAIT_BEFORE|WRITE|WAIT_AFTER combination is a ranged fdatasync: it waits
 * for the earlier write, writes the pages again and waits for that too.
 * These are asserted on the disk's state, not on time: the "slow_disk"
 * tests run on a device whose writes are held back for seconds (dm-delay,
 * set up by sync_file_range.sh), and look at its count of completed writes
 * and at the range's pages (dirty, under writeback) when each call returns.
 *
 * Environment: WBSYNC_SFR_DIR, a directory on the slow device (ext4
 * without a journal, so that only this test writes), and WBSYNC_SFR_STAT,
 * the device's stat file.  Without them the slow_disk tests skip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define RANGE	(1024 * 1024)

/* A regular file for the argument checks, on the slow disk if there is one */
static int scratch_file(struct __test_metadata *_metadata)
{
	static const char page[4096];
	const char *dir = getenv("WBSYNC_SFR_DIR");
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/sfr-args-XXXXXX", dir ? dir : "/tmp");
	fd = mkstemp(path);
	ASSERT_LE(0, fd) TH_LOG("mkstemp %s: %s", path, strerror(errno));
	unlink(path);
	ASSERT_EQ(sizeof(page), pwrite(fd, page, sizeof(page), 0));
	return fd;
}

static void expect_error(struct __test_metadata *_metadata, int fd,
			 off_t offset, off_t nbytes, unsigned int flags, int err)
{
	errno = 0;
	EXPECT_EQ(-1, sync_file_range(fd, offset, nbytes, flags));
	EXPECT_EQ(err, errno) TH_LOG("offset %lld nbytes %lld flags %#x: %s",
				     (long long)offset, (long long)nbytes,
				     flags, strerror(errno));
}

TEST(invalid_flags)
{
	int fd = scratch_file(_metadata);

	expect_error(_metadata, fd, 0, 4096, 8, EINVAL);
	expect_error(_metadata, fd, 0, 4096, ~0U, EINVAL);
	expect_error(_metadata, fd, 0, 4096, SYNC_FILE_RANGE_WRITE | 0x10, EINVAL);
	close(fd);
}

TEST(negative_offset_or_length)
{
	int fd = scratch_file(_metadata);

	expect_error(_metadata, fd, -1, 4096, SYNC_FILE_RANGE_WRITE, EINVAL);
	expect_error(_metadata, fd, 0, -1, SYNC_FILE_RANGE_WRITE, EINVAL);
	expect_error(_metadata, fd, LLONG_MIN, 0, SYNC_FILE_RANGE_WRITE, EINVAL);
	close(fd);
}

TEST(overflowing_range)
{
	int fd = scratch_file(_metadata);

	/* offset + nbytes wraps past LLONG_MAX */
	expect_error(_metadata, fd, LLONG_MAX - 4095, 8192, SYNC_FILE_RANGE_WRITE, EINVAL);
	expect_error(_metadata, fd, LLONG_MAX, 1, SYNC_FILE_RANGE_WRITE, EINVAL);
	/* ... while a range ending exactly at LLONG_MAX is valid */
	EXPECT_EQ(0, sync_file_range(fd, LLONG_MAX - 4096, 4096, SYNC_FILE_RANGE_WRITE));
	close(fd);
}

TEST(pipe_and_bad_fd)
{
	int p[2];

	ASSERT_EQ(0, pipe(p));
	expect_error(_metadata, p[0], 0, 0, SYNC_FILE_RANGE_WRITE, ESPIPE);
	expect_error(_metadata, p[1], 0, 0, SYNC_FILE_RANGE_WRITE, ESPIPE);
	close(p[0]);
	close(p[1]);
	expect_error(_metadata, p[0], 0, 0, SYNC_FILE_RANGE_WRITE, EBADF);
}

TEST(valid_calls_succeed)
{
	int fd = scratch_file(_metadata);

	EXPECT_EQ(0, sync_file_range(fd, 0, 0, 0));
	EXPECT_EQ(0, sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE));
	EXPECT_EQ(0, sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE_AND_WAIT));
	EXPECT_EQ(0, sync_file_range(fd, 4096, 0, SYNC_FILE_RANGE_WAIT_AFTER));
	close(fd);
}

struct disk_state {
	unsigned long long writes_done;	/* by the slow disk */
	unsigned int writeback;		/* pages of the range under writeback */
	unsigned int dirty;		/* dirty pages of the range */
};

#define KPF_DIRTY	4
#define KPF_WRITEBACK	8

/*
 * The range's page cache pages, through /proc/self/pagemap and
 * /proc/kpageflags (root only): how many are dirty and how many under
 * writeback.  Mapping a page for reading neither dirties it nor waits for
 * its writeback.
 */
static void range_state(struct __test_metadata *_metadata, int fd,
			struct disk_state *s)
{
	long psize = sysconf(_SC_PAGESIZE);
	unsigned long long entry, flags;
	const char *map;
	int pagemap, kpageflags;
	long i;

	/* MAP_POPULATE maps the cached pages without touching them */
	map = mmap(NULL, RANGE, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	pagemap = open("/proc/self/pagemap", O_RDONLY);
	kpageflags = open("/proc/kpageflags", O_RDONLY);
	ASSERT_LE(0, pagemap);
	ASSERT_LE(0, kpageflags) TH_LOG("/proc/kpageflags: %s", strerror(errno));

	s->writeback = 0;
	s->dirty = 0;
	for (i = 0; i < RANGE / psize; i++) {
		unsigned long addr = (unsigned long)map + i * psize;

		ASSERT_EQ(sizeof(entry), pread(pagemap, &entry, sizeof(entry),
					       addr / psize * sizeof(entry)));
		/* bit 63: present; bits 0-54: the page frame number */
		ASSERT_TRUE(entry >> 63);
		entry &= (1ULL << 55) - 1;
		ASSERT_NE(0, entry) TH_LOG("no PFN in pagemap: not root?");
		ASSERT_EQ(sizeof(flags), pread(kpageflags, &flags, sizeof(flags),
					       entry * sizeof(flags)));
		s->writeback += !!(flags & (1ULL << KPF_WRITEBACK));
		s->dirty += !!(flags & (1ULL << KPF_DIRTY));
	}
	close(kpageflags);
	close(pagemap);
	munmap((void *)map, RANGE);
}

/* Writes the slow disk completed: field 5 of /sys/block/DEV/stat */
static void disk_state(struct __test_metadata *_metadata, const char *stat,
		       int fd, struct disk_state *s)
{
	unsigned long long f[5];
	FILE *fp = fopen(stat, "r");

	ASSERT_NE(NULL, fp) TH_LOG("%s: %s", stat, strerror(errno));
	ASSERT_EQ(5, fscanf(fp, "%llu %llu %llu %llu %llu",
			    &f[0], &f[1], &f[2], &f[3], &f[4]));
	fclose(fp);
	s->writes_done = f[4];
	range_state(_metadata, fd, s);
}

FIXTURE(slow_disk) {
	const char *stat;
	char *buf;
	int fd;
};

FIXTURE_SETUP(slow_disk)
{
	const char *dir = getenv("WBSYNC_SFR_DIR");
	char path[PATH_MAX];

	self->fd = -1;
	self->buf = NULL;
	self->stat = getenv("WBSYNC_SFR_STAT");
	if (!dir || !self->stat)
		SKIP(return, "WBSYNC_SFR_DIR and WBSYNC_SFR_STAT not set (see sync_file_range.sh)");

	snprintf(path, sizeof(path), "%s/sfr-range", dir);
	self->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, self->fd) TH_LOG("%s: %s", path, strerror(errno));
	self->buf = malloc(RANGE);
	ASSERT_NE(NULL, self->buf);
	memset(self->buf, 'a', RANGE);
	/* Allocated and written once: later writes are plain overwrites. */
	ASSERT_EQ(RANGE, pwrite(self->fd, self->buf, RANGE, 0));
	ASSERT_EQ(0, fsync(self->fd));
	/* The allocation's bitmaps too: no write but the test's may complete. */
	ASSERT_EQ(0, syncfs(self->fd));
}

FIXTURE_TEARDOWN(slow_disk)
{
	if (self->fd >= 0)
		close(self->fd);
	free(self->buf);
}

static void dirty_range(struct __test_metadata *_metadata, int fd, char *buf, char c)
{
	memset(buf, c, RANGE);
	ASSERT_EQ(RANGE, pwrite(fd, buf, RANGE, 0));
}

/*
 * Start a write of the range, dirty the range again while that write is
 * held in the device, and call sync_file_range(flags): return the disk's
 * state before the first write and when the call returned.
 */
static void redirty_under_writeback(struct __test_metadata *_metadata,
				    FIXTURE_DATA(slow_disk) *self,
				    unsigned int flags,
				    struct disk_state *before,
				    struct disk_state *after)
{
	struct disk_state started;

	dirty_range(_metadata, self->fd, self->buf, 'b');
	disk_state(_metadata, self->stat, self->fd, before);
	ASSERT_EQ(0, sync_file_range(self->fd, 0, RANGE, SYNC_FILE_RANGE_WRITE));
	disk_state(_metadata, self->stat, self->fd, &started);
	ASSERT_LT(0, started.writeback) TH_LOG("the first write is not held in the device");
	ASSERT_EQ(before->writes_done, started.writes_done)
		TH_LOG("the device completed a write at once: is it slow?");

	dirty_range(_metadata, self->fd, self->buf, 'c');
	ASSERT_EQ(0, sync_file_range(self->fd, 0, RANGE, flags));
	disk_state(_metadata, self->stat, self->fd, after);
}

/* As in smoke_test.c: the fixture's mkfs is slow on the debug kernel. */
TEST_F_TIMEOUT(slow_disk, write_does_not_wait_for_writeback_in_flight, 600)
{
	struct disk_state before, after;

	redirty_under_writeback(_metadata, self, SYNC_FILE_RANGE_WRITE, &before, &after);
	TH_LOG("completed writes %llu -> %llu; pages under writeback %u, dirty %u",
	       before.writes_done, after.writes_done, after.writeback, after.dirty);
	/*
	 * WB_SYNC_NONE skipped the pages under writeback: nothing completed,
	 * the first write is still in flight and the pages are still dirty.
	 */
	EXPECT_EQ(before.writes_done, after.writes_done)
		TH_LOG("SYNC_FILE_RANGE_WRITE waited for the write in flight");
	EXPECT_LT(0, after.writeback);
	EXPECT_LT(0, after.dirty);
	/* Settle, so that the next test starts from an idle device. */
	EXPECT_EQ(0, fdatasync(self->fd));
}

TEST_F_TIMEOUT(slow_disk, write_and_wait_is_a_ranged_fdatasync, 600)
{
	struct disk_state before, after;

	redirty_under_writeback(_metadata, self, SYNC_FILE_RANGE_WRITE_AND_WAIT,
				&before, &after);
	TH_LOG("completed writes %llu -> %llu; pages under writeback %u, dirty %u",
	       before.writes_done, after.writes_done, after.writeback, after.dirty);
	/* It waited for the first write, wrote again and waited for that. */
	EXPECT_LT(before.writes_done, after.writes_done);
	EXPECT_EQ(0, after.dirty);
	EXPECT_EQ(0, after.writeback)
		TH_LOG("WAIT_BEFORE|WRITE|WAIT_AFTER returned with writes in flight");
}

TEST_HARNESS_MAIN
