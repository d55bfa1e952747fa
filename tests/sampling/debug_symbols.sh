#!/bin/sh
# debug_symbols.sh TRMS PROGRAM WORK - frames inside the C library, which
# is stripped (no .symtab), are named from its debug file found by build
# id under /usr/lib/debug/.build-id/ (libc6-dbg, which the tests'
# dependencies install): PROGRAM (sm_qsort.c) spends its time in qsort's
# internal merge sort; the profile the library writes names it, and
# `trms report --folded` shows it.  And frames in the vDSO (PROGRAM's
# clock_gettime loop), which has no file, are named by trms report from
# its own vDSO: no linux-vdso.so.1+0xOFFSET is left.
set -eu
trms=$1 program=$2 work=$3
libc=$(ldd "$program" | sed -n 's/.*libc\.so\.6 => \([^ ]*\) .*/\1/p')
[ -n "$libc" ] || { echo "no libc.so.6 in ldd $program"; exit 1; }
if readelf -SW "$libc" | grep -q '\.symtab'; then
	echo "$libc has a .symtab: nothing for its debug file to add"
	exit 1
fi
id=$(readelf -n "$libc" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
debug=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
[ -f "$debug" ] || {
	echo "no debug file $debug for $libc: install libc6-dbg (scripts/install-deps --tests)"
	exit 1
}
rm -rf "$work"
mkdir -p "$work"
"$trms" run -F 2000 -o "$work/" -- "$program" 2>"$work/run.log" ||
	{ cat "$work/run.log"; exit 1; }
profile=$(ls "$work"/*.trms)
# The library named the frame when it wrote the profile ...
grep -q '^symbol .*msort_with_tmp' "$profile" || {
	echo "$profile: no symbol line names msort_with_tmp:"
	grep '^symbol' "$profile" | head
	exit 1
}
# ... and the report shows it.
"$trms" report --folded "$profile" >"$work/folded"
grep -q 'qsort[^;]*;msort_with_tmp' "$work/folded" || {
	echo "trms report --folded has no qsort;msort_with_tmp:"
	head "$work/folded"
	exit 1
}
if grep -q 'linux-vdso\.so\.1+' "$work/folded"; then
	echo "vDSO frames left unnamed:"
	grep 'linux-vdso' "$work/folded" | head -3
	exit 1
fi
grep -q 'main;clock_gettime;' "$work/folded" || {
	echo "no samples in clock_gettime's vDSO code (main;clock_gettime;...):"
	grep clock_gettime "$work/folded" | head -3
	exit 1
}
echo "C library frames named from $debug: $(grep -c msort_with_tmp "$work/folded") stacks in msort_with_tmp"
