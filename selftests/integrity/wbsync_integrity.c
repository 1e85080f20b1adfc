// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync_integrity: the writers, the sync and the checker of the wbsync
 * integrity test.  integrity_test.sh runs it in the guest.
 *
 * wbsync_integrity prepare -2 DIR [-W W2] [-n N] [-s SIZE2]
 *	Create the fs2 files with generation 1 and make them durable (fsync,
 *	then sync(2)).  This is where the overwrite mode starts from.
 *
 * wbsync_integrity crash -m MODE -o RECORD -1 DIR -2 DIR [options]
 *	Start the fs1 writers.  Once they have written BUDGET MiB, the fs2
 *	writers create N files (modes sync and syncfs) or rewrite the
 *	prepared files in place (mode overwrite), and stop.  Then note which
 *	files are closed, take the sync start time, and write both to
 *	RECORD.  Call sync(2) (syncfs(2) on fs2 in mode syncfs) while the
 *	fs1 writers still run, append the sync time to RECORD and crash the
 *	machine with sysrq-b.  With -a CMD, run CMD instead of crashing, then
 *	stop the writers and exit 0.  With -t CMD, run CMD between the sync
 *	and the crash (to save a trace; this delays the crash).  Mode nosync
 *	is the control: there is no sync at all, so no fs2 file may survive
 *	unless something else wrote it back.
 *
 * wbsync_integrity verify -o RECORD -1 DIR -2 DIR [-f FS]
 *	Check every file RECORD lists for FS (1, 2, or 0 for both).  It must
 *	exist with the size and content of its last generation.  Prints one
 *	summary line per fs and the first bad files.  Exits 1 if a file is
 *	bad, 2 on error.  With -x (the nosync control), exits 1 if a file
 *	is intact instead.
 *
 * Every 4 KiB block of a file starts with "wbsync fsF wW fS genG blkB"
 * and continues with bytes derived from the same numbers.  A block from
 * another file, another generation or another offset, a zeroed block or
 * a short file is therefore detected.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLK		4096
#define MAX_WRITERS	64
#define MAX_SIZE	(64 << 20)
#define FS1_CAP		131072		/* files per fs1 writer */
#define SKIPPED_PARAM	"/sys/module/wbsync_fault/parameters/skipped"
#define CALLS_PARAM	"/sys/module/wbsync_fault/parameters/calls"
#define MAX_BAD_SHOWN	10

/* The writers share struct shared with the parent (fork + MAP_SHARED). */
#define load_acquire(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define store_release(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

enum mode { MODE_SYNC, MODE_SYNCFS, MODE_OVERWRITE, MODE_NOSYNC, NR_MODES };
static const char * const mode_names[] = {
	"sync", "syncfs", "overwrite", "nosync",
};

struct opts {
	enum mode mode;
	const char *record;
	const char *dir[3];		/* [1] fs1, [2] fs2 */
	const char *after, *before_crash;
	unsigned int writers1, writers2, files, check_fs;
	unsigned long size1, size2, budget, pace_us;
	bool inflight, expect_loss;
};

/* One file as written: what the checker expects. */
struct rec {
	unsigned long long close_ns;
	unsigned int size;
	unsigned int gen;
};

struct writer {
	unsigned long nclosed;	/* recs[0..nclosed) are closed */
	struct rec *recs;
	unsigned int fs, w, cap;
	pid_t pid;
};

struct shared {
	int stop;
	int failed;
	unsigned long fs1_bytes;
	struct writer wr[MAX_WRITERS];
};

static struct shared *sh;
static unsigned int nr_writers;

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("wbsync_integrity: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static unsigned long long now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* splitmix64 finalizer */
static unsigned long long mix64(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void fill_block(char *p, size_t len, unsigned int fs, unsigned int w,
		       unsigned int seq, unsigned int gen, unsigned int blk)
{
	unsigned long long s = mix64(mix64(mix64(mix64(mix64(fs) ^ w) ^ seq) ^ gen) ^ blk);
	char hdr[80];
	size_t i, n;

	for (i = 0; i < len; i += 8) {
		s = mix64(s);
		memcpy(p + i, &s, len - i < 8 ? len - i : 8);
	}
	n = snprintf(hdr, sizeof(hdr), "wbsync fs%u w%u f%u gen%u blk%u\n",
		     fs, w, seq, gen, blk);
	memcpy(p, hdr, n < len ? n : len);
}

static void fill(char *buf, size_t size, unsigned int fs, unsigned int w,
		 unsigned int seq, unsigned int gen)
{
	size_t off;

	for (off = 0; off < size; off += BLK)
		fill_block(buf + off, size - off < BLK ? size - off : BLK,
			   fs, w, seq, gen, off / BLK);
}

static void file_path(char *path, size_t len, const char *dir, unsigned int w,
		      unsigned int seq)
{
	snprintf(path, len, "%s/w%u/f%u", dir, w, seq);
}

static int pwrite_all(int fd, const char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = pwrite(fd, buf + off, len - off, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += n;
	}
	return 0;
}

static unsigned long parse_num(const char *opt, const char *s,
			       unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		die("-%s: '%s' is not a number from %lu to %lu", opt, s, min, max);
	return v;
}

static void writer_fail(const char *what, const char *path)
{
	fprintf(stderr, "wbsync_integrity: %s %s: %s\n", what, path,
		strerror(errno));
	store_release(sh->failed, 1);
	_exit(1);
}

static void mkdir_writer(const char *dir, unsigned int w)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/w%u", dir, w);
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
}

/*
 * fs1: create files until told to stop.  After the first BUDGET bytes,
 * make them one block at most and pause between them: the writers must
 * keep dirtying new inodes during the sync without filling the memory.
 */
static void fs1_writer(const struct opts *o, struct writer *wr)
{
	char path[PATH_MAX], *buf = malloc(o->size1);
	struct timespec pace = {
		.tv_sec = o->pace_us / 1000000,
		.tv_nsec = (o->pace_us % 1000000) * 1000,
	};
	unsigned long seq, size, total;
	int fd;

	if (!buf)
		writer_fail("malloc", "");
	for (seq = 0; seq < wr->cap; seq++) {
		if (load_acquire(sh->stop))
			break;
		total = load_acquire(sh->fs1_bytes);
		size = total < o->budget ? o->size1 :
		       (o->size1 < BLK ? o->size1 : BLK);
		fill(buf, size, 1, wr->w, seq, 1);
		file_path(path, sizeof(path), o->dir[1], wr->w, seq);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			writer_fail("create", path);
		if (pwrite_all(fd, buf, size) || close(fd))
			writer_fail("write", path);
		wr->recs[seq].close_ns = now_ns(CLOCK_MONOTONIC);
		wr->recs[seq].size = size;
		wr->recs[seq].gen = 1;
		store_release(wr->nclosed, seq + 1);
		if (__atomic_add_fetch(&sh->fs1_bytes, size,
				       __ATOMIC_SEQ_CST) >= o->budget)
			nanosleep(&pace, NULL);
	}
	while (!load_acquire(sh->stop))
		usleep(10000);
	_exit(0);
}

/*
 * fs2: create (or rewrite in place) this writer's files, then stop.  With
 * inflight, the file is written, its writeback started and the file written
 * again with the next generation while that writeback may be in flight.
 */
static void fs2_writer(const struct opts *o, struct writer *wr)
{
	bool create = o->mode != MODE_OVERWRITE;
	char path[PATH_MAX], *buf = malloc(o->size2);
	unsigned int seq, gen;
	int fd;

	if (!buf)
		writer_fail("malloc", "");
	for (seq = 0; seq < wr->cap; seq++) {
		gen = create ? 1 : 2;
		file_path(path, sizeof(path), o->dir[2], wr->w, seq);
		fd = open(path, create ? O_WRONLY | O_CREAT | O_EXCL : O_WRONLY,
			  0644);
		if (fd < 0)
			writer_fail(create ? "create" : "open", path);
		fill(buf, o->size2, 2, wr->w, seq, gen);
		if (pwrite_all(fd, buf, o->size2))
			writer_fail("write", path);
		if (o->inflight) {
			if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE))
				writer_fail("sync_file_range", path);
			fill(buf, o->size2, 2, wr->w, seq, ++gen);
			if (pwrite_all(fd, buf, o->size2))
				writer_fail("write", path);
		}
		if (close(fd))
			writer_fail("close", path);
		wr->recs[seq].close_ns = now_ns(CLOCK_MONOTONIC);
		wr->recs[seq].size = o->size2;
		wr->recs[seq].gen = gen;
		store_release(wr->nclosed, seq + 1);
	}
	_exit(0);
}

/* fs2 writer @w gets files @w, @w + W2, ...: its share of N. */
static unsigned int fs2_share(const struct opts *o, unsigned int w)
{
	return o->files / o->writers2 + (w < o->files % o->writers2);
}

static void setup_writers(const struct opts *o)
{
	size_t size = sizeof(*sh), off;
	unsigned int i, caps[MAX_WRITERS];
	char *mem;

	nr_writers = o->writers1 + o->writers2;
	for (i = 0; i < nr_writers; i++) {
		caps[i] = i < o->writers1 ? FS1_CAP : fs2_share(o, i - o->writers1);
		size += (size_t)caps[i] * sizeof(struct rec);
	}
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap %zu bytes: %s", size, strerror(errno));
	sh = (struct shared *)mem;
	off = sizeof(*sh);
	for (i = 0; i < nr_writers; i++) {
		struct writer *wr = &sh->wr[i];

		wr->fs = i < o->writers1 ? 1 : 2;
		wr->w = i < o->writers1 ? i : i - o->writers1;
		wr->cap = caps[i];
		wr->recs = (struct rec *)(mem + off);
		off += (size_t)caps[i] * sizeof(struct rec);
		mkdir_writer(o->dir[wr->fs], wr->w);
	}
}

static void start_writers(const struct opts *o, unsigned int fs)
{
	unsigned int i;
	pid_t pid;

	for (i = 0; i < nr_writers; i++) {
		if (sh->wr[i].fs != fs)
			continue;
		pid = fork();
		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (pid == 0) {
			if (fs == 1)
				fs1_writer(o, &sh->wr[i]);
			fs2_writer(o, &sh->wr[i]);
		}
		sh->wr[i].pid = pid;
	}
}

/* Wait for the writers of @fs; returns false if one of them failed. */
static bool wait_writers(unsigned int fs)
{
	unsigned int i;
	bool ok = true;
	int status;

	for (i = 0; i < nr_writers; i++) {
		if (sh->wr[i].fs != fs || !sh->wr[i].pid)
			continue;
		if (waitpid(sh->wr[i].pid, &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			ok = false;
		sh->wr[i].pid = 0;
	}
	return ok;
}

static void stop_writers(void)
{
	store_release(sh->stop, 1);
	wait_writers(1);
	wait_writers(2);
}

static long read_param(const char *path)
{
	long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* "Dirty 1234 Writeback 56" (kB) from /proc/meminfo. */
static void read_meminfo(char *buf, size_t len)
{
	unsigned long dirty = 0, wb = 0, v;
	char line[128], key[64];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63[^:]: %lu", key, &v) != 2)
			continue;
		if (!strcmp(key, "Dirty"))
			dirty = v;
		else if (!strcmp(key, "Writeback"))
			wb = v;
	}
	if (f)
		fclose(f);
	snprintf(buf, len, "dirty_kb %lu writeback_kb %lu", dirty, wb);
}

static void write_record(int fd, const char *text, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write record: %s", strerror(errno));
		off += n;
	}
	if (fsync(fd))
		die("fsync record: %s", strerror(errno));
}

static int cmd_crash(const struct opts *o)
{
	unsigned long nclosed[MAX_WRITERS], files[3] = { 0 }, i, j;
	unsigned long long start, start_real, t0, t1, deadline;
	int rfd, sysrq = -1, fs2fd;
	long skipped0, skipped1, calls0, calls1;
	char *text, tail[512], mem0[64], mem1[64];
	size_t len;
	FILE *f;

	rfd = open(o->record, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (rfd < 0)
		die("create %s: %s", o->record, strerror(errno));
	fs2fd = open(o->dir[2], O_RDONLY | O_DIRECTORY);
	if (fs2fd < 0)
		die("open %s: %s", o->dir[2], strerror(errno));
	if (!o->after) {
		sysrq = open("/proc/sysrq-trigger", O_WRONLY);
		if (sysrq < 0)
			die("open /proc/sysrq-trigger: %s", strerror(errno));
	}
	setup_writers(o);

	start_writers(o, 1);
	deadline = now_ns(CLOCK_MONOTONIC) + 600ull * 1000000000ull;
	while (load_acquire(sh->fs1_bytes) < o->budget) {
		if (load_acquire(sh->failed))
			die("an fs1 writer failed");
		if (now_ns(CLOCK_MONOTONIC) > deadline)
			die("the fs1 writers did not write %lu bytes in 600 s",
			    o->budget);
		usleep(10000);
	}
	start_writers(o, 2);
	if (!wait_writers(2) || load_acquire(sh->failed))
		die("a writer failed before the sync");

	/*
	 * A file counted here was closed before this load, so before the
	 * sync start time that follows.
	 */
	skipped0 = read_param(SKIPPED_PARAM);
	calls0 = read_param(CALLS_PARAM);
	read_meminfo(mem0, sizeof(mem0));
	for (i = 0; i < nr_writers; i++)
		nclosed[i] = load_acquire(sh->wr[i].nclosed);
	start = now_ns(CLOCK_MONOTONIC);
	start_real = now_ns(CLOCK_REALTIME);

	f = open_memstream(&text, &len);
	if (!f)
		die("open_memstream: %s", strerror(errno));
	fprintf(f, "wbsync-integrity 1\nmode %s\ninflight %d\n",
		mode_names[o->mode], o->inflight);
	fprintf(f, "params writers1 %u writers2 %u files %u size1 %lu size2 %lu",
		o->writers1, o->writers2, o->files, o->size1, o->size2);
	fprintf(f, " budget %lu pace_us %lu\n", o->budget, o->pace_us);
	fprintf(f, "sync_start_mono_ns %llu\nsync_start_real_ns %llu\n",
		start, start_real);
	fprintf(f, "fs1_bytes %lu\nmeminfo_before %s\n",
		load_acquire(sh->fs1_bytes), mem0);
	for (i = 0; i < nr_writers; i++) {
		struct writer *wr = &sh->wr[i];

		for (j = 0; j < nclosed[i]; j++)
			fprintf(f, "file %u %u %lu %u %u %llu\n", wr->fs,
				wr->w, j, wr->recs[j].gen, wr->recs[j].size,
				wr->recs[j].close_ns);
		files[wr->fs] += nclosed[i];
	}
	fprintf(f, "files fs1 %lu fs2 %lu\n", files[1], files[2]);
	if (fclose(f))
		die("record: %s", strerror(errno));
	write_record(rfd, text, len);
	free(text);

	t0 = now_ns(CLOCK_MONOTONIC);
	if (o->mode == MODE_SYNCFS) {
		if (syncfs(fs2fd))
			die("syncfs: %s", strerror(errno));
	} else if (o->mode != MODE_NOSYNC) {
		sync();
	}
	t1 = now_ns(CLOCK_MONOTONIC);
	skipped1 = read_param(SKIPPED_PARAM);
	calls1 = read_param(CALLS_PARAM);
	read_meminfo(mem1, sizeof(mem1));

	len = snprintf(tail, sizeof(tail),
		       "sync_ns %llu\nkick_skipped %ld %ld\nkick_calls %ld %ld\nmeminfo_after %s\nsync_done\n",
		       t1 - t0, skipped0, skipped1, calls0, calls1, mem1);
	write_record(rfd, tail, len);
	if (sysrq >= 0) {
		if (o->before_crash && system(o->before_crash))
			fprintf(stderr, "wbsync_integrity: '%s' failed\n",
				o->before_crash);
		/* The fs1 writers are still running. */
		if (write(sysrq, "b", 1) != 1)
			die("sysrq-b: %s", strerror(errno));
		sleep(10);
		die("still running 10 s after sysrq-b");
	}
	if (system(o->after))
		fprintf(stderr, "wbsync_integrity: '%s' failed\n", o->after);
	stop_writers();
	printf("# %s took %.3f s; %lu fs1 and %lu fs2 files closed before it\n",
	       mode_names[o->mode], (t1 - t0) / 1e9, files[1], files[2]);
	return 0;
}

static int cmd_prepare(const struct opts *o)
{
	char path[PATH_MAX], *buf = malloc(o->size2);
	unsigned int w, seq;
	int fd;

	if (!buf)
		die("malloc: %s", strerror(errno));
	for (w = 0; w < o->writers2; w++) {
		mkdir_writer(o->dir[2], w);
		for (seq = 0; seq < fs2_share(o, w); seq++) {
			file_path(path, sizeof(path), o->dir[2], w, seq);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				die("create %s: %s", path, strerror(errno));
			fill(buf, o->size2, 2, w, seq, 1);
			if (pwrite_all(fd, buf, o->size2) || fsync(fd) ||
			    close(fd))
				die("write %s: %s", path, strerror(errno));
		}
	}
	sync();
	free(buf);
	return 0;
}

enum verdict { OK, MISSING, EMPTY, SIZE, STALE, TORN, ERROR, NR_VERDICTS };
static const char * const verdict_names[] = {
	"ok", "missing", "empty", "wrong size", "stale", "torn", "unreadable",
};

static enum verdict check_file(const char *path, unsigned int fs,
			       unsigned int w, unsigned int seq,
			       unsigned int gen, size_t size, char *got,
			       char *want)
{
	size_t off, n, blocks = 0, stale = 0;
	unsigned int g;
	struct stat st;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno == ENOENT ? MISSING : ERROR;
	if (fstat(fd, &st)) {
		close(fd);
		return ERROR;
	}
	if ((size_t)st.st_size != size) {
		close(fd);
		return st.st_size ? SIZE : EMPTY;
	}
	for (off = 0; off < size; off += n) {
		r = pread(fd, got + off, size - off, off);
		if (r <= 0) {
			close(fd);
			return ERROR;
		}
		n = r;
	}
	close(fd);
	for (off = 0; off < size; off += BLK) {
		n = size - off < BLK ? size - off : BLK;
		blocks++;
		fill_block(want, n, fs, w, seq, gen, off / BLK);
		if (!memcmp(got + off, want, n))
			continue;
		for (g = 1; g < gen; g++) {
			fill_block(want, n, fs, w, seq, g, off / BLK);
			if (!memcmp(got + off, want, n))
				break;
		}
		if (g == gen)
			return TORN;
		stale++;
	}
	if (!stale)
		return OK;
	return stale == blocks ? STALE : TORN;
}

static int cmd_verify(const struct opts *o)
{
	unsigned long count[3][NR_VERDICTS] = { { 0 } }, shown = 0, total[3] = { 0 };
	unsigned int fs, w, gen, size, v, done = 0;
	unsigned long long start = 0, close_ns;
	char *line = NULL, path[PATH_MAX], *got, *want;
	unsigned long seq;
	size_t cap = 0;
	int rc = 0;
	FILE *f;

	f = fopen(o->record, "r");
	if (!f)
		die("open %s: %s", o->record, strerror(errno));
	got = malloc(MAX_SIZE);
	want = malloc(BLK);
	if (!got || !want)
		die("malloc: %s", strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "sync_start_mono_ns %llu", &start) == 1)
			continue;
		if (!strcmp(line, "sync_done\n"))
			done = 1;
		if (sscanf(line, "file %u %u %lu %u %u %llu", &fs, &w, &seq,
			   &gen, &size, &close_ns) != 6)
			continue;
		if (fs < 1 || fs > 2 || size > MAX_SIZE || !gen)
			die("bad record line: %s", line);
		if (o->check_fs && fs != o->check_fs)
			continue;
		file_path(path, sizeof(path), o->dir[fs], w, seq);
		v = check_file(path, fs, w, seq, gen, size, got, want);
		count[fs][v]++;
		total[fs]++;
		if (v != OK && !o->expect_loss && shown++ < MAX_BAD_SHOWN)
			printf("#   fs%u %s (gen %u, %u bytes, closed %.1f ms before sync): %s\n",
			       fs, path, gen, size,
			       (start - close_ns) / 1e6, verdict_names[v]);
	}
	fclose(f);
	if (!start)
		die("%s: no sync start time", o->record);
	if (!done)
		die("%s: the sync did not complete in the crash boot", o->record);
	for (fs = 1; fs <= 2; fs++) {
		if (o->check_fs && fs != o->check_fs)
			continue;
		printf("# fs%u: %lu files closed before the sync:", fs, total[fs]);
		for (v = 0; v < NR_VERDICTS; v++)
			printf("%s %lu %s", v ? "," : "", count[fs][v],
			       verdict_names[v]);
		printf("\n");
		if (o->expect_loss ? count[fs][OK] != 0 :
				     count[fs][OK] != total[fs])
			rc = 1;
	}
	free(line);
	free(got);
	free(want);
	return rc;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: wbsync_integrity prepare|crash|verify [options]\n"
		"  -m MODE    sync, syncfs or overwrite (crash; default sync)\n"
		"  -o RECORD  record of the files and the sync (crash, verify)\n"
		"  -1 DIR     fs1 mount point   -2 DIR  fs2 mount point\n"
		"  -w N       fs1 writers (4)   -W N    fs2 writers (2)\n"
		"  -n N       fs2 files (1000)\n"
		"  -S BYTES   fs1 file size (65536)  -s BYTES  fs2 file size (16384)\n"
		"  -b MIB     fs1 data before the fs2 writers start (64)\n"
		"  -p USEC    fs1 pause per file after that (2000)\n"
		"  -k         inflight: rewrite each fs2 file while its writeback runs\n"
		"  -a CMD     crash: run CMD after the sync instead of sysrq-b\n"
		"  -t CMD     crash: run CMD after the sync, then sysrq-b (tracing)\n"
		"  -f FS      verify: fs 1, 2, or 0 for both (0)\n"
		"  -x         verify: expect every file to be lost (control)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = {
		.writers1 = 4, .writers2 = 2, .files = 1000,
		.size1 = 65536, .size2 = 16384, .budget = 64, .pace_us = 2000,
	};
	const char *cmd;
	int c;

	if (argc < 2)
		print_usage();
	cmd = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "m:o:1:2:w:W:n:S:s:b:p:ka:t:f:x")) != -1) {
		switch (c) {
		case 'm':
			for (o.mode = 0; o.mode < NR_MODES; o.mode++)
				if (!strcmp(optarg, mode_names[o.mode]))
					break;
			if (o.mode == NR_MODES)
				die("unknown mode '%s' (sync, syncfs, overwrite, nosync)",
				    optarg);
			break;
		case 'o':
			o.record = optarg;
			break;
		case '1':
			o.dir[1] = optarg;
			break;
		case '2':
			o.dir[2] = optarg;
			break;
		case 'w':
			o.writers1 = parse_num("w", optarg, 1, MAX_WRITERS / 2);
			break;
		case 'W':
			o.writers2 = parse_num("W", optarg, 1, MAX_WRITERS / 2);
			break;
		case 'n':
			o.files = parse_num("n", optarg, 1, 1000000);
			break;
		case 'S':
			o.size1 = parse_num("S", optarg, 1, MAX_SIZE);
			break;
		case 's':
			o.size2 = parse_num("s", optarg, 1, MAX_SIZE);
			break;
		case 'b':
			o.budget = parse_num("b", optarg, 0, 1 << 16);
			break;
		case 'p':
			o.pace_us = parse_num("p", optarg, 0, 10000000);
			break;
		case 'k':
			o.inflight = true;
			break;
		case 'a':
			o.after = optarg;
			break;
		case 't':
			o.before_crash = optarg;
			break;
		case 'f':
			o.check_fs = parse_num("f", optarg, 0, 2);
			break;
		case 'x':
			o.expect_loss = true;
			break;
		default:
			print_usage();
		}
	}
	if (optind != argc)
		print_usage();
	o.budget <<= 20;
	if (o.files < o.writers2)
		die("-n %u: fewer files than fs2 writers", o.files);
	if (!strcmp(cmd, "prepare")) {
		if (!o.dir[2])
			die("prepare needs -2 DIR");
		return cmd_prepare(&o);
	}
	if (!o.record || !o.dir[1] || !o.dir[2])
		die("%s needs -o RECORD -1 DIR -2 DIR", cmd);
	if (!strcmp(cmd, "crash"))
		return cmd_crash(&o);
	if (!strcmp(cmd, "verify"))
		return cmd_verify(&o);
	print_usage();
	return 2;
}
