#!/bin/sh
# bench/versions.sh [BUILD] [REV] [ROUNDS] - the annotation API's hot paths
# with every activation measured (bench/hot_paths.c: a region's begin and
# end, a 4-byte read, a 4 KiB range read and write), this tree's library
# against the library of commit REV (default cec5caf, 2026-11-23), side by
# side in one run.
#
# REV's sources are taken with `git archive` into a scratch directory and
# its library built there (release); hot_paths.c is compiled twice, each
# time against that version's own header and linked with that version's
# library.  Every round runs both, one after the other in an order that
# alternates, pinned to one CPU (the same CPU for both: the vCPUs of a
# virtual machine may differ in speed), with costs in events and in ns;
# a case's ratio for a round is this tree's time over REV's.  Prints, per
# case and unit, the median time of each and the median of the per-round
# ratios with their first and third quartiles.  CPU=N picks the CPU
# (default: the last one).
set -u
build=${1:-build-release}
rev=${2:-cec5caf}
rounds=${3:-15}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
lib=$build/src/libtrms.so
[ -f "$lib" ] || {
	echo "versions.sh: build first: meson setup $build -Dbuildtype=release && ninja -C $build" >&2
	exit 2
}
lib=$(cd "$(dirname "$lib")" && pwd)/libtrms.so
work=$(mktemp -d "${TMPDIR:-/tmp}/trms-versions.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

echo "versions.sh: building $rev's library in $work/old" >&2
mkdir "$work/old" &&
	git -C "$top" archive "$rev" | tar -x -C "$work/old" || exit 2
(cd "$work/old" && meson setup b --buildtype=release -Dtests=false \
	-Dbench=false -Dexamples=false >"$work/old.log" 2>&1) || {
	tail "$work/old.log" >&2
	exit 2
}
target=$(ninja -C "$work/old/b" -t targets all |
	sed -n 's/^\(src\/libtrms\.so\.[0-9.]*\):.*/\1/p' | head -n 1)
ninja -C "$work/old/b" "$target" >>"$work/old.log" 2>&1 || {
	tail "$work/old.log" >&2
	exit 2
}
cc -O2 -I"$work/old/include" "$here/hot_paths.c" -o "$work/hot-old" \
	-L"$work/old/b/src" -ltrms -Wl,-rpath,"$work/old/b/src" &&
	cc -O2 -I"$top/include" "$here/hot_paths.c" -o "$work/hot-new" \
		-L"$(dirname "$lib")" -ltrms -Wl,-rpath,"$(dirname "$lib")" ||
	exit 2

cpu=${CPU:-$(($(nproc) - 1))}
pin=""
if command -v taskset >/dev/null 2>&1; then
	pin="taskset -c $cpu"
else
	echo "versions.sh: no taskset: runs are not pinned" >&2
fi
echo "trms hot paths, this tree against $rev: $(date '+%Y-%m-%d %H:%M:%S')"
echo "  $(nproc) CPUs, runs on CPU $cpu; load average $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds"

# run WHICH UNIT ROUND: one run, its lines prefixed.
run() {
	env -u TRMS_OFF TRMS_COST="$2" TRMS_SAMPLE_HZ=0 TRMS_OUTPUT="$work/out.trms" \
		$pin "$work/hot-$1" | sed "s/^/$1 $2 $3 /"
}

for round in $(seq 1 "$rounds"); do
	for unit in events ns; do
		if [ $((round % 2)) -eq 0 ]; then
			run old "$unit" "$round"
			run new "$unit" "$round"
		else
			run new "$unit" "$round"
			run old "$unit" "$round"
		fi
	done
done >"$work/times"

python3 - "$work/times" "$rev" <<'EOF'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    which, unit, rnd, case, ns = line.split()
    times.setdefault((unit, case), {}).setdefault(rnd, {})[which] = float(ns)
def quartiles(v):
    v = sorted(v)
    q = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
    return q[0], statistics.median(v), q[2]
print()
print("%-7s %-15s %10s %10s %8s  %s" % ("unit", "case", sys.argv[2] + " ns",
      "now ns", "now/old", "(quartiles)"))
for (unit, case), rounds in sorted(times.items()):
    pairs = [r for r in rounds.values() if "old" in r and "new" in r]
    old = statistics.median(r["old"] for r in pairs)
    new = statistics.median(r["new"] for r in pairs)
    lo, mid, hi = quartiles([r["new"] / r["old"] for r in pairs])
    print("%-7s %-15s %10.2f %10.2f %8.3f  (%.3f-%.3f)" %
          (unit, case, old, new, mid, lo, hi))
EOF
