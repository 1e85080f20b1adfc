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

static unsigned long kcsan_control_counter;

/* Out of line, so that the report names these two functions. */
static noinline void kcsan_control_write(void)
{
	kcsan_control_counter++;
}

static noinline unsigned long kcsan_control_read(void)
{
	return kcsan_control_counter;
}

static int kcsan_control_writer(void *unused)
{
	while (!kthread_should_stop()) {
		kcsan_control_write();
		cond_resched();
	}
	return 0;
}

static int __init kcsan_control_init(void)
{
	unsigned long end = jiffies + 2 * HZ, reads = 0;
	struct task_struct *writer;

	writer = kthread_run(kcsan_control_writer, NULL, "kcsan_control");
	if (IS_ERR(writer))
		return PTR_ERR(writer);
	while (time_before(jiffies, end)) {
		if (kcsan_control_read())
			reads++;
		cond_resched();
	}
	kthread_stop(writer);
	pr_info("kcsan_control: %lu reads of a counter written concurrently\n", reads);
	return 0;
}

static void __exit kcsan_control_exit(void)
{
}

module_init(kcsan_control_init);
module_exit(kcsan_control_exit);
MODULE_DESCRIPTION("A deliberate data race for KCSAN (wbsync lab)");
MODULE_LICENSE("GPL");
