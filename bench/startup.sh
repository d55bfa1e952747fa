#!/bin/bash
# bench/startup.sh [BUILD_DIR] - what the library adds to every process it
# is preloaded into (issue 9, item 8), side by side with the same work
# done natively, and with gperftools' CPU profiler for comparison:
#
#   1. /bin/true, natively and preloaded: at the default settings (costs
#      in ns, sampling at 100 Hz), TRMS_COST=events, TRMS_SAMPLE_HZ=0,
#      TRMS_OFF=1, and gperftools (LD_PRELOAD=libprofiler.so.0
#      CPUPROFILE=...).  ROUNDS (default 21) rounds, each running every
#      variant BATCH (default 20) times in a row with bench/spawn_time
#      (posix_spawn, no shell), the variants' order rotated from round to
#      round.  Reported: the median over rounds of the mean wall and CPU
#      time (user + system, from wait4) per run, and of the time added to
#      the native run of the same round.  CPU time is the steadier of the
#      two on a busy machine: it leaves out the time spent waiting for a
#      CPU (a virtual machine's stolen time aside).
#   2. A shell loop of 200 short commands, sh -c 'for i in $(seq 200); do
#      /bin/true; done': natively, with only the commands preloaded
#      (LD_PRELOAD set on each /bin/true), with the shell preloaded too
#      (LD_PRELOAD exported to sh, inherited by every command), the whole
#      loop under `trms run`, and under gperftools the same way; and a
#      loop of 200 subshells, sh -c 'for i
#      in $(seq 200); do ( : ); done' (a fork without an exec each, as
#      shell scripts make them), natively and with the shell preloaded.
#      LOOP_ROUNDS (default 9) interleaved rounds; the ratio is the median
#      of each round's ratio to its native run.
#   3. An autotools build of a real Debian source package, BUILD_PACKAGE
#      (default hello: a gnulib configure script and a small make, some
#      6,700 processes), fetched with `apt-get source` into a scratch
#      directory under BUILD_DIR (not kept): ./configure && make -j2,
#      natively, with LD_PRELOAD=libtrms.so exported for the whole build,
#      and under `trms run`, each time in a fresh copy of the source (the
#      copies are kept until the end, like the profiles).
#      BUILD_ROUNDS (default 3) interleaved rounds.  If the source cannot
#      be fetched (no deb-src, no network) the script says so and skips it;
#      SKIP_BUILD=1 skips it on purpose.
#
#   meson setup build && ninja -C build
#   bench/startup.sh build
#
# LIBRARY=PATH measures another build of the library (an older one, say)
# with this build's tools.
#
# Profiles are written where each process starts (the default
# TRMS_OUTPUT), in the scratch directory, and removed only at the end:
# removing files between runs makes file creation slower on ext4 without a
# journal, whose inode allocator steps over recently freed inodes, and the
# runs that follow would pay for it.  The machine may be shared: rounds are
# interleaved so that a busy neighbour slows every variant alike, and the
# spread (first to third quartile over rounds) says how noisy it was.  The
# exit status is non-zero only if a run failed; targets are printed, not
# enforced.
set -u
export LC_ALL=C

build=${1:-build}
rounds=${ROUNDS:-21}
batch=${BATCH:-20}
loop_rounds=${LOOP_ROUNDS:-9}
build_rounds=${BUILD_ROUNDS:-3}
package=${BUILD_PACKAGE:-hello}

for v in "$rounds" "$batch" "$loop_rounds" "$build_rounds"; do
	case $v in
	'' | *[!0-9]* | 0)
		echo "startup.sh: ROUNDS, BATCH, LOOP_ROUNDS and BUILD_ROUNDS must be positive integers" >&2
		exit 2 ;;
	esac
done
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
lib=$build/src/libtrms.so
spawn=$build/bench/spawn_time
trms=$build/tools/trms
for f in "${LIBRARY:-$lib}" "$spawn" "$trms"; do
	if [ ! -e "$f" ]; then
		echo "startup.sh: $f not found; build first:" >&2
		echo "  meson setup $build && ninja -C $build" >&2
		exit 2
	fi
done
lib=$(abs "${LIBRARY:-$lib}")
spawn=$(abs "$spawn")
trms=$(abs "$trms")

gperf=${GPERFTOOLS_LIB:-}
if [ -z "$gperf" ]; then
	for f in /usr/lib/x86_64-linux-gnu/libprofiler.so.0 \
		/usr/lib64/libprofiler.so.0 /usr/lib/libprofiler.so.0 \
		/usr/local/lib/libprofiler.so.0; do
		[ -z "$gperf" ] && [ -e "$f" ] && gperf=$f
	done
fi

scratch=$(mktemp -d "$(abs "$build")/startup-bench.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
failed=0

# The environment of every run: none of the library's or gperftools'
# settings from the caller's.
clean_env=(env -u LD_PRELOAD -u CPUPROFILE -u CPUPROFILE_FREQUENCY
	-u TRMS_OFF -u TRMS_COST -u TRMS_SAMPLE_HZ -u TRMS_SAMPLE_CLOCK
	-u TRMS_VERBOSE -u TRMS_OUTPUT -u TRMS_RUN_REPORT -u TRMS_GRANULARITY)

# Statistics of the numbers on standard input: "median q1 q3".
stats() {
	sort -g | awk '
		function at(p,   i) { i = int(p * (NR - 1)) + 1; return v[i] }
		{ v[NR] = $1 }
		END { if (NR == 0) print "- - -"
		      else printf "%.10g %.10g %.10g\n", at(0.5), at(0.25), at(0.75) }'
}

# fmt NUMBER DECIMALS
fmt() { awk -v v="$1" -v d="$2" 'BEGIN { printf "%.*f", d, v }'; }

# The values of variant $1 in file $2 (lines "variant round value").
values() { awk -v v="$1" '$1 == v { print $3 }' "$2"; }

# Per-round ratios (or differences, with $4 = diff) of variant $1 to
# variant $2, from file $3.
per_round() {
	awk -v v="$1" -v base="$2" -v op="${3:-ratio}" '
		$1 == base { b[$2] = $3 }
		$1 == v { x[$2] = $3 }
		END { for (r in x) if (r in b && b[r] > 0)
			print (op == "diff" ? x[r] - b[r] : x[r] / b[r]) }' "$4"
}

echo "== start-up cost: what the library adds to every process"
echo "  date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(nproc) CPUs," \
	"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
	"kernel $(uname -r)"
echo "  file system of the scratch directory: $(df -T "$scratch" | awk 'NR == 2 { print $2 }')"
echo "  load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  library: $lib"
[ -n "$gperf" ] || echo "  gperftools: libprofiler.so.0 not found; left out (Debian: libgoogle-perftools4)"

# --- 1. /bin/true ---------------------------------------------------------

variants=(native default events nosample off)
[ -n "$gperf" ] && variants+=(gperftools)

# true_run VARIANT ROUND: BATCH runs of /bin/true; appends to the results.
true_run() {
	local v=$1 r=$2 out
	local -a set=()
	case $v in
	default) set=(LD_PRELOAD="$lib") ;;
	events) set=(LD_PRELOAD="$lib" TRMS_COST=events) ;;
	nosample) set=(LD_PRELOAD="$lib" TRMS_SAMPLE_HZ=0) ;;
	off) set=(LD_PRELOAD="$lib" TRMS_OFF=1) ;;
	gperftools) set=(LD_PRELOAD="$gperf" CPUPROFILE="$scratch/true/gperf.prof") ;;
	esac
	if ! out=$(cd "$scratch/true" && "${clean_env[@]}" "$spawn" "$batch" \
		${set[@]+"${set[@]}"} /bin/true 2>"$scratch/err"); then
		echo "startup.sh: /bin/true ($v) failed:" >&2
		cat "$scratch/err" >&2
		failed=1
		return
	fi
	echo "$v $r ${out% *}" >>"$scratch/true.wall"
	echo "$v $r ${out#* }" >>"$scratch/true.cpu"
}

mkdir "$scratch/true"
n=${#variants[@]}
for ((r = 0; r < rounds; r++)); do
	for ((k = 0; k < n; k++)); do
		true_run "${variants[(r + k) % n]}" "$r"
	done
done

echo
echo "-- /bin/true: $rounds rounds of $batch runs per variant, interleaved"
echo "   (added: median over rounds of the difference to that round's native run)"
printf '  %-11s %10s %10s %11s %11s %10s %14s\n' variant "wall (us)" \
	"cpu (us)" "wall added" "cpu added" "wall ratio" "[q1-q3]"
for v in "${variants[@]}"; do
	read -r w _ _ < <(values "$v" "$scratch/true.wall" | stats)
	read -r c _ _ < <(values "$v" "$scratch/true.cpu" | stats)
	if [ "$v" = native ]; then
		printf '  %-11s %10s %10s\n' "$v" "$(fmt "$w" 0)" "$(fmt "$c" 0)"
		continue
	fi
	read -r d _ _ < <(per_round "$v" native diff "$scratch/true.wall" | stats)
	read -r dc _ _ < <(per_round "$v" native diff "$scratch/true.cpu" | stats)
	read -r q q1 q3 < <(per_round "$v" native ratio "$scratch/true.wall" | stats)
	printf '  %-11s %10s %10s %11s %11s %10s %14s\n' "$v" "$(fmt "$w" 0)" \
		"$(fmt "$c" 0)" "$(fmt "$d" 0)" "$(fmt "$dc" 0)" "$(fmt "$q" 2)" \
		"[$(fmt "$q1" 2)-$(fmt "$q3" 2)]"
done
echo "  target: default adds at most 1000 us; less than gperftools adds"
echo "  ($(find "$scratch/true" -name '*.trms' | wc -l) profiles written;" \
	"load average now $(cut -d' ' -f1-3 /proc/loadavg))"

# --- 2. a shell loop of 200 commands --------------------------------------

# shellcheck disable=SC2016 # expanded by the benchmarked shell
loop='for i in $(seq 200); do /bin/true; done'
# shellcheck disable=SC2016
loop_each='for i in $(seq 200); do LD_PRELOAD=$PRELOAD_EACH /bin/true; done'
# 200 forks without an exec (a subshell each), natively and preloaded:
# what a shell script's forks pay, measured against its own native run.
subshells='for i in $(seq 200); do ( : ); done'
loop_variants=(native commands all trms-run)
[ -n "$gperf" ] && loop_variants+=(gperftools)
loop_variants+=(subshells-native subshells)

loop_run() {
	local v=$1 r=$2 out
	local -a set=() script=("$loop")
	case $v in
	commands) set=(PRELOAD_EACH="$lib"); script=("$loop_each") ;;
	all) set=(LD_PRELOAD="$lib") ;;
	gperftools) set=(LD_PRELOAD="$gperf" CPUPROFILE="$scratch/loop/gperf.prof") ;;
	subshells-native) script=("$subshells") ;;
	subshells) set=(LD_PRELOAD="$lib"); script=("$subshells") ;;
	esac
	local -a runner=()
	# Every process of the tree under trms run: each one that recorded
	# nothing says so to it (the tally), the profiles go to a directory
	# of the round's own.
	[ "$v" = trms-run ] && runner=("$trms" run -o "$scratch/loop/run$r/" --)
	if ! out=$(cd "$scratch/loop" && "${clean_env[@]}" "$spawn" 1 \
		${set[@]+"${set[@]}"} ${runner[@]+"${runner[@]}"} \
		/bin/sh -c "${script[0]}" 2>"$scratch/err"); then
		echo "startup.sh: shell loop ($v) failed:" >&2
		cat "$scratch/err" >&2
		failed=1
		return
	fi
	echo "$v $r ${out% *}" >>"$scratch/loop.wall"
	echo "$v $r ${out#* }" >>"$scratch/loop.cpu"
}

mkdir "$scratch/loop"
n=${#loop_variants[@]}
for ((r = 0; r < loop_rounds; r++)); do
	for ((k = 0; k < n; k++)); do
		loop_run "${loop_variants[(r + k) % n]}" "$r"
	done
done

echo
echo "-- shell loop: sh -c '$loop', $loop_rounds rounds, interleaved"
echo "   (commands: LD_PRELOAD on each /bin/true only; all: the shell preloaded too;"
echo "   trms-run: the loop run by trms run, which preloads every process;"
echo "   subshells: sh -c '$subshells', preloaded, against its own native run)"
printf '  %-16s %10s %10s %10s %14s %10s\n' variant "wall (ms)" "cpu (ms)" \
	"wall ratio" "[q1-q3]" "cpu ratio"
for v in "${loop_variants[@]}"; do
	read -r w _ _ < <(values "$v" "$scratch/loop.wall" | stats)
	read -r c _ _ < <(values "$v" "$scratch/loop.cpu" | stats)
	ws=$(awk -v x="$w" 'BEGIN { printf "%.1f", x / 1000 }')
	cs=$(awk -v x="$c" 'BEGIN { printf "%.1f", x / 1000 }')
	if [ "$v" = native ] || [ "$v" = subshells-native ]; then
		printf '  %-16s %10s %10s\n' "$v" "$ws" "$cs"
		continue
	fi
	base=native
	[ "$v" = subshells ] && base=subshells-native
	read -r q q1 q3 < <(per_round "$v" "$base" ratio "$scratch/loop.wall" | stats)
	read -r qc _ _ < <(per_round "$v" "$base" ratio "$scratch/loop.cpu" | stats)
	printf '  %-16s %10s %10s %10s %14s %10s\n' "$v" "$ws" "$cs" \
		"$(fmt "$q" 2)" "[$(fmt "$q1" 2)-$(fmt "$q3" 2)]" "$(fmt "$qc" 2)"
done
echo "  target: at most 1.5x native (commands)"
echo "  (load average now $(cut -d' ' -f1-3 /proc/loadavg))"

# --- 3. an autotools build ------------------------------------------------

echo
if [ -n "${SKIP_BUILD:-}" ]; then
	echo "-- autotools build: skipped (SKIP_BUILD set)"
	[ $failed -eq 0 ]
	exit
fi
mkdir "$scratch/src"
if ! "$(dirname "$0")/../scripts/ensure-deb-src" >"$scratch/fetch.log" 2>&1 ||
	! (cd "$scratch/src" && apt-get source "$package") >>"$scratch/fetch.log" 2>&1; then
	echo "-- autotools build: skipped: apt-get source $package failed" \
		"(deb-src entries and the archive are needed):"
	tail -n 3 "$scratch/fetch.log" | sed 's/^/     /'
	[ $failed -eq 0 ]
	exit
fi
src=$(find "$scratch/src" -mindepth 1 -maxdepth 1 -type d | head -n 1)
if [ -z "$src" ] || [ ! -x "$src/configure" ]; then
	echo "-- autotools build: skipped: $package has no configure script"
	[ $failed -eq 0 ]
	exit
fi
build_variants=(native preload trms-run)
steps='./configure >/dev/null 2>&1 && make -j2 >/dev/null 2>&1'

build_run() {
	local v=$1 r=$2 out dir=$scratch/build-$1-$2
	local -a cmd=(/bin/sh -c "$steps")
	cp -a "$src" "$dir" || { failed=1; return; }
	case $v in
	preload) cmd=(LD_PRELOAD="$lib" "${cmd[@]}") ;;
	trms-run) cmd=("$trms" run --library "$lib" -- "${cmd[@]}") ;;
	esac
	if ! out=$(cd "$dir" && "${clean_env[@]}" "$spawn" 1 "${cmd[@]}" \
		2>"$scratch/err" </dev/null); then
		echo "startup.sh: build of $package ($v) failed:" >&2
		tail -n 5 "$scratch/err" >&2
		failed=1
		return
	fi
	echo "$v $r ${out% *}" >>"$scratch/build.wall"
	echo "$v $r ${out#* }" >>"$scratch/build.cpu"
	if [ "$v" != native ]; then
		find "$dir" -name '*.trms' | wc -l >>"$scratch/build.profiles"
	fi
}

n=${#build_variants[@]}
for ((r = 0; r < build_rounds; r++)); do
	for ((k = 0; k < n; k++)); do
		build_run "${build_variants[(r + k) % n]}" "$r"
	done
done

echo "-- autotools build of $package ($(basename "$src")): $steps"
echo "   $build_rounds rounds, interleaved; about $(stats <"$scratch/build.profiles" | cut -d' ' -f1) profiles per preloaded build"
printf '  %-11s %10s %10s %10s %14s %10s\n' variant "wall (s)" "cpu (s)" \
	"wall ratio" "[q1-q3]" "cpu ratio"
for v in "${build_variants[@]}"; do
	read -r w _ _ < <(values "$v" "$scratch/build.wall" | stats)
	read -r c _ _ < <(values "$v" "$scratch/build.cpu" | stats)
	ws=$(awk -v x="$w" 'BEGIN { printf "%.1f", x / 1e6 }')
	cs=$(awk -v x="$c" 'BEGIN { printf "%.1f", x / 1e6 }')
	if [ "$v" = native ]; then
		printf '  %-11s %10s %10s\n' "$v" "$ws" "$cs"
		continue
	fi
	read -r q q1 q3 < <(per_round "$v" native ratio "$scratch/build.wall" | stats)
	read -r qc _ _ < <(per_round "$v" native ratio "$scratch/build.cpu" | stats)
	printf '  %-11s %10s %10s %10s %14s %10s\n' "$v" "$ws" "$cs" \
		"$(fmt "$q" 2)" "[$(fmt "$q1" 2)-$(fmt "$q3" 2)]" "$(fmt "$qc" 2)"
done
echo "  target: at most 1.3x native"
echo "  (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
[ $failed -eq 0 ]
