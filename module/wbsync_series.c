// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync: the series' own tracepoints, where the running kernel has them.
 *
 * writeback_sync_keep_dirtied (patch 2 of the series) fires each time
 * writeback keeps an inode's age because a sync in progress still has to
 * find the data it holds.  Counted per superblock as the "keep_dirtied"
 * phase, with how long that data had been dirty (now - age) as the time.
 * Without the series the tracepoint does not exist: the phase stays empty
 * and the "probes" file says "unsupported".
 */
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "wbsync.h"

#define WBSYNC_KEEP_TP	"writeback_sync_keep_dirtied"

static struct tracepoint *wbsync_keep_tp;
static atomic_long_t wbsync_keep_hits;

/* TP_PROTO of writeback_sync_keep_dirtied, with the probe's data first */
static void wbsync_keep_dirtied(void *data, struct inode *inode,
				unsigned long age, unsigned long now,
				unsigned long cutoff, const char *action)
{
	struct wbsync_key key;

	if (!READ_ONCE(wbsync_enabled))
		return;
	atomic_long_inc(&wbsync_keep_hits);
	wbsync_key_sb(&key, inode->i_sb);
	wbsync_stats_record(&key, WBSYNC_PH_KEEP_DIRTIED,
			    jiffies_to_nsecs(now - age));
}

static void wbsync_find_keep_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, WBSYNC_KEEP_TP))
		*(struct tracepoint **)priv = tp;
}

void wbsync_series_init(void)
{
	struct tracepoint *tp = NULL;
	int err;

	atomic_long_set(&wbsync_keep_hits, 0);
	for_each_kernel_tracepoint(wbsync_find_keep_tp, &tp);
	if (!tp) {
		pr_info("wbsync: no %s tracepoint (kernel without the series)\n",
			WBSYNC_KEEP_TP);
		return;
	}
	err = tracepoint_probe_register(tp, (void *)wbsync_keep_dirtied, NULL);
	if (err) {
		pr_info("wbsync: tracepoint %s unsupported (%d)\n",
			WBSYNC_KEEP_TP, err);
		return;
	}
	wbsync_keep_tp = tp;
}

/* The caller waits with tracepoint_synchronize_unregister() */
void wbsync_series_exit(void)
{
	if (wbsync_keep_tp)
		tracepoint_probe_unregister(wbsync_keep_tp,
					    (void *)wbsync_keep_dirtied, NULL);
	wbsync_keep_tp = NULL;
}

/* One row of the "probes" file */
void wbsync_series_show(struct seq_file *m)
{
	seq_printf(m, "%-20s %-24s %-12s %10ld %8lu\n", "keep_dirtied",
		   "tp:" WBSYNC_KEEP_TP, wbsync_keep_tp ? "attached" : "unsupported",
		   atomic_long_read(&wbsync_keep_hits), 0UL);
}
