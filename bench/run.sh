#!/bin/sh
# bench/run.sh - run every trms benchmark and print its table.
#
#   meson setup build -Dbuildtype=release && ninja -C build
#   bench/run.sh build
#
# Builds nothing: takes the build directory (default: build) and runs the
# benchmarks built there, once per cost unit where the unit matters, with
# the library's profiles written to a temporary directory removed
# afterwards.  Every number is a median of repeated measurements, compared
# with a baseline measured in the same run (see bench/bench.h); targets are
# shown, and the exit status is non-zero only if a benchmark could not run.

set -u

build=${1:-build}
bin=$build/bench

for name in region range scalar threads rss io correction; do
	if [ ! -x "$bin/bench-$name" ]; then
		echo "run.sh: $bin/bench-$name not found; build first:" >&2
		echo "  meson setup $build -Dbuildtype=release && ninja -C $build" >&2
		exit 2
	fi
done

out=$(mktemp -d "${TMPDIR:-/tmp}/trms-bench.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT
trap 'exit 130' INT TERM

buildtype=$(python3 -c 'import json, sys
for o in json.load(open(sys.argv[1])):
    if o["name"] == "buildtype": print(o["value"])' \
	"$build/meson-info/intro-buildoptions.json" 2>/dev/null)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)

echo "trms benchmarks: $(date '+%Y-%m-%d %H:%M:%S')"
echo "  machine: $(nproc) CPUs, ${cpu:-unknown CPU}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  build: $build (buildtype ${buildtype:-unknown})"
if [ -n "$buildtype" ] && [ "$buildtype" != release ]; then
	echo "  warning: not a release build; numbers are not representative"
fi
echo

status=0

# run NAME UNIT: one benchmark, with the library active, cost in UNIT,
# cells of 4 bytes, profiles into $out.
run() {
	env -u TRMS_OFF -u TRMS_VERBOSE TRMS_COST="$2" TRMS_GRANULARITY=4 \
		TRMS_OUTPUT="$out/%e.%p.trms" "$bin/bench-$1" || {
		echo "run.sh: bench-$1 (TRMS_COST=$2) failed" >&2
		status=1
	}
}

run region ns
run region events
run range events
run range ns
run scalar ns
run scalar events
run threads ns
run threads events
run rss ns
run io ns
run correction ns

# Call-stack sampling: native vs trms vs gperftools (a script of its own).
echo
"$(dirname "$0")/bench_sampling.sh" "$build" || {
	echo "run.sh: bench_sampling.sh failed" >&2
	status=1
}

exit $status
