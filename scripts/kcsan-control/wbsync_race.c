// SPDX-License-Identifier: GPL-2.0
/*
 * The positive control of make kcsan-check (scripts/kcsan-check.sh): a
 * deliberate data race.  For two seconds a kthread increments a plain
 * counter while the module's init reads it.  A KCSAN kernel that does not
 * report this under the lab's accelerator would not report a race in
 * fs-writeback.c either, and a run without reports would prove nothing.
 */
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>

static unsigned long wbsync_race_counter;

/*
 * Out of line, so that the report names them.  No "kcsan_" in the names of
 * these functions or of the module: a report skips the top frames whose
 * name (with its " [module]") contains it, as KCSAN's own.
 */
static noinline void wbsync_race_write(void)
{
	wbsync_race_counter++;
}

static noinline unsigned long wbsync_race_read(void)
{
	return wbsync_race_counter;
}

static int wbsync_race_writer(void *unused)
{
	while (!kthread_should_stop()) {
		wbsync_race_write();
		cond_resched();
	}
	return 0;
}

static int __init wbsync_race_init(void)
{
	unsigned long end = jiffies + 2 * HZ, reads = 0;
	struct task_struct *writer;

	writer = kthread_run(wbsync_race_writer, NULL, "wbsync_race");
	if (IS_ERR(writer))
		return PTR_ERR(writer);
	while (time_before(jiffies, end)) {
		if (wbsync_race_read())
			reads++;
		cond_resched();
	}
	kthread_stop(writer);
	pr_info("wbsync_race: %lu reads of a counter written concurrently\n", reads);
	return 0;
}

static void __exit wbsync_race_exit(void)
{
}

module_init(wbsync_race_init);
module_exit(wbsync_race_exit);
MODULE_DESCRIPTION("A deliberate data race for KCSAN (wbsync lab)");
MODULE_LICENSE("GPL");
