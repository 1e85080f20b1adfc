#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: the test command (make check).  Builds the vanilla and patched
# kernels, tests the lab on the host, boots each kernel with the selftests
# and sums every TAP result into one closing line.  Exit 1 on any failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out=$WBSYNC_TOP/output/check
rm -rf "$out"
mkdir -p "$out"
"$WBSYNC_TOP/scripts/deps.sh" || die "installing dependencies failed"

# Host-side results of the build steps, as TAP.
build_results=()
result()
{
	build_results+=("$1|$2")
}

ksrc=$("$WBSYNC_TOP/scripts/prepare-tree.sh" --vanilla) || die "no base tree"
if "$WBSYNC_TOP/scripts/prepare-tree.sh" >/dev/null; then
	result ok "series applies to the base"
else
	result "not ok" "series applies to the base"
fi

declare -A kdir
for k in vanilla patched; do
	if kdir[$k]=$("$WBSYNC_TOP/scripts/build-kernel.sh" "$k"); then
		result ok "$k kernel builds"
	else
		result "not ok" "$k kernel builds"
		kdir[$k]=
	fi
done

# The module, built as users build it (make -C KDIR M=...), in a copy so
# that two kernels' objects do not mix.
for k in vanilla patched; do
	m=$WBSYNC_TOP/output/module-$k
	rm -rf "$m"
	mkdir -p "$m"
	cp "$WBSYNC_TOP/Kbuild" "$m/"
	rsync -a --exclude '*.o' --exclude '*.ko' --exclude '*.mod*' --exclude '.*.cmd' \
		--exclude modules.order "$WBSYNC_TOP/module" "$m/"
	if [ -n "${kdir[$k]}" ] && make -C "${kdir[$k]}" M="$m" W=1 >"$m/build.log" 2>&1 &&
	   ! grep -q 'warning:' "$m/build.log"; then
		result ok "module builds against $k without warnings"
	else
		cat "$m/build.log" >&2
		result "not ok" "module builds against $k without warnings"
	fi
done

mkdir -p "$WBSYNC_TOP/output/selftests"
if make -C "$WBSYNC_TOP/selftests" KSRC="$ksrc" OUTPUT="$WBSYNC_TOP/output/selftests" \
	>"$out/selftests-build.log" 2>&1; then
	result ok "selftests build"
else
	cat "$out/selftests-build.log" >&2
	result "not ok" "selftests build"
fi

{
	echo "TAP version 13"
	echo "1..${#build_results[@]}"
	n=0
	for r in "${build_results[@]}"; do
		n=$((n + 1))
		echo "${r%%|*} $n ${r#*|}"
	done
} >"$out/build.tap"
cat "$out/build.tap"

if [ -n "${kdir[vanilla]}" ]; then
	log "testing the lab (scripts/tests/lab_test.sh)"
	KSRC=$ksrc KERNEL=${kdir[vanilla]} "$WBSYNC_TOP/scripts/tests/lab_test.sh" | tee "$out/lab_test.tap"
fi

for k in vanilla patched; do
	[ -n "${kdir[$k]}" ] || continue
	log "selftests in a $k guest"
	"$WBSYNC_TOP/scripts/vm-run" --kernel "${kdir[$k]}" --out "$out/$k" \
		--disks 2 --disk-size 1G --profile hdd --timeout 900 -- \
		env KSRC="$ksrc" WBSYNC_MODULE="$WBSYNC_TOP/output/module-$k/module/wbsync.ko" \
		"$WBSYNC_TOP/scripts/guest-tests" "$WBSYNC_TOP/output/selftests/smoke_test" \
		"$WBSYNC_TOP/selftests/module_test.sh"
	echo "vm-run exit status $?" >"$out/$k/vm-run.status"
	# A guest that failed without TAP (kernel report, timeout) still counts.
	if ! grep -q 'exit status 0' "$out/$k/vm-run.status"; then
		printf 'TAP version 13\n1..1\nnot ok 1 %s guest run (%s)\n' "$k" \
			"$(cat "$out/$k/vm-run.status")" >"$out/$k/guest.tap"
	fi
done

echo
"$WBSYNC_TOP/scripts/tap-summary" $(find "$out" -name '*.tap' | sort)
