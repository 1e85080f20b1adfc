// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync_fault: test-only fault injection for the wbsync integrity test.
 *
 * sync(2) first kicks the flusher threads with a WB_SYNC_NONE pass
 * (wakeup_flusher_threads(WB_REASON_SYNC)) and then runs one WB_SYNC_ALL
 * pass per superblock.  The kick writes most of the data, which hides
 * a WB_SYNC_ALL pass that skips data it should write.  With skip_sync_kick
 * set, a kprobe on wakeup_flusher_threads() makes that call return at once,
 * so every byte dirtied before sync(2) must be written by the WB_SYNC_ALL
 * passes.  Other reasons (vmscan, laptop mode) are left alone.
 *
 * A skipped call is redirected to an empty function: it returns to the
 * caller with the stack untouched.  Moving regs->sp does not work here,
 * because wakeup_flusher_threads() starts with an ftrace call site and its
 * probe is ftrace based: ftrace_regs_caller returns to regs->ip but does
 * not restore regs->sp.  The kprobe has a post_handler, so that it is armed
 * with FTRACE_OPS_FL_IPMODIFY (ftrace) or is never optimized (int3).
 *
 * Parameters (/sys/module/wbsync_fault/parameters/):
 *   skip_sync_kick  skip wakeup_flusher_threads(WB_REASON_SYNC) (rw)
 *   symbol          the function to probe (load time only)
 *   calls           calls with WB_REASON_SYNC seen (ro)
 *   skipped         calls skipped (ro)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/backing-dev-defs.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/ptrace.h>
#include <linux/sysfs.h>

#ifndef CONFIG_X86_64
#error "wbsync_fault supports x86-64 only"
#endif

static bool skip_sync_kick;
module_param(skip_sync_kick, bool, 0644);
MODULE_PARM_DESC(skip_sync_kick,
		 "Make wakeup_flusher_threads(WB_REASON_SYNC) return at once");

static char *symbol = "wakeup_flusher_threads";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "Function to probe (default wakeup_flusher_threads)");

static atomic_long_t calls = ATOMIC_LONG_INIT(0);
static atomic_long_t skipped = ATOMIC_LONG_INIT(0);

static int counter_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static int counter_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops counter_ops = {
	.set = counter_set,
	.get = counter_get,
};

module_param_cb(calls, &counter_ops, &calls, 0444);
MODULE_PARM_DESC(calls, "Calls with WB_REASON_SYNC seen");
module_param_cb(skipped, &counter_ops, &skipped, 0444);
MODULE_PARM_DESC(skipped, "Calls with WB_REASON_SYNC skipped");

/*
 * Where a skipped call goes.  The probe fires on the first instruction of
 * the function, before its prologue: the return address to the caller is on
 * top of the stack, and the return instruction of this function pops it.
 */
static noinline notrace void wbsync_fault_return(void)
{
}

static int wbsync_fault_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (regs_get_kernel_argument(regs, 0) != WB_REASON_SYNC)
		return 0;
	atomic_long_inc(&calls);
	if (!READ_ONCE(skip_sync_kick))
		return 0;
	atomic_long_inc(&skipped);
	instruction_pointer_set(regs, (unsigned long)wbsync_fault_return);
	/* Non-zero: regs->ip was changed, do not run the probed instruction. */
	return 1;
}

/*
 * Never called for a skipped call.  It exists so that the pre_handler may
 * change regs->ip: see the comment at the top of the file.
 */
static void wbsync_fault_post(struct kprobe *p, struct pt_regs *regs,
			      unsigned long flags)
{
}

static struct kprobe wbsync_fault_kp = {
	.pre_handler = wbsync_fault_pre,
	.post_handler = wbsync_fault_post,
};

static int __init wbsync_fault_init(void)
{
	int ret;

	wbsync_fault_kp.symbol_name = symbol;
	ret = register_kprobe(&wbsync_fault_kp);
	if (ret) {
		pr_err("cannot probe %s: error %d\n", symbol, ret);
		return ret;
	}
	pr_info("probing %s at %pS (skip_sync_kick=%d)\n", symbol,
		wbsync_fault_kp.addr, skip_sync_kick);
	return 0;
}

static void __exit wbsync_fault_exit(void)
{
	unregister_kprobe(&wbsync_fault_kp);
	pr_info("unloaded: %ld sync kicks seen, %ld skipped\n",
		atomic_long_read(&calls), atomic_long_read(&skipped));
}

module_init(wbsync_fault_init);
module_exit(wbsync_fault_exit);

MODULE_DESCRIPTION("wbsync test-only fault injection: skip the sync(2) flusher kick");
MODULE_LICENSE("GPL");
