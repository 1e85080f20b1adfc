#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""replay_log.py --log LOG --replay DEV [--end-mark MARK]
replay_log.py --log LOG --list

Replays a dm-log-writes log onto DEV, a zeroed device of the logged
device's size: every entry in log order up to, and not including, the
mark entry MARK (without --end-mark, every entry).  A write entry writes
its data at its sector; a discard zeroes its range (BLKZEROOUT on a block
device); flush, FUA and metadata flags change nothing in the replay.  DEV
is then fsync'ed.  --list prints the entries instead.  The options are
those of fstests' replay-log (src/log-writes).  Exit status 0, 1 on a bad
log (magic, version, flags, a short read, a missing mark, an entry past
the end of DEV: DEV is written only once the whole log up to MARK has
been read and checked), 2 on bad arguments.

The format, as Linux 6.12's drivers/md/dm-log-writes.c writes it (all
little-endian; a "sector" is the logged device's logical block size, the
super block's sectorsize):

  byte 0         struct log_write_super { u64 magic (0x6a736677736872);
                 u64 version (1); u64 nr_entries; u32 sectorsize; }
  byte S         entry 0: one sector, struct log_write_entry { u64 sector;
                 u64 nr_sectors; u64 flags; u64 data_len; }, for a mark
                 followed by its data_len bytes of name (at most S - 33),
                 then nr_sectors sectors of data (none for a discard or
                 a mark), then entry 1, ...

Flags: FLUSH 1, FUA 2, DISCARD 4, MARK 8, METADATA 16 (REQ_META).
nr_entries is rewritten after each FUA or mark entry (and at the end
mark "dm-log-writes-end", which removing the target appends).

What the log holds at a mark is what reached stable media if power had
failed there: log_writes_map() and normal_end_io() put a completed write
without REQ_FUA on the target's unflushed_blocks list, and only a later
REQ_PREFLUSH bio moves that list, the writes that had completed when the
flush was mapped, into the log, ahead of the flush's own entry, once the
flush completes; a REQ_FUA write is logged when it completes, and a mark
when its message arrives.  A write the device's cache still holds (no
flush since it completed) is not in the log before the mark.
"""

import argparse
import errno
import fcntl
import os
import stat
import struct
import sys

MAGIC = 0x6a736677736872
VERSION = 1
FLUSH, FUA, DISCARD, MARK, METADATA = 1, 2, 4, 8, 16
FLAG_NAMES = ((FLUSH, "FLUSH"), (FUA, "FUA"), (DISCARD, "DISCARD"),
              (MARK, "MARK"), (METADATA, "METADATA"))
SUPER = struct.Struct("<QQQI")
ENTRY = struct.Struct("<QQQQ")
BLKZEROOUT = 0x127f         # _IO(0x12, 127)
CHUNK = 1 << 20


class LogError(Exception):
    pass


def flag_names(flags):
    return "|".join(n for f, n in FLAG_NAMES if flags & f) or "WRITE"


def pread_exact(fd, length, offset, path, what):
    data = os.pread(fd, length, offset)
    if len(data) != length:
        raise LogError(f"short read: {what} needs {length} bytes at byte "
                       f"{offset} of {path}, which has {len(data)}")
    return data


def read_log(path, end_mark):
    """The entries up to end_mark (all without one): a list of
    (index, sector, nr_sectors, flags, data offset in the log, mark),
    the sector size, the number of entries in the log and its marks."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as e:
        raise LogError(f"cannot open {path}: {e.strerror}") from e
    try:
        size = os.lseek(fd, 0, os.SEEK_END)
        magic, version, nr_entries, ss = SUPER.unpack(
            pread_exact(fd, SUPER.size, 0, path, "the super block"))
        if magic != MAGIC:
            raise LogError(f"{path}: bad magic {magic:#x}, not a dm-log-writes "
                           f"log (magic {MAGIC:#x})")
        if version != VERSION:
            raise LogError(f"{path}: log version {version}, this tool reads "
                           f"version {VERSION}")
        if ss < 512 or ss > 65536 or ss & (ss - 1):
            raise LogError(f"{path}: bad sector size {ss}")
        entries, marks, off = [], [], ss
        for i in range(nr_entries):
            sector, nr, flags, data_len = ENTRY.unpack(
                pread_exact(fd, ENTRY.size, off, path, f"entry {i}"))
            if flags & ~(FLUSH | FUA | DISCARD | MARK | METADATA):
                raise LogError(f"{path}: entry {i} at byte {off} has unknown "
                               f"flags {flags:#x}")
            mark = None
            if flags & MARK:
                if data_len > ss - ENTRY.size:
                    raise LogError(f"{path}: entry {i}: a mark of {data_len} "
                                   f"bytes in a sector of {ss}")
                mark = pread_exact(fd, data_len, off + ENTRY.size, path,
                                   f"the mark of entry {i}")
                mark = mark.decode("utf-8", "replace")
                marks.append(mark)
                if mark == end_mark:
                    return entries, ss, nr_entries, marks
            elif data_len:
                raise LogError(f"{path}: entry {i} carries {data_len} bytes "
                               "of inline data, which 6.12 writes only "
                               "for marks")
            off += ss
            entries.append((i, sector, nr, flags, off, mark))
            if not flags & (DISCARD | MARK):
                off += nr * ss
                if off > size:
                    raise LogError(f"short read: entry {i} needs {nr * ss} "
                                   f"bytes of data at byte {off - nr * ss} of "
                                   f"{path}, which has {size}")
        if end_mark is not None:
            raise LogError(f"mark '{end_mark}' is not in {path} ({nr_entries} "
                           f"entries; its marks: {', '.join(marks) or 'none'})")
        return entries, ss, nr_entries, marks
    finally:
        os.close(fd)


def zero(fd, is_blk, offset, length):
    if is_blk:
        fcntl.ioctl(fd, BLKZEROOUT, struct.pack("=QQ", offset, length))
        return
    buf = bytes(min(length, CHUNK))
    while length:
        n = os.pwrite(fd, buf[:min(length, CHUNK)], offset)
        offset += n
        length -= n


def replay(args):
    entries, ss, total, _ = read_log(args.log, args.end_mark)
    try:
        fd = os.open(args.replay, os.O_WRONLY)
    except OSError as e:
        raise LogError(f"cannot open {args.replay}: {e.strerror}") from e
    counts = {"write": 0, "flush": 0, "fua": 0, "discard": 0, "mark": 0}
    written = 0
    try:
        is_blk = stat.S_ISBLK(os.fstat(fd).st_mode)
        dev_size = os.lseek(fd, 0, os.SEEK_END)
        for i, sector, nr, flags, _, _ in entries:
            if not flags & MARK and (sector + nr) * ss > dev_size:
                raise LogError(f"entry {i} ({flag_names(flags)}) ends at byte "
                               f"{(sector + nr) * ss}, past the end of "
                               f"{args.replay} ({dev_size} bytes)")
        logfd = os.open(args.log, os.O_RDONLY)
        for i, sector, nr, flags, data_off, _ in entries:
            counts["flush"] += bool(flags & FLUSH)
            counts["fua"] += bool(flags & FUA)
            if flags & MARK:
                counts["mark"] += 1
                continue
            if not nr:
                continue
            if flags & DISCARD:
                counts["discard"] += 1
                zero(fd, is_blk, sector * ss, nr * ss)
                continue
            counts["write"] += 1
            for done in range(0, nr * ss, CHUNK):
                n = min(CHUNK, nr * ss - done)
                data = pread_exact(logfd, n, data_off + done, args.log,
                                   f"the data of entry {i}")
                if os.pwrite(fd, data, sector * ss + done) != n:
                    raise LogError(f"short write to {args.replay}")
            written += nr * ss
        os.close(logfd)
        os.fsync(fd)
    except OSError as e:
        raise LogError(f"replaying onto {args.replay}: "
                       f"{e.strerror or errno.errorcode.get(e.errno)}") from e
    finally:
        os.close(fd)
    upto = f"up to mark '{args.end_mark}'" if args.end_mark else "to its end"
    print(f"replayed {len(entries)} of {total} entries {upto}: "
          f"{counts['write']} writes ({written} bytes), {counts['discard']} "
          f"discards, {counts['flush']} flushes, {counts['fua']} FUA, "
          f"{counts['mark']} marks")


def list_log(args):
    entries, ss, total, marks = read_log(args.log, args.end_mark)
    print(f"{args.log}: {total} entries, sector size {ss}, marks: "
          f"{', '.join(marks) or 'none'}")
    for i, sector, nr, flags, _, mark in entries:
        print(f"{i} {flag_names(flags)} sector {sector} nr_sectors {nr}"
              + (f" mark {mark}" if mark is not None else ""))


def main():
    p = argparse.ArgumentParser(
        prog="replay_log.py",
        description="Replay a dm-log-writes log (Linux 6.12) onto a device.")
    p.add_argument("--log", required=True, help="the log device or file")
    p.add_argument("--replay", metavar="DEV",
                   help="the zeroed device (or file) to replay onto")
    p.add_argument("--end-mark", metavar="MARK",
                   help="stop before this mark (it must be in the log)")
    p.add_argument("--list", action="store_true",
                   help="print the entries (up to MARK) instead")
    args = p.parse_args()
    if bool(args.list) == bool(args.replay):
        p.error("give either --replay DEV or --list")
    try:
        (list_log if args.list else replay)(args)
    except LogError as e:
        print(f"replay_log.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
