// SPDX-License-Identifier: GPL-2.0
/*
 * busy_writer - the seed reproducer's dd writers, without a fork and exec
 * per file, so that the load is the same under TCG as on hardware.
 *
 *   busy_writer [-W WRITERS] [-s SIZE] [-F FILES] [-R] DIR...
 *
 * In each DIR, WRITERS processes (10 in the seed) each create DIR/dirI/J
 * for J = 0 .. FILES-1 (40000), writing SIZE bytes (16 KiB) in 4 KiB
 * write(2)s as "dd bs=4k count=4" does; with -R, they then start over at
 * J = 0 (O_TRUNC: the same files rewritten, in the same space).  Runs
 * until every writer is done or until SIGTERM or SIGINT, then prints
 * "files_created=N" (rewrites included).  Exits 1 if a writer failed (and
 * then stops the others), 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCK 4096

static volatile sig_atomic_t stop, child_exited;

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		child_exited = 1;
	else
		stop = 1;
}

static long parse(const char *arg, const char *what, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > max) {
		fprintf(stderr, "busy_writer: bad %s '%s' (1..%ld)\n", what, arg, max);
		exit(2);
	}
	return v;
}

/* One writer: the dd loop of the seed script.  Returns an exit status. */
static int writer(const char *dir, long files, long size, int rewrite,
		  unsigned long *created)
{
	char buf[BLOCK], path[PATH_MAX + 24];
	long j, off;

	memset(buf, 0, sizeof(buf));
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "busy_writer: mkdir %s: %m\n", dir);
		return 1;
	}
	for (j = 0; j < files && !stop; j++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%ld", dir, j);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			if (errno == EINTR)
				break;
			fprintf(stderr, "busy_writer: %s: %m\n", path);
			return 1;
		}
		for (off = 0; off < size; off += BLOCK) {
			size_t n = size - off < BLOCK ? size - off : BLOCK;

			if (write(fd, buf, n) != (ssize_t)n)
				break;
		}
		close(fd);
		__atomic_add_fetch(created, 1, __ATOMIC_RELAXED);
		if (rewrite && j == files - 1)
			j = -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long writers = 10, size = 4 * BLOCK, files = 40000;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long *created;
	sigset_t mask, old;
	int opt, d, w, status, ret = 0, rewrite = 0;
	pid_t *pids;
	long nproc, running;

	while ((opt = getopt(argc, argv, "W:s:F:R")) != -1) {
		switch (opt) {
		case 'W':
			writers = parse(optarg, "writer count", 64);
			break;
		case 's':
			size = parse(optarg, "file size", 1L << 30);
			break;
		case 'F':
			files = parse(optarg, "file count", 10000000);
			break;
		case 'R':
			rewrite = 1;
			break;
		default:
			fprintf(stderr,
				"usage: busy_writer [-W WRITERS] [-s SIZE] [-F FILES] [-R] DIR...\n");
			return 2;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "busy_writer: no directory given\n");
		return 2;
	}
	nproc = (argc - optind) * writers;
	created = mmap(NULL, sizeof(*created), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(nproc, sizeof(*pids));
	if (created == MAP_FAILED || !pids) {
		perror("busy_writer");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* Blocked until sigsuspend() so that no stop request is missed. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGCHLD);
	sigaction(SIGCHLD, &sa, NULL);
	sigprocmask(SIG_BLOCK, &mask, &old);

	for (d = optind; d < argc; d++) {
		for (w = 0; w < writers; w++) {
			char dir[PATH_MAX];
			pid_t pid;

			snprintf(dir, sizeof(dir), "%s/dir%d", argv[d], w);
			pid = fork();
			if (pid < 0) {
				perror("busy_writer: fork");
				stop = 1;
				ret = 1;
				goto reap;
			}
			if (!pid) {
				sigprocmask(SIG_SETMASK, &old, NULL);
				_exit(writer(dir, files, size, rewrite, created));
			}
			pids[(d - optind) * writers + w] = pid;
		}
	}
reap:
	/* Children inherit the handler; forward our stop to all of them. */
	for (running = nproc; !stop && running; child_exited = 0) {
		sigsuspend(&old);
		/* A writer that fails stops the others: the load is gone. */
		for (w = 0; child_exited && w < nproc; w++) {
			if (pids[w] && waitpid(pids[w], &status, WNOHANG) == pids[w]) {
				pids[w] = 0;
				running--;
				if (!WIFEXITED(status) || WEXITSTATUS(status)) {
					stop = 1;
					ret = 1;
				}
			}
		}
	}
	for (w = 0; w < nproc; w++)
		if (pids[w])
			kill(pids[w], SIGTERM);
	for (w = 0; w < nproc; w++) {
		if (!pids[w])
			continue;
		if (waitpid(pids[w], &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	}
	printf("files_created=%lu\n", *created);
	return ret;
}
