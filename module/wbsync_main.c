// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync: instrumentation for sync(2), syncfs(2) and sync_file_range(2).
 *
 * Tracepoints (events/wbsync/) and latency statistics per superblock and
 * phase (/sys/kernel/debug/wbsync/), from kretprobes on the sync paths
 * and probes on two writeback tracepoints.
 * See Documentation/wbsync-admin.rst.
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/tracepoint.h>

#include "wbsync.h"

/* debugfs "enable": when false, the probes time and trace nothing */
bool wbsync_enabled = true;

static int __init wbsync_init(void)
{
	int err;

	err = wbsync_stats_init();
	if (err)
		return err;
	err = wbsync_probes_init();
	if (err) {
		wbsync_stats_exit();
		return err;
	}
	/* after the probes: sfr_sync_mode needs the sync_file_range() one */
	wbsync_knobs_init();
	wbsync_debugfs_init();
	return 0;
}

/*
 * Safe while sync(2) runs, in the reverse order of init: first no more
 * user requests, then no more knobs and handlers, then no more
 * tracepoint callbacks, and only then free.
 */
static void __exit wbsync_exit(void)
{
	/* waits for the reads and writes in progress */
	wbsync_debugfs_exit();
	/* first, as at init last: no call is forced once the probes go */
	wbsync_knobs_exit();
	/* synchronizes RCU: no handler runs when it returns */
	wbsync_probes_exit();
	/* no tracer callback runs on our events, nor our tracepoint probes */
	tracepoint_synchronize_unregister();
	wbsync_stats_exit();
}

module_init(wbsync_init);
module_exit(wbsync_exit);

MODULE_DESCRIPTION("Instrumentation for sync(2) and writeback");
MODULE_LICENSE("GPL");
