#!/bin/sh
# bench/element.sh [BUILD] [RUNS] - what the library costs a hot loop
# annotated element by element (bench/element_loop.c: every call a
# region, every element read a trms_read), against the same program with
# its annotations compiled out (a header of empty static inline
# functions): the native baseline, never TRMS_OFF.
#
# Two loops, a light one (under a nanosecond an element) and one of a few
# nanoseconds an element, each with TRMS_OFF=1, TRMS_ACTIVATION_SAMPLE=1000,
# TRMS_BUDGET=2 and every activation measured, and built against
# bench/element_standin.h (a thread-local flag tested inline before a call
# never made: the least any inline check costs on this machine, the floor
# of "off").  Then, on two threads that hand each other blocks written
# element by element (trms_write), with TRMS_BUDGET=2 and fully measured:
# the second loop, and a loop over records of 256 words read (and
# written) with one call each (r), with enough work a record (about 45 ns)
# that the full run's costs in ns are resolved (every call timed exactly,
# docs/cost.md): the budgeted run's growth classes can be held against
# the full run's.  Each round runs
# every variant and the natives, one after the other in an order that
# rotates, pinned to one CPU (the two threads to two), costs in ns,
# default sampling.  Prints per variant the median ns per element and the
# median of its per-round ratios to the round's native run with their
# quartiles; then, for the budgeted and full runs of the two-thread
# loops, the report's first lines (growth classes) and the library's
# share.  RUNS rounds (default 11); ELEMENT_ROUNDS calls per run (default
# 200000: 0.1 to 1 s, so that what the library pays once at its start,
# 0.3 to 1 ms, is not what is measured; ELEMENT_R_ROUNDS for the records,
# default 100000);
# ELEMENT_CC the compiler and its optimisation (default "cc -O2"; all
# builds get it: "clang -O2" and "cc -O3" keep the gate's flag in a
# register or out of the loop).
set -u
build=${1:-build-release}
runs=${2:-11}
here=$(cd "$(dirname "$0")" && pwd)
lib=$build/src/libtrms.so
trms=$build/tools/trms
[ -f "$lib" ] && [ -x "$trms" ] || {
	echo "element.sh: build first: meson setup $build -Dbuildtype=release && ninja -C $build" >&2
	exit 2
}
libdir=$(cd "$(dirname "$lib")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/trms-element.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
# Two loops: a light one (a few instructions an element, under a
# nanosecond: WORK=0) and one with 8 more multiply-xor steps an element
# (WORK=8, a few nanoseconds).  Loops aligned alike in both builds
# (-falign-loops=64): where a loop of a few instructions happens to fall
# against the CPU's fetch boundaries moves its time by a third, either
# way, which would be put down to the annotations.
compile=${ELEMENT_CC:-cc -O2}
$compile -fPIC -shared "$here/element_standin.c" -o "$work/libstandin.so" || exit 2
# The loops: 0 and 8 as above, r the records of 256 words with 32 more
# steps each (-DCELLS=256 -DWORK=32: about 45 ns a record).
for spec in "0 -DWORK=0" "8 -DWORK=8" "r -DWORK=32 -DCELLS=256"; do
	w=${spec%% *}
	flags="-falign-loops=64 -pthread ${spec#* }"
	$compile $flags -I"$here/../include" "$here/element_loop.c" \
		-o "$work/loop$w" -L"$libdir" -ltrms -Wl,-rpath,"$libdir" &&
		$compile $flags -DNATIVE "$here/element_loop.c" \
			-o "$work/native$w" &&
		$compile $flags -DSTANDIN -I"$here" "$here/element_loop.c" \
			-o "$work/standin$w" -L"$work" -lstandin \
			-Wl,-rpath,"$work" || exit 2
done

one="taskset -c $(($(nproc) - 1))"
two="taskset -c 0,$(($(nproc) - 1))"
command -v taskset >/dev/null 2>&1 || one="" two=""
rounds=${ELEMENT_ROUNDS:-200000}
# variant NAME: the command line and environment of NAME (LOOP-MODE,
# "-2" for two threads).
variant() {
	w=${1%%-*}
	mode=${1#*-}
	threads=1 pin=$one n=$rounds
	# The budget measures a few activations a second: the records'
	# runs are long enough (about 2 s) for a class at every size.
	[ "$w" = r ] && n=${ELEMENT_R_ROUNDS:-100000}
	case $mode in *-2) threads=2 pin=$two mode=${mode%-2} ;; esac
	case $mode in
	native) echo "$pin $work/native$w $n $threads" ;;
	standin) echo "$pin $work/standin$w $n $threads" ;;
	off) echo "env TRMS_OFF=1 $pin $work/loop$w $n $threads" ;;
	sample1000) echo "env TRMS_ACTIVATION_SAMPLE=1000 $pin $work/loop$w $n $threads" ;;
	budget2) echo "env TRMS_BUDGET=2 $pin $work/loop$w $n $threads" ;;
	full) echo "env $pin $work/loop$w $((n / 10)) $threads" ;;
	esac
}
variants="0-native 0-standin 0-off 0-sample1000 0-budget2 0-full
8-native 8-standin 8-off 8-sample1000 8-budget2 8-full
8-native-2 8-budget2-2 8-full-2
r-native-2 r-budget2-2 r-full-2"
echo "trms annotated loop: $(date '+%Y-%m-%d %H:%M:%S'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $runs rounds, $compile"
for round in $(seq 1 "$runs"); do
	# The order rotates: no variant always follows the same one.
	order=$(echo $variants | tr ' ' '\n' |
		awk -v r="$round" '{ v[NR] = $0 }
			END { for (i = 0; i < NR; i++) print v[(i + r) % NR + 1] }')
	for v in $order; do
		out=$(TRMS_OUTPUT="$work/$v.$round.trms" $(variant "$v")) || {
			echo "element.sh: $v failed" >&2
			exit 1
		}
		echo "$round $v $out"
	done
done >"$work/times"

python3 - "$work/times" <<'EOF'
import statistics, sys
ns = {}
for line in open(sys.argv[1]):
    rnd, v, t, _ = line.split()
    ns.setdefault(v, {})[rnd] = float(t)
def quart(v):
    v = sorted(v)
    if len(v) < 2:
        return v[0], v[0], v[0]
    q = statistics.quantiles(v, n=4)
    return q[0], statistics.median(v), q[2]
print()
print("%-14s %10s %9s  %s" % ("loop-variant", "ns/elem", "/native", "(quartiles)"))
for v in sorted(ns, key=lambda k: (k.split("-")[0], k.endswith("-2"),
                                   "native" not in k, k)):
    w = v.split("-")[0]
    base = ns[w + ("-native-2" if v.endswith("-2") else "-native")]
    rounds = [r for r in ns[v] if r in base]
    lo, mid, hi = quart([ns[v][r] / base[r] for r in rounds])
    print("%-14s %10.3f %9.3f  (%.3f-%.3f)" %
          (v, statistics.median(ns[v].values()), mid, lo, hi))
EOF
# The budgeted runs against the full ones: the growth class each region
# gets and the library's share (from the last round's profiles).
for v in 8-budget2 8-full 8-budget2-2 8-full-2 r-budget2-2 r-full-2; do
	last=$(ls "$work/$v".*.trms 2>/dev/null | tail -n 1)
	[ -n "$last" ] || continue
	echo
	echo "$v:"
	"$trms" report "$last" 2>/dev/null | sed -n '1,3p'
	"$trms" report "$last" 2>/dev/null | grep "metered time" | head -n 1
done
