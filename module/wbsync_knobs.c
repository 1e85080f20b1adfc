// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync: A/B knobs of a patched kernel.
 *
 * A knob switches one behaviour of the wbsync patch series at run time,
 * so that one boot can measure both sides.  The module does not
 * implement any of them: the kernel provides a knob by exporting an int
 * under the knob's symbol name,
 *
 *	int wbsync_knob_sync_cutoff;
 *	EXPORT_SYMBOL_GPL(wbsync_knob_sync_cutoff);
 *
 * (from vmlinux or from a module loaded before wbsync), whose value i
 * means values[i] of the knob below; 0 is the kernel's default.  The
 * kernel reads it with READ_ONCE() where it decides.  The symbol is
 * looked up once at load with __symbol_get(), which also pins a
 * providing module until wbsync is unloaded.
 *
 * A kernel without the symbol (vanilla, Debian's) leaves the knob
 * unsupported: it reads "unsupported" and valid writes fail with
 * -EOPNOTSUPP.
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>

#include "wbsync.h"

struct wbsync_knob {
	const char *name;		/* debugfs file */
	const char *symbol;		/* exported int of the kernel */
	const char *const *values;	/* value i is written as i */
	unsigned int nr_values;
	int *target;			/* NULL: unsupported */
};

static const char *const wbsync_sync_cutoff_values[] = {
	"vanilla",	/* WB_SYNC_ALL pass writes all dirty data */
	"sync-start",	/* ... but not data dirtied after sync started */
};

static const char *const wbsync_sfr_sync_mode_values[] = {
	"auto",		/* sync_file_range() picks WB_SYNC_NONE or ALL */
	"all",		/* always WB_SYNC_ALL */
};

static const char *const wbsync_wait_inodes_values[] = {
	"auto",		/* the filesystem's own wait, if it has one */
	"generic",	/* always wait_sb_inodes() */
};

static struct wbsync_knob wbsync_knobs[] = {
	{
		.name		= "sync_cutoff",
		.symbol		= "wbsync_knob_sync_cutoff",
		.values		= wbsync_sync_cutoff_values,
		.nr_values	= ARRAY_SIZE(wbsync_sync_cutoff_values),
	},
	{
		.name		= "sfr_sync_mode",
		.symbol		= "wbsync_knob_sfr_sync_mode",
		.values		= wbsync_sfr_sync_mode_values,
		.nr_values	= ARRAY_SIZE(wbsync_sfr_sync_mode_values),
	},
	{
		.name		= "wait_inodes",
		.symbol		= "wbsync_knob_wait_inodes",
		.values		= wbsync_wait_inodes_values,
		.nr_values	= ARRAY_SIZE(wbsync_wait_inodes_values),
	},
};

struct wbsync_knob *wbsync_knob_at(unsigned int i)
{
	return i < ARRAY_SIZE(wbsync_knobs) ? &wbsync_knobs[i] : NULL;
}

const char *wbsync_knob_name(const struct wbsync_knob *knob)
{
	return knob->name;
}

/* The current value and a newline, or "unsupported" */
int wbsync_knob_read(const struct wbsync_knob *knob, char *buf, size_t size)
{
	int v;

	if (!knob->target)
		return scnprintf(buf, size, "unsupported\n");
	v = READ_ONCE(*knob->target);
	if (v < 0 || v >= knob->nr_values)
		return scnprintf(buf, size, "invalid(%d)\n", v);
	return scnprintf(buf, size, "%s\n", knob->values[v]);
}

/* @val: one of the knob's values, exactly, newline already taken off */
int wbsync_knob_write(struct wbsync_knob *knob, const char *val)
{
	unsigned int i;

	for (i = 0; i < knob->nr_values; i++)
		if (!strcmp(val, knob->values[i]))
			break;
	if (i == knob->nr_values)
		return -EINVAL;
	if (!knob->target)
		return -EOPNOTSUPP;
	WRITE_ONCE(*knob->target, i);
	return 0;
}

void wbsync_knobs_init(void)
{
	struct wbsync_knob *knob;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wbsync_knobs); i++) {
		knob = &wbsync_knobs[i];
		knob->target = __symbol_get(knob->symbol);
		pr_info("wbsync: knob %s: %s\n", knob->name,
			knob->target ? knob->symbol : "unsupported");
	}
}

void wbsync_knobs_exit(void)
{
	struct wbsync_knob *knob;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wbsync_knobs); i++) {
		knob = &wbsync_knobs[i];
#ifdef CONFIG_MODULE_UNLOAD
		/* by name: symbol_put_addr() only works on functions */
		if (knob->target)
			__symbol_put(knob->symbol);
#endif
		knob->target = NULL;
	}
}
