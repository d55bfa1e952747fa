#!/bin/bash
# bench/threads/run.sh [BUILD_DIR] - does whole-program mode scale from
# one thread to two (issue 11: at least 1.8x)?  fill_sum.c (threads that
# fill and sum 64 KiB arrays of their own, 2,000 rounds split between
# them) built natively and with `trms cc --trms-full` by GCC and by Clang,
# run with one worker thread and with two, ROUNDS (default 7) interleaved
# rounds; costs in events, sampling off.  Prints, per build, the median
# wall time of the work with one thread and with two and the speed-up
# (median of each round's ratio), and checks that every run printed the
# same sum.  Needs both cores of the machine idle.
set -u
build=${1:-build-release}
rounds=${ROUNDS:-7}
here=$(cd "$(dirname "$0")" && pwd)
trms=$build/tools/trms
[ -x "$trms" ] || { echo "run.sh: no $trms: build first" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/trms-threads.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

builds="native"
cc -O2 -pthread -o "$work/native" "$here/fill_sum.c" || exit 1
for cc in gcc clang; do
	command -v $cc >/dev/null || continue
	TRMS_CC=$cc "$trms" cc --trms-full -O2 -pthread -o "$work/full-$cc" \
		"$here/fill_sum.c" || exit 1
	builds="$builds full-$cc"
done

echo "== one worker thread against two: fill_sum, 2000 rounds of 64 KiB"
echo "  date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
expected=
for r in $(seq "$rounds"); do
	for b in $builds; do
		for n in 1 2; do
			out=$(cd "$work" && TRMS_COST=events TRMS_SAMPLE_HZ=0 \
				TRMS_OUTPUT="$work/p.%p.trms" "./$b" $n 2000 \
				2>"$work/time") || { echo "run.sh: $b $n failed" >&2; exit 1; }
			[ -z "$expected" ] && expected=$out
			[ "$out" = "$expected" ] ||
				{ echo "run.sh: $b $n printed $out, not $expected" >&2; exit 1; }
			echo "$b $n $r $(cat "$work/time")" >>"$work/times"
			rm -f "$work"/p.*.trms
		done
	done
done
python3 - "$work/times" $builds <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    b, n, r, s = line.split()
    t[(b, int(n), int(r))] = float(s)
print("  %-12s %10s %10s %9s %14s" % ("build", "1 thread", "2 threads", "speed-up", "[min-max]"))
for b in sys.argv[2:]:
    rs = sorted({r for (x, n, r) in t if x == b})
    one = [t[(b, 1, r)] for r in rs]
    two = [t[(b, 2, r)] for r in rs]
    up = [t[(b, 1, r)] / t[(b, 2, r)] for r in rs]
    print("  %-12s %9.3fs %9.3fs %8.2fx    [%.2f-%.2f]" % (b, statistics.median(one),
          statistics.median(two), statistics.median(up), min(up), max(up)))
print("  target: at least 1.8x from one thread to two")
PY
