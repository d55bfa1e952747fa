#!/bin/bash
# bench/instrumentation/run.sh - what compiler instrumentation costs before
# the engine does anything (issue 11): the same program built natively and
# with each way a compiler can report function entries and exits and
# memory accesses, its callbacks (hooks.c) either empty or doing the least
# work the engine's fast path needs (a stamp looked up and compared).
#
#   bench/instrumentation/run.sh [N]     # N ints to sort, default 10000000
#
# With TRMS_BUILD=DIR (a build directory of trms, release), also the
# whole-program modes as they are: the program built by DIR's `trms cc
# --trms-functions` (functions only, GCC) and `trms cc --trms-full` (GCC
# and Clang), run
# with costs in ns and in events (the profiles go to the temporary
# directory).
#
# ROUNDS (default 5) rounds, each running every build once, in an order
# rotated from round to round; a build's figure is the median over rounds
# of its CPU time (user + system), its ratio the median of each round's
# ratio to the native build of the same compiler.  Every build's output
# must equal the native one's.  Builds go to a temporary directory,
# removed at the end.  Needs gcc and clang.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
n=${1:-10000000}
rounds=${ROUNDS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/trms-instr.XXXXXX")
trap 'rm -rf "$work"' EXIT

kasan_gcc="-fsanitize=kernel-address --param asan-instrumentation-with-call-threshold=0 --param asan-stack=0 --param asan-globals=0"
kasan_clang="-fsanitize=kernel-address -mllvm -asan-instrumentation-with-call-threshold=0 -mllvm -asan-stack=0 -mllvm -asan-globals=0"
cov_clang="-fsanitize-coverage=trace-pc-guard,trace-loads,trace-stores"

build() { # NAME COMPILER HOOKS(empty|work) FLAGS...
	local name=$1 cc=$2 hooks=$3
	shift 3
	local lib=hooks-$cc-$hooks
	if [ ! -e "$work/lib$lib.so" ]; then
		local def=
		[ "$hooks" = work ] && def=-DWORK
		$cc -O2 -fPIC -shared $def "$here/hooks.c" -o "$work/lib$lib.so"
	fi
	$cc -O2 "$@" "$here/sort.c" -o "$work/$name" -L"$work" -l"$lib" \
		-Wl,-rpath,"$work"
	echo "$name $cc" >>"$work/builds"
}

build gcc-native gcc empty
build gcc-functions gcc empty -finstrument-functions
build gcc-kasan-calls gcc empty $kasan_gcc
build gcc-functions+kasan-work gcc work -finstrument-functions $kasan_gcc
build clang-native clang empty
build clang-functions clang empty -finstrument-functions
build clang-kasan-calls clang empty $kasan_clang
build clang-coverage-calls clang empty $cov_clang
build clang-functions+kasan-work clang work -finstrument-functions $kasan_clang

if [ -n "${TRMS_BUILD:-}" ]; then
	TRMS_CC=gcc "$TRMS_BUILD/tools/trms" cc --trms-functions -O2 "$here/sort.c" \
		-o "$work/gcc-trms-cc"
	TRMS_CC=gcc "$TRMS_BUILD/tools/trms" cc --trms-full -O2 \
		"$here/sort.c" -o "$work/gcc-trms-cc-full"
	TRMS_CC=clang "$TRMS_BUILD/tools/trms" cc --trms-full -O2 \
		"$here/sort.c" -o "$work/clang-trms-cc-full"
	for cost in ns events; do
		echo "gcc-trms-cc gcc TRMS_COST=$cost" >>"$work/builds"
		echo "gcc-trms-cc-full gcc TRMS_COST=$cost" >>"$work/builds"
		echo "clang-trms-cc-full clang TRMS_COST=$cost" >>"$work/builds"
	done
fi

python3 - "$work" "$n" "$rounds" <<'PY'
import os, resource, statistics, subprocess, sys
work, n, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
# NAME COMPILER [VAR=VALUE...]: a build, and the settings it runs with.
builds = []
for line in open(os.path.join(work, "builds")):
    f = line.split()
    label = f[0] + "".join(" " + v.split("=", 1)[1] for v in f[2:])
    builds.append((label, f[0], f[1], dict(v.split("=", 1) for v in f[2:])))
times = {b[0]: [] for b in builds}
ratios = {b[0]: [] for b in builds}
outputs = {}
for r in range(rounds):
    k = r % len(builds)
    order = builds[k:] + builds[:k]
    this = {}
    for label, name, cc, settings in order:
        env = dict(os.environ, TRMS_OUTPUT=os.path.join(work, "p.trms"),
                   **settings)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([os.path.join(work, name), n], check=True,
                             capture_output=True, text=True,
                             env=env).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        this[label] = cpu
        outputs.setdefault(label, out)
        if out != outputs[label]:
            sys.exit(f"{label}: output changed between rounds")
    for label, name, cc, settings in builds:
        times[label].append(this[label])
        ratios[label].append(this[label] / this[cc + "-native"])
ref = outputs["gcc-native"]
print(f"merge sort of {n} ints, {rounds} rounds; CPU seconds (median), "
      "ratio to the same compiler's native build (median of rounds)")
print(f"{'build':30} {'CPU s':>7} {'ratio':>6}  output")
for label, name, cc, settings in builds:
    same = "same" if outputs[label] == ref else "DIFFERENT"
    print(f"{label:30} {statistics.median(times[label]):7.2f} "
          f"{statistics.median(ratios[label]):5.2f}x  {same}")
    if same != "same":
        sys.exit(1)
PY
