// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync_wait_user: a test-only user of the series' ->wait_inodes() hook.
 *
 * No in-tree filesystem sets ->wait_inodes(), so this module gives the
 * superblocks of the mount points in "mnt" one: each gets a copy of its
 * super_operations with ->wait_inodes() set, for the time the module is
 * loaded.  The hook counts its calls and then, in mode "wrap", runs the
 * generic wait_sb_inodes() as a filesystem wrapping it would; in mode
 * "skip" it returns at once, which breaks the contract of the hook and is
 * there only to measure what the generic walk costs (and to show that the
 * integrity test catches a hook that does not wait).
 *
 * Swapping sb->s_op under a mounted filesystem is not something a real
 * filesystem does; it is safe here because the copy equals the original
 * but for ->wait_inodes(), which is only called with s_umount held (the
 * swaps take it exclusively), because the superblock is pinned by an
 * active reference while the copy is installed, and because unloading
 * waits for an RCU-tasks grace period before the copy goes away: no task
 * is then between loading sb->s_op and calling through it.
 *
 * Parameters (/sys/module/wbsync_wait_user/parameters/):
 *   mnt        mount points, up to 4 (load time only)
 *   mode       "wrap" (default) or "skip" (rw)
 *   calls      ->wait_inodes() calls per mount point, in the order of mnt
 *   unlocked   calls without s_umount held (the contract says none)
 *   foreign    calls for a superblock other than the one of the copy
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/backing-dev.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/writeback.h>

#define WBSYNC_WAIT_USER_MAX	4

enum { WBSYNC_WAIT_WRAP, WBSYNC_WAIT_SKIP };
static const char *const wbsync_wait_modes[] = { "wrap", "skip" };

struct wbsync_wait_user_sb {
	struct super_block *sb;
	const struct super_operations *orig;
	struct super_operations ops;	/* *orig, plus ->wait_inodes() */
	atomic_long_t calls;
};

static char *mnt[WBSYNC_WAIT_USER_MAX];
static unsigned int nr_mnt;
module_param_array(mnt, charp, &nr_mnt, 0444);
MODULE_PARM_DESC(mnt, "Mount points whose superblocks get the hook (up to 4)");

static int mode = WBSYNC_WAIT_WRAP;
static struct wbsync_wait_user_sb users[WBSYNC_WAIT_USER_MAX];
static unsigned int nr_users;
static atomic_long_t unlocked = ATOMIC_LONG_INIT(0);
static atomic_long_t foreign = ATOMIC_LONG_INIT(0);

static int mode_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(wbsync_wait_modes, val);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(mode, i);
	return 0;
}

static int mode_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n", wbsync_wait_modes[READ_ONCE(mode)]);
}

static const struct kernel_param_ops mode_ops = {
	.set = mode_set,
	.get = mode_get,
};

module_param_cb(mode, &mode_ops, NULL, 0644);
MODULE_PARM_DESC(mode, "wrap: count, then wait_sb_inodes(); skip: count only (unsafe)");

static int counter_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%ld\n", atomic_long_read(kp->arg));
}

static int calls_get(char *buffer, const struct kernel_param *kp)
{
	unsigned int i;
	int len = 0;

	for (i = 0; i < nr_users; i++)
		len += sysfs_emit_at(buffer, len, "%s%ld", i ? " " : "",
				     atomic_long_read(&users[i].calls));
	return len + sysfs_emit_at(buffer, len, "\n");
}

static const struct kernel_param_ops counter_ops = {
	.get = counter_get,
};

static const struct kernel_param_ops calls_ops = {
	.get = calls_get,
};

module_param_cb(calls, &calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "->wait_inodes() calls per mount point");
module_param_cb(unlocked, &counter_ops, &unlocked, 0444);
MODULE_PARM_DESC(unlocked, "Calls without s_umount held");
module_param_cb(foreign, &counter_ops, &foreign, 0444);
MODULE_PARM_DESC(foreign, "Calls for another superblock than the hooked one");

static void wbsync_wait_inodes(struct super_block *sb)
{
	struct wbsync_wait_user_sb *u = container_of(sb->s_op,
						     struct wbsync_wait_user_sb, ops);

	if (u->sb != sb)
		atomic_long_inc(&foreign);
	atomic_long_inc(&u->calls);
	if (!rwsem_is_locked(&sb->s_umount))
		atomic_long_inc(&unlocked);
	if (READ_ONCE(mode) == WBSYNC_WAIT_SKIP)
		return;
	wait_sb_inodes(sb);
}

static void wbsync_wait_user_detach(struct wbsync_wait_user_sb *u)
{
	down_write(&u->sb->s_umount);
	WRITE_ONCE(u->sb->s_op, u->orig);
	up_write(&u->sb->s_umount);
}

static int wbsync_wait_user_attach(struct wbsync_wait_user_sb *u,
				   const char *name)
{
	struct super_block *sb;
	struct path path;
	int ret;

	ret = kern_path(name, LOOKUP_FOLLOW, &path);
	if (ret) {
		pr_err("%s: lookup failed: %d\n", name, ret);
		return ret;
	}
	sb = path.dentry->d_sb;
	ret = -EINVAL;
	if (path.dentry != path.mnt->mnt_root) {
		pr_err("%s: not a mount point\n", name);
		goto out;
	}
	ret = -EOPNOTSUPP;
	if (sb->s_bdi == &noop_backing_dev_info) {
		pr_err("%s: %s has no writeback\n", name, sb->s_type->name);
		goto out;
	}
	down_write(&sb->s_umount);
	ret = -EBUSY;
	if (sb->s_op->wait_inodes) {
		up_write(&sb->s_umount);
		pr_err("%s: %s already has a ->wait_inodes()\n", name, sb->s_id);
		goto out;
	}
	/* The mount we looked up keeps it active: this cannot be the first. */
	atomic_inc(&sb->s_active);
	u->sb = sb;
	u->orig = sb->s_op;
	u->ops = *sb->s_op;
	u->ops.wait_inodes = wbsync_wait_inodes;
	atomic_long_set(&u->calls, 0);
	/* Lockless readers of sb->s_op must see the whole copy. */
	smp_store_release(&sb->s_op, &u->ops);
	up_write(&sb->s_umount);
	pr_info("%s: hooked %s (%s)\n", name, sb->s_id, sb->s_type->name);
	ret = 0;
out:
	path_put(&path);
	return ret;
}

static void wbsync_wait_user_release(void)
{
	unsigned int i;

	for (i = 0; i < nr_users; i++)
		wbsync_wait_user_detach(&users[i]);
	/* No task may still be about to call through a copy when it goes. */
	synchronize_rcu_tasks();
	for (i = 0; i < nr_users; i++)
		deactivate_super(users[i].sb);
	nr_users = 0;
}

static int __init wbsync_wait_user_init(void)
{
	int ret;

	if (!nr_mnt) {
		pr_err("no mount point given (mnt=PATH[,PATH...])\n");
		return -EINVAL;
	}
	for (nr_users = 0; nr_users < nr_mnt; nr_users++) {
		ret = wbsync_wait_user_attach(&users[nr_users], mnt[nr_users]);
		if (ret) {
			wbsync_wait_user_release();
			return ret;
		}
	}
	return 0;
}

static void __exit wbsync_wait_user_exit(void)
{
	unsigned int i;

	for (i = 0; i < nr_users; i++)
		pr_info("%s: unhooked %s after %ld calls\n", mnt[i],
			users[i].sb->s_id, atomic_long_read(&users[i].calls));
	wbsync_wait_user_release();
}

module_init(wbsync_wait_user_init);
module_exit(wbsync_wait_user_exit);

MODULE_DESCRIPTION("wbsync test-only user of the ->wait_inodes() superblock hook");
MODULE_LICENSE("GPL");
