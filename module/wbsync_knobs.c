// SPDX-License-Identifier: GPL-2.0
/*
 * wbsync: A/B knobs, so that one boot can measure both behaviours.
 *
 * A knob is a kprobe on the function where the kernel decides, whose
 * pre-handler changes one argument when the knob is not at value 0
 * (value 0 is always the kernel's own behaviour, and the probe then
 * changes nothing):
 *
 *   sfr_sync_mode  __filemap_fdatawrite_range(mapping, start, end, mode)
 *                  called from sync_file_range(): "all" turns WB_SYNC_NONE
 *                  into WB_SYNC_ALL, as before Linux 4.4.  The call is
 *                  recognised by its task and mapping, which the
 *                  sync_file_range() kretprobe of wbsync_probes.c records
 *                  at the entry of each call the knob may force, so the
 *                  knob needs that probe.
 *
 * The series' s_op->wait_inodes has no knob: it is an indirect call
 * through the filesystem's operations, which no probe here can redirect;
 * selftests/wait_inodes/test_modules/wbsync_wait_user.ko is its A/B.
 *
 * Knobs are armed after the kretprobes and only ever read module state.
 * A knob whose function does not exist or cannot be probed is
 * unsupported: it reads "unsupported" and valid writes fail with
 * -EOPNOTSUPP.  Only the argument registers of x86-64 are known here;
 * elsewhere every knob is unsupported.
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/writeback.h>

#include "wbsync.h"

struct wbsync_knob {
	const char *name;		/* debugfs file */
	const char *symbol;		/* where the kernel decides */
	const char *const *values;	/* value i is written as values[i] */
	unsigned int nr_values;
	kprobe_pre_handler_t handler;
	bool (*prepare)(void);		/* before the probe; false: unsupported */
	int value;
	bool supported;
	struct kprobe kp;
};

#define WBSYNC_SFR_FLAGS	(SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | \
				 SYNC_FILE_RANGE_WAIT_AFTER)

static const char *const wbsync_sfr_sync_mode_values[] = {
	"auto",		/* WB_SYNC_NONE unless WAIT_BEFORE|WRITE|WAIT_AFTER */
	"all",		/* always WB_SYNC_ALL */
};

#ifdef CONFIG_X86_64
static int wbsync_sfr_sync_mode_handler(struct kprobe *kp, struct pt_regs *regs);
#else	/* the argument registers are not known here */
#define wbsync_sfr_sync_mode_handler	NULL
#endif

enum { WBSYNC_KNOB_SFR_SYNC_MODE };

static struct wbsync_knob wbsync_knobs[] = {
	[WBSYNC_KNOB_SFR_SYNC_MODE] = {
		.name		= "sfr_sync_mode",
		.symbol		= "__filemap_fdatawrite_range",
		.values		= wbsync_sfr_sync_mode_values,
		.nr_values	= ARRAY_SIZE(wbsync_sfr_sync_mode_values),
		.handler	= wbsync_sfr_sync_mode_handler,
		.prepare	= wbsync_sfr_probed,
	},
};

#ifdef CONFIG_X86_64
/* Arguments: rdi, rsi, rdx, rcx; restored from @regs when the probe returns */
static int wbsync_sfr_sync_mode_handler(struct kprobe *kp, struct pt_regs *regs)
{
	struct wbsync_knob *knob = container_of(kp, struct wbsync_knob, kp);

	/* an int argument: the upper half of the register is undefined */
	if (READ_ONCE(knob->value) && (int)regs->cx == WB_SYNC_NONE &&
	    wbsync_sfr_force_here((struct address_space *)regs->di))
		regs->cx = WB_SYNC_ALL;
	return 0;
}
#endif

/*
 * The writeback mode of a sync_file_range(@flags) call: what the kernel
 * picks (since 5.2: WB_SYNC_ALL for WAIT_BEFORE|WRITE|WAIT_AFTER,
 * WB_SYNC_NONE for any other combination with WRITE), unless sfr_sync_mode
 * forces WB_SYNC_ALL; -1 if the flags start no writeback.
 */
int wbsync_sfr_sync_mode(unsigned int flags)
{
	const struct wbsync_knob *knob = &wbsync_knobs[WBSYNC_KNOB_SFR_SYNC_MODE];

	if (!(flags & SYNC_FILE_RANGE_WRITE) || (flags & ~WBSYNC_SFR_FLAGS))
		return -1;
	if ((flags & SYNC_FILE_RANGE_WRITE_AND_WAIT) == SYNC_FILE_RANGE_WRITE_AND_WAIT ||
	    (knob->supported && READ_ONCE(knob->value)))
		return WB_SYNC_ALL;
	return WB_SYNC_NONE;
}

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
	if (!knob->supported)
		return scnprintf(buf, size, "unsupported\n");
	return scnprintf(buf, size, "%s\n", knob->values[READ_ONCE(knob->value)]);
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
	if (!knob->supported)
		return -EOPNOTSUPP;
	WRITE_ONCE(knob->value, i);
	return 0;
}

void wbsync_knobs_init(void)
{
	struct wbsync_knob *knob;
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(wbsync_knobs); i++) {
		knob = &wbsync_knobs[i];
		knob->value = 0;
		knob->supported = false;
		if (!knob->handler) {
			err = -EOPNOTSUPP;
		} else if (knob->prepare && !knob->prepare()) {
			err = -ENOENT;
		} else {
			knob->kp = (struct kprobe) {
				.symbol_name	= knob->symbol,
				.pre_handler	= knob->handler,
			};
			err = register_kprobe(&knob->kp);
		}
		knob->supported = !err;
		if (err)
			pr_info("wbsync: knob %s: unsupported (%s: %d)\n",
				knob->name, knob->symbol, err);
		else
			pr_info("wbsync: knob %s: on %s\n", knob->name, knob->symbol);
	}
}

void wbsync_knobs_exit(void)
{
	struct wbsync_knob *knob;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wbsync_knobs); i++) {
		knob = &wbsync_knobs[i];
		if (knob->supported)
			unregister_kprobe(&knob->kp);
		knob->supported = false;
	}
}
