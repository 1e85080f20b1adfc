/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wbsync tracepoints: /sys/kernel/tracing/events/wbsync/
 *
 * Fired by the kretprobe handlers of wbsync_probes.c, the only file that
 * includes this header (with CREATE_TRACE_POINTS).  Every event but
 * wbsync_sync_start is fired when the measured call returns and carries
 * its duration in nanoseconds: the call started at the event's timestamp
 * minus duration_ns (wbsync_pass_lag fires when the pass starts).  Rows
 * that are not per superblock (sync(2)'s flusher wakeup, passes and
 * block device passes) have dev 0:0 and s_id "*".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM wbsync

#if !defined(_WBSYNC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _WBSYNC_TRACE_H

#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/writeback.h>

#include "wbsync.h"

TRACE_DEFINE_ENUM(WB_SYNC_NONE);
TRACE_DEFINE_ENUM(WB_SYNC_ALL);

#define show_wbsync_kind(kind)						\
	__print_symbolic(kind,						\
		{ WBSYNC_KIND_SYNC,	"sync" },			\
		{ WBSYNC_KIND_SYNCFS,	"syncfs" })

#define show_wbsync_sfr_flags(flags)					\
	__print_flags(flags, "|",					\
		{ SYNC_FILE_RANGE_WAIT_BEFORE,	"WAIT_BEFORE" },	\
		{ SYNC_FILE_RANGE_WRITE,	"WRITE" },		\
		{ SYNC_FILE_RANGE_WAIT_AFTER,	"WAIT_AFTER" })

/* A sync(2) or syncfs(2) call starts */
TRACE_EVENT(wbsync_sync_start,
	    TP_PROTO(int kind),
	    TP_ARGS(kind),
	    TP_STRUCT__entry(__field(int, kind)),
	    TP_fast_assign(__entry->kind = kind;),
	    TP_printk("%s", show_wbsync_kind(__entry->kind))
);

/* A sync(2) or syncfs(2) call returns */
TRACE_EVENT(wbsync_sync_end,
	    TP_PROTO(int kind, u64 duration_ns, long ret),
	    TP_ARGS(kind, duration_ns, ret),
	    TP_STRUCT__entry(__field(int, kind)
			     __field(long, ret)
			     __field(u64, duration_ns)),
	    TP_fast_assign(__entry->kind = kind;
			   __entry->ret = ret;
			   __entry->duration_ns = duration_ns;),
	    TP_printk("%s ret=%ld duration_ns=%llu",
		      show_wbsync_kind(__entry->kind), __entry->ret,
		      __entry->duration_ns)
);

/* One phase of a sync on one superblock */
DECLARE_EVENT_CLASS(wbsync_sb_class,
		    TP_PROTO(const struct wbsync_key *key, u64 duration_ns),
		    TP_ARGS(key, duration_ns),
		    TP_STRUCT__entry(__field(dev_t, dev)
				     __array(char, s_id, WBSYNC_SID_LEN)
				     __field(u64, duration_ns)),
		    TP_fast_assign(__entry->dev = key->dev;
				   memcpy(__entry->s_id, key->s_id,
					  WBSYNC_SID_LEN);
				   __entry->duration_ns = duration_ns;),
		    TP_printk("dev %d:%d s_id %s duration_ns=%llu",
			      MAJOR(__entry->dev), MINOR(__entry->dev),
			      __entry->s_id, __entry->duration_ns)
);

/* writeback_inodes_sb(), or sync(2)'s wakeup_flusher_threads() (dev 0:0) */
DEFINE_EVENT(wbsync_sb_class, wbsync_wb_none,
	     TP_PROTO(const struct wbsync_key *key, u64 duration_ns),
	     TP_ARGS(key, duration_ns)
);

/* sync_inodes_sb(), or sync(2)'s sync_inodes_all() (dev 0:0), with the waits */
DEFINE_EVENT(wbsync_sb_class, wbsync_wb_all,
	     TP_PROTO(const struct wbsync_key *key, u64 duration_ns),
	     TP_ARGS(key, duration_ns)
);

/* A pass of sync(2) starts on a bdi (s_id: its name), duration_ns after it */
DEFINE_EVENT(wbsync_sb_class, wbsync_pass_lag,
	     TP_PROTO(const struct wbsync_key *key, u64 duration_ns),
	     TP_ARGS(key, duration_ns)
);

/* wait_sb_inodes(), at the end of sync_inodes_sb() */
DEFINE_EVENT(wbsync_sb_class, wbsync_wait_inodes,
	     TP_PROTO(const struct wbsync_key *key, u64 duration_ns),
	     TP_ARGS(key, duration_ns)
);

/* sync_filesystem(): syncfs(2), and umount, freeze and remount */
DEFINE_EVENT(wbsync_sb_class, wbsync_sync_filesystem,
	     TP_PROTO(const struct wbsync_key *key, u64 duration_ns),
	     TP_ARGS(key, duration_ns)
);

/* One phase of a sync on one superblock, with or without waiting */
DECLARE_EVENT_CLASS(wbsync_sb_wait_class,
		    TP_PROTO(const struct wbsync_key *key, int wait,
			     u64 duration_ns),
		    TP_ARGS(key, wait, duration_ns),
		    TP_STRUCT__entry(__field(dev_t, dev)
				     __array(char, s_id, WBSYNC_SID_LEN)
				     __field(int, wait)
				     __field(u64, duration_ns)),
		    TP_fast_assign(__entry->dev = key->dev;
				   memcpy(__entry->s_id, key->s_id,
					  WBSYNC_SID_LEN);
				   __entry->wait = wait;
				   __entry->duration_ns = duration_ns;),
		    TP_printk("dev %d:%d s_id %s wait=%d duration_ns=%llu",
			      MAJOR(__entry->dev), MINOR(__entry->dev),
			      __entry->s_id, __entry->wait,
			      __entry->duration_ns)
);

/* ->sync_fs(sb, wait) */
DEFINE_EVENT(wbsync_sb_wait_class, wbsync_sync_fs,
	     TP_PROTO(const struct wbsync_key *key, int wait, u64 duration_ns),
	     TP_ARGS(key, wait, duration_ns)
);

/* sync_blockdev[_nowait](), or sync(2)'s sync_bdevs() (dev 0:0) */
DEFINE_EVENT(wbsync_sb_wait_class, wbsync_bdev_flush,
	     TP_PROTO(const struct wbsync_key *key, int wait, u64 duration_ns),
	     TP_ARGS(key, wait, duration_ns)
);

/*
 * One sync_file_range(): sync_mode is the writeback mode its flags get,
 * with sfr_sync_mode applied ("none": the flags start no writeback)
 */
TRACE_EVENT(wbsync_sync_file_range,
	    TP_PROTO(const struct wbsync_key *key, unsigned long ino,
		     s64 offset, s64 nbytes, unsigned int flags, int sync_mode,
		     u64 duration_ns, int ret),
	    TP_ARGS(key, ino, offset, nbytes, flags, sync_mode, duration_ns, ret),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __array(char, s_id, WBSYNC_SID_LEN)
			     __field(unsigned long, ino)
			     __field(s64, offset)
			     __field(s64, nbytes)
			     __field(unsigned int, flags)
			     __field(int, sync_mode)
			     __field(int, ret)
			     __field(u64, duration_ns)),
	    TP_fast_assign(__entry->dev = key->dev;
			   memcpy(__entry->s_id, key->s_id, WBSYNC_SID_LEN);
			   __entry->ino = ino;
			   __entry->offset = offset;
			   __entry->nbytes = nbytes;
			   __entry->flags = flags;
			   __entry->sync_mode = sync_mode;
			   __entry->ret = ret;
			   __entry->duration_ns = duration_ns;),
	    TP_printk("dev %d:%d s_id %s ino %lu offset=%lld nbytes=%lld flags=%s sync_mode=%s ret=%d duration_ns=%llu",
		      MAJOR(__entry->dev), MINOR(__entry->dev),
		      __entry->s_id, __entry->ino, __entry->offset,
		      __entry->nbytes,
		      show_wbsync_sfr_flags(__entry->flags),
		      __print_symbolic(__entry->sync_mode,
				       { -1, "none" },
				       { WB_SYNC_NONE, "WB_SYNC_NONE" },
				       { WB_SYNC_ALL, "WB_SYNC_ALL" }),
		      __entry->ret, __entry->duration_ns)
);

#endif /* _WBSYNC_TRACE_H */

/* This part must be outside the include guard */
#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE wbsync_trace
#include <trace/define_trace.h>
