#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fstests.sh [-f FS[,FS]] [-k KERNEL[,KERNEL]] [-j GUESTS] [-o OUTDIR]
#            [-T SECONDS] [--report] [-h] [-l LIST | TEST...]
#
# fstests (xfstests) on the vanilla and the patched kernel, the same tests
# on both: one guest per kernel and filesystem runs selftests/fstests/run.sh
# with TEST_DEV, SCRATCH_DEV and LOGWRITES_DEV (dm-log-writes' log, for
# generic/455 and generic/482) on three unthrottled (sparse) 12G virtio
# disks.
#   -f  filesystems (default ext4,xfs)
#   -k  kernels (default vanilla,patched)
#   -j  guests at a time (default 1)
#   -o  results directory (default output/fstests)
#   -T  seconds a test may take before its guest is stopped (default 300,
#       900 under WBSYNC_VARIANT=debug; generic/455 and 482 replay a log
#       with an fsck at each mark and take longer under TCG)
#   --report  no runs: the report of the results in output/fstests (of a
#       run that was stopped, say)
#   -l  list file, one test a line, "#" comments (default
#       selftests/fstests/sync.list); ext4/ and xfs/ tests run on that
#       filesystem only
#   TEST...  these tests instead of a list, as for fstests' ./check, e.g.
#       generic/048 xfs/104
# The source is XFSTESTS_DIR (a work tree, whose HEAD commit is built, or
# a git directory, cloned into $WBSYNC_CACHE/xfstests-src), else that clone,
# else a fresh clone of upstream.  It is built in
# $WBSYNC_CACHE/xfstests/build-COMMIT, once per commit.
# The report, test x (filesystem, kernel), is output/fstests/report.md;
# the exit status is 1 if a test fails on patched and not on vanilla, or
# if a run did not give every test a result.  The kernels are those of
# $WBSYNC_VARIANT (WBSYNC_VARIANT=debug: lockdep, KASAN, kmemleak).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

UPSTREAM=git://git.kernel.org/pub/scm/fs/xfs/xfstests-dev.git
USAGE="usage: fstests.sh [-f FS[,FS]] [-k KERNEL[,KERNEL]] [-j GUESTS] [-o OUTDIR] [-T SECONDS] [--report] [-h] [-l LIST | TEST...]"
bad()
{
	echo "${0##*/}: $*" >&2
	exit 2
}
fss=ext4,xfs kernels=vanilla,patched list= tests=() jobs=1 report_only=0 per_test=
top=$WBSYNC_TOP/output/fstests
while [ $# -gt 0 ]; do
	case $1 in
	-f | -k | -j | -o | -l | -T) [ $# -ge 2 ] || bad "$1 needs an argument; $USAGE" ;;&
	-f) fss=$2 ;;
	-k) kernels=$2 ;;
	-j) jobs=$2 ;;
	-o) top=$2 ;;
	-l) list=$2 ;;
	-T) per_test=$2 ;;
	--report) report_only=1; shift; continue ;;
	-h | --help) lab_help ;;
	-*) bad "unknown option '$1'; $USAGE" ;;
	*) tests+=("$1"); shift; continue ;;
	esac
	shift 2
done
[ -z "$list" ] || [ ${#tests[@]} = 0 ] || bad "-l and TEST arguments exclude each other"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || bad "-j needs a number of guests, not '$jobs'"
[[ $per_test =~ ^([1-9][0-9]*)?$ ]] || bad "-T needs a number of seconds, not '$per_test'"
IFS=", " read -ra fss <<<"$fss"
IFS=", " read -ra kernels <<<"$kernels"
[ ${#fss[@]} -gt 0 ] && [ ${#kernels[@]} -gt 0 ] || bad "-f and -k need at least one name"
for fs in "${fss[@]}"; do
	case $fs in
	ext4) mkfs=mkfs.ext4 pkg=e2fsprogs ;;
	xfs) mkfs=mkfs.xfs pkg=xfsprogs ;;
	*) bad "unknown filesystem '$fs' (ext4, xfs)" ;;
	esac
	command -v "$mkfs" >/dev/null || die "$mkfs is missing: install $pkg (make deps)"
done
for k in "${kernels[@]}"; do
	case $k in vanilla | patched) ;; *) bad "unknown kernel '$k' (vanilla, patched)" ;; esac
done
if [ ${#tests[@]} = 0 ]; then
	list=${list:-$WBSYNC_TOP/selftests/fstests/sync.list}
	[ -f "$list" ] || bad "no list file '$list'"
	mapfile -t tests < <(sed -e 's/#.*//' "$list" | tr -s ' \t' '\n\n' | grep -v '^$')
	[ ${#tests[@]} -gt 0 ] || bad "no tests in $list"
fi
if [ "$report_only" = 1 ]; then
	commit=$(cat "$top/commit" 2>/dev/null) || die "no results in $top"
else
	for t in xfs_io autoconf libtoolize make gcc; do
		command -v "$t" >/dev/null || die "$t is missing (make deps)"
	done

	# The source: a git repository and the commit to build.
	src=$WBSYNC_CACHE/xfstests-src
	if [ -n "${XFSTESTS_DIR:-}" ]; then
		[ -d "$XFSTESTS_DIR" ] || bad "XFSTESTS_DIR=$XFSTESTS_DIR is not a directory"
		if [ "$(git -C "$XFSTESTS_DIR" rev-parse --is-bare-repository 2>/dev/null)" = true ]; then
			# A git directory has no tree to build: keep a clone of it.
			[ -d "$src/.git" ] || git clone -q --no-checkout "$XFSTESTS_DIR" "$src" ||
				die "cannot clone $XFSTESTS_DIR into $src"
			git -C "$src" fetch -q "$XFSTESTS_DIR" HEAD || die "cannot fetch HEAD of $XFSTESTS_DIR"
			repo=$src commit=$(git -C "$src" rev-parse FETCH_HEAD)
		elif [ -f "$XFSTESTS_DIR/check" ] && git -C "$XFSTESTS_DIR" rev-parse -q --verify HEAD >/dev/null; then
			# A work tree: its HEAD commit (local changes are not built).
			repo=$XFSTESTS_DIR commit=$(git -C "$XFSTESTS_DIR" rev-parse HEAD)
		else
			bad "XFSTESTS_DIR=$XFSTESTS_DIR is neither an fstests git work tree nor a git directory"
		fi
	else
		if [ ! -d "$src/.git" ]; then
			log "cloning $UPSTREAM"
			rm -rf "$src.tmp"
			git clone -q "$UPSTREAM" "$src.tmp" 2>/dev/null || {
				rm -rf "$src.tmp"
				die "cannot clone $UPSTREAM (no network?): set XFSTESTS_DIR to an fstests checkout"
			}
			mv "$src.tmp" "$src"
		fi
		repo=$src commit=$(git -C "$src" rev-parse HEAD)
	fi

	# Unknown tests stop the run before anything is built or booted.
	mapfile -t known < <(git -C "$repo" ls-tree -r --name-only "$commit" tests/ |
		sed -n 's,^tests/\([a-z0-9]*/[0-9][0-9]*\)$,\1,p')
	unknown=$(printf '%s\n' "${tests[@]}" | grep -vxF -f <(printf '%s\n' "${known[@]}") | paste -sd' ' -) || true
	[ -z "$unknown" ] || bad "unknown test(s) in fstests ${commit:0:12}: $unknown"

	build=$WBSYNC_CACHE/xfstests/build-${commit:0:12}
	mkdir -p "${build%/*}"
	exec 9>"$build.lock"
	flock 9
	if [ ! -f "$build/.built" ]; then
		log "building fstests ${commit:0:12} in $build"
		rm -rf "$build"
		mkdir -p "$build"
		git -C "$repo" archive "$commit" | tar -x -C "$build"
		make -C "$build" -j"$WBSYNC_JOBS" >"$build.log" 2>&1 ||
			die "building fstests failed (log: $build.log)"
		touch "$build/.built"
	fi
	exec 9>&-

	mkdir -p "$top"
	echo "$commit" >"$top/commit"
	declare -A kdir
	if [ -z "$per_test" ]; then
		per_test=300
		[ "${WBSYNC_VARIANT:-default}" != debug ] || per_test=900
	fi
	for k in "${kernels[@]}"; do
		kdir[$k]=$("$WBSYNC_TOP/scripts/build-kernel.sh" "$k") || die "building the $k kernel failed"
	done

	# One guest: KERNEL FS.  The tests of another filesystem's directory are
	# left out.  A guest that hung in boot (125) is booted once more
	# (vm_run).
	run_one()
	{
		local k=$1 fs=$2 out=$top/$1-$2 t sel=() rc start

		for t in "${tests[@]}"; do
			case ${t%%/*} in generic | "$fs") sel+=("$t") ;; esac
		done
		rm -rf "$out" "$out.log"
		[ ${#sel[@]} -gt 0 ] || return 0
		start=$SECONDS
		rc=0
		# 12G disks: some tests want 10 GB free on SCRATCH (sparse
		# images).  About 5 min a test at most under TCG, three times
		# that under lockdep and KASAN (generic/311 alone: 25-40 min).
		vm_run --kernel "${kdir[$k]}" --accel tcg --disks 3 \
			--disk-size 12G --profile none --timeout $((900 + per_test * ${#sel[@]})) \
			--quiet --out "$out" -- "$WBSYNC_TOP/selftests/fstests/run.sh" \
			"$fs" "$build" "${sel[@]}" >>"$out.log" 2>&1 || rc=$?
		echo "$rc $((SECONDS - start))" >"$out.status"
		log "$k $fs: exit status $rc after $((SECONDS - start)) s (log: $out.log)"
	}

	log "fstests ${commit:0:12}: ${#tests[@]} tests on ${fss[*]} x ${kernels[*]}, $jobs guest(s) at a time"
	n=0
	for k in "${kernels[@]}"; do
		for fs in "${fss[@]}"; do
			log "$k $fs: starting (results: $top/$k-$fs/results)"
			run_one "$k" "$fs" &
			n=$((n + 1))
			if [ "$n" -ge "$jobs" ]; then
				wait -n || true
				n=$((n - 1))
			fi
		done
	done
	wait
fi

# Result of each test in each run, as "TEST COLUMN STATUS SECONDS MESSAGE",
# from fstests' xunit report (partial.xml: a run that was stopped).
results()
{
	local k fs out x t sel

	for fs in "${fss[@]}"; do
		for k in "${kernels[@]}"; do
			out=$top/$k-$fs/results
			x=$out/result.xml
			[ -f "$x" ] || x=$out/partial.xml
			[ -f "$x" ] || x=/dev/null
			sel=
			for t in "${tests[@]}"; do
				case ${t%%/*} in generic | "$fs") sel+=" $t" ;; esac
			done
			awk -v col="$fs-$k" -v sel="$sel" '
			function attr(a,   s) {
				s = $0
				if (!sub(".* " a "=\"", "", s)) return ""
				sub(/".*/, "", s)
				return s
			}
			/^\t<testcase / { cur = attr("name"); secs = attr("time"); st = "pass"; msg = "" }
			/^\t\t<failure / { st = "fail"; msg = attr("message") }
			/^\t\t<skipped/ { st = "notrun"; msg = attr("message") }
			/^\t<\/testcase>/ && cur != "" { S[cur] = st; T[cur] = secs; M[cur] = msg; cur = "" }
			END {
				n = split(sel, t, " ")
				for (i = 1; i <= n; i++)
					if (t[i] in S) print t[i], col, S[t[i]], T[t[i]], M[t[i]]
					else print t[i], col, "none", "-"
			}' "$x"
		done
	done
}

results >"$top/results.txt"
cols=()
for fs in "${fss[@]}"; do
	for k in "${kernels[@]}"; do
		[ -d "$top/$k-$fs" ] && cols+=("$fs-$k")
	done
done
{
	echo "# fstests, vanilla and patched"
	echo
	echo "fstests $commit, $(date -u '+%Y-%m-%d %H:%M UTC'), ${#tests[@]} tests."
	echo
	echo "| run | pass | fail | not run | no result | guest exit | wall time |"
	echo "|---|---|---|---|---|---|---|"
	for c in "${cols[@]}"; do
		# No status: the run is going on, or was stopped.
		read -r rc secs 2>/dev/null <"$top/${c#*-}-${c%%-*}.status" || rc=- secs=0
		awk -v c="$c" -v rc="$rc" -v secs="$secs" '$2 == c { n[$3]++ }
		END { printf "| %s | %d | %d | %d | %d | %s | %d min |\n", c, n["pass"],
			n["fail"] + n["timeout"], n["notrun"], n["none"], rc, secs / 60 }' "$top/results.txt"
	done
	echo
	printf '| test |'
	printf ' %s |' "${cols[@]}"
	printf '\n|---|'
	printf -- '---|%.0s' "${cols[@]}"
	echo
	awk -v cols="${cols[*]}" '
	{ if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
	  s[$1, $2] = $3 == "notrun" ? "not run" : $3 == "none" ? "no result" : $3 " " $4 "s" }
	END {
		nc = split(cols, col, " ")
		for (i = 1; i <= n; i++) {
			line = "| " order[i]
			for (j = 1; j <= nc; j++)
				line = line " | " ((order[i], col[j]) in s ? s[order[i], col[j]] : "-")
			print line " |"
		}
	}' "$top/results.txt"
	echo
	echo "Failing on patched and not on vanilla:"
	awk '{ split($2, c, "-"); st[$1, c[1], c[2]] = $3; fs[c[1]] = 1; t[$1] = 1 }
	END {
		for (x in t) for (f in fs)
			if ((st[x, f, "patched"] == "fail" || st[x, f, "patched"] == "timeout") &&
			    (st[x, f, "vanilla"] == "pass" || st[x, f, "vanilla"] == "notrun"))
				print "- " x " on " f
	}' "$top/results.txt" | sort | tee "$top/regressions" | grep . || echo "none"
	echo
	echo "All failures (vanilla too):"
	awk '$3 == "fail" || $3 == "timeout" { m = ""; for (i = 5; i <= NF; i++) m = m " " $i
		print "- " $1 " on " $2 ": " $3 m }' "$top/results.txt" | grep . || echo "none"
	echo
	echo "Not run, why (first run that has the test):"
	awk '$3 == "notrun" && !($1 in seen) { seen[$1] = 1; m = ""
		for (i = 5; i <= NF; i++) m = m " " $i; print "- " $1 ":" m }' "$top/results.txt"
} >"$top/report.md"
cat "$top/report.md"
[ -s "$top/regressions" ] && exit 1
if awk '$3 == "none" { f = 1 } END { exit !f }' "$top/results.txt"; then
	log "some tests have no result (see the guests' logs in $top)"
	exit 1
fi
exit 0
