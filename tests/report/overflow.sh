#!/bin/sh
# overflow.sh TRMS WORKDIR - tuples combine by one rule in `trms report`
# and `trms merge` (tools/merge/merge_rules.c), and both refuse sums that
# do not fit in 64 bits instead of printing them wrapped: two profiles
# whose tuples of one region and size add up to more than 2^64 - 1, as
# files and within one file (two threads), get exit status 2 and one
# line naming the problem; the same profiles with sums that fit are
# reported and merged, with the sums added.  The same for the sums of
# the correction of costs (version 3: the library time taken out).
set -u
trms=$1 work=$2
. "$(dirname "$0")/../checks.sh"
fresh_dir "$work"

# profile FILE SUM THREADS [LIBRARY]: one tuple of region "r" per thread,
# of cost sum SUM (count 1, so min = max = sum); with LIBRARY, a version 3
# profile whose tuples had LIBRARY ns of the library's time taken out
# (all of it estimated).
profile() {
	{
		if [ -n "${4:-}" ]; then
			echo "trms-profile 3"
			echo "meta cost ns"
			correction=" 1 $4 $4"
		else
			echo "trms-profile 1"
			echo "meta cost events"
			correction=
		fi
		echo "region 0 r"
		t=0
		while [ "$t" -lt "$3" ]; do
			echo "thread $t"
			t=$((t + 1))
		done
		t=0
		while [ "$t" -lt "$3" ]; do
			echo "tuple 0 $t trms 5 1 $2 $2 $2 $2 0 0$correction"
			t=$((t + 1))
		done
		echo "end $3"
	} >"$1"
}

# refused WHAT COMMAND...: exit status 2, one line on stderr saying the
# sums do not fit, nothing on stdout.
refused() {
	what=$1
	shift
	status=0
	"$@" >"$work/out" 2>"$work/err" || status=$?
	if [ "$status" -ne 2 ]; then
		fail "$what: exit status $status, not 2"
	elif [ -s "$work/out" ]; then
		fail "$what: printed $(head -c 200 "$work/out")"
	elif [ "$(wc -l <"$work/err")" -ne 1 ] ||
	     ! grep -q "more than 64 bits" "$work/err"; then
		fail "$what: stderr '$(cat "$work/err")'"
	fi
}

big=18446744073709551000 # 2^64 - 616: two of them do not fit
profile "$work/a.trms" "$big" 1
profile "$work/b.trms" "$big" 1
profile "$work/two-threads.trms" "$big" 2
refused "report of two files" "$trms" report --tuples "$work/a.trms" "$work/b.trms"
refused "report of two threads" "$trms" report "$work/two-threads.trms"
refused "merge of two files" "$trms" merge -o "$work/m.trms" "$work/a.trms" "$work/b.trms"
[ -e "$work/m.trms" ] && fail "merge wrote $work/m.trms"

# Sums that fit: added.
profile "$work/c.trms" 1000 1
profile "$work/d.trms" 2000 1
if ! "$trms" report --tuples "$work/c.trms" "$work/d.trms" >"$work/out" 2>"$work/err"; then
	fail "report of sums that fit: $(cat "$work/err")"
elif ! grep -q "^r	0	trms	5	2	1000	2000	3000	3000	0	0$" "$work/out"; then
	fail "report of sums that fit: $(cat "$work/out")"
fi
if ! "$trms" merge -o "$work/cd.trms" "$work/c.trms" "$work/d.trms" 2>"$work/err"; then
	fail "merge of sums that fit: $(cat "$work/err")"
elif ! grep -q "^tuple 0 0 trms 5 2 1000 2000 3000 3000 0 0$" "$work/cd.trms"; then
	fail "merge of sums that fit: $(grep tuple "$work/cd.trms")"
fi

# The correction's sums past 64 bits, costs that fit.
profile "$work/e.trms" 1000 1 "$big"
profile "$work/f.trms" 2000 1 "$big"
refused "report of two files' library time" "$trms" report "$work/e.trms" "$work/f.trms"
refused "merge of two files' library time" "$trms" merge -o "$work/ef.trms" "$work/e.trms" "$work/f.trms"
[ -e "$work/ef.trms" ] && fail "merge wrote $work/ef.trms"
profile "$work/g.trms" 1000 1 4000
profile "$work/h.trms" 2000 1 6000
if ! "$trms" merge -o "$work/gh.trms" "$work/g.trms" "$work/h.trms" 2>"$work/err"; then
	fail "merge of library time that fits: $(cat "$work/err")"
elif ! grep -q "^tuple 0 0 trms 5 2 1000 2000 3000 3000 0 0 2 10000 10000$" "$work/gh.trms" ||
     [ "$(head -n 1 "$work/gh.trms")" != "trms-profile 3" ]; then
	fail "merge of library time that fits: $(cat "$work/gh.trms")"
fi

finish overflow
