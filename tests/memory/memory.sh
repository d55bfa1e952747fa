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
#    out, and every activation recorded is exact.
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
finish memory
