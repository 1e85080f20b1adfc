// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync: instrumentation for sync(2) and writeback.
 *
 * Skeleton: the tracepoints and debugfs interface come with the module
 * issue; this proves the out-of-tree build and load path.
 */
#include <linux/init.h>
#include <linux/module.h>

static int __init wbsync_init(void)
{
	pr_info("wbsync: loaded\n");
	return 0;
}

static void __exit wbsync_exit(void)
{
	pr_info("wbsync: unloaded\n");
}

module_init(wbsync_init);
module_exit(wbsync_exit);

MODULE_DESCRIPTION("Instrumentation for sync(2) and writeback");
MODULE_LICENSE("GPL");
