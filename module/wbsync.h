/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wbsync: instrumentation for sync(2), syncfs(2) and sync_file_range(2).
 *
 * Shared declarations of the module's parts:
 *   wbsync_main.c    init and exit, in that order of dependencies
 *   wbsync_probes.c  kretprobes and tracepoint probes on the sync paths,
 *                    fires the module's tracepoints
 *   wbsync_stats.c   per (superblock, phase) latency histograms
 *   wbsync_knobs.c   A/B knobs: kprobes that change one argument
 *   wbsync_debugfs.c /sys/kernel/debug/wbsync/
 *   tests/           KUnit tests (wbsync_kunit.ko, kernels with KUnit)
 */
#ifndef _WBSYNC_H
#define _WBSYNC_H

#include <linux/types.h>

struct address_space;
struct seq_file;
struct super_block;

/* Same size as super_block::s_id */
#define WBSYNC_SID_LEN		32

/* The calls that wbsync_sync_start and wbsync_sync_end report */
#define WBSYNC_KIND_SYNC	0
#define WBSYNC_KIND_SYNCFS	1

/*
 * What a duration measures.  The order is the order of the rows in the
 * stats file and must match wbsync_phase_names[] in wbsync_stats.c.
 */
enum wbsync_phase {
	WBSYNC_PH_SYNC,			/* one sync(2) (ksys_sync) */
	WBSYNC_PH_SYNCFS,		/* one syncfs(2) */
	WBSYNC_PH_WB_NONE,		/* WB_SYNC_NONE pass */
	WBSYNC_PH_WB_ALL,		/* WB_SYNC_ALL pass and its wait */
	WBSYNC_PH_PASS_LAG,		/* sync(2)'s start to a pass's start */
	WBSYNC_PH_WAIT_INODES,		/* wait_sb_inodes() */
	WBSYNC_PH_SYNC_FS_NOWAIT,	/* ->sync_fs(sb, 0) */
	WBSYNC_PH_SYNC_FS_WAIT,		/* ->sync_fs(sb, 1) */
	WBSYNC_PH_BDEV_NOWAIT,		/* block device write, no wait */
	WBSYNC_PH_BDEV_WAIT,		/* block device write and wait */
	WBSYNC_PH_SYNC_FILESYSTEM,	/* sync_filesystem(), all of it */
	WBSYNC_PH_SYNC_FILE_RANGE,	/* one sync_file_range() */
	WBSYNC_NR_PHASES
};

/*
 * The row a duration is accounted to: a superblock (s_dev and s_id; a
 * block device uses its dev_t and name, which are those of the
 * superblock on it), a bdi (its name, and the dev_t it names, if any),
 * or the global row for what is not per superblock.
 */
struct wbsync_key {
	dev_t dev;
	bool global;
	char s_id[WBSYNC_SID_LEN];
};

/* wbsync_main.c */
extern bool wbsync_enabled;

/* wbsync_stats.c: callable from any context but NMI */
int wbsync_stats_init(void);
void wbsync_stats_exit(void);
const char *wbsync_phase_name(enum wbsync_phase phase);
void wbsync_stats_record(const struct wbsync_key *key,
			 enum wbsync_phase phase, u64 ns);
void wbsync_stats_reset(void);
int wbsync_stats_show(struct seq_file *m);

/* wbsync_probes.c */
void wbsync_key_sb(struct wbsync_key *key, const struct super_block *sb);
int wbsync_probes_init(void);
void wbsync_probes_exit(void);
int wbsync_probes_show(struct seq_file *m);
bool wbsync_sfr_probed(void);
bool wbsync_sfr_force_here(const struct address_space *mapping);

/* wbsync_knobs.c */
struct wbsync_knob;
struct wbsync_knob *wbsync_knob_at(unsigned int i);	/* NULL past the last */
void wbsync_knobs_init(void);
void wbsync_knobs_exit(void);
const char *wbsync_knob_name(const struct wbsync_knob *knob);
int wbsync_knob_read(const struct wbsync_knob *knob, char *buf, size_t size);
int wbsync_knob_write(struct wbsync_knob *knob, const char *val);
int wbsync_sfr_sync_mode(unsigned int flags);

/* wbsync_debugfs.c */
void wbsync_debugfs_init(void);
void wbsync_debugfs_exit(void);

#endif /* _WBSYNC_H */
