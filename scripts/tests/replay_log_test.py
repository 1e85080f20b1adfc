#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of selftests/integrity/replay_log.py on synthetic
dm-log-writes logs, which this file writes in the layout of Linux 6.12's
drivers/md/dm-log-writes.c (its own writer, not the replayer's parser).
Run by scripts/tests/lab_test.sh; alone: scripts/tests/replay_log_test.py
[-v]."""

import os
import struct
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPLAY = os.path.join(TOP, "selftests", "integrity", "replay_log.py")
MAGIC = 0x6a736677736872
FLUSH, FUA, DISCARD, MARK, METADATA = 1, 2, 4, 8, 16


def pattern(ch, nbytes):
    return bytes([ord(ch)]) * nbytes


def build_log(entries, ss=512, magic=MAGIC, version=1, nr_entries=None):
    """entries: (flags, sector, nr_sectors, data or mark name)."""
    out = bytearray(ss)
    n = len(entries) if nr_entries is None else nr_entries
    struct.pack_into("<QQQI", out, 0, magic, version, n, ss)
    for flags, sector, nr, data in entries:
        sect = bytearray(ss)
        if flags & MARK:
            name = data.encode()
            struct.pack_into("<QQQQ", sect, 0, sector, 0, flags, len(name))
            sect[32:32 + len(name)] = name
            out += sect
            continue
        struct.pack_into("<QQQQ", sect, 0, sector, nr, flags, 0)
        out += sect
        if not flags & DISCARD:
            assert len(data) == nr * ss
            out += data
    return bytes(out)


# A log of every kind of entry, sector size 512: the expected device
# after a replay up to "sync" is below.
LOG = [
    (0, 0, 2, pattern("a", 1024)),
    (FLUSH, 0, 0, b""),
    (METADATA, 4, 1, pattern("b", 512)),
    (FUA, 8, 1, pattern("c", 512)),
    (DISCARD, 0, 1, b""),
    (0, 4, 1, pattern("d", 512)),
    (FLUSH | FUA, 10, 2, pattern("e", 1024)),
    (MARK, 0, 0, "mkfs"),
    (0, 12, 1, pattern("g", 512)),
    (MARK, 0, 0, "sync"),
    (0, 20, 1, pattern("f", 512)),
    (0, 1, 1, pattern("h", 512)),
    (MARK, 0, 0, "dm-log-writes-end"),
]


def device(sectors, writes, ss=512):
    dev = bytearray(sectors * ss)
    for sector, data in writes:
        dev[sector * ss:sector * ss + len(data)] = data
    return bytes(dev)


UP_TO_SYNC = device(64, [(1, pattern("a", 512)), (4, pattern("d", 512)),
                         (8, pattern("c", 512)), (10, pattern("e", 1024)),
                         (12, pattern("g", 512))])


class ReplayLogTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.tmp.name, "log")
        self.dev = os.path.join(self.tmp.name, "dev")

    def tearDown(self):
        self.tmp.cleanup()

    def run_replay(self, log, *args, sectors=64, ss=512):
        with open(self.log, "wb") as f:
            f.write(log)
        with open(self.dev, "wb") as f:
            f.truncate(sectors * ss)
        return subprocess.run([REPLAY, "--log", self.log, *args],
                              capture_output=True, text=True, check=False)

    def dev_bytes(self):
        with open(self.dev, "rb") as f:
            return f.read()

    def assert_error(self, r, text):
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(text, r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertEqual(self.dev_bytes(), bytes(len(self.dev_bytes())),
                         "the device was written")

    def test_up_to_mark(self):
        r = self.run_replay(build_log(LOG), "--replay", self.dev, "--end-mark", "sync")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.dev_bytes(), UP_TO_SYNC)
        self.assertIn("replayed 9 of 13 entries up to mark 'sync': 6 writes "
                      "(4096 bytes), 1 discards, 2 flushes, 2 FUA, 1 marks", r.stdout)

    def test_whole_log(self):
        r = self.run_replay(build_log(LOG), "--replay", self.dev)
        self.assertEqual(r.returncode, 0, r.stderr)
        want = bytearray(UP_TO_SYNC)
        want[20 * 512:21 * 512] = pattern("f", 512)
        want[512:1024] = pattern("h", 512)
        self.assertEqual(self.dev_bytes(), bytes(want))

    def test_sector_size_4096(self):
        log = build_log([(0, 3, 2, pattern("x", 8192)), (DISCARD, 4, 1, b""),
                         (FLUSH, 0, 0, b""), (MARK, 0, 0, "sync"),
                         (0, 0, 1, pattern("y", 4096))], ss=4096)
        r = self.run_replay(log, "--replay", self.dev, "--end-mark", "sync",
                            sectors=8, ss=4096)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.dev_bytes(),
                         device(8, [(3, pattern("x", 4096))], ss=4096))

    def test_super_counts_entries(self):
        # nr_entries is what the replay reads, not what follows it
        r = self.run_replay(build_log(LOG, nr_entries=4), "--replay", self.dev)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.dev_bytes(),
                         device(64, [(0, pattern("a", 1024)), (8, pattern("c", 512)),
                                     (4, pattern("b", 512))]))

    def test_missing_mark(self):
        r = self.run_replay(build_log(LOG), "--replay", self.dev, "--end-mark", "nope")
        self.assert_error(r, "mark 'nope' is not in")
        self.assertIn("its marks: mkfs, sync, dm-log-writes-end", r.stderr)

    def test_bad_magic(self):
        r = self.run_replay(build_log(LOG, magic=0x1234), "--replay", self.dev,
                            "--end-mark", "sync")
        self.assert_error(r, "bad magic 0x1234, not a dm-log-writes log")

    def test_bad_version(self):
        r = self.run_replay(build_log(LOG, version=2), "--replay", self.dev,
                            "--end-mark", "sync")
        self.assert_error(r, "log version 2, this tool reads version 1")

    def test_short_log(self):
        log = build_log(LOG)
        # into the data of entry 3 (FUA, sector 8): 512 + 3 * 512 + 1024 + 512
        r = self.run_replay(log[:3700], "--replay", self.dev, "--end-mark", "sync")
        self.assert_error(r, "short read: entry 3 needs 512 bytes of data")
        r = self.run_replay(log[:20], "--replay", self.dev, "--end-mark", "sync")
        self.assert_error(r, "short read: the super block needs 28 bytes")

    def test_past_the_end(self):
        r = self.run_replay(build_log(LOG), "--replay", self.dev, "--end-mark", "sync",
                            sectors=11)
        self.assert_error(r, "entry 6 (FLUSH|FUA) ends at byte 6144, past the end")

    def test_unknown_flags(self):
        r = self.run_replay(build_log([(64, 0, 1, pattern("a", 512))]), "--replay", self.dev)
        self.assert_error(r, "entry 0 at byte 512 has unknown flags 0x40")

    def test_list(self):
        r = self.run_replay(build_log(LOG), "--list", "--end-mark", "sync")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], f"{self.log}: 13 entries, sector size 512, marks: mkfs, sync")
        self.assertEqual(lines[5], "4 DISCARD sector 0 nr_sectors 1")
        self.assertEqual(lines[-1], "8 WRITE sector 12 nr_sectors 1")

    def test_usage(self):
        for args in ([], ["--log", "x"], ["--log", "x", "--list", "--replay", "y"],
                     ["--log", "x", "--list", "--nope"]):
            r = subprocess.run([REPLAY, *args], capture_output=True, text=True, check=False)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn("usage: replay_log.py", r.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[1:])
