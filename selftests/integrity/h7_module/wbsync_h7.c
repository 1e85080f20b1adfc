// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync_h7: test-only window widener for the holes test's h7 and h8.
 *
 * __mark_inode_dirty(inode, I_DIRTY_SYNC...) of a lazytime inode that holds
 * I_DIRTY_TIME only (chmod, chown, the last iput) first clears I_DIRTY_TIME
 * under i_lock, then drops it for ->dirty_inode() and its tracepoints, and
 * only then takes the locks again, sets I_DIRTY_SYNC and checks
 * I_SYNC_QUEUED.  If sync(2)'s WB_SYNC_ALL pass writes the inode in between,
 * it finds nothing dirty, writes nothing and takes the inode off the lists
 * (clearing I_SYNC_QUEUED); the task then stamps dirtied_when after the
 * pass's cutoff and the pass never writes the inode's timestamps.
 *
 * Once armed, a probe on writeback_dirty_inode_start spins (mdelay(1),
 * at most window_ms) the first time the target inode comes there from a
 * user task with I_DIRTY_SYNC in the flags and I_DIRTY_TIME in the flags
 * (just cleared) or, on a kernel that converts under one i_lock hold, still
 * in i_state.
 * Probes on writeback_single_inode_start and writeback_single_inode see
 * sync(2)'s pass (WB_SYNC_ALL, for_sync) write the inode in the window
 * (6.12 finds nothing dirty there): the window is then "reached", and the
 * spin ends hold_ms later (after requeue_inode()).  The probe runs with
 * preemption off: the flusher must run on another CPU.
 *
 * h8 (mode=h8): the same window, but the target also has dirty pages, and
 * sync(2)'s WB_SYNC_NONE flush writes them in the window: it finds
 * I_DIRTY_PAGES only (no I_DIRTY_TIME), writes no inode, and
 * requeue_inode() takes the now clean inode off the lists before the
 * WB_SYNC_ALL pass's queue_io() could see it.  The window is "reached"
 * when a WB_SYNC_NONE write of the target starts with I_DIRTY_PAGES and
 * ends (writeback_single_inode; on 6.12 with no I_DIRTY_ALL flag) before
 * any queue_io() of a pass; the spin ends hold_ms after the first queue_io()
 * of a WB_SYNC_ALL for_sync work on the target's superblock (a probe on
 * writeback_queue_io), so that the task stamps dirtied_when after that
 * pass's cutoff; window_ms if no pass comes (the cgroup-aware
 * bdi_split_work_to_wbs() queues none on a wb with nothing dirty).
 *
 * Parameters (/sys/module/wbsync_h7/parameters/):
 *   mode         h7 (default) or h8; set while idle
 *   ino, dev     the target: inode number and st_dev (user-space encoding)
 *   window_ms    longest spin (1 to 15000, default 5000)
 *   hold_ms      spin after the window was reached (h8: after the pass
 *                queued) (0 to 1000, default 200)
 *   state        idle, armed, window or done; write "arm" to arm (once)
 *   fired        windows opened (ro)
 *   seen         writes of the target by writeback in a window (ro)
 *   reached      the pass wrote the target in a window; h8: the flush
 *                wrote its pages before a pass queued (ro)
 *   queued       queue_io()s of a WB_SYNC_ALL for_sync work on the
 *                target's superblock in a window (ro)
 *   start_state  i_state of the target at the last write's start (ro)
 *   spun_ms      how long the last window lasted (ro)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>
#include <linux/writeback.h>

enum { H7_IDLE, H7_ARMED, H7_WINDOW, H7_DONE };
static const char * const h7_state_names[] = { "idle", "armed", "window", "done" };
static atomic_t h7_state = ATOMIC_INIT(H7_IDLE);

enum { MODE_H7, MODE_H8 };
static const char * const h7_mode_names[] = { "h7", "h8" };
static int h7_mode = MODE_H7;

/*
 * The head of fs/fs-writeback.c's struct wb_writeback_work (private to it),
 * the same in 6.12 and with the series, which only adds fields after
 * reason: writeback_queue_io passes the work.
 */
struct h7_work_head {
	long nr_pages;
	struct super_block *sb;
	enum writeback_sync_modes sync_mode;
	unsigned int tagged_writepages:1;
	unsigned int for_kupdate:1;
	unsigned int range_cyclic:1;
	unsigned int for_background:1;
	unsigned int for_sync:1;
	unsigned int auto_free:1;
	enum wb_reason reason;
};

static unsigned long ino;
module_param(ino, ulong, 0644);
MODULE_PARM_DESC(ino, "Inode number of the target");

static unsigned int dev;
module_param(dev, uint, 0644);
MODULE_PARM_DESC(dev, "st_dev of the target (user-space encoding)");

static int window_ms_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 15000);
}

static int hold_ms_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 1000);
}

static const struct kernel_param_ops window_ms_ops = {
	.set = window_ms_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops hold_ms_ops = {
	.set = hold_ms_set,
	.get = param_get_uint,
};

static unsigned int window_ms = 5000;
module_param_cb(window_ms, &window_ms_ops, &window_ms, 0644);
MODULE_PARM_DESC(window_ms, "Longest spin in ms (1 to 15000, default 5000)");

static unsigned int hold_ms = 200;
module_param_cb(hold_ms, &hold_ms_ops, &hold_ms, 0644);
MODULE_PARM_DESC(hold_ms, "Spin after the window was reached, ms (0 to 1000)");

static atomic_long_t fired = ATOMIC_LONG_INIT(0);
static atomic_long_t seen = ATOMIC_LONG_INIT(0);
static atomic_long_t reached = ATOMIC_LONG_INIT(0);
static atomic_long_t queued = ATOMIC_LONG_INIT(0);
static atomic_long_t start_state = ATOMIC_LONG_INIT(0);
static atomic_long_t spun_ms = ATOMIC_LONG_INIT(0);
/*
 * The write of the target that began in the window can reach it: h7, the
 * pass began it with nothing dirty; h8, the flush began it with dirty pages.
 */
static atomic_t start_ok = ATOMIC_INIT(0);

static int mode_set(const char *val, const struct kernel_param *kp)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(h7_mode_names); i++) {
		if (!sysfs_streq(val, h7_mode_names[i]))
			continue;
		if (atomic_read(&h7_state) != H7_IDLE)
			return -EBUSY;
		WRITE_ONCE(h7_mode, i);
		return 0;
	}
	return -EINVAL;
}

static int mode_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n", h7_mode_names[READ_ONCE(h7_mode)]);
}

static const struct kernel_param_ops mode_ops = {
	.set = mode_set,
	.get = mode_get,
};

module_param_cb(mode, &mode_ops, NULL, 0644);
MODULE_PARM_DESC(mode, "h7 (default) or h8: the flush writes the target's pages in the window");

static int state_set(const char *val, const struct kernel_param *kp)
{
	if (!sysfs_streq(val, "arm"))
		return -EINVAL;
	if (!READ_ONCE(ino))
		return -EDESTADDRREQ;
	if (atomic_cmpxchg(&h7_state, H7_IDLE, H7_ARMED) != H7_IDLE)
		return -EBUSY;
	return 0;
}

static int state_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n", h7_state_names[atomic_read(&h7_state)]);
}

static const struct kernel_param_ops state_ops = {
	.set = state_set,
	.get = state_get,
};

module_param_cb(state, &state_ops, NULL, 0644);
MODULE_PARM_DESC(state, "idle, armed, window or done; write \"arm\" to arm");

static int counter_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static int counter_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%ld\n", atomic_long_read(kp->arg));
}

static int hex_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%#lx\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops counter_ops = {
	.set = counter_set,
	.get = counter_get,
};

static const struct kernel_param_ops hex_ops = {
	.set = counter_set,
	.get = hex_get,
};

module_param_cb(fired, &counter_ops, &fired, 0444);
MODULE_PARM_DESC(fired, "Windows opened");
module_param_cb(seen, &counter_ops, &seen, 0444);
MODULE_PARM_DESC(seen, "Writes of the target by writeback in a window");
module_param_cb(reached, &counter_ops, &reached, 0444);
MODULE_PARM_DESC(reached, "sync(2)'s pass wrote the target in a window (h8: its flush, before a pass queued)");
module_param_cb(queued, &counter_ops, &queued, 0444);
MODULE_PARM_DESC(queued, "queue_io()s of a sync pass on the target's superblock in a window");
module_param_cb(start_state, &hex_ops, &start_state, 0444);
MODULE_PARM_DESC(start_state, "i_state of the target when writeback began writing it");
module_param_cb(spun_ms, &counter_ops, &spun_ms, 0444);
MODULE_PARM_DESC(spun_ms, "Length of the last window in ms");

static bool h7_target(struct inode *inode)
{
	return inode->i_ino == READ_ONCE(ino) &&
	       new_encode_dev(inode->i_sb->s_dev) == READ_ONCE(dev);
}

/*
 * In __mark_inode_dirty(), i_lock dropped: I_DIRTY_TIME just cleared (in
 * flags), or still set (in i_state) where the conversion is done later,
 * under the lock that sets I_DIRTY_SYNC.
 */
static void h7_dirty_inode_start(void *data, struct inode *inode, int flags)
{
	unsigned int ms, held = 0, limit = READ_ONCE(window_ms);
	bool h8 = READ_ONCE(h7_mode) == MODE_H8;
	/* h7: held until the pass wrote the target; h8: until the pass queued */
	atomic_long_t *until = h8 ? &queued : &reached;

	/* Not writeback's own lazytime update (a kthread): a user task's. */
	if (!((flags | READ_ONCE(inode->i_state)) & I_DIRTY_TIME) ||
	    !(flags & I_DIRTY_SYNC) || (current->flags & PF_KTHREAD) ||
	    !h7_target(inode))
		return;
	if (atomic_cmpxchg(&h7_state, H7_ARMED, H7_WINDOW) != H7_ARMED)
		return;
	atomic_long_inc(&fired);
	pr_info("ino %lu flags %#x state %#x: window open%s\n", inode->i_ino,
		flags, READ_ONCE(inode->i_state), h8 ? " (h8)" : "");
	for (ms = 0; ms < limit; ms++) {
		if (atomic_long_read(until) && held++ >= READ_ONCE(hold_ms))
			break;
		mdelay(1);
	}
	atomic_long_set(&spun_ms, ms);
	atomic_set(&h7_state, H7_DONE);
	if (h8)
		pr_info("ino %lu: window closed after %u ms, reached %ld, queued %ld\n",
			inode->i_ino, ms, atomic_long_read(&reached),
			atomic_long_read(&queued));
	else
		pr_info("ino %lu: window closed after %u ms, reached %ld\n",
			inode->i_ino, ms, atomic_long_read(&reached));
}

static void h7_single_inode_start(void *data, struct inode *inode,
				  struct writeback_control *wbc,
				  unsigned long nr_to_write)
{
	u32 state = READ_ONCE(inode->i_state);

	if (atomic_read(&h7_state) != H7_WINDOW || !h7_target(inode))
		return;
	atomic_long_inc(&seen);
	atomic_long_set(&start_state, state);
	if (READ_ONCE(h7_mode) == MODE_H8)
		atomic_set(&start_ok, wbc->sync_mode == WB_SYNC_NONE &&
			   (state & I_DIRTY_PAGES));
	else
		atomic_set(&start_ok, wbc->sync_mode == WB_SYNC_ALL &&
			   wbc->for_sync);
}

static void h7_single_inode(void *data, struct inode *inode,
			    struct writeback_control *wbc,
			    unsigned long nr_to_write)
{
	if (atomic_read(&h7_state) != H7_WINDOW || !h7_target(inode))
		return;
	if (!atomic_read(&start_ok))
		return;
	/* h8: the flush wrote it before any pass queued */
	if (READ_ONCE(h7_mode) == MODE_H8 && atomic_long_read(&queued))
		return;
	atomic_long_inc(&reached);
	pr_info("ino %lu: written in the window, state %#lx before, %#x after\n",
		inode->i_ino, atomic_long_read(&start_state),
		READ_ONCE(inode->i_state));
}

/* queue_io() of a work; a sync pass's selects what it will write. */
static void h7_queue_io(void *data, struct bdi_writeback *wb,
			struct h7_work_head *work, unsigned long dirtied_before,
			int moved)
{
	if (atomic_read(&h7_state) != H7_WINDOW || !work->sb ||
	    work->sync_mode != WB_SYNC_ALL || !work->for_sync ||
	    new_encode_dev(work->sb->s_dev) != READ_ONCE(dev))
		return;
	atomic_long_inc(&queued);
}

static struct h7_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool registered;
} h7_tps[] = {
	{ "writeback_dirty_inode_start", h7_dirty_inode_start },
	{ "writeback_single_inode_start", h7_single_inode_start },
	{ "writeback_single_inode", h7_single_inode },
	{ "writeback_queue_io", h7_queue_io },
};

static void h7_find(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(h7_tps); i++)
		if (!strcmp(tp->name, h7_tps[i].name))
			h7_tps[i].tp = tp;
}

static void h7_unregister(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(h7_tps); i++) {
		if (!h7_tps[i].registered)
			continue;
		tracepoint_probe_unregister(h7_tps[i].tp, h7_tps[i].probe, NULL);
		h7_tps[i].registered = false;
	}
	/* A probe still spinning is waited for: at most window_ms. */
	tracepoint_synchronize_unregister();
}

static int __init wbsync_h7_init(void)
{
	int i, ret;

	for_each_kernel_tracepoint(h7_find, NULL);
	for (i = 0; i < ARRAY_SIZE(h7_tps); i++) {
		if (!h7_tps[i].tp) {
			pr_err("no tracepoint %s\n", h7_tps[i].name);
			ret = -ENOENT;
			goto fail;
		}
		ret = tracepoint_probe_register(h7_tps[i].tp, h7_tps[i].probe,
						NULL);
		if (ret) {
			pr_err("cannot probe %s: error %d\n", h7_tps[i].name, ret);
			goto fail;
		}
		h7_tps[i].registered = true;
	}
	pr_info("loaded (window_ms=%u hold_ms=%u)\n", window_ms, hold_ms);
	return 0;
fail:
	h7_unregister();
	return ret;
}

static void __exit wbsync_h7_exit(void)
{
	h7_unregister();
	pr_info("unloaded: %ld window(s), %ld reached\n",
		atomic_long_read(&fired), atomic_long_read(&reached));
}

module_init(wbsync_h7_init);
module_exit(wbsync_h7_exit);

MODULE_DESCRIPTION("wbsync test-only: widen the window of __mark_inode_dirty() for h7 and h8");
MODULE_LICENSE("GPL");
