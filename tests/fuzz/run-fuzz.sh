#!/bin/sh
# run-fuzz.sh - the fuzz suite: the profile reader's fuzz target for a
# bounded time, starting from the kept corpus (see README.md here).
#
#   run-fuzz.sh FUZZER CORPUS DICT WORKDIR
#
# TRMS_FUZZ_SECONDS (default 60) is how long to fuzz.  The kept corpus is
# only read: what the fuzzer finds goes to WORKDIR/new, and an input that
# crashes, leaks, takes over 10 s or 2 GB goes to WORKDIR/artifacts and
# fails the run.
set -eu

if [ $# -ne 4 ]; then
	echo "usage: $0 FUZZER CORPUS DICT WORKDIR" >&2
	exit 2
fi
fuzzer=$1 corpus=$2 dict=$3 work=$4
seconds=${TRMS_FUZZ_SECONDS:-60}
case $seconds in
'' | *[!0-9]*)
	echo "$0: TRMS_FUZZ_SECONDS must be a number of seconds" >&2
	exit 2
	;;
esac

mkdir -p "$work/new" "$work/artifacts"
status=0
ASAN_OPTIONS=detect_leaks=1 "$fuzzer" -max_total_time="$seconds" \
	-timeout=10 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1 \
	-dict="$dict" -artifact_prefix="$work/artifacts/" \
	"$work/new" "$corpus" || status=$?

cat <<EOF

New inputs are in $work/new; to keep those that add coverage:
  $fuzzer -merge=1 -use_counters=0 $corpus $work/new
EOF
if [ "$status" -ne 0 ]; then
	cat <<EOF
The fuzzer failed (status $status); the input is in $work/artifacts.
Replay it with:  $fuzzer $work/artifacts/FILE
EOF
	exit 1 # not libFuzzer's 77, which meson would count as skipped
fi
