#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# seed_reproducer.sh [-t SECONDS] [-s SYNC_CMD] DIR...
#
# Jan Kara's reproducer from "writeback: Do not sync data dirtied after
# sync start" (2013), ported as is: in each DIR, 10 writer loops create
# 16 KiB files with dd; after SECONDS (40 in the original) sync(1) is timed.
# Prints "sync_seconds=S"; the writers are stopped before it returns.
# With -s, SYNC_CMD runs instead of the timed sync and prints its own
# result (sync_measure.sh).
set -u
secs=40 sync_cmd=
while getopts t:s: opt; do
	case $opt in
	t) secs=$OPTARG ;;
	s) sync_cmd=$OPTARG ;;
	*) echo "usage: seed_reproducer.sh [-t SECONDS] [-s SYNC_CMD] DIR..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "seed_reproducer.sh: no directory given" >&2; exit 2; }
[[ "$secs" =~ ^[0-9]+$ ]] || { echo "seed_reproducer.sh: bad -t '$secs'" >&2; exit 2; }
for dir in "$@"; do
	[ -d "$dir" ] || { echo "seed_reproducer.sh: $dir is not a directory" >&2; exit 2; }
done

function run_writers
{
  for (( i = 0; i < 10; i++ )); do
    mkdir $1/dir$i
    for (( j = 0; j < 40000; j++ )); do
      dd if=/dev/zero of=$1/dir$i/$j bs=4k count=4 &>/dev/null
    done &
  done
}

# The writers run in their own process group so that they can all be
# stopped, whatever state sync leaves them in.
set -m
for dir in "$@"; do
  run_writers $dir
done
set +m

sleep "$secs"
if [ -n "$sync_cmd" ]; then
  result=$($sync_cmd)
else
  start=$(date +%s.%N)
  sync
  end=$(date +%s.%N)
  result="sync_seconds=$(echo "$end - $start" | bc)"
fi
kill $(jobs -p) 2>/dev/null
wait 2>/dev/null
echo "$result"
