#!/bin/sh
# functions.sh TRMS SRCDIR WORKDIR TRACE_CHECK - whole-program mode (issue
# 11), built
# by `trms cc` with GCC and, if installed, Clang; each program prints what
# its native build prints, and its profile (costs in events) has exactly
# what its source derives by hand from DESIGN §2:
#  - functions-only: fn_cases.c (compiled and linked in separate steps,
#    as make does), every function a region, at K = 4 (and the same in
#    the full mode, and with --trms-exclude=leaf: no leaf); fn_inlined.c, a
#    helper inlined into its caller no region (GCC: through its plugin);
#    fn_shape.c, the functions the optimiser leaves, splits and
#    specialises those of the native build, each counted (GCC's
#    specialised copy under its origin's name);
#  - --trms-full: fn_full.c, every load and store an access too, and the
#    C library's strlen recorded as its caller's reads, at K = 4;
#    fn_worked.c, built in the default mode (the full one): DESIGN §2's
#    five worked cases as C functions, with the values it gives;
#    fn_libc.c at K = 1, plain and with _FORTIFY_SOURCE: each of the C
#    library's memory and string functions that trms cc wraps (and a
#    struct copy) reads exactly what its definition says, as its
#    caller's input; a loop calling strlen at every step quadratic; and
#    examples/wordfreq.c, the paper's word counter, with its annotations
#    compiled out (-DTRMS_NO_ANNOTATIONS), whose str_tolower comes out
#    quadratic in its input (K = 1; HIGH with both compilers), addword
#    not; and
#    examples/prodcons.c the same way: the consumer's input all made by
#    the producer, trms 500 where rms is 1;
#    and fn_threads.c, threads handing each other data; fn_handoff.c,
#    the same running at once, with exact counts;
#  - fn_exit.c, ended by _exit: its functions named by trms report;
#  - fn_deep.c, in both modes: a recursion a million deep, every
#    activation's trms as the source derives it; an annotated region (trms_region_begin,
#    trms_write, trms_read) inside a function's;
#  - fn_signals.c: a signal handler running instrumented code every
#    100 us, mostly while the thread is inside the library;
#  - fn_robust.cc (--trms-full, g++ and clang++): std::sort (the C++
#    library's functions no regions), C++ exceptions through
#    five frames, a constructor, a signal handler, fork;
#  - fn_loaded.c (--trms-full): an instrumented ifunc resolver, which the
#    loader runs before any constructor, and a function run from the
#    program's .preinit_array, before the C library sets `environ` (the
#    library's settings read all the same); an instrumented plugin
#    (fn_plugin.c) loaded with dlopen, called and unloaded, its function
#    named all the same; exit from 41 calls deep;
# and for every run, its profile holds exactly the activations the naive
# oracle gives for the run's trace (TRMS_TRACE, checked by TRACE_CHECK).
set -u
trms=$1 src=$2 work=$3 trace_check=$4
words=$src/../../examples/data/words.txt
. "$(dirname "$0")/../checks.sh"
fresh_dir "$work"

# tuples REGION METRIC: "VALUE COUNT INDUCED_THREAD INDUCED_EXTERNAL" for
# each tuple of REGION, summed over threads, by value.
tuples() {
	awk -F'\t' -v r="$1" -v m="$2" '
		$1 == r && $3 == m { c[$4] += $5; it[$4] += $10; ie[$4] += $11 }
		END { for (v in c) print v, c[v], it[v], ie[v] }' \
		"$work/$program.tuples" | sort -n
}

# traced NAME K PROGRAM [ARG...]: run PROGRAM (costs in events, K-byte
# cells, no sampling) with its profile in $work/NAME.trms and its trace
# beside it, its output on standard output, and check the profile
# against the trace.  Not in a subshell: it counts failures.
traced() {
	name=$1 k=$2
	shift 2
	TRMS_COST=events TRMS_GRANULARITY=$k TRMS_SAMPLE_HZ=0 \
		TRMS_OUTPUT="$work/$name.trms" TRMS_TRACE="$work/$name.trace" \
		"$@" || fail "$name: exit status $?"
	"$trace_check" "$work/$name.trace" "$work/$name.trms" "$k" \
		>"$work/$name.check" 2>&1 ||
		fail "$name: the profile is not what the definitions give \
for its trace: $(cat "$work/$name.check")"
}

# checked_run PROGRAM: run $work/PROGRAM traced at K = 4 beside its native
# build $work/native-PROGRAM, their outputs the same, and its tuples into
# $work/PROGRAM.tuples (for tuples).  Non-zero if there is no profile.
checked_run() {
	program=$1
	native=$("$work/native-$program") || fail "$program: native run"
	traced "$program" 4 "$work/$program" >"$work/$program.out"
	expect "$program output" "$(cat "$work/$program.out")" "$native"
	"$trms" report --tuples "$work/$program.trms" \
		>"$work/$program.tuples" ||
		{ fail "$program: trms report"; return 1; }
}

# shape_functions PROGRAM: the functions of fn_shape.c in PROGRAM, as
# the optimiser left them (clones and parts included), on one line.
shape_functions() {
	nm "$1" | awk '$2 ~ /^[tT]$/ { print $3 }' |
		grep -E '^(main|maybe_large|slow|use_b|small)' | sort | tr '\n' ' '
}

expect() { # WHAT GOT WANTED
	[ "$2" = "$3" ] || fail "$cc: $1: got '$2', expected '$3'"
}

# The Clang plugin of --trms-full, if this trms was built with it: its
# programs check most accesses inline, except while traced.
plugin=$(dirname "$trms")/cc/plugin/trms-pass.so
# GCC's plugin, if built: functions instrumented after inlining.
gcc_plugin=$(dirname "$trms")/cc/plugin/trms-gcc-plugin.so

# inline_same NAME PROGRAM [ARG...]: PROGRAM built by `trms cc
# --trms-full` decides the common accesses by the inline checks when run
# untraced (costs in events, K = 4: the checks on) — in its own code
# with Clang and the plugin, at the top of the library's hooks
# otherwise; its profile's tuples are exactly those of its traced run
# $work/NAME.trms, which the naive oracle checked (the same program,
# deterministic).
inline_same() {
	name=$1
	shift
	if [ "$cc" = clang ] && [ -e "$plugin" ]; then
		nm -D "$1" | grep -q ' U __trms_fast$' ||
			{ fail "$name: built without the inline checks"; return; }
	fi
	TRMS_COST=events TRMS_GRANULARITY=4 TRMS_SAMPLE_HZ=0 \
		TRMS_OUTPUT="$work/$name-inline.trms" "$@" >/dev/null ||
		fail "$name, inline checks: exit status $?"
	"$trms" report --tuples "$work/$name.trms" | sort >"$work/$name.a"
	"$trms" report --tuples "$work/$name-inline.trms" | sort \
		>"$work/$name.b"
	cmp -s "$work/$name.a" "$work/$name.b" ||
		fail "$name: the inline checks' profile differs from the traced run's: $(diff "$work/$name.a" "$work/$name.b" | head -n 4)"
}

checked=0
for cc in gcc clang; do
	command -v $cc >/dev/null 2>&1 || {
		echo "$cc not found: not tested with it"
		# CI installs both (scripts/install-deps --tests).
		[ -n "${CI:-}" ] && fail "$cc not found, with CI set"
		continue
	}
	$cc -O2 -g -pthread -o "$work/native-fn-$cc" "$src/fn_cases.c" \
		"$src/fn_other.c" || { fail "$cc: native build"; continue; }
	for f in fn_cases fn_other; do
		TRMS_CC=$cc "$trms" cc --trms-functions -O2 -g -c -o "$work/$f-$cc.o" \
			"$src/$f.c" || fail "$cc: trms cc -c $f.c"
	done
	TRMS_CC=$cc "$trms" cc --trms-functions -pthread -o "$work/fn-$cc" \
		"$work/fn_cases-$cc.o" "$work/fn_other-$cc.o" ||
		{ fail "$cc: trms cc link"; continue; }
	checked_run "fn-$cc" || continue
	checked=$((checked + 1))

	# LEAF_CALLS in main and one in each of the 2 threads.
	expect "leaf" "$(tuples leaf trms)" "0 12 0 0"
	expect "rec" "$(tuples rec trms)" "0 1001 0 0"
	expect "landed" "$(tuples landed trms)" "0 1 0 0"
	# deep: 6 activations left by the longjmp, nothing read in them.
	expect "deep" "$(tuples deep trms)" "0 6 0 0"
	# pass: n / 4 cells for n = 64, 128, ..., 512 (and 64 again after
	# the longjmp), each read from what the kernel wrote.
	want=$(printf '%s\n' "16 2 0 32" "32 1 0 32" "48 1 0 48" "64 1 0 64" \
		"80 1 0 80" "96 1 0 96" "112 1 0 112" "128 1 0 128")
	expect "pass trms" "$(tuples pass trms)" "$want"
	expect "pass rms" "$(tuples pass rms)" "$want"
	# --trms-exclude (GCC, and Clang with trms's plugin): the functions
	# named are no regions, the others are still counted.
	if [ $cc = gcc ] || [ -e "$plugin" ]; then
		TRMS_CC=$cc "$trms" cc --trms-exclude=leaf -O2 -g -pthread \
			-o "$work/excluded-$cc" "$src/fn_cases.c" \
			"$src/fn_other.c" || fail "$cc: trms cc --trms-exclude"
		cp "$work/native-fn-$cc" "$work/native-excluded-$cc"
		if checked_run "excluded-$cc"; then
			expect "--trms-exclude=leaf: leaf" "$(tuples leaf trms)" ""
			expect "--trms-exclude=leaf: rec" \
				"$(tuples rec trms | awk '{ n += $2 } END { print n }')" 1001
		fi
	fi

	# The same in the full mode, in one step: the longjmp's frames and
	# the threads' activations all closed, counted as in the source.
	TRMS_CC=$cc "$trms" cc -O2 -g -pthread -o "$work/fnfull-$cc" \
		"$src/fn_cases.c" "$src/fn_other.c" ||
		{ fail "$cc: trms cc, full mode"; continue; }
	$cc -O2 -g -pthread -o "$work/native-fnfull-$cc" "$src/fn_cases.c" \
		"$src/fn_other.c" || { fail "$cc: native build"; continue; }
	if checked_run "fnfull-$cc"; then
		for want in leaf:12 rec:1001 landed:1 deep:6 pass:9; do
			expect "full mode: ${want%:*}'s activations" \
				"$(tuples "${want%:*}" trms | awk '{ n += $2 } END { print n }')" \
				"${want#*:}"
		done
	fi
	program=fn-$cc

	# Two static functions called helper, one call each: two regions.
	helpers=$(awk -F'\t' '$3 == "trms" && $1 ~ /^helper \(/ { print $1 }' \
		"$work/fn-$cc.tuples" | sort -u | wc -l)
	expect "regions named helper (...)" "$helpers" 2
	expect "worker" "$(tuples worker trms)" "0 2 0 0"
	grep -q '^main	' "$work/fn-$cc.tuples" || fail "$cc: no region main"

	# An inlined helper: no region (GCC needs its plugin for that).
	if ! $cc -O2 -o "$work/native-inl-$cc" "$src/fn_inlined.c"; then
		fail "$cc: native build of fn_inlined.c"
	elif ! TRMS_CC=$cc "$trms" cc --trms-functions -O2 -o "$work/inl-$cc" \
		"$src/fn_inlined.c"; then
		fail "$cc: trms cc fn_inlined.c"
	elif checked_run "inl-$cc"; then
		expect "outer" "$(tuples outer trms)" "0 1 0 0"
		if [ "$cc" = clang ] || [ -e "$gcc_plugin" ]; then
			expect "scale (inlined)" "$(tuples scale trms)" ""
		fi
	fi

	# The optimiser inlines, splits and specialises as it does natively
	# (GCC: through its plugin, which instruments after inlining).
	if ! $cc -O2 -o "$work/native-shape-$cc" "$src/fn_shape.c"; then
		fail "$cc: native build of fn_shape.c"
	elif ! TRMS_CC=$cc "$trms" cc --trms-functions -O2 -o "$work/shape-$cc" \
		"$src/fn_shape.c"; then
		fail "$cc: trms cc fn_shape.c"
	else
		native_shape=$(shape_functions "$work/native-shape-$cc")
		if [ "$cc" = clang ] || [ -e "$gcc_plugin" ]; then
			expect "functions of fn_shape.c" \
				"$(shape_functions "$work/shape-$cc")" \
				"$native_shape"
		fi
		if checked_run "shape-$cc"; then
			expect "use_b (specialised)" "$(tuples use_b trms)" \
				"0 10 0 0"
			expect "slow" "$(tuples slow trms)" "0 2352 0 0"
			case " $native_shape " in
			*" maybe_large.part.0 "*)
				expect "maybe_large.part.0" \
					"$(tuples maybe_large.part.0 trms)" \
					"0 6 0 0" ;;
			esac
		fi
	fi
	# The same with GCC's link-time optimiser: the plugin's late pass
	# runs there, in another process than the early one.
	if [ "$cc" = gcc ] && [ -e "$gcc_plugin" ]; then
		if ! gcc -O2 -flto -o "$work/native-shape-lto-$cc" \
			"$src/fn_shape.c"; then
			fail "$cc: native build of fn_shape.c, -flto"
		elif ! TRMS_CC=$cc "$trms" cc --trms-functions -O2 -flto \
			-o "$work/shape-lto-$cc" "$src/fn_shape.c"; then
			fail "$cc: trms cc -flto fn_shape.c"
		else
			expect "functions of fn_shape.c, -flto" \
				"$(shape_functions "$work/shape-lto-$cc")" \
				"$(shape_functions "$work/native-shape-lto-$cc")"
			if checked_run "shape-lto-$cc"; then
				expect "use_b, -flto" "$(tuples use_b trms)" \
					"0 10 0 0"
				expect "slow, -flto" "$(tuples slow trms)" \
					"0 2352 0 0"
			fi
		fi
	fi

	# --trms-full.
	$cc -O2 -pthread -o "$work/native-full-$cc" "$src/fn_full.c" ||
		{ fail "$cc: native build of fn_full.c"; continue; }
	TRMS_CC=$cc "$trms" cc --trms-full -O2 -g -pthread \
		-o "$work/full-$cc" "$src/fn_full.c" ||
		{ fail "$cc: trms cc --trms-full"; continue; }
	checked_run "full-$cc" || continue
	expect "fill" "$(tuples fill trms)" "0 8 0 0"
	want=$(printf '%s\n' "16 1 0 0" "32 1 0 0" "64 1 0 0" "128 1 0 0" \
		"256 1 0 0" "300 1 300 0" "512 1 0 0" "1024 1 0 0")
	expect "sum trms" "$(tuples sum trms)" "$want"
	expect "sum rms" "$(tuples sum rms)" "$want"
	expect "measure (strlen)" "$(tuples measure trms)" "25 1 0 0"
	expect "consume" "$(tuples consume trms)" "300 1 300 0"
	expect "consume rms" "$(tuples consume rms)" "300 1 300 0"
	# And main's local seed, whose address the thread got: induced.
	expect "consumer, with main's local" "$(tuples consumer trms)" \
		"302 1 302 0"
	inline_same "full-$cc" "$work/full-$cc"

	# DESIGN §2's worked cases as C functions, built in the default
	# mode (--trms-full): the values the specification gives.
	$cc -O2 -pthread -o "$work/native-worked-$cc" "$src/fn_worked.c" ||
		{ fail "$cc: native build of fn_worked.c"; continue; }
	TRMS_CC=$cc "$trms" cc -O2 -g -pthread -o "$work/worked-$cc" \
		"$src/fn_worked.c" || { fail "$cc: trms cc fn_worked.c"; continue; }
	checked_run "worked-$cc" || continue
	expect "case 1, g" "$(tuples one_g trms; tuples one_g rms)" \
		"3 1 0 0
3 1 0 0"
	expect "case 1, f" "$(tuples one_f trms; tuples one_f rms)" \
		"2 1 0 0
2 1 0 0"
	expect "case 2, f" "$(tuples two_f trms; tuples two_f rms)" \
		"2 1 1 0
1 1 1 0"
	expect "case 3, h" "$(tuples three_h trms; tuples three_h rms)" \
		"1 1 1 0
1 1 1 0"
	expect "case 3, f" "$(tuples three_f trms; tuples three_f rms)" \
		"2 1 1 0
1 1 1 0"
	expect "case 4, consumer" "$(tuples consumer trms; tuples consumer rms)" \
		"9 1 9 0
1 1 9 0"
	expect "case 5, reader" \
		"$(tuples parse_device trms; tuples parse_device rms)" "7 1 0 7
1 1 0 7"
	inline_same "worked-$cc" "$work/worked-$cc"

	# The C library's memory and string functions (fn_libc.c, K = 1):
	# what each reads is its caller's input, byte for byte; the same
	# through the checking versions that _FORTIFY_SOURCE calls; and a
	# str_tolower calling strlen at every step quadratic.
	for fortify in "" -D_FORTIFY_SOURCE=2; do
		program=libc$fortify-$cc
		$cc -O2 $fortify -o "$work/native-$program" "$src/fn_libc.c" ||
			{ fail "$cc: native build of fn_libc.c $fortify"; continue; }
		TRMS_CC=$cc "$trms" cc -O2 -g $fortify -o "$work/$program" \
			"$src/fn_libc.c" ||
			{ fail "$cc: trms cc fn_libc.c $fortify"; continue; }
		traced "$program" 1 "$work/$program" >"$work/$program.out"
		expect "$program output" "$(cat "$work/$program.out")" \
			"$("$work/native-$program")"
		"$trms" report --tuples "$work/$program.trms" \
			>"$work/$program.tuples" || fail "$program: trms report"
		for want in memcpy:40 memmove:24 memset:0 memcmp:32 strlen:11 \
			strnlen:4 strcmp:12 strncmp:6 strchr:4 strrchr:7 \
			strcpy:6 strncpy:4 strcat:7 strdup:8 copy:1000; do
			expect "$program: use_${want%:*}" \
				"$(tuples "use_${want%:*}" trms)" "${want#*:} 1 0 0"
		done
		if [ -n "$fortify" ]; then
			for f in memcpy memmove memset strcpy strncpy strcat; do
				nm -D "$work/$program" | grep -q " U __wrap___${f}_chk$" ||
					fail "$program: no call of __${f}_chk"
			done
		fi
		"$trms" report "$work/$program.trms" >"$work/$program.report" ||
			fail "$program: trms report"
		expect "$program: lower's growth and confidence" \
			"$(awk '$1 == "lower" { print $5, $6; exit }' \
				"$work/$program.report")" "n^2 HIGH"
	done

	# The bundled example, its annotations compiled out (its
	# str_tolower then calls the C library's strlen); not inlined, so
	# that its functions stay functions.
	$cc -O2 -fno-inline -DTRMS_NO_ANNOTATIONS -I"$src/../../include" \
		-o "$work/native-wf-$cc" "$src/../../examples/wordfreq.c" ||
		{ fail "$cc: native build of wordfreq.c"; continue; }
	TRMS_CC=$cc "$trms" cc --trms-full -O2 -fno-inline \
		-DTRMS_NO_ANNOTATIONS -I"$src/../../include" \
		-o "$work/wf-$cc" "$src/../../examples/wordfreq.c" ||
		{ fail "$cc: wordfreq.c"; continue; }
	traced "wf-$cc" 1 "$work/wf-$cc" "$words" >"$work/wf-$cc.out"
	expect "wordfreq output" "$(cat "$work/wf-$cc.out")" \
		"$("$work/native-wf-$cc" "$words")"
	"$trms" report "$work/wf-$cc.trms" >"$work/wf-$cc.report" ||
		fail "$cc: trms report of wordfreq"
	# The growth column of the region's line in the table.
	growth() { awk -v r="$1" '$1 == r { print $5; exit }' \
		"$work/wf-$cc.report"; }
	case $(growth str_tolower) in
	n^2 | "n^2...n^2"*) ;;
	*) fail "$cc: str_tolower grows as '$(growth str_tolower)'" ;;
	esac
	# Its cost is (n + 1)^2 events for strlen's bytes and a few more
	# per letter for its own accesses: a linear lower-order term, HIGH.
	confidence=$(awk '$1 == "str_tolower" { print $6; exit }' \
		"$work/wf-$cc.report")
	[ "$confidence" != HIGH ] &&
		fail "$cc: str_tolower's n^2 with $confidence confidence, not HIGH"
	# addword hashes and compares the word's letters: linear, as the
	# paper found it.
	case $(growth addword) in
	n | 1) ;;
	"") fail "$cc: no region addword" ;;
	*) fail "$cc: addword grows as '$(growth addword)'" ;;
	esac
	traced "wf4-$cc" 4 "$work/wf-$cc" "$words" >/dev/null

	# Every view of trms report on a whole-program profile: --json,
	# --html, trms merge (with a second run); and the sampled tree and
	# pprof's, functions as regions in both, of the functions-only
	# build (the full mode's time is mostly the library's, whose
	# samples are left out of the trees: docs/sampling.md).
	program=wf-$cc
	"$trms" report --tuples "$work/wf-$cc.trms" >"$work/wf-$cc.tuples" ||
		fail "$cc: wordfreq --tuples"
	calls=$(tuples str_tolower trms | awk '{ n += $2 } END { print n }')
	"$trms" report --json "$work/wf-$cc.trms" >"$work/wf-$cc.json" ||
		fail "$cc: wordfreq --json"
	python3 - "$work/wf-$cc.json" "$calls" "$cc" <<-'PY' ||
		import json, sys
		regions = {r["name"]: r for r in json.load(open(sys.argv[1]))["regions"]}
		r = regions["str_tolower"]
		assert (r["growth"], r["confidence"], r["calls"]) == \
		    ("n^2", "HIGH", int(sys.argv[2])), r
		assert "addword" in regions and "main" in regions, sorted(regions)
		assert r["object"].endswith("/wf-" + sys.argv[3]), r
	PY
		fail "$cc: wordfreq --json: not the table's str_tolower, or not its object"
	"$trms" report --html "$work/wf-$cc.html" "$work/wf-$cc.trms" \
		>/dev/null || fail "$cc: wordfreq --html"
	grep -q str_tolower "$work/wf-$cc.html" && grep -q '<svg' "$work/wf-$cc.html" ||
		fail "$cc: wordfreq --html: no plot of str_tolower"
	seq 300 | while read -r _; do cat "$words"; done >"$work/words300.txt"
	TRMS_CC=$cc "$trms" cc --trms-functions -O2 -fno-inline \
		-DTRMS_NO_ANNOTATIONS -I"$src/../../include" \
		-o "$work/wf-functions-$cc" "$src/../../examples/wordfreq.c" ||
		{ fail "$cc: wordfreq.c, functions only"; continue; }
	TRMS_SAMPLE_HZ=1000 TRMS_OUTPUT="$work/wf-sampled-$cc.trms" \
		"$work/wf-functions-$cc" "$work/words300.txt" >/dev/null ||
		fail "$cc: sampled wordfreq"
	"$trms" report --tree "$work/wf-sampled-$cc.trms" \
		>"$work/wf-sampled-$cc.tree" || fail "$cc: wordfreq --tree"
	grep -q ' \[main\]$' "$work/wf-sampled-$cc.tree" ||
		fail "$cc: wordfreq --tree: no region main: $(head -n 8 "$work/wf-sampled-$cc.tree")"
	"$trms" report --pprof "$work/wf-$cc.pb.gz" \
		"$work/wf-sampled-$cc.trms" || fail "$cc: wordfreq --pprof"
	gzip -dc "$work/wf-$cc.pb.gz" | grep -aq '\[main\]' ||
		fail "$cc: wordfreq --pprof: no region main"
	TRMS_COST=events TRMS_GRANULARITY=1 TRMS_SAMPLE_HZ=0 \
		TRMS_OUTPUT="$work/wf-again-$cc.trms" "$work/wf-$cc" "$words" \
		>/dev/null || fail "$cc: wordfreq again"
	"$trms" merge -o "$work/wf-merged-$cc.trms" "$work/wf-$cc.trms" \
		"$work/wf-again-$cc.trms" || fail "$cc: trms merge"
	"$trms" report --tuples "$work/wf-merged-$cc.trms" \
		>"$work/wf-merged-$cc.tuples" || fail "$cc: report of the merge"
	grep -aq "^object [0-9]* .*/wf-$cc\$" "$work/wf-merged-$cc.trms" ||
		fail "$cc: the merged profile lost the functions' objects"
	program=wf-merged-$cc
	expect "merged str_tolower calls" \
		"$(tuples str_tolower trms | awk '{ n += $2 } END { print n }')" \
		"$((calls * 2))"

	# The producer/consumer example, its annotations compiled out: the
	# consumer (a function now) reads the one-cell buffer 500 times, each
	# time just written by the producer, and no other memory (its count
	# comes in its argument, its sum goes out as its result): trms 500,
	# all induced by another thread, rms 1, as DESIGN §2's case says.
	# GCC's kernel-address pass leaves out the accesses it can prove
	# inside a variable at a constant offset (the buffer); trms's GCC
	# plugin has it instrument those to globals and statics: without
	# it GCC's build would see none of the buffer's reads.
	if [ "$cc" = gcc ]; then
		"$trms" cc --trms-help | grep -q "GCC-PLUGIN, for GCC" ||
			fail "gcc: this trms has no GCC plugin"
	fi
	TRMS_CC=$cc "$trms" cc --trms-full -O2 -fno-inline -pthread \
		-DTRMS_NO_ANNOTATIONS -I"$src/../../include" \
		-o "$work/pc-$cc" "$src/../../examples/prodcons.c" ||
		{ fail "$cc: prodcons.c"; continue; }
	traced "pc-$cc" 4 "$work/pc-$cc" 500 >"$work/pc-$cc.out"
	$cc -O2 -fno-inline -pthread -DTRMS_NO_ANNOTATIONS \
		-I"$src/../../include" -o "$work/native-pc-$cc" \
		"$src/../../examples/prodcons.c" &&
		expect "prodcons output" "$(cat "$work/pc-$cc.out")" \
			"$("$work/native-pc-$cc" 500)"
	"$trms" report --tuples "$work/pc-$cc.trms" \
		>"$work/pc-$cc.tuples" || fail "$cc: report of prodcons"
	program=pc-$cc
	expect "consumer trms" "$(tuples consumer trms)" "500 1 500 0"
	expect "consumer rms" "$(tuples consumer rms)" "1 1 500 0"
	inline_same "wf4-$cc" "$work/wf-$cc" "$words"

	# Measuring one function activation in 3 (docs/production.md):
	# every tuple one the full run has (longjmps and threads included),
	# and with TRMS_EXACT_KINDS=1 its induced reads too.
	for p in fn-$cc full-$cc wf-$cc; do
		arg=
		[ "$p" = "wf-$cc" ] && arg=$words
		TRMS_COST=events TRMS_SAMPLE_HZ=0 TRMS_GRANULARITY=4 \
			TRMS_OUTPUT="$work/$p-all.trms" "$work/$p" $arg \
			>/dev/null || fail "$p: exit status"
		for kinds in 0 1; do
			TRMS_COST=events TRMS_SAMPLE_HZ=0 TRMS_GRANULARITY=4 \
				TRMS_ACTIVATION_SAMPLE=3 TRMS_EXACT_KINDS=$kinds \
				TRMS_OUTPUT="$work/$p-s3-$kinds.trms" \
				"$work/$p" $arg >/dev/null ||
				fail "$p, 1 in 3: exit status"
			flag=
			[ $kinds = 1 ] && flag=--kinds
			python3 "$src/../selection/compare.py" $flag \
				"$work/$p-all.trms" "$work/$p-s3-$kinds.trms" \
				>"$work/$p-s3.compare" ||
				fail "$p, 1 in 3 (kinds $kinds): $(cat "$work/$p-s3.compare")"
		done
	done

	# A profile written at _exit names no function itself (it reads
	# no file then): trms report names them from the objects.
	TRMS_CC=$cc "$trms" cc --trms-functions -O2 -o "$work/exit-$cc" "$src/fn_exit.c" ||
		{ fail "$cc: fn_exit.c"; continue; }
	TRMS_COST=events TRMS_OUTPUT="$work/exit-$cc.trms" \
		"$work/exit-$cc" >"$work/exit-$cc.out" || fail "$cc: fn_exit run"
	$cc -O2 -o "$work/native-exit-$cc" "$src/fn_exit.c" &&
		expect "fn_exit output" "$(cat "$work/exit-$cc.out")" \
			"$("$work/native-exit-$cc")"
	"$trms" report --tuples "$work/exit-$cc.trms" \
		>"$work/exit-$cc.tuples" || fail "$cc: report of fn_exit"
	program=exit-$cc
	expect "work, named after _exit" "$(tuples work trms)" "0 5 0 0"

	# A recursion a million deep (fn_deep.c), each activation exact, in
	# both modes (descend's own loads and stores are of its stack frame,
	# which the compiler leaves out, and a write).
	for mode in functions full; do
		program=deep-$mode-$cc
		TRMS_CC=$cc "$trms" cc --trms-$mode -O2 -pthread \
			-I"$src/../../include" -o "$work/$program" \
			"$src/fn_deep.c" || { fail "$cc: fn_deep.c, $mode"; continue; }
		out=$(TRMS_COST=events TRMS_OUTPUT="$work/$program.trms" \
			"$work/$program") || fail "$program: exit status"
		expect "$program output" "$out" 499999500000
		"$trms" report --tuples "$work/$program.trms" \
			>"$work/$program.tuples" || fail "$program: report"
		expect "$program: descend, a million deep" \
			"$(tuples descend trms | tr '\n' ' ')" \
			"1 1 0 0 2 1 0 0 3 1 0 0 4 1 0 0 5 1 0 0 6 1 0 0 7 1 0 0 8 999993 0 0 "
		expect "$program: run, above it" "$(tuples run trms)" "11 1 0 0"
		# An annotated region inside a function region: writes
		# annotated (trms_write) are no input, reads are.
		expect "$program: block, annotated" "$(tuples block trms)" \
			"2 1 0 0"
		expect "$program: annotated, around it" \
			"$(tuples annotated trms)" "3 1 0 0"
	done

	# C++ exceptions, a constructor, a signal handler, fork.
	cxx=g++
	[ $cc = clang ] && cxx=clang++
	TRMS_CXX=$cxx "$trms" c++ --trms-full -O2 -o "$work/robust-$cc" \
		"$src/fn_robust.cc" || { fail "$cxx: fn_robust.cc"; continue; }
	out=$(TRMS_COST=events TRMS_SAMPLE_HZ=0 \
		TRMS_OUTPUT="$work/robust-$cc.%p.trms" \
		TRMS_TRACE="$work/robust-$cc.trace" "$work/robust-$cc") ||
		fail "$cxx: fn_robust run"
	parent=${out##* }
	case $out in
	"sorted 1"*"caught 3, child 0, parent "*) ;;
	*) fail "$cxx: fn_robust printed '$out'" ;;
	esac
	"$trace_check" "$work/robust-$cc.trace" \
		"$work/robust-$cc.$parent.trms" 4 >"$work/robust-$cc.check" 2>&1 ||
		fail "$cxx: fn_robust against its trace: $(cat "$work/robust-$cc.check")"
	"$trms" report --tuples "$work/robust-$cc.$parent.trms" \
		>"$work/robust-$cc.tuples" || fail "$cxx: report of fn_robust"
	program=robust-$cc
	expect "thrower" "$(tuples _Z7throweri trms)" "0 15 0 0"
	expect "early" "$(tuples _Z5earlyv trms)" "0 1 0 0"
	expect "on_signal" "$(tuples _Z9on_signali trms)" "0 1 0 0"
	expect "in_child in the parent" "$(tuples _Z8in_childv trms)" ""
	# The C++ library's functions (std::sort's, out of line): no
	# regions — GCC's -finstrument-functions-exclude-file-list leaves
	# out the system headers, and for Clang trms's plugin.
	std=$(awk -F'\t' '$1 ~ /^_ZSt|^_ZNSt|^_ZN9__gnu_cxx/' \
		"$work/robust-$cc.tuples" | wc -l)
	if [ $cc = gcc ] || [ -e "$plugin" ]; then
		expect "std:: regions" "$std" 0
		nm "$work/robust-$cc" | grep -q '_ZSt16__introsort_loop' ||
			fail "$cxx: std::__introsort_loop inlined: nothing checked"
	fi
	children=$(ls "$work"/robust-$cc.*.trms | grep -vc "\.$parent\.trms")
	expect "the child's profile" "$children" 1
	child=$(ls "$work"/robust-$cc.*.trms | grep -v "\.$parent\.trms")
	"$trms" report --tuples "$child" >"$work/robust-child-$cc.tuples" ||
		fail "$cxx: report of fn_robust's child"
	program=robust-child-$cc
	expect "in_child in the child" "$(tuples _Z8in_childv trms)" "0 1 0 0"
	expect "thrower in the child" "$(tuples _Z7throweri trms)" ""
	# C++ names demangled in the report, as the source spells them.
	"$trms" report "$work/robust-$cc.$parent.trms" \
		>"$work/robust-$cc.report" || fail "$cxx: trms report of fn_robust"
	for name in "thrower(int)" "early()" "on_signal(int)"; do
		grep -q "^$name " "$work/robust-$cc.report" ||
			fail "$cxx: '$name' not in fn_robust's report"
	done
	# Its output as the native build's (but for the pid).
	$cxx -O2 -o "$work/native-robust-$cc" "$src/fn_robust.cc" ||
		fail "$cxx: native build of fn_robust.cc"
	native=$("$work/native-robust-$cc")
	expect "fn_robust output" "${out% *}" "${native% *}"

	# A signal handler running instrumented code every 100 us, most
	# often while the thread is inside the library (fn_signals.c):
	# the run ends, prints the native build's sum, and every activation
	# is whole: all of step's, main's, and those of the handler the
	# library could take (never more than the signals handled); traced,
	# the oracle's.
	$cc -O2 -o "$work/native-signals-$cc" "$src/fn_signals.c" &&
		TRMS_CC=$cc "$trms" cc -O2 -g -o "$work/signals-$cc" \
			"$src/fn_signals.c" ||
		{ fail "$cc: fn_signals.c"; continue; }
	for calls in 10000000 300000; do
		program=signals-$calls-$cc
		if [ $calls = 300000 ]; then
			traced "$program" 4 timeout 60 "$work/signals-$cc" $calls \
				>"$work/$program.out"
		else
			TRMS_COST=events TRMS_SAMPLE_HZ=0 \
				TRMS_OUTPUT="$work/$program.trms" timeout 60 \
				"$work/signals-$cc" $calls >"$work/$program.out" ||
				fail "$program: exit status $?"
		fi
		expect "$program: sum" "$(head -n 1 "$work/$program.out")" \
			"$("$work/native-signals-$cc" $calls | head -n 1)"
		"$trms" report --tuples "$work/$program.trms" \
			>"$work/$program.tuples" || fail "$program: trms report"
		expect "$program: step" "$(tuples step trms |
			awk '{ n += $2 } END { print n }')" $calls
		expect "$program: main" "$(tuples main trms |
			awk '{ n += $2 } END { print n }')" 1
		ticks=$(sed -n 2p "$work/$program.out")
		taken=$(tuples on_tick trms | awk '{ n += $2 } END { print n + 0 }')
		[ "$taken" -ge 1 ] && [ "$taken" -le "${ticks:-0}" ] ||
			fail "$program: $taken activations of the handler for $ticks signals"
	done

	# An ifunc resolver, a plugin loaded and unloaded, exit from deep
	# inside (fn_loaded.c).
	$cc -O2 -shared -fPIC -o "$work/native-plugin-$cc.so" \
		"$src/fn_plugin.c" &&
		$cc -O2 -o "$work/native-loaded-$cc" "$src/fn_loaded.c" -ldl ||
		{ fail "$cc: native build of fn_loaded.c"; continue; }
	TRMS_CC=$cc "$trms" cc --trms-full -O2 -shared -fPIC \
		-o "$work/plugin-$cc.so" "$src/fn_plugin.c" &&
		TRMS_CC=$cc "$trms" cc --trms-full -O2 \
			-o "$work/loaded-$cc" "$src/fn_loaded.c" -ldl ||
		{ fail "$cc: trms cc of fn_loaded.c"; continue; }
	native=$("$work/native-loaded-$cc" "$work/native-plugin-$cc.so")
	traced "loaded-$cc" 4 "$work/loaded-$cc" "$work/plugin-$cc.so" \
		>"$work/loaded-$cc.out"
	expect "fn_loaded output" "$(cat "$work/loaded-$cc.out")" "$native"
	"$trms" report --tuples "$work/loaded-$cc.trms" \
		>"$work/loaded-$cc.tuples" || fail "$cc: report of fn_loaded"
	program=loaded-$cc
	expect "plugin_sum, named after dlclose" \
		"$(tuples plugin_sum trms)" "64 1 0 0"
	expect "descend, left by exit" "$(tuples descend trms)" "0 41 0 0"
	expect "twice_plain" "$(tuples twice_plain trms)" "0 64 0 0"
	expect "resolve_twice, run by the loader" \
		"$(tuples resolve_twice trms)" ""
	# Each function's object: the program's, and the plugin's file for
	# plugin_sum (unloaded before the profile was written).
	expect "the objects of fill and plugin_sum" \
		"$(grep -a '^object' "$work/loaded-$cc.trms" | sed 's|.*/||' |
			sort -u | tr '\n' ' ')" "loaded-$cc plugin-$cc.so "
	expect "before_constructors, run from .preinit_array" \
		"$(tuples before_constructors trms)" ""
	# And the library read its settings all the same: TRMS_OFF=1 runs
	# it as natively, with no profile.
	TRMS_OFF=1 TRMS_OUTPUT="$work/loaded-off-$cc.trms" \
		"$work/loaded-$cc" "$work/plugin-$cc.so" >/dev/null
	[ -e "$work/loaded-off-$cc.trms" ] &&
		fail "$cc: fn_loaded with TRMS_OFF=1 wrote a profile"

	$cc -O2 -pthread -o "$work/native-threads-$cc" "$src/fn_threads.c" ||
		fail "$cc: native build of fn_threads.c"
	TRMS_CC=$cc "$trms" cc --trms-full -O2 -pthread \
		-o "$work/threads-$cc" "$src/fn_threads.c" ||
		{ fail "$cc: fn_threads.c"; continue; }
	for run in 1 2 3; do
		traced "threads-$cc-$run" 4 "$work/threads-$cc" \
			>"$work/threads-$cc-$run.out"
		expect "fn_threads output" "$(cat "$work/threads-$cc-$run.out")" \
			"$("$work/native-threads-$cc")"
	done

	# Memory one thread wrote alone, then read by another, the two
	# running at once (not traced): exact counts all the same.
	TRMS_CC=$cc "$trms" cc --trms-full -O2 -pthread \
		-o "$work/handoff-$cc" "$src/fn_handoff.c" ||
		{ fail "$cc: fn_handoff.c"; continue; }
	TRMS_COST=events TRMS_GRANULARITY=4 TRMS_SAMPLE_HZ=0 \
		TRMS_OUTPUT="$work/handoff-$cc.trms" "$work/handoff-$cc" \
		>"$work/handoff-$cc.out" || fail "$cc: fn_handoff run"
	expect "fn_handoff output" "$(cat "$work/handoff-$cc.out")" 4003600000
	"$trms" report --tuples "$work/handoff-$cc.trms" \
		>"$work/handoff-$cc.tuples" || fail "$cc: report of fn_handoff"
	program=handoff-$cc
	expect "consume trms" "$(tuples consume trms)" "20000 20 400000 0"
	expect "consume rms" "$(tuples consume rms)" "20000 20 400000 0"
done
[ "$checked" -gt 0 ] || fail "no compiler to test with"
finish "functions as regions, with $checked compiler(s)"
