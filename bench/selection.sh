#!/bin/sh
# bench/selection.sh [BUILD] [ROUNDS] [REPS] - what measuring fewer
# activations costs and what it still finds, side by side: the annotated
# workload of bench/selection_workload.c run natively, with every
# activation measured, with TRMS_ACTIVATION_SAMPLE=10 and 100, and with
# TRMS_BUDGET=2 (costs in ns, default sampling), REPS rounds interleaved
# (the order rotated each round).  Prints the median CPU time (user +
# system) of each, its ratio to native (median of the per-round ratios),
# and the growth class and confidence trms report finds for each region
# from the last round's profile, fitted on each size's worst cost (the
# report's default), on its mean and on its best: on a shared machine an
# interruption inflates a few activations' costs, which moves the worst
# cost of a size, a little its mean, and its best least (docs/growth.md,
# "Worst costs in time").  SELECTION_VARIANTS="native budget2" runs only
# those (native first: the ratios are to it).
set -u
build=${1:-build-release}
rounds=${2:-300}
reps=${3:-7}
here=$(dirname "$0")
lib=$build/src/libtrms.so
trms=$build/tools/trms
[ -x "$trms" ] && [ -f "$lib" ] || {
	echo "selection.sh: build first: meson setup $build -Dbuildtype=release && ninja -C $build" >&2
	exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/trms-selection.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
cc -O2 -I"$here/../include" "$here/selection_workload.c" -o "$work/workload" ||
	exit 2

variants=${SELECTION_VARIANTS:-native full sample10 sample100 budget2}
settings() {
	case $1 in
	native) echo "";;
	full) echo "LD_PRELOAD=$lib";;
	sample10) echo "LD_PRELOAD=$lib TRMS_ACTIVATION_SAMPLE=10";;
	sample100) echo "LD_PRELOAD=$lib TRMS_ACTIVATION_SAMPLE=100";;
	budget2) echo "LD_PRELOAD=$lib TRMS_BUDGET=2";;
	esac
}
# cpu VARIANT: user + system seconds of one run.
cpu() {
	/usr/bin/time -f '%U %S' -o "$work/time" env $(settings "$1") \
		"TRMS_OUTPUT=$work/$1.trms" "$work/workload" "$rounds" \
		>/dev/null || exit 1
	awk '{ printf "%.3f\n", $1 + $2 }' "$work/time"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "bench/selection.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $reps rounds of $rounds iterations"
set -- $variants
for rep in $(seq "$reps"); do
	for v in "$@"; do
		cpu "$v" >"$work/$v.$rep"
	done
	for v in "$@"; do
		echo "$(cat "$work/$v.$rep") $(cat "$work/native.$rep")" |
			awk '{ print $1 / $2 }' >>"$work/$v.ratios"
	done
	# Rotate the order.
	first=$1
	shift
	set -- "$@" "$first"
done
printf '%-10s %9s %8s   %s\n' variant "cpu (s)" ratio "growth found (region class confidence)"
for v in $variants; do
	t=$(cat "$work"/$v.[0-9]* | median)
	r=$(median <"$work/$v.ratios")
	classes=""
	if [ "$v" != native ]; then
		for stat in worst mean best; do
			classes="$classes$stat: $("$trms" report --stat $stat \
				--json "$work/$v.trms" 2>/dev/null |
				python3 -c 'import json, sys
for r in sorted(json.load(sys.stdin)["regions"], key=lambda r: r["name"]):
    # Refused for the correction of its costs (docs/cost.md): as the
    # table says it.
    if r.get("correction", {}).get("refused"):
        print("%s unresolved;" % r["name"], end=" ")
    else:
        print("%s %s %s;" % (r["name"], r["growth"], r["confidence"]),
              end=" ")')  "
		done
	fi
	printf '%-10s %9s %8.3f   %s\n' "$v" "$t" "$r" "$classes"
done
