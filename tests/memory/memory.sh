#!/bin/sh
# memory.sh TRMS PROGRAM NATIVE DIR - the shadow of memory that no longer
# exists (docs/production.md, "Memory"), on memory_prog.c (costs in
# events, no sampling):
#  - memory made new (munmap then mmap at the same address, madvise
#    MADV_DONTNEED, mremap onto an address read before, sbrk shrinking and
#    growing back) is new to the activation that read it before: read
#    again, it counts again, in trms and rms;
#  - 150 rounds of 8 MiB mapped at drifting addresses, written, read in a
#    region and unmapped: the peak resident memory stays within 4 times
#    the native program's plus 64 MiB (it grew 16 MiB a round before),
#    unmapped by munmap or by a system call the library does not see (the
#    sweep against the process's mappings finds it);
#  - TRMS_MEMORY_LIMIT=24M: the program runs as it does natively, the
#    profile says what the limit refused and which activations it left
#    out, and every activation recorded is exact;
#  - threads that ended (src/runtime/thread.c, "Threads that ended"): 2,000 threads one after
#    another hold no more than 300 do (plus 2 MiB; every ended thread
#    kept 16 KiB before), the profile keeps 256 of them apart and one
#    "ended threads" (ended_threads=1744) with the rest's tuples, data in
#    and (sampled at 1 kHz) samples and call paths added together,
#    exactly; with windows every 0.05 s too (folded by the window writer):
#    2,000 threads of a millisecond each hold no more than 300 do (plus
#    4 MiB: the threads that end within one window wait for it), and the
#    windows merged are the profile at exit, tuple for tuple.
set -u
trms=$1 prog=$2 native=$3 dir=$4/memory-test
here=$(dirname "$0")
. "$here/../checks.sh"
fresh_dir "$dir"
# (Were the shadow to grow unbounded, the machine is not to suffer: the
# program runs out of address space first.)
ulimit -v 8000000 2>/dev/null || true

run() { # run NAME ARGS...: the profile in $dir/NAME.trms, peak on stdout
	name=$1
	shift
	TRMS_COST=events TRMS_SAMPLE_HZ=0 TRMS_OUTPUT="$dir/$name.trms" \
		"$@" >"$dir/$name.out" 2>"$dir/$name.err" ||
		fail "$name: exit status $?: $(cat "$dir/$name.err")"
	tail -n 1 "$dir/$name.out"
}

# tuple NAME REGION METRIC: "n count" of its tuples.
tuples() {
	"$trms" report --tuples "$dir/$1.trms" |
		awk -v r="$2" -v m="$3" '$1 == r && $3 == m { print $4, $5 }'
}

for mode in munmap dontneed mremap sbrk; do
	run "$mode" "$prog" again "$mode" >/dev/null
	cells=8192
	[ "$mode" = mremap ] && cells=12288
	got=$(tuples "$mode" span trms)
	[ "$got" = "$cells 1" ] ||
		fail "$mode: span's trms is '$got', not '$cells 1'"
	got=$(tuples "$mode" span rms)
	[ "$got" = "$cells 1" ] ||
		fail "$mode: span's rms is '$got', not '$cells 1'"
done

native_peak=$("$native" churn 150 | tail -n 1)
for how in churn unseen; do
	peak=$(run "$how" "$prog" "$how" 150)
	limit=$((4 * native_peak + 65536))
	[ "$peak" -le "$limit" ] ||
		fail "$how: peak resident memory $peak KiB, above $limit (native $native_peak)"
	echo "$how: peak $peak KiB, native $native_peak KiB"
	[ "$(tuples "$how" use trms)" = "2097152 150" ] ||
		fail "$how: use's tuples are $(tuples "$how" use trms)"
done
grep -q '^meta shadow_forgotten [1-9]' "$dir/unseen.trms" ||
	fail "unseen: nothing forgotten ($(grep shadow_forgotten "$dir/unseen.trms"))"

# The limit: what it leaves out is said, what is recorded is exact.
TRMS_MEMORY_LIMIT=24M run limit "$prog" churn 20 >/dev/null
refused=$(sed -n 's/^meta memory_refused //p' "$dir/limit.trms")
incomplete=$(sed -n 's/^meta activations_incomplete //p' "$dir/limit.trms")
[ "${refused:-0}" -gt 0 ] || fail "limit: nothing refused"
[ "${incomplete:-0}" -gt 0 ] || fail "limit: no activation left out"
recorded=$(tuples limit use trms | awk '{ n += $2 } END { print n + 0 }')
[ $((recorded + incomplete)) -eq 20 ] ||
	fail "limit: $recorded recorded + $incomplete left out, not 20"
tuples limit use trms | awk '$1 != 2097152 { exit 1 }' ||
	fail "limit: an inexact activation recorded: $(tuples limit use trms)"
"$trms" report "$dir/limit.trms" | grep -q "memory limit (24 MiB) was reached" ||
	fail "limit: the report does not say so"
# Threads that ended.
few=$(run threads300 "$prog" threads 300 0)
many=$(run threads2000 "$prog" threads 2000 0)
[ "$many" -le $((few + 2048)) ] ||
	fail "threads: 2000 threads peak at $many KiB, 300 at $few KiB"
echo "threads: peak $many KiB after 2000 threads, $few KiB after 300"
p=$dir/threads2000.trms
n=$(grep -c '^thread ' "$p")
[ "$n" -eq 258 ] || fail "threads: $n threads in the profile, not 256 + main + folded"
grep -q '^thread [0-9]* name=ended%20threads .*ended_threads=1744' "$p" ||
	fail "threads: no thread 'ended threads' of 1744: $(grep '^thread' "$p" | tail -n 1)"
got=$("$trms" report --tuples "$p" | awk -F '\t' '$1 == "work" && $3 == "trms" {
	c += $5; n[$4] = 1 } END { print length(n), c }')
[ "$got" = "1 2000" ] || fail "threads: work's sizes and count are '$got', not '1 2000'"
got=$(sed -n 's/^thread [1-9][0-9]* .*in_bytes=\([0-9]*\) in_calls=\([0-9]*\) .*/\1 \2/p' "$p" |
	awk '{ b += $1; c += $2 } END { print b, c }')
[ "$got" = "200000 2000" ] || fail "threads: data in '$got', not '200000 2000'"
TRMS_SAMPLE_HZ=1000 TRMS_COST=events TRMS_OUTPUT="$dir/sampled.trms" \
	"$prog" threads 400 3000 >/dev/null 2>"$dir/sampled.err" ||
	fail "threads, sampled: exit status $?: $(cat "$dir/sampled.err")"
# Each thread's samples are its tree's (thread 0 wrote the profile while
# sampled: not counted).
p=$dir/sampled.trms
folded=$(sed -n 's/^thread \([0-9]*\) name=ended%20threads .* samples=\([0-9]*\) .*ended_threads=144\( \|$\).*/\1 \2/p' "$p")
[ -n "$folded" ] && [ "${folded#* }" -gt 0 ] ||
	fail "threads, sampled: no folded thread with samples: $(grep ended "$p")"
sed -n 's/^thread \([0-9]*\) .* samples=\([0-9]*\) .*/\1 \2/p' "$p" | sort >"$dir/threads.samples"
awk '$1 == "cct" { s[$2] += $(NF - 4) } END { for (t in s) print t, s[t] }' "$p" |
	sort >"$dir/tree.samples"
bad=$(join -a 1 -e 0 -o 0,1.2,2.2 "$dir/threads.samples" "$dir/tree.samples" |
	awk '$1 != 0 && $2 != $3')
[ -z "$bad" ] || fail "threads, sampled: threads' samples not their trees' (thread samples tree): $bad"
# Threads that ended, with windows: the window writer folds them.
few=$(TRMS_INTERVAL=0.05 run windows300 "$prog" threads 300 1000)
many=$(TRMS_INTERVAL=0.05 run windows2000 "$prog" threads 2000 1000)
[ "$many" -le $((few + 4096)) ] ||
	fail "threads, windows: 2000 threads peak at $many KiB, 300 at $few KiB"
echo "threads, windows: peak $many KiB after 2000 threads, $few KiB after 300"
p=$dir/windows2000.trms
set -- "${p%.trms}".w*.trms
[ $# -ge 5 ] || fail "threads, windows: only $# windows"
grep -q 'folded_into=' "$@" ||
	fail "threads, windows: no window says a thread was folded"
"$trms" merge -o "$dir/windows.merged" "$@" ||
	fail "threads, windows: the windows do not merge"
"$trms" report --tuples "$dir/windows.merged" >"$dir/windows.merged.tuples" &&
	"$trms" report --tuples "$p" >"$dir/windows.tuples" ||
	fail "threads, windows: no tuples"
cmp -s "$dir/windows.merged.tuples" "$dir/windows.tuples" ||
	fail "threads, windows: the windows merged are not the profile: $(diff "$dir/windows.merged.tuples" "$dir/windows.tuples" | head -n 6)"
"$trms" report --tuples "$@" | cmp -s - "$dir/windows.tuples" ||
	fail "threads, windows: trms report of the windows is not the profile's"
ended() { sed -n 's/^thread .*name=ended%20threads .*ended_threads=\([0-9]*\).*/\1/p' "$1"; }
[ "$(ended "$dir/windows.merged")" = "$(ended "$p")" ] && [ "$(ended "$p")" -ge 1000 ] 2>/dev/null ||
	fail "threads, windows: ended threads $(ended "$dir/windows.merged") in the windows, $(ended "$p") in the profile"
got=$("$trms" report --tuples "$p" | awk -F '\t' '$1 == "work" && $3 == "trms" { c += $5 } END { print c }')
[ "$got" = 2000 ] || fail "threads, windows: $got activations of work, not 2000"
finish memory
