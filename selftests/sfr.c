// SPDX-License-Identifier: GPL-2.0
/*
 * sfr FILE OFFSET NBYTES FLAGS...: one sync_file_range(2) call with the
 * flags ORed together (before, write, after), for the shell tests:
 * xfs_io's sync_range passes only the last of its -a/-b/-w options.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned int flags = 0;
	long long offset, nbytes;
	char *end;
	int fd, i;

	if (argc < 5) {
		fprintf(stderr, "usage: sfr FILE OFFSET NBYTES before|write|after...\n");
		return 2;
	}
	offset = strtoll(argv[2], &end, 0);
	if (*end || !*argv[2]) {
		fprintf(stderr, "sfr: bad offset '%s'\n", argv[2]);
		return 2;
	}
	nbytes = strtoll(argv[3], &end, 0);
	if (*end || !*argv[3]) {
		fprintf(stderr, "sfr: bad length '%s'\n", argv[3]);
		return 2;
	}
	for (i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "before")) {
			flags |= SYNC_FILE_RANGE_WAIT_BEFORE;
		} else if (!strcmp(argv[i], "write")) {
			flags |= SYNC_FILE_RANGE_WRITE;
		} else if (!strcmp(argv[i], "after")) {
			flags |= SYNC_FILE_RANGE_WAIT_AFTER;
		} else {
			fprintf(stderr, "sfr: unknown flag '%s'\n", argv[i]);
			return 2;
		}
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || sync_file_range(fd, offset, nbytes, flags)) {
		fprintf(stderr, "sfr: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
