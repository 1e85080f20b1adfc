#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# writeback_account.sh TRACE
#
# What the writeback works of a tracefs text trace (writeback_start and
# writeback_written events, as sync_measure.sh records them) wrote, by
# who queued them, on one line of bytes:
#   pass_bytes=    the WB_SYNC_ALL works (the passes of sync(2), syncfs(2))
#   kick_bytes=    WB_SYNC_NONE works for every superblock, reason sync:
#                  sync(2)'s flush of every disk (wakeup_flusher_threads())
#   background_bytes=, periodic_bytes=  background and kupdate writeback
#   other_wb_bytes=  any other work (syncfs(2)'s WB_SYNC_NONE pass, reclaim,
#                  ...)
#   passes_seconds=  from the first WB_SYNC_ALL round's start to the last
#                  one's end (0 without one)
#   meta_bytes=    REQ_META writes issued (block_rq_issue, "M" in rwbs):
#                  jbd2's journal and xfs's log, which no work writes
# A round of a work is a writeback_start .. writeback_written of one wb
# (bdi and cgroup: a wb runs one work at a time), and wrote the drop of
# the work's nr_pages between the two.  A round that began before the
# trace is not counted.
#
# With -d MAJ:MIN (a disk, traced with block_rq_complete as well), two
# more, in seconds, within the sync (between sync_measure.sh's trace
# markers "sync_measure: start" and "sync_measure: end", else the whole
# trace), for where an idle disk's time went:
#   disk_idle_seconds=  the disk had no request in flight
#   disk_idle_unqueued_seconds=  of that, no round of any work ran on
#                  the disk's bdi: nothing was queued for it (the sync
#                  had not reached it yet, or had left it), where the
#                  rest is time its flusher had work and issued nothing
#                  (waiting for the CPU or a lock)
# The requests are counted, not matched (a request's sector can change
# between issue and completion, and metadata sectors repeat); those in
# flight when the trace began are as many as the trace needs at least.
set -u
usage="usage: writeback_account.sh [-d MAJ:MIN] TRACE (a readable file)"
dev=
if [ "${1:-}" = -d ]; then
	[[ "${2:-}" =~ ^[0-9]+:[0-9]+$ ]] || { echo "$usage" >&2; exit 2; }
	dev=$2
	shift 2
fi
[ $# = 1 ] && [ -r "$1" ] || { echo "$usage" >&2; exit 2; }
page=$(getconf PAGESIZE) && [ -n "$page" ] || { echo "writeback_account.sh: no page size (getconf PAGESIZE)" >&2; exit 2; }
# C locale: the timestamps have a decimal point; %.0f: mawk and busybox
# awk print %d past 2^31 wrong
line=$(LC_ALL=C awk -v page="$page" '
# a - b for nr_pages strings: a pass starts at LONG_MAX, past the exact
# range of awk'"'"'s doubles, so compare the last 12 digits
function pages(a, b,   d) {
	if (length(a) < 16) return a - b
	d = substr(a, length(a) - 11) - substr(b, length(b) - 11)
	return d < 0 ? d + 1e12 : d
}
# rwbs and the bytes of the request follow the device: 254,0 WSM 4096 ...
/ block_rq_issue: / {
	for (i = 1; i < NF && $i != "block_rq_issue:"; i++)
		;
	if ($(i + 2) ~ /W/ && $(i + 2) ~ /M/) meta += $(i + 3)
	next
}
/ writeback_(start|written): bdi / {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = substr($i, 1, length($i) - 1) + 0; break }
	match($0, /bdi [^ ]*: /); wb = substr($0, RSTART, RLENGTH)
	match($0, /cgroup_ino=[0-9]+/); wb = wb substr($0, RSTART, RLENGTH)
	match($0, /nr_pages=-?[0-9]+/); n = substr($0, RSTART + 9, RLENGTH - 9)
	if (/ writeback_start: /) { begin[wb] = n; began[wb] = t; next }
	if (!(wb in begin))
		next
	w = pages(begin[wb], n); delete begin[wb]
	if (/ sync_mode=1 /) {
		pass += w
		if (first == "" || began[wb] < first) first = began[wb]
		if (t > last) last = t
	} else if (/ sb_dev 0:0 .* reason=sync /) kick += w
	else if (/ reason=background /) bg += w
	else if (/ reason=periodic /) per += w
	else other += w
}
END {
	printf "pass_bytes=%.0f kick_bytes=%.0f background_bytes=%.0f periodic_bytes=%.0f other_wb_bytes=%.0f passes_seconds=%.3f meta_bytes=%.0f",
		pass * page, kick * page, bg * page, per * page, other * page, first == "" ? 0 : last - first, meta
	printf "\n"
}' "$1") || exit 2
[ -n "$dev" ] || { echo "$line"; exit 0; }
# -d: two passes.  The first finds what was in flight when the trace
# began: at least as many requests as ever completed or were requeued
# beyond those issued, and the rounds that ended before any began.
idle=$(LC_ALL=C awk -v bdi="bdi $dev: " -v blk="${dev/:/,}" '
function stamp(   i) {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/) return substr($i, 1, length($i) - 1) + 0
}
# From the last event to t: idle without requests in flight, unqueued
# without a round on the bdi as well.
function advance(t) {
	if (from == "" || t <= from) return
	if (!inflight) { idle += t - from; if (!rounds) unq += t - from }
	from = t
}
# the event if it is the disk'"'"'s request (its type in rq: issue, a
# re-issue, done; in a trace without block_rq_requeue, a request
# re-issued after a requeue is one whose sector is in flight) or a round
# on its bdi (the wb in cg, start or end in rq)
function event(   i, s) {
	rq = ""
	if (/ block_rq_(issue|complete|requeue): /) {
		for (i = 1; i < NF && $i !~ /^block_rq_/; i++)
			;
		if ($(i + 1) != blk)
			return 0
		if ($i == "block_rq_issue:") {
			# flushes (no sectors) complete as sector -1: not matched
			s = $(i + 5); rq = "issue"
			if ($(i + 7) != 0 && pend[s]++) { pend[s]--; rq = "reissue" }
		} else {
			s = $(i + 4); rq = "done"
			if (pend[s] > 0) pend[s]--
		}
	} else if (/ writeback_(start|written): / && index($0, bdi)) {
		match($0, /cgroup_ino=[0-9]+/); cg = substr($0, RSTART, RLENGTH)
		rq = / writeback_start: / ? "start" : "end"
	}
	return rq != ""
}
FNR == NR {
	if (!event())
		next
	if (rq == "done") { if (++n > init) init = n }
	else if (rq == "issue") n--
	else if (rq != "reissue" && !(cg in seen)) { seen[cg] = 1; if (rq == "end") { inround[cg] = 1; rounds++ } }
	next
}
FNR == 1 { inflight = init; delete pend }
done { next }
/ tracing_mark_write: sync_measure: start$/ { idle = 0; unq = 0; from = stamp(); next }
/ tracing_mark_write: sync_measure: end$/ { if (from != "") { advance(stamp()); done = 1 } next }
event() {
	t = stamp(); if (from == "") from = t
	advance(t)
	if (rq == "issue") inflight++
	else if (rq == "done") { if (inflight) inflight-- }
	else if (rq == "reissue") ;
	else if (rq == "start") { if (!(cg in inround)) { inround[cg] = 1; rounds++ } }
	else if (cg in inround) { delete inround[cg]; rounds-- }
}
END { printf "disk_idle_seconds=%.3f disk_idle_unqueued_seconds=%.3f\n", idle, unq }' "$1" "$1") || exit 2
echo "$line $idle"
