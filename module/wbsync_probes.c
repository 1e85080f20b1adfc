// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync: kretprobes on the sync paths of fs/sync.c, fs/fs-writeback.c
 * and block/bdev.c, and probes on two writeback tracepoints.
 *
 * Each probe times one function: its entry handler notes the start time
 * and the arguments (gone by the return) in the kretprobe instance, its
 * return handler fires the tracepoint and records the duration.  A probe
 * tries its symbols in order; one that attaches to none is "unsupported"
 * in the probes file and the others work without it.
 *
 * Two measurements have no function of their own:
 *
 * - wait_sb_inodes() is static and usually inlined in sync_inodes_sb().
 *   Without a symbol for it, the wait is timed from the return of
 *   wb_wait_for_completion() inside sync_inodes_sb() to the return of
 *   sync_inodes_sb(): what runs in between is wait_sb_inodes().
 * - sync_filesystem() (syncfs(2)) calls ->sync_fs() itself.  Its two
 *   calls are timed from the return of writeback_inodes_sb() to the
 *   entry of sync_blockdev_nowait(), and from the return of
 *   sync_inodes_sb() to the entry of sync_blockdev().  (sync(2) calls
 *   ->sync_fs() from sync_fs_one_sb(), which is probed.)
 *
 * For these a probe must know that its task is inside another probed
 * call: a small table of task contexts, looked up by task, innermost
 * first (overlayfs nests sync_filesystem() calls).
 *
 * pass_lag, from the start of sync(2) to the start of each of its
 * WB_SYNC_ALL passes, comes from two writeback tracepoints that every 6.x
 * kernel has: writeback_queue, in the task of a sync(2), notes each work
 * it queues (sync(2) queues no works but its passes), and
 * writeback_exec, when a flusher starts one of them, ends its lag.  The
 * work is private to fs-writeback.c: its address is compared, never
 * read.  sync(2) returns only once its works are done; it forgets them.
 *
 * Handlers run with preemption disabled and must not sleep: they take
 * raw spinlocks with irqsave and never allocate.
 */
#include <linux/atomic.h>
#include <linux/backing-dev.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/writeback.h>

#include "wbsync.h"

#define CREATE_TRACE_POINTS
#include "wbsync_trace.h"

/* Tasks that can be inside one probed function at once */
#define WBSYNC_MAXACTIVE	64
/* Tasks that can be inside sync(2), sync_filesystem() or sync_inodes_sb() */
#define WBSYNC_MAX_CTX		64
/* Works of sync(2) that can be queued at once */
#define WBSYNC_MAX_PASSES	64

/* What the entry handler keeps for the return handler */
struct wbsync_data {
	u64 start;
	struct wbsync_key key;
	const void *sb;
	s64 offset;
	s64 nbytes;
	unsigned long ino;
	unsigned int flags;
	int sync_mode;
	int ctx;
	int wait;
	bool quiet;
};

static const struct wbsync_key wbsync_global_key = {
	.global = true,
	.s_id = "*",
};

/* Task contexts */

enum wbsync_ctx_kind {
	WBSYNC_CTX_SYNC_FILESYSTEM = 1,
	WBSYNC_CTX_SYNC_INODES,
	WBSYNC_CTX_SYNC_FILE_RANGE,	/* a call sfr_sync_mode forces */
	WBSYNC_CTX_SYNC,		/* sync(2), for pass_lag */
};

struct wbsync_ctx {
	struct task_struct *task;	/* NULL: free */
	const void *sb;			/* identities only, */
	const void *bdev;		/* never dereferenced */
	const void *mapping;		/* sync_file_range(): its mapping */
	bool forced;			/* ... and the knob forced it */
	struct wbsync_key key;
	u64 seq;
	u64 mark;			/* start of the pending phase, or of sync(2) */
	int kind;
	int pending;			/* a phase, or -1 */
	bool can_mark;			/* a phase can start in it */
};

/* A phase that a context ended */
struct wbsync_closed {
	enum wbsync_phase phase;
	struct wbsync_key key;
	u64 ns;
};

static struct wbsync_ctx wbsync_ctxs[WBSYNC_MAX_CTX];
static u64 wbsync_ctx_seq;
static DEFINE_RAW_SPINLOCK(wbsync_ctx_lock);

/* A work that a sync(2) queued and no flusher has started yet */
struct wbsync_pass {
	const void *work;		/* NULL: free; identities only, */
	const void *wb;			/* never dereferenced */
	u64 owner;			/* seq of the sync(2)'s context */
	u64 start;			/* of the sync(2) */
	struct wbsync_key key;		/* the bdi */
};

/* Under wbsync_ctx_lock */
static struct wbsync_pass wbsync_passes[WBSYNC_MAX_PASSES];

/* Set at load when wait_sb_inodes() has no symbol */
static bool wbsync_wait_derived;

/* Set at load when the pass_lag tracepoint probes are registered */
static bool wbsync_pass_lag_on;

static int wbsync_ctx_get(int kind, const void *sb, const void *bdev,
			  const struct wbsync_key *key, bool can_mark)
{
	struct wbsync_ctx *ctx;
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&wbsync_ctx_lock, flags);
	for (i = 0; i < WBSYNC_MAX_CTX; i++) {
		ctx = &wbsync_ctxs[i];
		if (ctx->task)
			continue;
		ctx->task = current;
		ctx->sb = sb;
		ctx->bdev = bdev;
		ctx->mapping = NULL;
		ctx->forced = false;
		ctx->key = *key;
		ctx->seq = ++wbsync_ctx_seq;
		ctx->kind = kind;
		ctx->pending = -1;
		ctx->can_mark = can_mark;
		break;
	}
	raw_spin_unlock_irqrestore(&wbsync_ctx_lock, flags);

	if (i == WBSYNC_MAX_CTX) {
		pr_warn_once("wbsync: task context table full, some wait_inodes, sync_fs and pass_lag times are not measured, some sync_file_range calls not forced\n");
		return -1;
	}
	return i;
}

/* The innermost context of @kind of the current task, or NULL */
static struct wbsync_ctx *wbsync_ctx_find_locked(int kind)
{
	struct wbsync_ctx *ctx, *found = NULL;
	int i;

	for (i = 0; i < WBSYNC_MAX_CTX; i++) {
		ctx = &wbsync_ctxs[i];
		if (ctx->task == current && ctx->kind == kind &&
		    (!found || ctx->seq > found->seq))
			found = ctx;
	}
	return found;
}

static bool wbsync_ctx_exists(int kind)
{
	unsigned long flags;
	bool ret;

	raw_spin_lock_irqsave(&wbsync_ctx_lock, flags);
	ret = !!wbsync_ctx_find_locked(kind);
	raw_spin_unlock_irqrestore(&wbsync_ctx_lock, flags);
	return ret;
}

static bool wbsync_ctx_close_locked(struct wbsync_ctx *ctx, u64 now,
				    struct wbsync_closed *out)
{
	if (ctx->pending < 0)
		return false;
	out->phase = ctx->pending;
	out->key = ctx->key;
	out->ns = now - ctx->mark;
	ctx->pending = -1;
	return true;
}

/* Starts @phase in the innermost context of @kind if on @sb (NULL: any) */
static void wbsync_ctx_mark(int kind, const void *sb, enum wbsync_phase phase)
{
	struct wbsync_ctx *ctx;
	unsigned long flags;

	raw_spin_lock_irqsave(&wbsync_ctx_lock, flags);
	ctx = wbsync_ctx_find_locked(kind);
	if (ctx && ctx->can_mark && (!sb || ctx->sb == sb)) {
		ctx->pending = phase;
		ctx->mark = ktime_get_ns();
	}
	raw_spin_unlock_irqrestore(&wbsync_ctx_lock, flags);
}

/*
 * Ends the pending phase of the innermost context of @kind if that
 * context is on superblock @ptr (@by_sb) or block device @ptr.
 */
static bool wbsync_ctx_close(int kind, bool by_sb, const void *ptr,
			     struct wbsync_closed *out)
{
	struct wbsync_ctx *ctx;
	unsigned long flags;
	bool ret = false;

	raw_spin_lock_irqsave(&wbsync_ctx_lock, flags);
	ctx = wbsync_ctx_find_locked(kind);
	if (ctx && (by_sb ? ctx->sb : ctx->bdev) == ptr)
		ret = wbsync_ctx_close_locked(ctx, ktime_get_ns(), out);
	raw_spin_unlock_irqrestore(&wbsync_ctx_lock, flags);
	return ret;
}

/* Frees sync(2)'s context @slot, and its works still noted */
static void wbsync_sync_ctx_put(int slot)
{
	unsigned long flags;
	u64 seq;
	int i;

	if (slot < 0)
		return;
	raw_spin_lock_irqsave(&wbsync_ctx_lock, flags);
	seq = wbsync_ctxs[slot].seq;
	/* works finished without a flusher: on a bdi going away */
	for (i = 0; i < WBSYNC_MAX_PASSES; i++)
		if (wbsync_passes[i].work && wbsync_passes[i].owner == seq)
			wbsync_passes[i].work = NULL;
	wbsync_ctxs[slot].task = NULL;
	raw_spin_unlock_irqrestore(&wbsync_ctx_lock, flags);
}

/* Frees context @slot, ending its pending phase */
static bool wbsync_ctx_put(int slot, struct wbsync_closed *out)
{
	unsigned long flags;
	bool ret;

	if (slot < 0)
		return false;
	raw_spin_lock_irqsave(&wbsync_ctx_lock, flags);
	ret = wbsync_ctx_close_locked(&wbsync_ctxs[slot], ktime_get_ns(), out);
	wbsync_ctxs[slot].task = NULL;
	raw_spin_unlock_irqrestore(&wbsync_ctx_lock, flags);
	return ret;
}

/* Results */

static void wbsync_emit(enum wbsync_phase phase, const struct wbsync_key *key,
			u64 ns)
{
	switch (phase) {
	case WBSYNC_PH_WB_NONE:
		trace_wbsync_wb_none(key, ns);
		break;
	case WBSYNC_PH_WB_ALL:
		trace_wbsync_wb_all(key, ns);
		break;
	case WBSYNC_PH_PASS_LAG:
		trace_wbsync_pass_lag(key, ns);
		break;
	case WBSYNC_PH_WAIT_INODES:
		trace_wbsync_wait_inodes(key, ns);
		break;
	case WBSYNC_PH_SYNC_FS_NOWAIT:
		trace_wbsync_sync_fs(key, 0, ns);
		break;
	case WBSYNC_PH_SYNC_FS_WAIT:
		trace_wbsync_sync_fs(key, 1, ns);
		break;
	case WBSYNC_PH_BDEV_NOWAIT:
		trace_wbsync_bdev_flush(key, 0, ns);
		break;
	case WBSYNC_PH_BDEV_WAIT:
		trace_wbsync_bdev_flush(key, 1, ns);
		break;
	case WBSYNC_PH_SYNC_FILESYSTEM:
		trace_wbsync_sync_filesystem(key, ns);
		break;
	default:
		break;
	}
	wbsync_stats_record(key, phase, ns);
}

static void wbsync_emit_closed(const struct wbsync_closed *c)
{
	wbsync_emit(c->phase, &c->key, c->ns);
}

/* Probes */

enum {
	WBSYNC_P_SYNC,
	WBSYNC_P_SYNCFS,
	WBSYNC_P_WAKEUP_FLUSHERS,
	WBSYNC_P_WB_INODES_SB,
	WBSYNC_P_SYNC_INODES_SB,
	WBSYNC_P_SYNC_INODES_ALL,
	WBSYNC_P_WAIT_SB_INODES,
	WBSYNC_P_WB_WAIT,
	WBSYNC_P_SYNC_FS_ONE_SB,
	WBSYNC_P_SYNC_FILESYSTEM,
	WBSYNC_P_BDEV_NOWAIT,
	WBSYNC_P_BDEV,
	WBSYNC_P_SYNC_BDEVS,
	WBSYNC_P_SYNC_FILE_RANGE,
	WBSYNC_NR_PROBES
};

struct wbsync_probe {
	const char *name;		/* row in the probes file */
	const char *const *syms;	/* tried in order, NULL ends */
	kretprobe_handler_t entry;
	kretprobe_handler_t handler;
	struct kretprobe rp;
	const char *sym;		/* attached to, or NULL */
	int err;
};

/* Calls timed, per probe */
static atomic_long_t wbsync_hits[WBSYNC_NR_PROBES];

static struct wbsync_data *wbsync_data(struct kretprobe_instance *ri)
{
	return (struct wbsync_data *)ri->data;
}

static unsigned long wbsync_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

static bool wbsync_on(void)
{
	return READ_ONCE(wbsync_enabled);
}

/* Counts the hit and starts the clock */
static void wbsync_start(struct kretprobe_instance *ri, int id)
{
	struct wbsync_data *d = wbsync_data(ri);

	atomic_long_inc(&wbsync_hits[id]);
	d->ctx = -1;
	d->quiet = false;
	d->start = ktime_get_ns();
}

static u64 wbsync_elapsed(struct kretprobe_instance *ri)
{
	return ktime_get_ns() - wbsync_data(ri)->start;
}

void wbsync_key_sb(struct wbsync_key *key, const struct super_block *sb)
{
	BUILD_BUG_ON(sizeof_field(struct super_block, s_id) != WBSYNC_SID_LEN);
	key->dev = sb->s_dev;
	key->global = false;
	memcpy(key->s_id, sb->s_id, WBSYNC_SID_LEN);
	key->s_id[WBSYNC_SID_LEN - 1] = '\0';
}

/* A block device: the dev_t and the name of a superblock on it */
static void wbsync_key_bdev(struct wbsync_key *key, struct block_device *bdev)
{
	memset(key, 0, sizeof(*key));
	key->dev = bdev->bd_dev;
	snprintf(key->s_id, sizeof(key->s_id), "%pg", bdev);
}

/* A bdi: its name, and the device that it names ("MAJOR:MINOR" of a disk) */
static void wbsync_key_bdi(struct wbsync_key *key,
			   struct backing_dev_info *bdi)
{
	const char *name = bdi_dev_name(bdi);
	unsigned int major, minor;

	memset(key, 0, sizeof(*key));
	if (sscanf(name, "%u:%u", &major, &minor) == 2)
		key->dev = MKDEV(major, minor);
	strscpy(key->s_id, name, sizeof(key->s_id));
}

/* Superblocks without writeback (proc, sysfs, ...) only add noise */
static bool wbsync_sb_quiet(const struct super_block *sb)
{
	return sb->s_bdi == &noop_backing_dev_info;
}

/* sync(2), and the kernel's own full syncs (suspend) */
static int wbsync_sync_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct wbsync_data *d = wbsync_data(ri);
	unsigned long flags;

	if (!wbsync_on())
		return 1;
	wbsync_start(ri, WBSYNC_P_SYNC);
	trace_wbsync_sync_start(WBSYNC_KIND_SYNC);
	/* the context in which writeback_queue sees its works */
	if (READ_ONCE(wbsync_pass_lag_on))
		d->ctx = wbsync_ctx_get(WBSYNC_CTX_SYNC, NULL, NULL,
					&wbsync_global_key, false);
	if (d->ctx >= 0) {
		raw_spin_lock_irqsave(&wbsync_ctx_lock, flags);
		wbsync_ctxs[d->ctx].mark = d->start;
		raw_spin_unlock_irqrestore(&wbsync_ctx_lock, flags);
	}
	return 0;
}

static int wbsync_sync_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	u64 ns = wbsync_elapsed(ri);

	wbsync_sync_ctx_put(wbsync_data(ri)->ctx);
	trace_wbsync_sync_end(WBSYNC_KIND_SYNC, ns, 0);
	wbsync_stats_record(&wbsync_global_key, WBSYNC_PH_SYNC, ns);
	return 0;
}

/* syncfs(2), the syscall itself: it has only the fd */
static int wbsync_syncfs_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	if (!wbsync_on())
		return 1;
	wbsync_start(ri, WBSYNC_P_SYNCFS);
	trace_wbsync_sync_start(WBSYNC_KIND_SYNCFS);
	return 0;
}

static int wbsync_syncfs_ret(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	u64 ns = wbsync_elapsed(ri);

	trace_wbsync_sync_end(WBSYNC_KIND_SYNCFS, ns,
			      (long)regs_return_value(regs));
	wbsync_stats_record(&wbsync_global_key, WBSYNC_PH_SYNCFS, ns);
	return 0;
}

/* wakeup_flusher_threads(reason): sync(2)'s WB_SYNC_NONE pass is queued */
static int wbsync_wakeup_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	if (!wbsync_on() || (int)wbsync_arg(regs, 0) != WB_REASON_SYNC)
		return 1;
	wbsync_start(ri, WBSYNC_P_WAKEUP_FLUSHERS);
	return 0;
}

static int wbsync_wakeup_ret(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	wbsync_emit(WBSYNC_PH_WB_NONE, &wbsync_global_key, wbsync_elapsed(ri));
	return 0;
}

/* writeback_inodes_sb(sb, reason): syncfs(2)'s WB_SYNC_NONE pass */
static int wbsync_wb_inodes_entry(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	struct super_block *sb = (struct super_block *)wbsync_arg(regs, 0);
	struct wbsync_data *d = wbsync_data(ri);

	if (!wbsync_on())
		return 1;
	wbsync_start(ri, WBSYNC_P_WB_INODES_SB);
	wbsync_key_sb(&d->key, sb);
	d->sb = sb;
	d->quiet = wbsync_sb_quiet(sb);
	return 0;
}

static int wbsync_wb_inodes_ret(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct wbsync_data *d = wbsync_data(ri);

	if (!d->quiet)
		wbsync_emit(WBSYNC_PH_WB_NONE, &d->key, wbsync_elapsed(ri));
	/* sync_filesystem() calls ->sync_fs(sb, 0) next */
	wbsync_ctx_mark(WBSYNC_CTX_SYNC_FILESYSTEM, d->sb,
			WBSYNC_PH_SYNC_FS_NOWAIT);
	return 0;
}

/* sync_inodes_sb(sb): the WB_SYNC_ALL pass, then wait_sb_inodes() */
static int wbsync_sync_inodes_entry(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	struct super_block *sb = (struct super_block *)wbsync_arg(regs, 0);
	struct wbsync_data *d = wbsync_data(ri);
	struct wbsync_closed c;

	if (!wbsync_on())
		return 1;
	/* ->sync_fs(sb, 0) of sync_filesystem() ended, if still open */
	if (wbsync_ctx_close(WBSYNC_CTX_SYNC_FILESYSTEM, true, sb, &c))
		wbsync_emit_closed(&c);

	wbsync_start(ri, WBSYNC_P_SYNC_INODES_SB);
	wbsync_key_sb(&d->key, sb);
	d->sb = sb;
	d->quiet = wbsync_sb_quiet(sb);
	if (READ_ONCE(wbsync_wait_derived) && !d->quiet)
		d->ctx = wbsync_ctx_get(WBSYNC_CTX_SYNC_INODES, sb, NULL,
					&d->key, true);
	return 0;
}

static int wbsync_sync_inodes_ret(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	struct wbsync_data *d = wbsync_data(ri);
	u64 ns = wbsync_elapsed(ri);
	struct wbsync_closed c;

	/* the derived wait_sb_inodes() ends here */
	if (wbsync_ctx_put(d->ctx, &c))
		wbsync_emit_closed(&c);
	if (!d->quiet)
		wbsync_emit(WBSYNC_PH_WB_ALL, &d->key, ns);
	/* sync_filesystem() calls ->sync_fs(sb, 1) next */
	wbsync_ctx_mark(WBSYNC_CTX_SYNC_FILESYSTEM, d->sb,
			WBSYNC_PH_SYNC_FS_WAIT);
	return 0;
}

/* sync_inodes_all(): sync(2)'s WB_SYNC_ALL passes, all bdis' at once */
static int wbsync_sync_inodes_all_entry(struct kretprobe_instance *ri,
					struct pt_regs *regs)
{
	if (!wbsync_on())
		return 1;
	wbsync_start(ri, WBSYNC_P_SYNC_INODES_ALL);
	return 0;
}

static int wbsync_sync_inodes_all_ret(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	wbsync_emit(WBSYNC_PH_WB_ALL, &wbsync_global_key, wbsync_elapsed(ri));
	return 0;
}

/* wait_sb_inodes(sb), where the kernel has a symbol for it */
static int wbsync_wait_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct super_block *sb = (struct super_block *)wbsync_arg(regs, 0);

	if (!wbsync_on())
		return 1;
	wbsync_start(ri, WBSYNC_P_WAIT_SB_INODES);
	wbsync_key_sb(&wbsync_data(ri)->key, sb);
	return 0;
}

static int wbsync_wait_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	wbsync_emit(WBSYNC_PH_WAIT_INODES, &wbsync_data(ri)->key,
		    wbsync_elapsed(ri));
	return 0;
}

/* wb_wait_for_completion(): only its return inside sync_inodes_sb() */
static int wbsync_wb_wait_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	if (!wbsync_on() || !wbsync_ctx_exists(WBSYNC_CTX_SYNC_INODES))
		return 1;
	wbsync_start(ri, WBSYNC_P_WB_WAIT);
	return 0;
}

static int wbsync_wb_wait_ret(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	/* what follows in sync_inodes_sb() is wait_sb_inodes() */
	wbsync_ctx_mark(WBSYNC_CTX_SYNC_INODES, NULL, WBSYNC_PH_WAIT_INODES);
	return 0;
}

/* sync_fs_one_sb(sb, &wait): sync(2)'s ->sync_fs() calls */
static int wbsync_sync_fs_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct super_block *sb = (struct super_block *)wbsync_arg(regs, 0);
	int *arg = (int *)wbsync_arg(regs, 1);
	struct wbsync_data *d = wbsync_data(ri);
	int wait;

	if (!wbsync_on())
		return 1;
	/* the conditions of sync_fs_one_sb(): it does nothing otherwise */
	if (sb_rdonly(sb) || (sb->s_iflags & SB_I_SKIP_SYNC) ||
	    !sb->s_op->sync_fs)
		return 1;
	if (get_kernel_nofault(wait, arg))
		return 1;
	wbsync_start(ri, WBSYNC_P_SYNC_FS_ONE_SB);
	wbsync_key_sb(&d->key, sb);
	d->wait = wait;
	return 0;
}

static int wbsync_sync_fs_ret(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct wbsync_data *d = wbsync_data(ri);

	wbsync_emit(d->wait ? WBSYNC_PH_SYNC_FS_WAIT : WBSYNC_PH_SYNC_FS_NOWAIT,
		    &d->key, wbsync_elapsed(ri));
	return 0;
}

/* sync_filesystem(sb): syncfs(2) on one superblock, umount, freeze */
static int wbsync_sync_filesystem_entry(struct kretprobe_instance *ri,
					struct pt_regs *regs)
{
	struct super_block *sb = (struct super_block *)wbsync_arg(regs, 0);
	struct wbsync_data *d = wbsync_data(ri);

	if (!wbsync_on() || sb_rdonly(sb))
		return 1;
	wbsync_start(ri, WBSYNC_P_SYNC_FILESYSTEM);
	wbsync_key_sb(&d->key, sb);
	d->ctx = wbsync_ctx_get(WBSYNC_CTX_SYNC_FILESYSTEM, sb, sb->s_bdev,
				&d->key, !!sb->s_op->sync_fs);
	return 0;
}

static int wbsync_sync_filesystem_ret(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	struct wbsync_data *d = wbsync_data(ri);
	u64 ns = wbsync_elapsed(ri);
	struct wbsync_closed c;

	/* a ->sync_fs() that failed returns from sync_filesystem() */
	if (wbsync_ctx_put(d->ctx, &c))
		wbsync_emit_closed(&c);
	wbsync_emit(WBSYNC_PH_SYNC_FILESYSTEM, &d->key, ns);
	return 0;
}

/* sync_blockdev_nowait(bdev) and sync_blockdev(bdev) */
static int wbsync_bdev_entry_common(struct kretprobe_instance *ri,
				    struct pt_regs *regs, int id, int wait)
{
	struct block_device *bdev = (struct block_device *)wbsync_arg(regs, 0);
	struct wbsync_data *d = wbsync_data(ri);
	struct wbsync_closed c;

	if (!wbsync_on())
		return 1;
	/* the ->sync_fs() of sync_filesystem() before it ended */
	if (wbsync_ctx_close(WBSYNC_CTX_SYNC_FILESYSTEM, false, bdev, &c))
		wbsync_emit_closed(&c);
	if (!bdev)
		return 1;
	wbsync_start(ri, id);
	wbsync_key_bdev(&d->key, bdev);
	d->wait = wait;
	return 0;
}

static int wbsync_bdev_nowait_entry(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	return wbsync_bdev_entry_common(ri, regs, WBSYNC_P_BDEV_NOWAIT, 0);
}

static int wbsync_bdev_wait_entry(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	return wbsync_bdev_entry_common(ri, regs, WBSYNC_P_BDEV, 1);
}

static int wbsync_bdev_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct wbsync_data *d = wbsync_data(ri);

	wbsync_emit(d->wait ? WBSYNC_PH_BDEV_WAIT : WBSYNC_PH_BDEV_NOWAIT,
		    &d->key, wbsync_elapsed(ri));
	return 0;
}

/* sync_bdevs(wait): sync(2)'s pass over all block devices */
static int wbsync_sync_bdevs_entry(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	if (!wbsync_on())
		return 1;
	wbsync_start(ri, WBSYNC_P_SYNC_BDEVS);
	/* a bool: only the low byte of the register is defined */
	wbsync_data(ri)->wait = (u8)wbsync_arg(regs, 0) != 0;
	return 0;
}

static int wbsync_sync_bdevs_ret(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct wbsync_data *d = wbsync_data(ri);

	wbsync_emit(d->wait ? WBSYNC_PH_BDEV_WAIT : WBSYNC_PH_BDEV_NOWAIT,
		    &wbsync_global_key, wbsync_elapsed(ri));
	return 0;
}

/*
 * sync_file_range(file, offset, nbytes, flags): the syscall and io_uring.
 * A call that sfr_sync_mode would force to WB_SYNC_ALL gets a task
 * context with its mapping, by which the knob's probe on
 * __filemap_fdatawrite_range() recognises it and notes that it forced
 * it; the tracepoint reports the mode the call really got.
 */
static int wbsync_sfr_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct file *file = (struct file *)wbsync_arg(regs, 0);
	struct wbsync_data *d = wbsync_data(ri);
	unsigned long flags;
	struct inode *inode;

	d->ctx = -1;
	d->flags = (unsigned int)wbsync_arg(regs, 3);
	d->sync_mode = wbsync_sfr_sync_mode(d->flags);
	inode = file_inode(file);
	wbsync_key_sb(&d->key, inode->i_sb);
	if (d->sync_mode == WB_SYNC_ALL &&
	    (d->flags & SYNC_FILE_RANGE_WRITE_AND_WAIT) != SYNC_FILE_RANGE_WRITE_AND_WAIT) {
		/* the kernel's own choice, unless the knob's probe forces it */
		d->sync_mode = WB_SYNC_NONE;
		d->ctx = wbsync_ctx_get(WBSYNC_CTX_SYNC_FILE_RANGE, NULL, NULL,
					&d->key, false);
		if (d->ctx >= 0) {
			raw_spin_lock_irqsave(&wbsync_ctx_lock, flags);
			wbsync_ctxs[d->ctx].mapping = file->f_mapping;
			raw_spin_unlock_irqrestore(&wbsync_ctx_lock, flags);
		}
	}
	/* disabled: the instance is kept for the knob alone */
	d->quiet = !wbsync_on();
	if (d->quiet)
		return d->ctx < 0;
	atomic_long_inc(&wbsync_hits[WBSYNC_P_SYNC_FILE_RANGE]);
	d->start = ktime_get_ns();
	d->ino = inode->i_ino;
	d->offset = (s64)wbsync_arg(regs, 1);
	d->nbytes = (s64)wbsync_arg(regs, 2);
	return 0;
}

static int wbsync_sfr_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct wbsync_data *d = wbsync_data(ri);
	u64 ns = wbsync_elapsed(ri);
	struct wbsync_closed c;
	unsigned long flags;

	if (d->ctx >= 0) {
		raw_spin_lock_irqsave(&wbsync_ctx_lock, flags);
		if (wbsync_ctxs[d->ctx].forced)
			d->sync_mode = WB_SYNC_ALL;
		raw_spin_unlock_irqrestore(&wbsync_ctx_lock, flags);
	}
	wbsync_ctx_put(d->ctx, &c);	/* never has a pending phase */
	if (d->quiet)
		return 0;
	trace_wbsync_sync_file_range(&d->key, d->ino, d->offset, d->nbytes,
				     d->flags, d->sync_mode, ns,
				     (int)regs_return_value(regs));
	wbsync_stats_record(&d->key, WBSYNC_PH_SYNC_FILE_RANGE, ns);
	return 0;
}

/*
 * For the knob's probe, in the task that calls @mapping's writeback: is
 * it inside a sync_file_range() on @mapping that the knob may force?  If
 * so, the call is noted as forced.
 */
bool wbsync_sfr_force_here(const struct address_space *mapping)
{
	struct wbsync_ctx *ctx;
	unsigned long flags;
	bool ret;

	raw_spin_lock_irqsave(&wbsync_ctx_lock, flags);
	ctx = wbsync_ctx_find_locked(WBSYNC_CTX_SYNC_FILE_RANGE);
	ret = ctx && ctx->mapping == mapping;
	if (ret)
		ctx->forced = true;
	raw_spin_unlock_irqrestore(&wbsync_ctx_lock, flags);
	return ret;
}

/* pass_lag: the writeback_queue and writeback_exec tracepoints */

/* Private to fs-writeback.c: only its address is used */
struct wb_writeback_work;

static atomic_long_t wbsync_pass_lag_hits;
static atomic_long_t wbsync_pass_lag_missed;	/* table full */
static int wbsync_pass_lag_err;

/* A work queued in the task of a sync(2): one of its passes */
static void wbsync_wb_queue(void *data, struct bdi_writeback *wb,
			    struct wb_writeback_work *work)
{
	struct wbsync_pass *pass = NULL;
	struct wbsync_ctx *ctx;
	struct wbsync_key key;
	unsigned long flags;
	int i;

	if (!wbsync_on())
		return;
	/* the caller holds the bdi */
	wbsync_key_bdi(&key, wb->bdi);

	raw_spin_lock_irqsave(&wbsync_ctx_lock, flags);
	ctx = wbsync_ctx_find_locked(WBSYNC_CTX_SYNC);
	for (i = 0; ctx && i < WBSYNC_MAX_PASSES; i++) {
		if (wbsync_passes[i].work)
			continue;
		pass = &wbsync_passes[i];
		pass->work = work;
		pass->wb = wb;
		pass->owner = ctx->seq;
		pass->start = ctx->mark;
		pass->key = key;
		break;
	}
	raw_spin_unlock_irqrestore(&wbsync_ctx_lock, flags);

	if (ctx && !pass)
		atomic_long_inc(&wbsync_pass_lag_missed);
}

/* A flusher starts a work: if a sync(2) queued it, its lag ends */
static void wbsync_wb_exec(void *data, struct bdi_writeback *wb,
			   struct wb_writeback_work *work)
{
	u64 now = ktime_get_ns();
	struct wbsync_pass *pass;
	struct wbsync_key key;
	unsigned long flags;
	bool found = false;
	u64 start = 0;
	int i;

	raw_spin_lock_irqsave(&wbsync_ctx_lock, flags);
	for (i = 0; i < WBSYNC_MAX_PASSES; i++) {
		pass = &wbsync_passes[i];
		if (pass->work != work || pass->wb != wb)
			continue;
		key = pass->key;
		start = pass->start;
		pass->work = NULL;
		found = true;
		break;
	}
	raw_spin_unlock_irqrestore(&wbsync_ctx_lock, flags);

	if (!found || !wbsync_on())
		return;
	atomic_long_inc(&wbsync_pass_lag_hits);
	wbsync_emit(WBSYNC_PH_PASS_LAG, &key, now - start);
}

struct wbsync_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

/* exec first: a work is never noted before its end can be seen */
static struct wbsync_tp wbsync_tps[] = {
	{ .name = "writeback_exec", .probe = (void *)wbsync_wb_exec },
	{ .name = "writeback_queue", .probe = (void *)wbsync_wb_queue },
};

/* Not exported: found by name among the kernel's tracepoints */
static void wbsync_tp_lookup(struct tracepoint *tp, void *unused)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wbsync_tps); i++)
		if (!strcmp(tp->name, wbsync_tps[i].name))
			wbsync_tps[i].tp = tp;
}

static void wbsync_tps_unregister(unsigned int n)
{
	while (n--)
		tracepoint_probe_unregister(wbsync_tps[n].tp,
					    wbsync_tps[n].probe, NULL);
}

static int wbsync_tps_register(void)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(wbsync_tps); i++)
		wbsync_tps[i].tp = NULL;
	for_each_kernel_tracepoint(wbsync_tp_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(wbsync_tps); i++) {
		err = -ENOENT;
		if (wbsync_tps[i].tp)
			err = tracepoint_probe_register(wbsync_tps[i].tp,
							wbsync_tps[i].probe,
							NULL);
		if (err) {
			wbsync_tps_unregister(i);
			break;
		}
	}
	return err;
}

static const char *const wbsync_syms_sync[] = {
	"ksys_sync", NULL
};

static const char *const wbsync_syms_syncfs[] = {
	"__x64_sys_syncfs", "__arm64_sys_syncfs", "__riscv_sys_syncfs",
	"__s390x_sys_syncfs", "__se_sys_syncfs", "sys_syncfs", NULL
};

#define WBSYNC_SYMS(name)						\
	static const char *const wbsync_syms_##name[] = { #name, NULL }

WBSYNC_SYMS(wakeup_flusher_threads);
WBSYNC_SYMS(writeback_inodes_sb);
WBSYNC_SYMS(sync_inodes_sb);
WBSYNC_SYMS(sync_inodes_all);
WBSYNC_SYMS(wait_sb_inodes);
WBSYNC_SYMS(wb_wait_for_completion);
WBSYNC_SYMS(sync_fs_one_sb);
WBSYNC_SYMS(sync_filesystem);
WBSYNC_SYMS(sync_blockdev_nowait);
WBSYNC_SYMS(sync_blockdev);
WBSYNC_SYMS(sync_bdevs);
WBSYNC_SYMS(sync_file_range);

#define WBSYNC_PROBE(id, _name, _syms, _entry, _handler)		\
	[id] = {							\
		.name = _name,						\
		.syms = wbsync_syms_##_syms,				\
		.entry = _entry,					\
		.handler = _handler,					\
	}

static struct wbsync_probe wbsync_probes[WBSYNC_NR_PROBES] = {
	WBSYNC_PROBE(WBSYNC_P_SYNC, "sync", sync,
		     wbsync_sync_entry, wbsync_sync_ret),
	WBSYNC_PROBE(WBSYNC_P_SYNCFS, "syncfs", syncfs,
		     wbsync_syncfs_entry, wbsync_syncfs_ret),
	WBSYNC_PROBE(WBSYNC_P_WAKEUP_FLUSHERS, "wb_none_global",
		     wakeup_flusher_threads,
		     wbsync_wakeup_entry, wbsync_wakeup_ret),
	WBSYNC_PROBE(WBSYNC_P_WB_INODES_SB, "wb_none", writeback_inodes_sb,
		     wbsync_wb_inodes_entry, wbsync_wb_inodes_ret),
	WBSYNC_PROBE(WBSYNC_P_SYNC_INODES_SB, "wb_all", sync_inodes_sb,
		     wbsync_sync_inodes_entry, wbsync_sync_inodes_ret),
	WBSYNC_PROBE(WBSYNC_P_SYNC_INODES_ALL, "wb_all_global", sync_inodes_all,
		     wbsync_sync_inodes_all_entry, wbsync_sync_inodes_all_ret),
	WBSYNC_PROBE(WBSYNC_P_WAIT_SB_INODES, "wait_inodes", wait_sb_inodes,
		     wbsync_wait_entry, wbsync_wait_ret),
	WBSYNC_PROBE(WBSYNC_P_WB_WAIT, "wait_inodes_derived",
		     wb_wait_for_completion,
		     wbsync_wb_wait_entry, wbsync_wb_wait_ret),
	WBSYNC_PROBE(WBSYNC_P_SYNC_FS_ONE_SB, "sync_fs", sync_fs_one_sb,
		     wbsync_sync_fs_entry, wbsync_sync_fs_ret),
	WBSYNC_PROBE(WBSYNC_P_SYNC_FILESYSTEM, "sync_filesystem",
		     sync_filesystem,
		     wbsync_sync_filesystem_entry, wbsync_sync_filesystem_ret),
	WBSYNC_PROBE(WBSYNC_P_BDEV_NOWAIT, "bdev_nowait", sync_blockdev_nowait,
		     wbsync_bdev_nowait_entry, wbsync_bdev_ret),
	WBSYNC_PROBE(WBSYNC_P_BDEV, "bdev_wait", sync_blockdev,
		     wbsync_bdev_wait_entry, wbsync_bdev_ret),
	WBSYNC_PROBE(WBSYNC_P_SYNC_BDEVS, "bdev_global", sync_bdevs,
		     wbsync_sync_bdevs_entry, wbsync_sync_bdevs_ret),
	WBSYNC_PROBE(WBSYNC_P_SYNC_FILE_RANGE, "sync_file_range",
		     sync_file_range, wbsync_sfr_entry, wbsync_sfr_ret),
};

/* Tries the probe's symbols in order */
static int wbsync_probe_register(struct wbsync_probe *p)
{
	const char *const *sym;
	int err = -ENOENT;

	for (sym = p->syms; *sym; sym++) {
		memset(&p->rp, 0, sizeof(p->rp));
		p->rp.kp.symbol_name = *sym;
		p->rp.entry_handler = p->entry;
		p->rp.handler = p->handler;
		p->rp.data_size = sizeof(struct wbsync_data);
		p->rp.maxactive = WBSYNC_MAXACTIVE;
		err = register_kretprobe(&p->rp);
		if (!err) {
			p->sym = *sym;
			return 0;
		}
	}
	return err;
}

/* The derived wait is only needed without a wait_sb_inodes() symbol */
static bool wbsync_probe_unused(int id)
{
	return id == WBSYNC_P_WB_WAIT &&
	       wbsync_probes[WBSYNC_P_WAIT_SB_INODES].sym;
}

int wbsync_probes_init(void)
{
	struct wbsync_probe *p;
	unsigned int n = 0;
	int i;

	for (i = 0; i < WBSYNC_NR_PROBES; i++) {
		p = &wbsync_probes[i];
		atomic_long_set(&wbsync_hits[i], 0);
		p->sym = NULL;
		p->err = 0;
		if (wbsync_probe_unused(i))
			continue;
		/* loff_t arguments take two registers on 32-bit */
		if (i == WBSYNC_P_SYNC_FILE_RANGE && !IS_ENABLED(CONFIG_64BIT))
			p->err = -EOPNOTSUPP;
		else
			p->err = wbsync_probe_register(p);
		if (!p->err)
			n++;
	}

	if (!n) {
		pr_err("wbsync: no sync function could be probed (register_kretprobe: %d), not loading\n",
		       wbsync_probes[WBSYNC_P_SYNC].err);
		return -ENODEV;
	}
	WRITE_ONCE(wbsync_wait_derived,
		   wbsync_probes[WBSYNC_P_WB_WAIT].sym &&
		   wbsync_probes[WBSYNC_P_SYNC_INODES_SB].sym);
	atomic_long_set(&wbsync_pass_lag_hits, 0);
	atomic_long_set(&wbsync_pass_lag_missed, 0);
	/* pass_lag counts from the start that the sync probe notes */
	wbsync_pass_lag_err = wbsync_probes[WBSYNC_P_SYNC].sym ?
			      wbsync_tps_register() : -ENOENT;
	if (wbsync_pass_lag_err)
		pr_info("wbsync: probe pass_lag unsupported (writeback_queue/exec: %d)\n",
			wbsync_pass_lag_err);
	WRITE_ONCE(wbsync_pass_lag_on, !wbsync_pass_lag_err);
	for (i = 0; i < WBSYNC_NR_PROBES; i++) {
		p = &wbsync_probes[i];
		if (!p->err)
			continue;
		if (i == WBSYNC_P_WAIT_SB_INODES && wbsync_wait_derived)
			pr_info("wbsync: no %s (%d), wait_inodes derived from sync_inodes_sb\n",
				p->syms[0], p->err);
		else
			pr_info("wbsync: probe %s unsupported (%s: %d)\n",
				p->name, p->syms[0], p->err);
	}
	pr_info("wbsync: %u of %u probes attached\n", n, WBSYNC_NR_PROBES);
	return 0;
}

/*
 * Unregisters every probe.  unregister_kretprobes() synchronizes RCU:
 * when it returns, no handler runs or will run, even for calls still in
 * progress (their return goes through the rethook without a handler).
 * The tracepoint probes go first; wbsync_exit() waits for them with
 * tracepoint_synchronize_unregister().
 */
void wbsync_probes_exit(void)
{
	struct kretprobe *rps[WBSYNC_NR_PROBES];
	unsigned int n = 0;
	int i;

	if (READ_ONCE(wbsync_pass_lag_on))
		wbsync_tps_unregister(ARRAY_SIZE(wbsync_tps));
	WRITE_ONCE(wbsync_pass_lag_on, false);
	for (i = 0; i < WBSYNC_NR_PROBES; i++)
		if (wbsync_probes[i].sym)
			rps[n++] = &wbsync_probes[i].rp;
	if (n)
		unregister_kretprobes(rps, n);
	for (i = 0; i < WBSYNC_NR_PROBES; i++)
		wbsync_probes[i].sym = NULL;
	WRITE_ONCE(wbsync_wait_derived, false);
}

/* Whether sfr_sync_mode can recognise the calls it forces */
bool wbsync_sfr_probed(void)
{
	return wbsync_probes[WBSYNC_P_SYNC_FILE_RANGE].sym;
}

int wbsync_probes_show(struct seq_file *m)
{
	struct wbsync_probe *p;
	unsigned long missed;
	const char *state;
	int i;

	seq_printf(m, "%-20s %-24s %-12s %10s %8s\n",
		   "probe", "symbol", "state", "hits", "missed");
	for (i = 0; i < WBSYNC_NR_PROBES; i++) {
		p = &wbsync_probes[i];
		if (p->sym)
			state = "attached";
		else if (wbsync_probe_unused(i))
			state = "unused";
		else if (i == WBSYNC_P_WAIT_SB_INODES && wbsync_wait_derived)
			state = "derived";
		else
			state = "unsupported";
		missed = p->sym ? p->rp.nmissed + p->rp.kp.nmissed : 0;
		seq_printf(m, "%-20s %-24s %-12s %10ld %8lu\n", p->name,
			   p->sym ?: "-", state,
			   atomic_long_read(&wbsync_hits[i]), missed);
	}
	/* hits: lags measured; missed: works not noted, the table full */
	seq_printf(m, "%-20s %-24s %-12s %10ld %8ld\n", "pass_lag",
		   wbsync_pass_lag_err ? "-" : "writeback_queue/exec",
		   wbsync_pass_lag_err ? "unsupported" : "attached",
		   atomic_long_read(&wbsync_pass_lag_hits),
		   atomic_long_read(&wbsync_pass_lag_missed));
	return 0;
}
