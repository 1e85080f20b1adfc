// SPDX-License-Identifier: GPL-2.0
/*
 * syncfs_loop - call syncfs(2) on one filesystem for a while, and say
 * what the calls cost the calling thread.
 *
 *   syncfs_loop -t SECONDS [-i MS] PATH
 *
 * Calls syncfs(2) on the filesystem of PATH, pausing MS milliseconds
 * (default 0) between calls, until SECONDS have passed.  The waits of a
 * sync (->wait_inodes() included) run in the caller's context, so the
 * system time of this thread is what the sync path cost in CPU.  Prints
 *   syncs=N sys_us=S sys_us_per_sync=P wall_us_min=A wall_us_median=B wall_us_max=C
 * Exits 1 if a call failed, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_SYNCS	100000

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static long parse(const char *arg, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "syncfs_loop: bad %s '%s' (%ld..%ld)\n", what, arg, min, max);
		exit(2);
	}
	return v;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static long long wall[MAX_SYNCS];
	long seconds = 0, pause_ms = 0, n = 0;
	struct rusage ru;
	long long end, t;
	int fd, opt;

	while ((opt = getopt(argc, argv, "t:i:")) != -1) {
		switch (opt) {
		case 't':
			seconds = parse(optarg, "time", 1, 3600);
			break;
		case 'i':
			pause_ms = parse(optarg, "pause", 0, 60000);
			break;
		default:
			seconds = 0;
			optind = argc + 1;
		}
	}
	if (!seconds || optind != argc - 1) {
		fprintf(stderr, "usage: syncfs_loop -t SECONDS [-i MS] PATH\n");
		return 2;
	}
	fd = open(argv[optind], O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		fprintf(stderr, "syncfs_loop: %s: %s\n", argv[optind], strerror(errno));
		return 2;
	}
	end = now_us() + seconds * 1000000LL;
	while (n < MAX_SYNCS && (t = now_us()) < end) {
		if (syncfs(fd)) {
			fprintf(stderr, "syncfs_loop: syncfs: %s\n", strerror(errno));
			return 1;
		}
		wall[n++] = now_us() - t;
		if (pause_ms)
			usleep(pause_ms * 1000);
	}
	getrusage(RUSAGE_THREAD, &ru);
	t = ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec;
	qsort(wall, n, sizeof(wall[0]), cmp);
	printf("syncs=%ld sys_us=%lld sys_us_per_sync=%lld ", n, t, n ? t / n : 0);
	printf("wall_us_min=%lld wall_us_median=%lld wall_us_max=%lld\n",
	       n ? wall[0] : 0, n ? wall[n / 2] : 0, n ? wall[n - 1] : 0);
	return 0;
}
