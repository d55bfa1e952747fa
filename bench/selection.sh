#!/bin/sh
# bench/selection.sh [BUILD] [ROUNDS] [REPS] - what measuring fewer
# activations costs and what it still finds, side by side: the annotated
# workload of bench/selection_workload.c run natively, with every
# activation measured, with TRMS_ACTIVATION_SAMPLE=10 and 100, and with
# TRMS_BUDGET=2 (costs in ns, default sampling), REPS rounds.
#
# In each round every variant runs twice at the same time as a native
# run, the two pinned to different CPUs (taskset), the second time with
# the CPUs swapped; its ratio for the round is the geometric mean of the
# two pairs' ratios.  A busy neighbour or a slow spell of the host then
# slows both runs of a pair alike, where runs one after the other on a
# shared machine differ by 10% and more; and a CPU slower than the other
# (a virtual machine's CPUs may differ by a third, for minutes) slows the
# variant in one pair and the native run in the other, which the mean
# cancels.  The row "native" pairs native runs: its spread is the
# method's own.  Without taskset or a second CPU the runs go one after
# the other (interleaved, the order rotated each round), and the script
# says so.  A variant that measures much (every activation) takes memory
# bandwidth and cache from its native neighbour too, which makes its
# ratio a little low.
#
# Prints the median CPU time (user + system, from wait4) of each, the
# median of its per-round ratios to its native run and their spread
# (first to third quartile), and the growth class and confidence trms report finds for
# each region from the last round's profile, fitted on each size's worst
# cost (the report's default), on its mean and on its best, with how
# many regions name a class in common with the full run's (when "full"
# is among the variants): on a shared machine an interruption inflates
# a few activations' costs, which moves the worst cost of a size, a
# little its mean, and its best least (docs/growth.md, "Worst costs in
# time").  SELECTION_VARIANTS="native budget2" runs only those; KEEP=1
# keeps the scratch directory (every run's time and profile) and says
# where.
set -u
build=${1:-build-release}
rounds=${2:-300}
reps=${3:-7}
here=$(dirname "$0")
lib=$build/src/libtrms.so
trms=$build/tools/trms
spawn=$build/bench/spawn_time
[ -x "$trms" ] && [ -f "$lib" ] && [ -x "$spawn" ] || {
	echo "selection.sh: build first: meson setup $build -Dbuildtype=release && ninja -C $build" >&2
	exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/trms-selection.XXXXXX") || exit 2
if [ -n "${KEEP:-}" ]; then
	echo "selection.sh: keeping $work" >&2
else
	trap 'rm -rf "$work"' EXIT
fi
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
	*) echo "selection.sh: unknown variant $1" >&2; exit 2;;
	esac
}
for v in $variants; do
	settings "$v" >/dev/null # exits on a variant it does not know
done
# The first two CPUs this script may run on (a cpuset may leave out CPU 0).
set -- $(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0))[:2])')
paired=no
if command -v taskset >/dev/null 2>&1 && [ $# -ge 2 ]; then
	paired=yes
	cpu_a=$1 cpu_b=$2
fi
# run VARIANT OUT [CPU]: one run; its user + system seconds (from wait4,
# by bench/spawn_time) into OUT.
run() {
	pin=""
	[ $# -ge 3 ] && pin="taskset -c $3"
	$pin "$spawn" 1 $(settings "$1") "TRMS_OUTPUT=$work/$1.trms" \
		"$work/workload" "$rounds" >"$2.time" || exit 1
	awk '{ printf "%.4f\n", $2 / 1e6 }' "$2.time" >"$2"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
quartiles() {
	sort -n | awk '{ v[NR] = $1 }
		END { printf "%.3f-%.3f", v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)] }'
}

echo "bench/selection.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $reps rounds of $rounds iterations, $(
	[ $paired = yes ] && echo "each run beside a native run on the other CPU" ||
		echo "runs one after the other (no taskset or one CPU)")"
set -- $variants
for rep in $(seq "$reps"); do
	for v in "$@"; do
		if [ $paired = yes ]; then
			for swap in 0 1; do
				mine=$cpu_a other=$cpu_b
				[ $swap = 1 ] && mine=$cpu_b other=$cpu_a
				run "$v" "$work/$v.$rep.$swap" "$mine" &
				mine=$!
				run native "$work/base-$v.$rep.$swap" "$other" &
				wait "$!" && wait "$mine" || exit 1
			done
			cat "$work/$v.$rep.0" "$work/$v.$rep.1" "$work/base-$v.$rep.0" \
				"$work/base-$v.$rep.1" | tr '\n' ' ' | awk '{
				printf "%.4f\n", sqrt($1 * $2) >"'"$work/$v.$rep"'"
				print sqrt($1 / $3 * $2 / $4) }' >>"$work/$v.ratios"
		else
			run "$v" "$work/$v.$rep"
		fi
	done
	if [ $paired = no ]; then
		for v in "$@"; do
			echo "$(cat "$work/$v.$rep") $(cat "$work/native.$rep")" |
				awk '{ print $1 / $2 }' >>"$work/$v.ratios"
		done
	fi
	# Rotate the order.
	first=$1
	shift
	set -- "$@" "$first"
done
# classes PROFILE STAT: "region growth low high confidence" per region.
classes() {
	"$trms" report --stat "$2" --json "$1" 2>/dev/null | python3 -c 'import json, sys
for r in sorted(json.load(sys.stdin)["regions"], key=lambda r: r["name"]):
    # Refused for the correction of its costs (docs/cost.md): as the
    # table says it.
    if r.get("correction", {}).get("refused"):
        print(r["name"], "unresolved - - -")
    else:
        lo, hi = r.get("growth_range") or [r["growth"], r["growth"]]
        print(r["name"], r["growth"].replace(" ", "_"),
              lo.replace(" ", "_"), hi.replace(" ", "_"),
              r["confidence"] or "-")'
}
# agree A B: how many regions of A name a class in common with B's (the
# report's own rule, growth_estimates_agree: their ranges meet), "k of n".
ladder="1 log_n sqrt_n n n_log_n n^1.5 n^2 n^2_log_n n^3"
agree() {
	awk -v ladder="$ladder" '
		BEGIN { n = split(ladder, l, " "); for (i = 1; i <= n; i++) rank[l[i]] = i }
		NR == FNR { lo[$1] = rank[$3]; hi[$1] = rank[$4]; next }
		{ total++; if (($1 in lo) && rank[$3] && lo[$1] && rank[$3] <= hi[$1] && lo[$1] <= rank[$4]) same++ }
		END { printf "%d of %d", same, total }' "$2" "$1"
}
printf '%-10s %9s %8s %13s   %s\n' variant "cpu (s)" ratio "(quartiles)" "growth found (region class confidence)"
for v in $variants; do
	t=$(cat "$work"/$v.[0-9] "$work"/$v.[0-9][0-9] 2>/dev/null | median)
	r=$(median <"$work/$v.ratios")
	q=$(quartiles <"$work/$v.ratios")
	found=""
	if [ "$v" != native ]; then
		for stat in worst mean best; do
			classes "$work/$v.trms" $stat >"$work/$v.$stat.classes"
			found="$found$stat: $(awk '{ gsub("_", " ", $2); printf "%s %s%s; ", $1, $2, ($5 == "-" ? "" : " " $5) }' "$work/$v.$stat.classes")"
			if [ "$v" != full ] && [ -f "$work/full.$stat.classes" ]; then
				found="$found(as full: $(agree "$work/$v.$stat.classes" "$work/full.$stat.classes"))  "
			fi
		done
	fi
	printf '%-10s %9s %8.3f %13s   %s\n' "$v" "$t" "$r" "$q" "$found"
done
