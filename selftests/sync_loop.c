// SPDX-License-Identifier: GPL-2.0
/*
 * sync_loop OP PATH STOPFILE COUNTFILE: call one sync system call in a
 * loop, without a fork per call, until STOPFILE exists; after each call
 * append one byte to COUNTFILE, so that a loop stuck in the kernel shows
 * (the count is the file's size, which a reader can never see shrink).
 *
 * OP is sync (sync(2)), syncfs (syncfs(2) on PATH's filesystem), fsync
 * (a 64 KiB write to PATH, then fsync(2)) or sfr (a 64 KiB write to PATH,
 * then sync_file_range(2) with each flag combination in turn: the
 * write-only WB_SYNC_NONE path, the WB_SYNC_ALL ranged fdatasync, and the
 * combinations that only wait).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const unsigned int sfr_flags[] = {
	SYNC_FILE_RANGE_WRITE,
	SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER,
	SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE,
	SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER,
	SYNC_FILE_RANGE_WAIT_BEFORE,
	SYNC_FILE_RANGE_WAIT_AFTER,
	SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WAIT_AFTER,
	0,
};

static char buf[65536];

static int one_call(const char *op, int fd, unsigned long n)
{
	if (!strcmp(op, "sync")) {
		sync();
		return 0;
	}
	if (!strcmp(op, "syncfs"))
		return syncfs(fd);
	if (pwrite(fd, buf, sizeof(buf), (n % 16) * sizeof(buf)) != sizeof(buf))
		return -1;
	if (!strcmp(op, "fsync"))
		return fsync(fd);
	return sync_file_range(fd, 0, 16 * sizeof(buf),
			       sfr_flags[n % (sizeof(sfr_flags) / sizeof(sfr_flags[0]))]);
}

int main(int argc, char **argv)
{
	const char *op, *stop;
	unsigned long n;
	struct stat st;
	int fd, count;

	if (argc != 5 || (strcmp(argv[1], "sync") && strcmp(argv[1], "syncfs") &&
			  strcmp(argv[1], "fsync") && strcmp(argv[1], "sfr"))) {
		fprintf(stderr, "usage: sync_loop sync|syncfs|fsync|sfr PATH STOPFILE COUNTFILE\n");
		return 2;
	}
	op = argv[1];
	stop = argv[3];
	fd = open(argv[2], O_RDWR | O_CREAT, 0644);
	if (fd < 0) {
		fprintf(stderr, "sync_loop: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	count = open(argv[4], O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (count < 0) {
		fprintf(stderr, "sync_loop: %s: %s\n", argv[4], strerror(errno));
		return 1;
	}
	memset(buf, 0x5a, sizeof(buf));
	for (n = 0; stat(stop, &st); n++) {
		if (one_call(op, fd, n)) {
			fprintf(stderr, "sync_loop: %s: %s\n", op, strerror(errno));
			return 1;
		}
		if (write(count, ".", 1) != 1)
			return 1;
	}
	return 0;
}
