#!/bin/sh
# selection.sh TRMS LIBRARY SEL_PROG WORKDIR NEST_PROG - measuring some activations
# only (docs/production.md), on sel_prog's deterministic runs (costs in
# events, no sampling), checked by compare.py against a run that
# measures every activation:
#  - TRMS_ACTIVATION_SAMPLE=10 and 100, one thread and two: every tuple
#    is one the full run has, its costs exactly the full run's, and with
#    TRMS_EXACT_KINDS=1 its induced reads too; a flat region is measured
#    about 1 time in N (within 5 standard deviations);
#  - TRMS_PARTITION=I/3 for I = 1, 2, 3: `trms merge` of the three is the
#    full run, tuple for tuple; so is what `trms run --partitions 3`
#    merges; and so on NEST_PROG (regions nested at random, each inside
#    any other, itself too: a region measured only because it is nested in
#    another part's region adds its reads to that activation, no tuple of
#    its own), for four seeds, with one thread and with three that hand
#    data round a ring;
#  - TRMS_BUDGET=1 (costs in ns) on a read-heavy region: some of its
#    activations are measured, not all, and the profile says so; over a
#    long run its periods end about every 10 ms although the program
#    skips most begins without calling the library;
#    TRMS_BUDGET=2 on a costly one: measured only until the end of its
#    first activation, not for a whole period;
#  - bad values are refused with a message, the default kept.
set -u
trms=$1 lib=$2 prog=$3 work=$4 nest=$5
here=$(dirname "$0")
. "$here/../checks.sh"
fresh_dir "$work"
compare="python3 $here/compare.py"

# run NAME [VAR=VALUE...] -- ARGS: sel_prog ARGS preloaded, costs in
# events, its profile in $work/NAME.trms.
run() {
	name=$1
	shift
	env TRMS_COST=events TRMS_SAMPLE_HZ=0 "TRMS_OUTPUT=$work/$name.trms" \
		"LD_PRELOAD=$lib" "$@" >"$work/$name.out" 2>"$work/$name.err" ||
		fail "$name: exit status $?: $(cat "$work/$name.err")"
}

rounds=20000
for mode in single threads; do
	run "$mode-full" "$prog" "$mode" $rounds
	for n in 10 100; do
		run "$mode-s$n" TRMS_ACTIVATION_SAMPLE=$n "$prog" "$mode" $rounds
		grep -q "^meta activation_sample $n\$" "$work/$mode-s$n.trms" ||
			fail "$mode-s$n: no meta activation_sample $n"
	done
	$compare "$work/$mode-full.trms" "$work/$mode-s10.trms" \
		"$work/$mode-s100.trms" || fail "$mode: sampled runs"
	run "$mode-s10k" TRMS_ACTIVATION_SAMPLE=10 TRMS_EXACT_KINDS=1 \
		"$prog" "$mode" $rounds
	$compare --kinds "$work/$mode-full.trms" "$work/$mode-s10k.trms" ||
		fail "$mode: sampled runs, exact kinds"
	for i in 1 2 3; do
		run "$mode-p$i" TRMS_PARTITION=$i/3 "$prog" "$mode" $rounds
	done
	"$trms" merge -o "$work/$mode-parts.trms" "$work/$mode-p1.trms" \
		"$work/$mode-p2.trms" "$work/$mode-p3.trms" ||
		fail "$mode: trms merge of the parts"
	$compare "$work/$mode-full.trms" "$work/$mode-parts.trms" --equal ||
		fail "$mode: the parts merged are not the full run"
	grep -q '^meta partition 1/3 2/3 3/3$' "$work/$mode-parts.trms" ||
		fail "$mode: the merged parts do not say which they are"
done

# Regions nested in every way: the parts merged are the full run.
for seed in 1 2 3 4; do
	for threads in 1 3; do
		nest_case=nest-$seed-$threads
		run "$nest_case-full" "$nest" $seed $threads 40
		for i in 1 2 3; do
			run "$nest_case-p$i" TRMS_PARTITION=$i/3 "$nest" $seed $threads 40
		done
		"$trms" merge -o "$work/$nest_case-parts.trms" "$work/$nest_case-p1.trms" \
			"$work/$nest_case-p2.trms" "$work/$nest_case-p3.trms" ||
			fail "$nest_case: trms merge of the parts"
		$compare "$work/$nest_case-full.trms" "$work/$nest_case-parts.trms" \
			--equal || fail "$nest_case: the parts merged are not the full run"
	done
done

# Each part measured only its own regions: none has tuples in two.
for i in 1 2 3; do
	awk '$1 == "region" { name[$2] = $3 }
	     $1 == "tuple" && !seen[$2]++ { print name[$2] }' \
		"$work/single-p$i.trms"
done | sort | uniq -d >"$work/shared-regions"
[ -s "$work/shared-regions" ] &&
	fail "regions measured by two parts: $(cat "$work/shared-regions")"

run flat-full "$prog" flat 100000
for n in 10 100; do
	run "flat-s$n" TRMS_ACTIVATION_SAMPLE=$n "$prog" flat 100000
	$compare "$work/flat-full.trms" "$work/flat-s$n.trms" \
		--fraction "flat:$n" >"$work/flat-s$n.compare" ||
		fail "flat, 1 in $n: $(cat "$work/flat-s$n.compare")"
done

# The report says what was measured, and how much of each region.
"$trms" report "$work/single-s10.trms" >"$work/single-s10.report" 2>&1
grep -q 'about 1 in 10 of each region' "$work/single-s10.report" &&
	grep -q '^  parse: [0-9]* of [0-9]* activations measured' \
		"$work/single-s10.report" ||
	fail "report of a sampled run: $(cat "$work/single-s10.report")"
"$trms" report "$work/single-parts.trms" >"$work/single-parts.report" 2>&1
grep -q 'parts 1/3 2/3 3/3 of a partition' "$work/single-parts.report" ||
	fail "report of merged parts: $(cat "$work/single-parts.report")"

# trms run: the options, and --partitions merging for itself.
"$trms" run -c events -F 0 --partitions 3 -o "$work/run-parts/" -- \
	"$prog" single $rounds >"$work/run-parts.out" 2>&1 ||
	fail "trms run --partitions 3: $(cat "$work/run-parts.out")"
$compare "$work/single-full.trms" "$work/run-parts/merged.trms" --equal ||
	fail "trms run --partitions 3: the merge is not the full run"
"$trms" run -c events -F 0 --activation-sample 7 -o "$work/run-s7/" -- \
	"$prog" flat 1000 >"$work/run-s7.out" 2>&1 ||
	fail "trms run --activation-sample 7: $(cat "$work/run-s7.out")"
grep -q '^meta activation_sample 7$' "$work"/run-s7/*.trms ||
	fail "trms run --activation-sample 7: not in the profile"

# The budget: a region whose measurement costs many times its own time.
env TRMS_SAMPLE_HZ=0 TRMS_BUDGET=1 "TRMS_OUTPUT=$work/budget.trms" \
	"LD_PRELOAD=$lib" "$prog" flat 2000000 2>"$work/budget.err" ||
	fail "TRMS_BUDGET=1: exit status $?: $(cat "$work/budget.err")"
grep -q '^meta budget_percent 1.00$' "$work/budget.trms" ||
	fail "TRMS_BUDGET=1: no meta budget_percent"
awk '$1 == "region" && $3 == "flat" { id = $2 }
     $1 == "activations" && $2 == id { all += $4; measured += $5 }
     END { if (!(measured > 0 && measured < all / 2)) exit 1
	   print measured " of " all " measured" }' "$work/budget.trms" \
	>"$work/budget.fraction" ||
	fail "TRMS_BUDGET=1: flat not measured in part: $(grep ^activations "$work/budget.trms")"
"$trms" report "$work/budget.trms" 2>&1 | grep -q 'a budget of 1.00%' ||
	fail "TRMS_BUDGET=1: the report does not say it"

# The budget keeps looking while the program skips begins itself (the
# inline forms' slots): a slot holds no more skips than the begins left
# before the next look, so periods end about every 10 ms of the run.
# When a slot held the whole countdown (1 in 1000 or so here), the
# library saw a begin in a thousand and looked every few hundred of
# those: 1 period in 220 ms, rates unchanged all that time.  At least one
# period per 20 ms of the run.
env TRMS_SAMPLE_HZ=0 TRMS_BUDGET=1 "TRMS_OUTPUT=$work/periods.trms" \
	"LD_PRELOAD=$lib" "$prog" flat 20000000 2>"$work/periods.err" ||
	fail "TRMS_BUDGET=1, long: exit status $?: $(cat "$work/periods.err")"
awk '$1 == "meta" { v[$2] = $3 }
     END { if (v["budget_periods"] < (v["end_ns"] - v["start_ns"]) / 20000000 - 1) exit 1 }' \
	"$work/periods.trms" ||
	fail "TRMS_BUDGET=1, long: $(grep -E '^meta (budget_periods|start_ns|end_ns)' "$work/periods.trms" | tr '\n' ' ')(at least one period per 20 ms)"

# The budget with one activation around everything, as main's in a
# program built with trms cc: measured at first (every region starts
# measured whole), then given up, not recorded, and flat's activations
# inside it candidates again (verified to fail without the giving up:
# flat is then measured whole).
env TRMS_SAMPLE_HZ=0 TRMS_BUDGET=1 "TRMS_OUTPUT=$work/wrapped.trms" \
	"LD_PRELOAD=$lib" "$prog" wrapped 2000000 2>"$work/wrapped.err" ||
	fail "TRMS_BUDGET=1, wrapped: exit status $?: $(cat "$work/wrapped.err")"
awk '$1 == "region" && $3 == "flat" { id = $2 }
     $1 == "activations" && $2 == id { all += $4; measured += $5 }
     END { if (!(measured > 0 && measured < all / 2)) exit 1 }' \
	"$work/wrapped.trms" ||
	fail "TRMS_BUDGET=1, wrapped: flat not measured in part: $(grep ^activations "$work/wrapped.trms")"
"$trms" report --tuples "$work/wrapped.trms" | grep -q '^outer	' &&
	fail "TRMS_BUDGET=1, wrapped: the activation given up was recorded"

# The budget adapted at once: a region whose measurement costs more than
# its work, and more than a period's budget (200 us of a 10 ms period at
# 2%) in one activation, is measured only until the end of the first
# activation: the next begin looks at the clock.  Of 20 activations
# (10 ms or so natively, about one period) 1 is measured (2 if the
# clock's look falls unluckily); when the first look came only after 8
# begins, 8 were; before the first period could end early, all 20.
env TRMS_BUDGET=2 "TRMS_OUTPUT=$work/costly.trms" "LD_PRELOAD=$lib" \
	"$prog" costly 20 >/dev/null 2>"$work/costly.err" ||
	fail "TRMS_BUDGET=2, costly: exit status $?: $(cat "$work/costly.err")"
measured=$(awk '$1 == "region" && $3 == "costly" { id = $2 }
	$1 == "activations" && $2 == id { seen = 1; measured += $5 }
	END { print seen ? measured : "all" }' "$work/costly.trms")
[ "$measured" != all ] && [ "$measured" -le 3 ] ||
	fail "TRMS_BUDGET=2, costly: $measured of 20 activations measured"

# A budget period in debt ends early no sooner than a sixteenth of the
# period (10 ms) in: on code that opens millions of small activations
# inside one that lasts the whole run (as main's does in a program built
# with trms cc), a look at the clock every few begins used to end a
# period each time, each walking every region — 5,666 periods in 84 ms
# here before, 107 in 69 ms after.  At most 16 per 10 ms of the run, and
# a few more.
env TRMS_BUDGET=2 "TRMS_OUTPUT=$work/dense.trms" "LD_PRELOAD=$lib" \
	"$prog" wrapped 200000 >/dev/null 2>"$work/dense.err" ||
	fail "TRMS_BUDGET=2, wrapped 200000: exit status $?: $(cat "$work/dense.err")"
awk '$1 == "meta" { v[$2] = $3 }
     END {
	if (!("budget_periods" in v)) exit 2
	bound = (v["end_ns"] - v["start_ns"]) / 625000 + 4
	if (v["budget_periods"] > bound) exit 1
     }' "$work/dense.trms" ||
	fail "TRMS_BUDGET=2, wrapped 200000: $(grep -E '^meta (budget_periods|start_ns|end_ns)' "$work/dense.trms" | tr '\n' ' ')(at most 16 periods per 10 ms)"

# Refused values keep the default (and say so).
env TRMS_COST=events TRMS_BUDGET=2 TRMS_SAMPLE_HZ=0 \
	"TRMS_OUTPUT=$work/budget-events.trms" "LD_PRELOAD=$lib" \
	"$prog" flat 100 2>"$work/budget-events.err"
grep -q 'TRMS_BUDGET needs costs in ns' "$work/budget-events.err" ||
	fail "TRMS_BUDGET with events: no message"
grep -q '^activations' "$work/budget-events.trms" &&
	fail "TRMS_BUDGET with events: activations were skipped"
for bad in TRMS_ACTIVATION_SAMPLE=0 TRMS_ACTIVATION_SAMPLE=x \
	TRMS_PARTITION=4/3 TRMS_PARTITION=0/2 TRMS_PARTITION=1 \
	TRMS_BUDGET=101 TRMS_BUDGET=-1 TRMS_BUDGET=1.; do
	env "$bad" TRMS_COST=events TRMS_SAMPLE_HZ=0 \
		"TRMS_OUTPUT=$work/bad.trms" "LD_PRELOAD=$lib" "$prog" flat 10 \
		2>"$work/bad.err"
	grep -q "${bad%%=*}=.* is not valid" "$work/bad.err" ||
		fail "$bad: not refused: $(cat "$work/bad.err")"
	grep -q '^activations\|^meta activation_sample\|^meta partition' \
		"$work/bad.trms" && fail "$bad: not the default"
done
finish selection
