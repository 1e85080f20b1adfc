// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync: the debugfs interface, /sys/kernel/debug/wbsync/.
 *
 *   stats          latency per (superblock, phase), see wbsync_stats.c
 *   probes         each probe: the symbol it is attached to, or why not
 *   reset          write 1: clear stats
 *   enable         0 or 1: time and trace sync calls
 *   sfr_sync_mode  A/B knob, see wbsync_knobs.c
 *
 * reset and enable take a number (the debugfs attribute helpers, as
 * kstrtoull() parses it); a knob's write must hold one of its values,
 * whole, at offset 0, with at most one trailing newline.  Anything else
 * fails with -EINVAL and changes nothing.
 */
#include <linux/debugfs.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "wbsync.h"

/* Longest value written, newline and NUL included */
#define WBSYNC_VALUE_MAX	32

static struct dentry *wbsync_dir;

/*
 * Copies what user space wrote into @buf as a string, without the
 * trailing newline, or fails with -EINVAL (-EFAULT on a bad buffer).
 */
static int wbsync_get_value(const char __user *ubuf, size_t count,
			    loff_t *ppos, char *buf, size_t size)
{
	loff_t pos = 0;
	ssize_t n;

	if (*ppos || !count || count >= size)
		return -EINVAL;
	n = simple_write_to_buffer(buf, size - 1, &pos, ubuf, count);
	if (n < 0)
		return n;
	if (n != count)
		return -EFAULT;
	buf[n] = '\0';
	if (strlen(buf) != n)
		return -EINVAL;
	if (buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (!n)
		return -EINVAL;
	return 0;
}

static int wbsync_stats_file_show(struct seq_file *m, void *unused)
{
	return wbsync_stats_show(m);
}
DEFINE_SHOW_ATTRIBUTE(wbsync_stats_file);

static int wbsync_probes_file_show(struct seq_file *m, void *unused)
{
	return wbsync_probes_show(m);
}
DEFINE_SHOW_ATTRIBUTE(wbsync_probes_file);

/* Write 1 to clear the statistics; anything else is refused */
static int wbsync_reset_set(void *data, u64 val)
{
	if (val != 1)
		return -EINVAL;
	wbsync_stats_reset();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(wbsync_reset_fops, NULL, wbsync_reset_set, "%llu\n");

static int wbsync_enable_get(void *data, u64 *val)
{
	*val = READ_ONCE(wbsync_enabled);
	return 0;
}

static int wbsync_enable_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	WRITE_ONCE(wbsync_enabled, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(wbsync_enable_fops, wbsync_enable_get,
			 wbsync_enable_set, "%llu\n");

static ssize_t wbsync_knob_file_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	const struct wbsync_knob *knob = file->private_data;
	char buf[WBSYNC_VALUE_MAX];
	int len;

	len = wbsync_knob_read(knob, buf, sizeof(buf));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t wbsync_knob_file_write(struct file *file,
				      const char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	struct wbsync_knob *knob = file->private_data;
	char buf[WBSYNC_VALUE_MAX];
	int err;

	err = wbsync_get_value(ubuf, count, ppos, buf, sizeof(buf));
	if (err)
		return err;
	err = wbsync_knob_write(knob, buf);
	if (err)
		return err;
	*ppos += count;
	return count;
}

static const struct file_operations wbsync_knob_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= wbsync_knob_file_read,
	.write	= wbsync_knob_file_write,
	.llseek	= default_llseek,
};

/* Without debugfs the module still traces: no error is fatal here */
void wbsync_debugfs_init(void)
{
	struct wbsync_knob *knob;
	unsigned int i;

	wbsync_dir = debugfs_create_dir("wbsync", NULL);
	debugfs_create_file("stats", 0444, wbsync_dir, NULL,
			    &wbsync_stats_file_fops);
	debugfs_create_file("probes", 0444, wbsync_dir, NULL,
			    &wbsync_probes_file_fops);
	debugfs_create_file_unsafe("reset", 0200, wbsync_dir, NULL,
				   &wbsync_reset_fops);
	debugfs_create_file_unsafe("enable", 0644, wbsync_dir, NULL,
				   &wbsync_enable_fops);
	for (i = 0; (knob = wbsync_knob_at(i)); i++)
		debugfs_create_file(wbsync_knob_name(knob), 0644, wbsync_dir,
				    knob, &wbsync_knob_fops);
}

/* Waits for the reads and writes in progress */
void wbsync_debugfs_exit(void)
{
	debugfs_remove_recursive(wbsync_dir);
	wbsync_dir = NULL;
}
