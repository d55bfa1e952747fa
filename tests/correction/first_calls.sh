#!/bin/sh
# first_calls.sh LINKED DLSYM LIBRARY DIR - the library's time of threads
# whose first calls come together, costs in ns (first_calls.c), ten runs
# of each form: every thread's metered library time, and every tuple's
# cost, at most the run's elapsed time (a call that read two clocks, one
# before the cost clock was chosen and one after, metered 5,000 s); and a
# program built against the header, whose inline forms call the library
# by second names, is known to open regions from the start.
set -u
linked=$1 dlsym=$2 lib=$3 dir=$4/first-calls-work
here=$(dirname "$0")
. "$here/../checks.sh"
fresh_dir "$dir"

for form in linked dlsym; do
	for i in 1 2 3 4 5 6 7 8 9 10; do
		prof=$dir/$form.$i.trms
		if [ $form = linked ]; then
			set -- "$linked" linked
		else
			set -- env LD_PRELOAD="$lib" "$dlsym" dlsym
		fi
		env TRMS_COST=ns TRMS_SAMPLE_HZ=0 TRMS_OUTPUT="$prof" \
			TRMS_VERBOSE=2 "$@" 2>"$dir/$form.$i.err" ||
			fail "$form run $i: exit status $?: $(cat "$dir/$form.$i.err")"
		awk -v form="$form" -v run="$i" '
			$1 == "meta" && $2 == "start_ns" { start = $3 }
			$1 == "meta" && $2 == "end_ns" { elapsed = $3 - start }
			$1 == "thread" {
				for (f = 3; f <= NF; f++)
					if ($f ~ /^library_ns=/) {
						ns = substr($f, 12) + 0
						if (ns > elapsed) bad = bad " thread " $2 " library " ns " ns"
					}
			}
			$1 == "tuple" && $8 + 0 > elapsed { bad = bad " a tuple of cost " $8 }
			END {
				if (!elapsed) { print form " run " run ": no elapsed time"; exit 1 }
				if (bad) { print form " run " run " (" elapsed " ns):" bad; exit 1 }
			}' "$prof" >"$dir/$form.$i.check" ||
			fail "$(cat "$dir/$form.$i.check")"
	done
done
grep -q "its I/O is recorded from the start" "$dir/linked.1.err" ||
	fail "the program built against the header was not seen to open regions: $(grep -i 'regions' "$dir/linked.1.err")"
finish first-calls
