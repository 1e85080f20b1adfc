// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync: latency statistics per (superblock, phase).
 *
 * All memory is allocated at load: WBSYNC_MAX_SB superblock rows and a
 * pool of WBSYNC_MAX_CELLS histograms, one taken by a (row, phase) on
 * its first duration.  When rows or cells run out, the duration goes to
 * the "(overflow)" row, which has a histogram per phase of its own:
 * nothing is lost but the superblock it came from.
 *
 * Durations come from kretprobe handlers (preemption off, interrupts
 * maybe off), so the table is under a raw spinlock taken with irqsave
 * and nothing here sleeps or allocates.
 *
 * The histogram is exact below WBSYNC_LIN microseconds, then has
 * WBSYNC_SUBS buckets per power of two, so a percentile read from it is
 * at most 1/WBSYNC_SUBS above the true value.
 */
#include <linux/bitops.h>
#include <linux/ctype.h>
#include <linux/kdev_t.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "wbsync.h"

#define WBSYNC_MAX_SB		64
#define WBSYNC_MAX_CELLS	192

#define WBSYNC_ROW_GLOBAL	0
#define WBSYNC_ROW_OVERFLOW	1
#define WBSYNC_ROW_FIRST_SB	2
#define WBSYNC_NR_ROWS		(WBSYNC_ROW_FIRST_SB + WBSYNC_MAX_SB)
/* cells [0, WBSYNC_NR_PHASES) belong to the overflow row */
#define WBSYNC_NR_CELLS		(WBSYNC_NR_PHASES + WBSYNC_MAX_CELLS)

#define WBSYNC_LIN		16	/* exact below this, in us */
#define WBSYNC_FIRST_LOG	4	/* ilog2(WBSYNC_LIN) */
#define WBSYNC_SUB_BITS		3
#define WBSYNC_SUBS		BIT(WBSYNC_SUB_BITS)
#define WBSYNC_MAX_LOG		35	/* from 15 * 2^32 us, 18 hours: last */
#define WBSYNC_NR_BUCKETS	(WBSYNC_LIN + WBSYNC_SUBS * \
				 (WBSYNC_MAX_LOG - WBSYNC_FIRST_LOG + 1))

struct wbsync_cell {
	u64 count;
	u64 sum_ns;
	u64 min_ns;
	u64 max_ns;
	u32 hist[WBSYNC_NR_BUCKETS];
};

struct wbsync_row {
	bool used;
	struct wbsync_key key;
	s16 cell[WBSYNC_NR_PHASES];	/* index in cells[], -1: none yet */
};

struct wbsync_stats {
	struct wbsync_row rows[WBSYNC_NR_ROWS];
	struct wbsync_cell cells[WBSYNC_NR_CELLS];
	unsigned int nr_cells;
};

static struct wbsync_stats *wbsync_st;
static DEFINE_RAW_SPINLOCK(wbsync_stats_lock);

static const char *const wbsync_phase_names[WBSYNC_NR_PHASES] = {
	[WBSYNC_PH_SYNC]		= "sync",
	[WBSYNC_PH_SYNCFS]		= "syncfs",
	[WBSYNC_PH_WB_NONE]		= "wb_none",
	[WBSYNC_PH_WB_ALL]		= "wb_all",
	[WBSYNC_PH_PASS_LAG]		= "pass_lag",
	[WBSYNC_PH_WAIT_INODES]		= "wait_inodes",
	[WBSYNC_PH_SYNC_FS_NOWAIT]	= "sync_fs_nowait",
	[WBSYNC_PH_SYNC_FS_WAIT]	= "sync_fs_wait",
	[WBSYNC_PH_BDEV_NOWAIT]		= "bdev_nowait",
	[WBSYNC_PH_BDEV_WAIT]		= "bdev_wait",
	[WBSYNC_PH_SYNC_FILESYSTEM]	= "sync_filesystem",
	[WBSYNC_PH_SYNC_FILE_RANGE]	= "sync_file_range",
};

const char *wbsync_phase_name(enum wbsync_phase phase)
{
	if (phase >= WBSYNC_NR_PHASES)
		return "?";
	return wbsync_phase_names[phase];
}

static unsigned int wbsync_bucket(u64 us)
{
	unsigned int e;

	if (us < WBSYNC_LIN)
		return us;
	e = fls64(us) - 1;
	if (e > WBSYNC_MAX_LOG)
		return WBSYNC_NR_BUCKETS - 1;
	return WBSYNC_LIN + (e - WBSYNC_FIRST_LOG) * WBSYNC_SUBS +
	       ((us >> (e - WBSYNC_SUB_BITS)) & (WBSYNC_SUBS - 1));
}

/* The largest value that falls in bucket @b; the last one has no bound */
static u64 wbsync_bucket_max(unsigned int b)
{
	unsigned int e, sub;

	if (b < WBSYNC_LIN)
		return b;
	if (b >= WBSYNC_NR_BUCKETS - 1)
		return U64_MAX;
	e = (b - WBSYNC_LIN) / WBSYNC_SUBS + WBSYNC_FIRST_LOG;
	sub = (b - WBSYNC_LIN) % WBSYNC_SUBS;
	return (((u64)WBSYNC_SUBS + sub + 1) << (e - WBSYNC_SUB_BITS)) - 1;
}

static void wbsync_clear_locked(struct wbsync_stats *st)
{
	struct wbsync_row *row;
	unsigned int i, p;

	memset(st->rows, 0, sizeof(st->rows));
	memset(st->cells, 0, st->nr_cells * sizeof(st->cells[0]));
	for (i = 0; i < WBSYNC_NR_ROWS; i++)
		for (p = 0; p < WBSYNC_NR_PHASES; p++)
			st->rows[i].cell[p] = -1;

	row = &st->rows[WBSYNC_ROW_GLOBAL];
	row->used = true;
	row->key.global = true;
	strscpy(row->key.s_id, "*", sizeof(row->key.s_id));

	row = &st->rows[WBSYNC_ROW_OVERFLOW];
	row->used = true;
	row->key.global = true;
	strscpy(row->key.s_id, "(overflow)", sizeof(row->key.s_id));
	for (p = 0; p < WBSYNC_NR_PHASES; p++)
		row->cell[p] = p;
	st->nr_cells = WBSYNC_NR_PHASES;
}

static struct wbsync_row *wbsync_row_get_locked(struct wbsync_stats *st,
						const struct wbsync_key *key)
{
	struct wbsync_row *row;
	unsigned int i;

	if (key->global)
		return &st->rows[WBSYNC_ROW_GLOBAL];

	/* Rows are taken in order and only freed all at once by reset */
	for (i = WBSYNC_ROW_FIRST_SB; i < WBSYNC_NR_ROWS; i++) {
		row = &st->rows[i];
		if (!row->used) {
			row->used = true;
			row->key = *key;
			return row;
		}
		if (row->key.dev == key->dev &&
		    !strncmp(row->key.s_id, key->s_id, WBSYNC_SID_LEN))
			return row;
	}
	return NULL;
}

static struct wbsync_cell *wbsync_cell_get_locked(struct wbsync_stats *st,
						  const struct wbsync_key *key,
						  enum wbsync_phase phase)
{
	struct wbsync_row *row = wbsync_row_get_locked(st, key);

	if (!row)
		return &st->cells[phase];
	if (row->cell[phase] < 0) {
		if (st->nr_cells >= WBSYNC_NR_CELLS)
			return &st->cells[phase];
		row->cell[phase] = st->nr_cells++;
	}
	return &st->cells[row->cell[phase]];
}

/* @b: wbsync_bucket() of @ns in microseconds, computed outside the lock */
static void wbsync_cell_add(struct wbsync_cell *c, u64 ns, unsigned int b)
{
	if (!c->count || ns < c->min_ns)
		c->min_ns = ns;
	if (ns > c->max_ns)
		c->max_ns = ns;
	c->count++;
	c->sum_ns += ns;
	c->hist[b]++;
}

void wbsync_stats_record(const struct wbsync_key *key,
			 enum wbsync_phase phase, u64 ns)
{
	struct wbsync_stats *st = wbsync_st;
	unsigned long flags;
	unsigned int b;

	if (!st || phase >= WBSYNC_NR_PHASES)
		return;
	b = wbsync_bucket(div_u64(ns, NSEC_PER_USEC));

	raw_spin_lock_irqsave(&wbsync_stats_lock, flags);
	wbsync_cell_add(wbsync_cell_get_locked(st, key, phase), ns, b);
	raw_spin_unlock_irqrestore(&wbsync_stats_lock, flags);
}

void wbsync_stats_reset(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&wbsync_stats_lock, flags);
	if (wbsync_st)
		wbsync_clear_locked(wbsync_st);
	raw_spin_unlock_irqrestore(&wbsync_stats_lock, flags);
}

/* Upper bound of the bucket that holds rank ceil(count * pct / 100) */
static u64 wbsync_percentile(const struct wbsync_cell *c, unsigned int pct)
{
	u64 min_us = div_u64(c->min_ns, NSEC_PER_USEC);
	u64 max_us = div_u64(c->max_ns, NSEC_PER_USEC);
	u64 rank = div_u64(c->count * pct + 99, 100);
	u64 seen = 0, v = max_us;
	unsigned int b;

	for (b = 0; b < WBSYNC_NR_BUCKETS; b++) {
		seen += c->hist[b];
		if (seen >= rank) {
			v = wbsync_bucket_max(b);
			break;
		}
	}
	return clamp(v, min_us, max_us);
}

/* One line of stats; s_id as one field: no blanks, never empty */
static void wbsync_show_cell(struct seq_file *m, const struct wbsync_key *key,
			     enum wbsync_phase phase,
			     const struct wbsync_cell *c)
{
	char dev[16], id[WBSYNC_SID_LEN];
	unsigned int i;

	if (key->global)
		strscpy(dev, "-", sizeof(dev));
	else
		snprintf(dev, sizeof(dev), "%u:%u",
			 MAJOR(key->dev), MINOR(key->dev));

	strscpy(id, key->s_id, sizeof(id));
	for (i = 0; id[i]; i++)
		if (!isgraph(id[i]))
			id[i] = '?';
	if (!id[0])
		strscpy(id, "-", sizeof(id));

	seq_printf(m, "%-8s %-16s %-16s %8llu %10llu %10llu %10llu %10llu %10llu\n",
		   dev, id, wbsync_phase_name(phase), c->count,
		   div_u64(c->min_ns, NSEC_PER_USEC),
		   div_u64(div64_u64(c->sum_ns, c->count), NSEC_PER_USEC),
		   div_u64(c->max_ns, NSEC_PER_USEC),
		   wbsync_percentile(c, 50), wbsync_percentile(c, 99));
}

/* Shows one row, phase by phase; false once past the last used row */
static bool wbsync_show_row(struct seq_file *m, unsigned int r,
			    struct wbsync_cell *c)
{
	struct wbsync_stats *st = wbsync_st;
	struct wbsync_key key;
	unsigned long flags;
	unsigned int p;
	int ci;

	for (p = 0; p < WBSYNC_NR_PHASES; p++) {
		raw_spin_lock_irqsave(&wbsync_stats_lock, flags);
		if (!st->rows[r].used) {
			raw_spin_unlock_irqrestore(&wbsync_stats_lock, flags);
			return false;
		}
		key = st->rows[r].key;
		ci = st->rows[r].cell[p];
		if (ci >= 0)
			memcpy(c, &st->cells[ci], sizeof(*c));
		raw_spin_unlock_irqrestore(&wbsync_stats_lock, flags);

		if (ci >= 0 && c->count)
			wbsync_show_cell(m, &key, p, c);
	}
	return true;
}

int wbsync_stats_show(struct seq_file *m)
{
	struct wbsync_cell *c;
	unsigned int r;

	if (!wbsync_st)
		return -ENODEV;
	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;

	seq_printf(m, "%-8s %-16s %-16s %8s %10s %10s %10s %10s %10s\n",
		   "dev", "s_id", "phase", "count", "min_us", "mean_us",
		   "max_us", "p50_us", "p99_us");
	wbsync_show_row(m, WBSYNC_ROW_GLOBAL, c);
	for (r = WBSYNC_ROW_FIRST_SB; r < WBSYNC_NR_ROWS; r++)
		if (!wbsync_show_row(m, r, c))
			break;
	wbsync_show_row(m, WBSYNC_ROW_OVERFLOW, c);

	kfree(c);
	return 0;
}

int wbsync_stats_init(void)
{
	struct wbsync_stats *st;
	unsigned long flags;

	st = vzalloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->nr_cells = WBSYNC_NR_CELLS;
	wbsync_clear_locked(st);

	raw_spin_lock_irqsave(&wbsync_stats_lock, flags);
	wbsync_st = st;
	raw_spin_unlock_irqrestore(&wbsync_stats_lock, flags);
	return 0;
}

/* Only once nothing can record any more: probes gone, RCU synchronized */
void wbsync_stats_exit(void)
{
	struct wbsync_stats *st = wbsync_st;
	unsigned long flags;

	raw_spin_lock_irqsave(&wbsync_stats_lock, flags);
	wbsync_st = NULL;
	raw_spin_unlock_irqrestore(&wbsync_stats_lock, flags);
	vfree(st);
}
