// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync_holes: the timed parts of the crash tests for the holes of the
 * series' v2 sync cutoff (holes_test.sh drives it).
 *
 *   wbsync_holes fill -f FILE -n SIZE [-g GEN]
 *	write SIZE bytes of generation GEN's pattern to FILE (in place, no
 *	truncate), close it.
 *   wbsync_holes check -f FILE -n SIZE [-g GEN]
 *	FILE must hold at least SIZE bytes of generation GEN's pattern.
 *	Prints "intact", "stale GEN-1", "short SIZE" or "torn at OFFSET";
 *	exit 0 only for intact.
 *   wbsync_holes h1 -f FILE -o RECORD [-i INIT] [-n SIZE] [-l CMD]
 *		     [-p CMD] [-w CMD] [-A MS] [-B MS]
 *	H1, redirty while another task holds I_SYNC.  Creates FILE with INIT
 *	bytes and makes it durable (fsync, sync(2)); runs CMD -l (dirty a
 *	slow filesystem); appends up to SIZE bytes (the pre-sync data) with
 *	write(2); runs CMD -p (turn the read delay on, drop caches); starts
 *	task A: fsync(FILE), which blocks in ->write_inode() reading the
 *	directory block; once the read is held (-w CMD, polled until it
 *	exits 0: dm-delay's status counts the bios it holds) and -A MS more,
 *	it takes the sync start C and starts task
 *	S: sync(2); -B MS after C, task B dirties FILE again through a shared
 *	mapping (it writes back the byte that is there: no content change),
 *	while A still holds I_SYNC.  When sync(2) returns: record, sysrq-b.
 *   wbsync_holes sync -o RECORD [-f FILE [-n SIZE] [-g GEN] [-m]] [-s|-y] [-p CMD] [-t CMD]
 *	run -p CMD; with -f, a child writes SIZE bytes of generation GEN
 *	to the existing FILE (-m: through a shared mapping, FILE at least
 *	SIZE bytes long) and holds it open until the crash (h2: an NFS
 *	close would write and commit); take the sync start C, sync(2)
 *	(-s: syncfs(2) of FILE's filesystem; -y: fsync(2) of FILE, which
 *	is not written), record, sysrq-b.
 *   wbsync_holes spray -d DIR [-n SIZE]
 *	create files DIR/f0, f1, ... of SIZE bytes (default 4096), one after
 *	the other, until killed (h5's writers).
 *   wbsync_holes mtime -f FILE
 *	print FILE's mtime in seconds (h5's check).
 *   wbsync_holes h5 -f FILE -o RECORD -b BDI -w INSTANCE [-D MS] [-p CMD] [-t CMD]
 *	H5, the inherited batch.  Creates FILE (64 KiB), fsync()s it (its
 *	on-disk mtime T0), waits 1.5 s and overwrites its first block with
 *	O_DIRECT: only I_DIRTY_TIME (lazytime), pages clean, in-memory mtime
 *	T1 > T0 (seconds).  Runs -p CMD (the state check).  A thread opens
 *	the trace_pipe of the tracefs INSTANCE (a directory; its
 *	writeback_start filter set, the event off), clears the instance's
 *	buffer, enables writeback_start and tells the main thread it is
 *	ready; the sync starts when it sees background writeback start on
 *	bdi BDI (or after 30 s); at the first writeback_start with
 *	sync_mode=1 of BDI, it waits -D MS (0 to 10000, default 4: with
 *	the trace_pipe's wakeup, past the pass's jiffy) and writes one byte
 *	(the byte that is there) to FILE's second page with pwrite(2).
 *	Takes C, sync(2); joins the thread (5 s at most), records, runs
 *	-t CMD, sysrq-b.
 *   wbsync_holes h7 -f FILE -o RECORD -w PARAMS [-p CMD] [-t CMD]
 *	H7, __mark_inode_dirty()'s window (wbsync_h7.ko, its parameters in
 *	the directory PARAMS).  Creates FILE, fsync()s it (T0), waits 1.5 s
 *	and rewrites its first block with O_DIRECT: I_DIRTY_TIME only,
 *	in-memory mtime T1.  Runs -p CMD (the state check), arms the module
 *	for FILE; a thread on CPU 0 fchmod()s FILE (0644 -> 0600), which the
 *	module holds in the window; once the module's state is "window",
 *	sync(2) from CPU 1.  Joins the thread (15 s at most), records the
 *	module's counters, runs -t CMD, sysrq-b.
 *   wbsync_holes h8 -f FILE -o RECORD -w PARAMS [-p CMD] [-t CMD]
 *	H8, the same window with dirty pages: as h7, but FILE's 64 KiB are
 *	rewritten with write(2) (generation 2) instead of the O_DIRECT
 *	block: dirty pages and I_DIRTY_TIME, on b_dirty; G next to FILE gets
 *	h7's O_DIRECT block (I_DIRTY_TIME only, so that the WB_SYNC_ALL pass
 *	has something to queue); the module runs in mode h8 (sync(2)'s
 *	WB_SYNC_NONE flush writes FILE in the window and drops it as clean;
 *	the hold ends after the WB_SYNC_ALL pass queued).
 *   -t CMD (h1, h5, h7, h8, sync): run CMD between the sync's return and the
 *	crash (a trace dump).
 *
 * The record (fsync'ed, on the host over 9p) has "key value" lines; it
 * ends with "sync_done" if the sync returned before the crash.  Every step
 * is also logged to /dev/kmsg, so it is in the console log among the
 * kernel's lines, on one clock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int kmsg = -1, rfd = -1;
static const char *dumpcmd;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "wbsync_holes: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* A step, to stdout and to the kernel log (one clock with the kernel). */
static void logmsg(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	printf("# %.3f %s\n", now(), buf);
	fflush(stdout);
	if (kmsg >= 0) {
		char k[600];
		int m = snprintf(k, sizeof(k), "wbsync_holes: %s\n", buf);

		if (write(kmsg, k, m) < 0)
			; /* the log is best effort */
	}
}

static void record(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(buf) - 1)
		die("record line too long");
	buf[n++] = '\n';
	if (write(rfd, buf, n) != n || fsync(rfd))
		die("record: %s", strerror(errno));
}

/* Byte OFF of generation GEN: differs per generation, block and offset. */
static unsigned char pat(unsigned int gen, uint64_t off)
{
	uint64_t x = off * 0x9e3779b97f4a7c15ull + gen * 0xc2b2ae3d27d4eb4full;

	x ^= x >> 29;
	return (unsigned char)(x * 0xbf58476d1ce4e5b9ull >> 56);
}

static void fill_buf(unsigned char *b, size_t len, unsigned int gen, uint64_t off)
{
	for (size_t i = 0; i < len; i++)
		b[i] = pat(gen, off + i);
}

/* Write [from, to) of GEN's pattern at the same offsets of fd. */
static void write_range(int fd, unsigned int gen, uint64_t from, uint64_t to)
{
	unsigned char buf[65536];

	while (from < to) {
		size_t len = to - from < sizeof(buf) ? to - from : sizeof(buf);
		ssize_t w;

		fill_buf(buf, len, gen, from);
		w = pwrite(fd, buf, len, from);
		if (w != (ssize_t)len)
			die("pwrite at %llu: %s", (unsigned long long)from,
			    w < 0 ? strerror(errno) : "short write");
		from += len;
	}
}

static int do_fill(const char *file, uint64_t size, unsigned int gen)
{
	int fd = open(file, O_WRONLY | O_CREAT, 0644);

	if (fd < 0)
		die("open %s: %s", file, strerror(errno));
	write_range(fd, gen, 0, size);
	if (close(fd))
		die("close %s: %s", file, strerror(errno));
	return 0;
}

static int do_check(const char *file, uint64_t size, unsigned int gen)
{
	unsigned char buf[65536], exp[65536];
	uint64_t off = 0, torn = UINT64_MAX;
	int stale = gen > 1, fd;
	struct stat st;

	fd = open(file, O_RDONLY);
	if (fd < 0) {
		printf("missing\n");
		return 1;
	}
	if (fstat(fd, &st))
		die("fstat %s: %s", file, strerror(errno));
	if ((uint64_t)st.st_size < size) {
		printf("short %lld of %llu\n", (long long)st.st_size,
		       (unsigned long long)size);
		return 1;
	}
	while (off < size) {
		size_t len = size - off < sizeof(buf) ? size - off : sizeof(buf);
		ssize_t r = pread(fd, buf, len, off);

		if (r != (ssize_t)len)
			die("pread %s: %s", file, r < 0 ? strerror(errno) : "short");
		fill_buf(exp, len, gen, off);
		if (memcmp(buf, exp, len)) {
			for (size_t i = 0; i < len; i++)
				if (buf[i] != exp[i]) {
					if (torn == UINT64_MAX)
						torn = off + i;
					break;
				}
		}
		if (stale) {
			fill_buf(exp, len, gen - 1, off);
			if (memcmp(buf, exp, len))
				stale = 0;
		}
		off += len;
	}
	close(fd);
	if (torn == UINT64_MAX) {
		printf("intact\n");
		return 0;
	}
	if (stale)
		printf("stale %u\n", gen - 1);
	else
		printf("torn at %llu\n", (unsigned long long)torn);
	return 1;
}

static void run_cmd(const char *what, const char *cmd)
{
	int rc;

	if (!cmd)
		return;
	logmsg("%s: %s", what, cmd);
	rc = system(cmd);
	if (rc != 0)
		die("%s: '%s' failed (%d)", what, cmd, rc);
	logmsg("%s: done", what);
}

static int h1_fd;
static atomic_int a_done;
static int a_rc;		/* set before a_done */
static double a_end;	/* set before a_done */

static void *task_a(void *arg)
{
	(void)arg;
	logmsg("A: fsync(F) starts");
	a_rc = fsync(h1_fd);
	a_end = now();
	atomic_store(&a_done, 1);
	logmsg("A: fsync(F) returned %d", a_rc);
	return NULL;
}

static atomic_int s_done;

static void *task_s(void *arg)
{
	(void)arg;
	sync();
	atomic_store(&s_done, 1);
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void open_sysrq(int *fd)
{
	*fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (*fd < 0)
		die("open /proc/sysrq-trigger: %s", strerror(errno));
}

static void crash(int sysrq)
{
	logmsg("sysrq-b");
	if (write(sysrq, "b", 1) != 1)
		die("sysrq-b: %s", strerror(errno));
	sleep(10);
	die("still running 10 s after sysrq-b");
}

static int do_h1(const char *file, uint64_t init, uint64_t size,
		 const char *slowcmd, const char *precmd, const char *inflight,
		 long a_ms, long b_ms)
{
	pthread_t a, s;
	double t_c, t_b, t_ret;
	unsigned char *map;
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t boff;
	int sysrq, done;

	if (size <= init || size - init < (uint64_t)pg)
		die("h1: -n must be at least a page more than -i");
	open_sysrq(&sysrq);
	h1_fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (h1_fd < 0)
		die("open %s: %s", file, strerror(errno));
	write_range(h1_fd, 1, 0, init);
	if (fsync(h1_fd))
		die("fsync: %s", strerror(errno));
	sync();
	logmsg("F created with %llu bytes and durable", (unsigned long long)init);
	record("durable_size %llu", (unsigned long long)init);

	run_cmd("slow fs", slowcmd);

	/* The pre-sync data: it is in the page cache before sync starts. */
	write_range(h1_fd, 1, init, size);
	logmsg("F appended to %llu bytes (write(2) returned)", (unsigned long long)size);
	record("size %llu", (unsigned long long)size);
	record("gen 1");

	run_cmd("read delay on", precmd);

	if (pthread_create(&a, NULL, task_a, NULL))
		die("pthread_create A");
	if (inflight) {
		double t0 = now();

		/*
		 * A writes F's data and FAT sectors first: the sync must start
		 * only once I_DIRTY is cleared, i.e. once the read is issued.
		 */
		while (system(inflight) != 0) {
			if (atomic_load(&a_done))
				die("h1: A's fsync returned without a read held");
			if (now() - t0 > 25)
				die("h1: no read held after 25 s (%s)", inflight);
			sleep_ms(20);
		}
		logmsg("A: a read is held (%s), %.3f s after A started",
		       inflight, now() - t0);
	}
	sleep_ms(a_ms);
	if (atomic_load(&a_done))
		die("h1: A's fsync returned within %ld ms: no read delay?", a_ms);

	t_c = now();
	record("sync_start %.6f", t_c);
	logmsg("S: sync(2) starts (C)");
	if (pthread_create(&s, NULL, task_s, NULL))
		die("pthread_create S");

	sleep_ms(b_ms);
	/*
	 * B: dirty F again while A holds I_SYNC, on a page that is in the
	 * cache (appended, written by A's fsync, not dropped), writing back
	 * the byte that is there: the content stays the pre-sync content.
	 */
	boff = (size - 1) / pg * pg;
	if (boff < init)
		boff = init;
	boff = boff / pg * pg;
	map = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, h1_fd, boff);
	if (map == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	madvise(map, pg, MADV_RANDOM);
	t_b = now();
	/* a real store, not optimised away */
	__atomic_store_n(&map[0], __atomic_load_n(&map[0], __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	logmsg("B: F dirtied through its mapping at offset %llu, %.3f s after C; A %s, S %s",
	       (unsigned long long)boff, t_b - t_c,
	       atomic_load(&a_done) ? "done" : "in fsync",
	       atomic_load(&s_done) ? "done" : "in sync");
	record("b_after_c %.6f", t_b - t_c);
	record("a_done_at_b %d", atomic_load(&a_done));
	munmap(map, pg);

	pthread_join(s, NULL);
	t_ret = now();
	done = atomic_load(&a_done);
	logmsg("S: sync(2) returned after %.3f s; A %s", t_ret - t_c,
	       done ? "done" : "still in fsync");
	record("sync_ns %.0f", (t_ret - t_c) * 1e9);
	record("a_done_at_sync_return %d", done);
	if (done)
		record("a_end_after_c %.6f", a_end - t_c);
	record("sync_done");
	run_cmd("dump", dumpcmd);
	crash(sysrq);
	return 1;
}

/*
 * Write SIZE bytes of generation GEN to FILE from a child that holds it
 * open until the crash.  On NFS, every close(2) of the file writes and
 * commits it (nfs_file_flush()), also the close at exec(2) of a
 * close-on-exec copy: the -t CMD child of a process holding FILE would
 * commit it, and only the sync may.  The child never forks.
 */
/* Write [0, size) of generation gen through a shared mapping of fd. */
static void write_mapped(int fd, uint64_t size, unsigned int gen)
{
	unsigned char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
				fd, 0);

	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	fill_buf(p, size, gen, 0);
}

static void write_and_hold(const char *file, uint64_t size, unsigned int gen,
			   int mapped)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(file, mapped ? O_RDWR : O_WRONLY);

		if (fd < 0)
			die("open %s: %s", file, strerror(errno));
		if (mapped)
			write_mapped(fd, size, gen);
		else
			write_range(fd, gen, 0, size);
		logmsg("%llu bytes of generation %u written to %s%s (held open by pid %d)",
		       (unsigned long long)size, gen, file,
		       mapped ? " through a shared mapping" : "", (int)getpid());
		if (write(p[1], "w", 1) != 1)
			die("pipe: %s", strerror(errno));
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		die("the writer of %s failed", file);
	close(p[0]);
}

/* What do_sync() calls: sync(2), syncfs(2) or fsync(2) */
enum sync_call { CALL_SYNC, CALL_SYNCFS, CALL_FSYNC };

static int do_sync(const char *file, uint64_t size, unsigned int gen,
		   int mapped, enum sync_call how, const char *precmd)
{
	static const char * const names[] = { "sync(2)", "syncfs(2)", "fsync(2)" };
	const char *call = names[how];
	double t_c, t_ret;
	int sysrq, fd = -1;

	open_sysrq(&sysrq);
	if (how != CALL_SYNC) {
		fd = open(file, O_RDONLY);
		if (fd < 0)
			die("open %s: %s", file, strerror(errno));
	}
	run_cmd("pre", precmd);
	if (file && how != CALL_FSYNC)
		write_and_hold(file, size, gen, mapped);
	t_c = now();
	record("sync_start %.6f", t_c);
	logmsg("%s starts (C)", call);
	if (how == CALL_SYNC)
		sync();
	else if (how == CALL_SYNCFS ? syncfs(fd) : fsync(fd))
		die("%s %s: %s", call, file, strerror(errno));
	t_ret = now();
	logmsg("%s returned after %.3f s", call, t_ret - t_c);
	record("sync_ns %.0f", (t_ret - t_c) * 1e9);
	record("sync_done");
	run_cmd("dump", dumpcmd);
	crash(sysrq);
	return 1;
}

/* --- h5 ---------------------------------------------------------------- */

static int do_spray(const char *dir, uint64_t size)
{
	char path[4096];
	unsigned char *buf = calloc(1, size ? size : 1);
	unsigned long i;

	if (!buf)
		die("calloc");
	memset(buf, 'w', size);
	for (i = 0;; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%lu", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die("open %s: %s", path, strerror(errno));
		if (write(fd, buf, size) != (ssize_t)size)
			die("write %s: %s", path, strerror(errno));
		close(fd);
	}
	return 0;
}

static int do_mtime(const char *file)
{
	struct stat st;

	if (stat(file, &st)) {
		printf("missing\n");
		return 1;
	}
	printf("%lld\n", (long long)st.st_mtim.tv_sec);
	return 0;
}

static int h5_fd;
static const char *h5_inst, *h5_bdi;
static long h5_delay_ms;
static atomic_int h5_bg_seen;
/* Written by task_h5, read by do_h5 after joining it. */
static int h5_written;
static double h5_t_seen, h5_t_write;
static char h5_line[1024];
/* The reader's handshake: it has the pipe open and the event enabled. */
static pthread_mutex_t h5_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t h5_cond = PTHREAD_COND_INITIALIZER;
static int h5_ready;

/* Write VAL to FILE of the tracefs instance, or die. */
static void inst_write(const char *file, const char *val, int flags)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", h5_inst, file);
	fd = open(path, O_WRONLY | flags);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	if (*val && write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		die("write %s: %s", path, strerror(errno));
	if (close(fd))
		die("close %s: %s", path, strerror(errno));
}

/*
 * Open the instance's trace_pipe, clear its buffer, enable its
 * writeback_start event (filtered by holes_test.sh), tell do_h5; then wait
 * for the WB_SYNC_ALL pass of bdi h5_bdi and write one byte to F.
 */
static void *task_h5(void *arg)
{
	char want[64], path[4096], buf[8192];
	unsigned char b = pat(1, 4096);
	FILE *f;

	(void)arg;
	snprintf(want, sizeof(want), "bdi %s:", h5_bdi);
	snprintf(path, sizeof(path), "%s/trace_pipe", h5_inst);
	f = fopen(path, "r");
	if (!f)
		die("fopen %s: %s", path, strerror(errno));
	inst_write("trace", "", O_TRUNC);
	inst_write("events/writeback/writeback_start/enable", "1", 0);
	pthread_mutex_lock(&h5_lock);
	h5_ready = 1;
	pthread_cond_signal(&h5_cond);
	pthread_mutex_unlock(&h5_lock);

	while (fgets(buf, sizeof(buf), f)) {
		if (!strstr(buf, "writeback_start:") || !strstr(buf, want))
			continue;
		if (strstr(buf, " background=1 ")) {
			atomic_store(&h5_bg_seen, 1);
			continue;
		}
		if (!strstr(buf, " sync_mode=1 "))
			continue;
		h5_t_seen = now();
		snprintf(h5_line, sizeof(h5_line), "%.1000s", buf);
		h5_line[strcspn(h5_line, "\n")] = 0;
		sleep_ms(h5_delay_ms);
		if (pwrite(h5_fd, &b, 1, 4096) != 1)
			die("h5: write to F: %s", strerror(errno));
		h5_t_write = now();
		h5_written = 1;
		break;
	}
	if (!h5_written)
		die("h5: %s: %s", path, ferror(f) ? strerror(errno) : "end of file");
	fclose(f);
	return NULL;
}

/* FILE created with 64 KiB of generation 1 and fsync()ed; stat in ST. */
static int durable_file(const char *file, struct stat *st)
{
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || fchmod(fd, 0644))
		die("open %s: %s", file, strerror(errno));
	write_range(fd, 1, 0, 65536);
	if (fsync(fd) || fstat(fd, st))
		die("fsync: %s", strerror(errno));
	return fd;
}

/*
 * FILE's first block rewritten with O_DIRECT (the same bytes): no dirty
 * page, only the new timestamps (I_DIRTY_TIME under lazytime).
 */
static void direct_rewrite(const char *file)
{
	void *blk;
	int dfd;

	if (posix_memalign(&blk, 4096, 4096))
		die("posix_memalign");
	fill_buf(blk, 4096, 1, 0);
	dfd = open(file, O_WRONLY | O_DIRECT);
	if (dfd < 0)
		die("open O_DIRECT %s: %s", file, strerror(errno));
	if (pwrite(dfd, blk, 4096, 0) != 4096)
		die("O_DIRECT write: %s", strerror(errno));
	close(dfd);
	free(blk);
}

/*
 * h5, h7 and h8's F: 64 KiB written and fsync()ed at T0, then, 1.5 s later,
 * its first block rewritten with O_DIRECT, which leaves no dirty page
 * and only the new timestamps (I_DIRTY_TIME under lazytime) at T1;
 * PRECMD checks that the inode table on disk still holds T0.  With PAGES
 * (h8), all of F is rewritten with write(2) instead, with generation 2:
 * dirty pages as well (I_DIRTY_PAGES, on b_dirty); and G, next to F, gets
 * what F gets otherwise (I_DIRTY_TIME only, on b_dirty_time, which
 * sync(2)'s WB_SYNC_NONE flush leaves there): with G the wb still has
 * something for the WB_SYNC_ALL pass once the flush has taken F off the
 * lists, so that the pass is queued and runs queue_io() (without it
 * the cgroup-aware bdi_split_work_to_wbs() skips the wb).  Returns F's
 * descriptor and its stat at T1.
 */
static int dirty_time_file(const char *tag, const char *file, const char *precmd,
			   struct stat *st, int pages)
{
	const char *slash = strrchr(file, '/');
	struct stat gst;
	char g[4096];
	int fd, gfd = -1;

	fd = durable_file(file, st);
	record("size 65536");
	record("gen %d", pages ? 2 : 1);
	record("y_ino %lu", (unsigned long)st->st_ino);
	record("y_dev %lu", (unsigned long)st->st_dev);
	record("y_mtime_t0 %lld.%09ld", (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	logmsg("%s: F (ino %lu) created and fsync()ed, mtime %lld", tag,
	       (unsigned long)st->st_ino, (long long)st->st_mtim.tv_sec);
	if (pages) {
		snprintf(g, sizeof(g), "%.*sG", slash ? (int)(slash - file + 1) : 0, file);
		gfd = durable_file(g, &gst);
		record("g_ino %lu", (unsigned long)gst.st_ino);
		logmsg("%s: G (ino %lu) created and fsync()ed, mtime %lld", tag,
		       (unsigned long)gst.st_ino, (long long)gst.st_mtim.tv_sec);
	}
	sleep_ms(1500);

	if (pages) {
		write_range(fd, 2, 0, 65536);
		direct_rewrite(g);
		if (fstat(gfd, &gst))
			die("fstat: %s", strerror(errno));
		close(gfd);
		record("g_mtime_t1 %lld.%09ld", (long long)gst.st_mtim.tv_sec,
		       gst.st_mtim.tv_nsec);
		logmsg("%s: G's first block rewritten with O_DIRECT, in-memory mtime %lld",
		       tag, (long long)gst.st_mtim.tv_sec);
	} else {
		direct_rewrite(file);
	}
	if (fstat(fd, st))
		die("fstat: %s", strerror(errno));
	record("y_mtime_t1 %lld.%09ld", (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	logmsg("%s: %s, in-memory mtime %lld", tag,
	       pages ? "F rewritten with write(2), generation 2 (dirty pages)" :
	       "F's first block rewritten with O_DIRECT", (long long)st->st_mtim.tv_sec);
	run_cmd("state", precmd);
	return fd;
}

static int do_h5(const char *file, const char *precmd, long delay_ms)
{
	double t_c, t_ret;
	struct timespec ts;
	struct stat st;
	pthread_t t;
	int sysrq, rc, joined;

	open_sysrq(&sysrq);
	h5_delay_ms = delay_ms;
	h5_fd = dirty_time_file("h5", file, precmd, &st, 0);

	if (pthread_create(&t, NULL, task_h5, NULL))
		die("pthread_create");
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	rc = 0;
	pthread_mutex_lock(&h5_lock);
	while (!h5_ready && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&h5_cond, &h5_lock, &ts);
	pthread_mutex_unlock(&h5_lock);
	if (rc == ETIMEDOUT)
		die("h5: the trace reader is not ready after 10 s");
	/*
	 * Background writeback has just queued a batch: sync(2) now, so that
	 * its pass (queued on the work list) stops it in the middle of that
	 * batch.
	 */
	for (int i = 0; i < 30000 && !atomic_load(&h5_bg_seen); i++)
		sleep_ms(1);
	record("bg_seen_before_sync %d", atomic_load(&h5_bg_seen));
	logmsg("h5: %s", atomic_load(&h5_bg_seen) ?
	       "background writeback started on the bdi" :
	       "no background writeback on the bdi in 30 s");

	t_c = now();
	record("sync_start %.6f", t_c);
	logmsg("sync(2) starts (C)");
	sync();
	t_ret = now();
	/* The writer is done, or still waiting for a pass it will not see. */
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	joined = !pthread_timedjoin_np(t, NULL, &ts);
	if (!joined && !pthread_cancel(t))
		pthread_join(t, NULL);
	logmsg("sync(2) returned after %.3f s; F %s", t_ret - t_c,
	       h5_written ? "written during the sync" : "NOT written (no pass seen)");
	record("sync_ns %.0f", (t_ret - t_c) * 1e9);
	record("y_written %d", h5_written);
	if (h5_written) {
		record("pass_seen_after_c %.6f", h5_t_seen - t_c);
		record("y_write_after_c %.6f", h5_t_write - t_c);
		record("y_write_before_return %d", h5_t_write <= t_ret);
		logmsg("h5: pass seen %.3f s after C, F written %.3f s after C: %s",
		       h5_t_seen - t_c, h5_t_write - t_c, h5_line);
	}
	record("sync_done");
	run_cmd("dump", dumpcmd);
	crash(sysrq);
	return 1;
}

/* --- h7 ---------------------------------------------------------------- */

static const char *h7_params, *h7_tag;
static int h7_fd, h7_rc = -1, h7_errno;
static atomic_int h7_done;
static double h7_t_start, h7_t_end;

/* Parameter NAME of wbsync_h7.ko, without its newline, into BUF. */
static int h7_param(const char *name, char *buf, size_t len)
{
	char path[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", h7_params, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void h7_set(const char *name, const char *val)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", h7_params, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		die("write '%s' to %s: %s", val, path, strerror(errno));
	close(fd);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("pin to CPU %d: %s", cpu, strerror(errno));
}

/* The chmod task, on CPU 0: the module holds it in the window. */
static void *task_h7(void *arg)
{
	(void)arg;
	pin(0);
	logmsg("%s: fchmod(F, 0600) on CPU 0", h7_tag);
	h7_t_start = now();
	h7_rc = fchmod(h7_fd, 0600);
	h7_errno = errno;
	h7_t_end = now();
	atomic_store(&h7_done, 1);
	logmsg("%s: fchmod returned %d after %.3f s", h7_tag, h7_rc, h7_t_end - h7_t_start);
	return NULL;
}

/* h7, or h8 (HOLE): the module in that mode, F with dirty pages. */
static int do_h7(const char *hole, const char *file, const char *precmd)
{
	static const char * const counters[] = {
		"state", "fired", "seen", "reached", "queued", "start_state", "spun_ms",
	};
	int h8 = !strcmp(hole, "h8");
	char buf[64] = "", val[64];
	double t_c, t_ret, t_win = 0;
	struct timespec ts;
	struct stat st;
	pthread_t t;
	int sysrq, i, joined;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		die("%s needs 2 CPUs: one spins in the window, the flusher runs on the other",
		    hole);
	h7_tag = hole;
	open_sysrq(&sysrq);
	pin(1);
	h7_fd = dirty_time_file(hole, file, precmd, &st, h8);

	h7_set("mode", hole);
	snprintf(val, sizeof(val), "%lu", (unsigned long)st.st_ino);
	h7_set("ino", val);
	snprintf(val, sizeof(val), "%lu", (unsigned long)st.st_dev);
	h7_set("dev", val);
	h7_set("state", "arm");
	logmsg("%s: wbsync_h7 armed (mode %s) for ino %lu dev %lu", hole, hole,
	       (unsigned long)st.st_ino, (unsigned long)st.st_dev);

	if (pthread_create(&t, NULL, task_h7, NULL))
		die("pthread_create");
	/* The chmod task is in the window: sync(2) now. */
	for (i = 0; i < 10000 && !atomic_load(&h7_done); i++) {
		if (!h7_param("state", buf, sizeof(buf)) && strcmp(buf, "armed") &&
		    strcmp(buf, "idle"))
			break;
		sleep_ms(1);
	}
	if (!h7_param("state", buf, sizeof(buf)) && !strcmp(buf, "window"))
		t_win = now();
	record("window_open_at_sync %d", t_win > 0);
	logmsg("%s: module state '%s' after %d ms: %s", hole, buf, i,
	       t_win > 0 ? "in the window" : "NOT in the window");

	t_c = now();
	record("sync_start %.6f", t_c);
	logmsg("sync(2) starts (C) on CPU 1");
	sync();
	t_ret = now();
	logmsg("sync(2) returned after %.3f s", t_ret - t_c);
	record("sync_ns %.0f", (t_ret - t_c) * 1e9);
	if (h7_param("state", val, sizeof(val)))
		snprintf(val, sizeof(val), "unknown");
	record("h7_state_at_return %s", val);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 15;
	joined = !pthread_timedjoin_np(t, NULL, &ts);
	/* After the chmod: the window is over, spun_ms is set. */
	for (i = 0; i < (int)(sizeof(counters) / sizeof(counters[0])); i++) {
		if (h7_param(counters[i], val, sizeof(val)))
			snprintf(val, sizeof(val), "unknown");
		record("h7_%s %s", counters[i], val);
	}
	record("chmod_returned %d", joined && atomic_load(&h7_done));
	if (joined) {
		record("chmod_rc %d", h7_rc ? h7_errno : 0);
		record("chmod_s %.6f", h7_t_end - h7_t_start);
		record("chmod_end_after_c %.6f", h7_t_end - t_c);
	}
	if (h7_param("reached", val, sizeof(val)))
		snprintf(val, sizeof(val), "unknown");
	logmsg("%s: module: reached %s; chmod %s", hole, val,
	       joined ? "returned" : "still held");
	record("sync_done");
	run_cmd("dump", dumpcmd);
	crash(sysrq);
	return 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: wbsync_holes fill|check -f FILE -n SIZE [-g GEN]\n"
		"       wbsync_holes h1 -f FILE -o RECORD [-i INIT] [-n SIZE] [-l CMD] [-p CMD] [-w CMD] [-A MS] [-B MS]\n"
		"       wbsync_holes sync -o RECORD [-f FILE [-n SIZE] [-g GEN] [-m]] [-s|-y] [-p CMD] [-t CMD]\n"
		"       wbsync_holes spray -d DIR [-n SIZE]\n"
		"       wbsync_holes mtime -f FILE\n"
		"       wbsync_holes h5 -f FILE -o RECORD -b BDI -w INSTANCE [-D MS] [-p CMD] [-t CMD]\n"
		"       wbsync_holes h7|h8 -f FILE -o RECORD -w PARAMS [-p CMD] [-t CMD]\n");
	exit(2);
}

/* OPT's argument: a whole number from MIN to MAX, or a one-line error. */
static long long num_arg(int opt, const char *arg, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 0);
	if (errno || end == arg || *end || v < min || v > max)
		die("-%c needs a number from %lld to %lld, not '%s'", opt, min,
		    max, arg);
	return v;
}

int main(int argc, char **argv)
{
	const char *file = NULL, *rec = NULL, *slowcmd = NULL, *precmd = NULL;
	const char *inflight = NULL, *dir = NULL;
	long delay_ms = 4;
	uint64_t size = 65536, init = 4096;
	unsigned int gen = 1;
	long a_ms = 1500, b_ms = 500;
	int size_set = 0, mapped = 0;
	enum sync_call how = CALL_SYNC;
	const char *cmd;
	int opt;

	if (argc < 2)
		usage();
	cmd = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "f:n:g:o:i:l:p:w:t:A:B:d:b:D:msy")) != -1) {
		switch (opt) {
		case 'f':
			file = optarg;
			break;
		case 'n':
			size = num_arg(opt, optarg, 1, 1LL << 40);
			size_set = 1;
			break;
		case 'g':
			gen = num_arg(opt, optarg, 1, 1 << 30);
			break;
		case 'o':
			rec = optarg;
			break;
		case 'i':
			init = num_arg(opt, optarg, 0, 1LL << 40);
			break;
		case 'l':
			slowcmd = optarg;
			break;
		case 'p':
			precmd = optarg;
			break;
		case 'w':
			inflight = optarg;
			break;
		case 't':
			dumpcmd = optarg;
			break;
		case 'A':
			a_ms = num_arg(opt, optarg, 0, 3600000);
			break;
		case 'B':
			b_ms = num_arg(opt, optarg, 0, 3600000);
			break;
		case 'd':
			dir = optarg;
			break;
		case 'b':
			h5_bdi = optarg;
			break;
		case 'D':
			delay_ms = num_arg(opt, optarg, 0, 10000);
			break;
		case 'm':
			mapped = 1;
			break;
		case 's':
			how = CALL_SYNCFS;
			break;
		case 'y':
			how = CALL_FSYNC;
			break;
		default:
			usage();
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	kmsg = open("/dev/kmsg", O_WRONLY);
	if (!strcmp(cmd, "fill") || !strcmp(cmd, "check")) {
		if (!file)
			usage();
		return !strcmp(cmd, "fill") ? do_fill(file, size, gen) :
					      do_check(file, size, gen);
	}
	if (!strcmp(cmd, "spray")) {
		if (!dir)
			usage();
		return do_spray(dir, size_set ? size : 4096);
	}
	if (!strcmp(cmd, "mtime")) {
		if (!file)
			usage();
		return do_mtime(file);
	}
	if (!rec)
		usage();
	rfd = open(rec, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (rfd < 0)
		die("open %s: %s", rec, strerror(errno));
	if (!strcmp(cmd, "h1")) {
		if (!file)
			usage();
		return do_h1(file, init, size, slowcmd, precmd, inflight, a_ms,
			     b_ms);
	}
	if (!strcmp(cmd, "h5")) {
		if (!file || !h5_bdi || !inflight)
			usage();
		h5_inst = inflight;
		return do_h5(file, precmd, delay_ms);
	}
	if (!strcmp(cmd, "h7") || !strcmp(cmd, "h8")) {
		if (!file || !inflight)
			usage();
		h7_params = inflight;
		return do_h7(cmd, file, precmd);
	}
	if (!strcmp(cmd, "sync")) {
		if ((mapped || how != CALL_SYNC) && !file)
			usage();
		return do_sync(file, size, gen, mapped, how, precmd);
	}
	usage();
	return 2;
}
