#!/bin/sh
# bench/element.sh [BUILD] [RUNS] - what the library costs a hot loop
# annotated element by element (bench/element_loop.c: every call a
# region, every element read a trms_read), against the same program with
# its annotations compiled out (a header of empty static inline
# functions): the native baseline, never TRMS_OFF.
#
# One thread: TRMS_OFF=1, TRMS_ACTIVATION_SAMPLE=1000, TRMS_BUDGET=2 and
# every activation measured; two threads that hand each other blocks
# written element by element (trms_write), with TRMS_BUDGET=2 and fully
# measured.  Each round runs the native program and every variant, one
# after the other in an order that rotates, all pinned to one CPU (the
# two threads to two), costs in ns, default sampling.  Prints per variant
# the median ns per element, the median of its per-round ratios to the
# round's native run with their quartiles, and for the budgeted runs the
# library's share of the CPU time the profile reports and each region's
# growth class beside the full run's.  RUNS rounds (default 11).
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
cc -O2 -pthread -I"$here/../include" "$here/element_loop.c" \
	-o "$work/loop" -L"$libdir" -ltrms -Wl,-rpath,"$libdir" &&
	cc -O2 -pthread -DNATIVE "$here/element_loop.c" -o "$work/native" ||
	exit 2

one="taskset -c $(($(nproc) - 1))"
two="taskset -c 0,$(($(nproc) - 1))"
command -v taskset >/dev/null 2>&1 || one="" two=""
rounds1=${ELEMENT_ROUNDS:-30000}
rounds2=${ELEMENT_ROUNDS2:-20000}
# variant NAME: the command line and environment of NAME.
variant() {
	case $1 in
	native) echo "$one $work/native $rounds1 1" ;;
	off) echo "env TRMS_OFF=1 $one $work/loop $rounds1 1" ;;
	sample1000) echo "env TRMS_ACTIVATION_SAMPLE=1000 $one $work/loop $rounds1 1" ;;
	budget2) echo "env TRMS_BUDGET=2 $one $work/loop $rounds1 1" ;;
	full) echo "env $one $work/loop $((rounds1 / 10)) 1" ;;
	native2) echo "$two $work/native $rounds2 2" ;;
	budget2-2) echo "env TRMS_BUDGET=2 $two $work/loop $rounds2 2" ;;
	full-2) echo "env $two $work/loop $((rounds2 / 10)) 2" ;;
	esac
}
variants="native off sample1000 budget2 full native2 budget2-2 full-2"
echo "trms annotated loop: $(date '+%Y-%m-%d %H:%M:%S'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $runs rounds"
for round in $(seq 1 "$runs"); do
	# The order rotates: no variant always follows the same one.
	order=$(echo "$variants" | tr ' ' '\n' |
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
print("%-11s %10s %9s  %s" % ("variant", "ns/elem", "/native", "(quartiles)"))
for v in ["native", "off", "sample1000", "budget2", "full",
          "native2", "budget2-2", "full-2"]:
    base = ns["native2" if v in ("native2", "budget2-2", "full-2")
              else "native"]
    rounds = [r for r in ns[v] if r in base]
    lo, mid, hi = quart([ns[v][r] / base[r] for r in rounds])
    print("%-11s %10.3f %9.3f  (%.3f-%.3f)" %
          (v, statistics.median(ns[v].values()), mid, lo, hi))
EOF
for v in budget2 full budget2-2 full-2; do
	last=$(ls "$work/$v".*.trms 2>/dev/null | tail -n 1)
	[ -n "$last" ] || continue
	echo
	echo "$v: $(sed -n 's/^meta budget_percent /budget /p' "$last")"
	"$trms" report "$last" 2>/dev/null | sed -n '1,4p'
	"$trms" report "$last" 2>/dev/null | grep -i "profiler's own\|library" | head -n 2
done
