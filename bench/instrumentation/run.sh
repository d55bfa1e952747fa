#!/bin/bash
# bench/instrumentation/run.sh - what compiler instrumentation costs before
# the engine does anything (issue 11): the same program built natively and
# with each way a compiler can report function entries and exits and
# memory accesses, its callbacks (hooks.c) either empty or doing the least
# work the engine's fast path needs (a stamp looked up and compared).
#
#   bench/instrumentation/run.sh [N]     # N ints to sort, default 10000000
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

python3 - "$work" "$n" "$rounds" <<'PY'
import os, resource, statistics, subprocess, sys
work, n, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
builds = [l.split() for l in open(os.path.join(work, "builds"))]
times = {b: [] for b, _ in builds}
ratios = {b: [] for b, _ in builds}
outputs = {}
for r in range(rounds):
    k = r % len(builds)
    order = builds[k:] + builds[:k]
    this = {}
    for name, cc in order:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([os.path.join(work, name), n], check=True,
                             capture_output=True, text=True).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        this[name] = cpu
        outputs.setdefault(name, out)
        if out != outputs[name]:
            sys.exit(f"{name}: output changed between rounds")
    for name, cc in builds:
        times[name].append(this[name])
        ratios[name].append(this[name] / this[cc + "-native"])
ref = outputs["gcc-native"]
print(f"merge sort of {n} ints, {rounds} rounds; CPU seconds (median), "
      "ratio to the same compiler's native build (median of rounds)")
print(f"{'build':30} {'CPU s':>7} {'ratio':>6}  output")
for name, cc in builds:
    same = "same" if outputs[name] == ref else "DIFFERENT"
    print(f"{name:30} {statistics.median(times[name]):7.2f} "
          f"{statistics.median(ratios[name]):5.2f}x  {same}")
    if same != "same":
        sys.exit(1)
PY
