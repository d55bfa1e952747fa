#!/bin/sh
# pprof.sh TRMS BURN SCRATCH BURN_SOURCE - `trms report --pprof`, `--folded`
# and `--lines` on the samples of a CPU-burning program.  Works in SCRATCH/<pid> (removed if
# every check passes).
#
# BURN (burn.c) spends 600 ms of CPU time in busy_a, inside region
# phase_a, on the main thread, and 200 ms in busy_b, inside region phase_b,
# on a thread named worker_b.  Under `trms run` with TRMS_SAMPLE_HZ=1000:
#   - --folded has lines ending in busy_a and busy_b, and its counts add
#     up to the profile's `meta samples`;
#   - --pprof writes a gzip file and nothing on standard output; it fails
#     with status 1 when OUT cannot be created and 2 when there are no
#     samples, leaving OUT as it was;
#   - `go tool pprof -top` shows busy_a and busy_b first, their shares 3:1
#     (within 20%) and the same sample counts as --folded; the CPU time is
#     samples x 1 ms;
#   - `go tool pprof -tags` shows the labels thread (0, worker_b) and
#     region (phase_a, phase_b), and each function's samples carry its own
#     thread and region.
# Exit status 77 (skipped) if the library cannot be preloaded (a sanitizer
# build, PPROF_NO_PRELOAD set) or if Go is not installed, after the checks
# that do not need it.
set -u

trms=$1
burn=$2
work=$3/$$
burn_source=$4

. "$(dirname "$0")/../checks.sh"

if [ -n "${PPROF_NO_PRELOAD:-}" ]; then
	echo "SKIP: a sanitizer build cannot preload the library"
	exit 77
fi

rm -rf "$work"
mkdir -p "$work" || fail_now "cannot create $work"
cd "$work" || fail_now "cannot enter $work"

# --- The profile -----------------------------------------------------------
TRMS_SAMPLE_HZ=1000 "$trms" run -o "$work/burn.trms" -- "$burn" 600 200 \
	>run.out 2>run.err || { show run.err; fail_now "trms run -- burn failed"; }
[ -s burn.trms ] || fail_now "no profile written"
total=$(sed -n 's/^meta samples \([0-9]*\)$/\1/p' burn.trms)
[ -n "$total" ] || fail_now "no 'meta samples' line in burn.trms"
hz=$(sed -n 's/^meta sample_hz \([0-9]*\)$/\1/p' burn.trms)
[ "$hz" = 1000 ] || fail_now "meta sample_hz is '$hz', not 1000"
echo "profile: $total samples at $hz Hz"

# --- --folded ----------------------------------------------------------------
"$trms" report --folded burn.trms >folded.txt 2>folded.err ||
	{ show folded.err; fail_now "trms report --folded failed"; }
show folded.txt
folded_a=$(awk '$NF ~ /^[0-9]+$/ && $(NF-1) ~ /(^|;)busy_a$/ { s += $NF }
	END { print s + 0 }' folded.txt)
folded_b=$(awk '$NF ~ /^[0-9]+$/ && $(NF-1) ~ /(^|;)busy_b$/ { s += $NF }
	END { print s + 0 }' folded.txt)
folded_total=$(awk '{ s += $NF } END { print s + 0 }' folded.txt)
[ "$folded_a" -gt 0 ] || fail_now "--folded: no line ends with busy_a"
[ "$folded_b" -gt 0 ] || fail_now "--folded: no line ends with busy_b"
[ "$folded_total" -eq "$total" ] ||
	fail_now "--folded: counts add up to $folded_total, meta samples is $total"
echo "folded: busy_a $folded_a, busy_b $folded_b, all $folded_total"

# --- --lines: the line of each call, where the program has debug info ---------
if command -v addr2line >/dev/null && command -v readelf >/dev/null &&
	readelf -S "$burn" | grep -q '\.debug_line'; then
	call_a=$(grep -n 'busy_a(ms_a);' "$burn_source" | cut -d: -f1)
	"$trms" report --tree --lines burn.trms >lines.txt 2>lines.err ||
		{ show lines.err; fail_now "trms report --tree --lines failed"; }
	grep -q "^.*  main (burn.c:$call_a)\$" lines.txt ||
		{ show lines.txt; fail_now "--lines: no 'main (burn.c:$call_a)'"; }
	grep -q '  busy_a (burn.c:[0-9]*)$' lines.txt ||
		{ show lines.txt; fail_now "--lines: no line for busy_a"; }
	echo "lines: main calls busy_a at burn.c:$call_a"
else
	echo "no debug information or no addr2line: --lines not checked"
fi
# --- --pprof: the file, and the errors -----------------------------------------
"$trms" report --pprof out.pb.gz burn.trms >pprof.out 2>pprof.err ||
	{ show pprof.err; fail_now "trms report --pprof failed"; }
[ -s pprof.out ] && { show pprof.out; fail_now "--pprof wrote on stdout"; }
[ -s out.pb.gz ] || fail_now "--pprof wrote no file"
if command -v gzip >/dev/null; then
	gzip -t out.pb.gz || fail_now "out.pb.gz is not a valid gzip file"
fi

"$trms" report --pprof missing/out.pb.gz burn.trms >err.out 2>err.err
status=$?
[ $status -eq 1 ] || fail_now "--pprof into a missing directory: status $status"
[ -s err.out ] && fail_now "--pprof into a missing directory wrote on stdout"
grep -q 'cannot create missing/out.pb.gz' err.err ||
	{ show err.err; fail_now "--pprof into a missing directory: no message"; }

TRMS_SAMPLE_HZ=0 "$trms" run -o "$work/quiet.trms" -- "$burn" 10 10 \
	>/dev/null 2>quiet.err || { show quiet.err; fail_now "run without samples"; }
echo old >old.pb.gz
"$trms" report --pprof old.pb.gz quiet.trms >err.out 2>err.err
status=$?
[ $status -eq 2 ] || fail_now "--pprof without samples: status $status"
[ -s err.out ] && fail_now "--pprof without samples wrote on stdout"
grep -q 'no call-stack samples' err.err ||
	{ show err.err; fail_now "--pprof without samples: no message"; }
[ "$(cat old.pb.gz)" = old ] || fail_now "--pprof without samples changed OUT"

"$trms" report --pprof x.pb.gz --tree burn.trms >/dev/null 2>err.err
status=$?
[ $status -eq 2 ] || fail_now "--pprof with --tree: status $status, not 2"
[ -e x.pb.gz ] && fail_now "--pprof with --tree wrote a file"
echo "--pprof errors: as documented"

# --- go tool pprof -----------------------------------------------------------------
go=$(command -v go 2>/dev/null)
for candidate in /usr/bin/go /usr/lib/go/bin/go; do
	[ -n "$go" ] && break
	[ -x "$candidate" ] && go=$candidate
done
if [ -z "$go" ]; then
	echo "SKIP: go not found: go tool pprof checks not run"
	exit 77
fi
# No home, no network: everything Go keeps goes under the scratch directory.
HOME=$work/home
GOCACHE=$work/go/cache
GOPATH=$work/go/path
GOFLAGS=-mod=mod
GOTOOLCHAIN=local
GOPROXY=off
PPROF_TMPDIR=$work/go/pprof
export HOME GOCACHE GOPATH GOFLAGS GOTOOLCHAIN GOPROXY PPROF_TMPDIR
mkdir -p "$HOME" "$GOCACHE" "$GOPATH" "$PPROF_TMPDIR"

pprof() {
	"$go" tool pprof "$@" 2>>go.err || { show go.err; fail_now "go tool pprof $*"; }
}

pprof -top -nodecount=10 -unit=ms out.pb.gz >top.txt
show top.txt
pprof -top -nodecount=10 -sample_index=samples out.pb.gz >top-samples.txt
show top-samples.txt

# The rows under the "flat flat% sum% cum cum% name" header.
rows() {
	awk 'rows { print } $1 == "flat" && $2 == "flat%" { rows = 1 }' "$1"
}
first=$(rows top.txt | awk 'NR == 1 { print $6 }')
second=$(rows top.txt | awk 'NR == 2 { print $6 }')
[ "$first" = busy_a ] || fail_now "-top: first entry '$first', not busy_a"
[ "$second" = busy_b ] || fail_now "-top: second entry '$second', not busy_b"

# Shares: 75% and 25% of the samples, the ratio 3 within 20%.
share_a=$(rows top.txt | awk '$6 == "busy_a" { sub("%", "", $2); print $2 }')
share_b=$(rows top.txt | awk '$6 == "busy_b" { sub("%", "", $2); print $2 }')
echo "shares: busy_a $share_a%, busy_b $share_b%"
awk -v a="$share_a" -v b="$share_b" 'BEGIN {
	r = a / b
	printf "ratio busy_a/busy_b: %.2f (expected 3)\n", r
	exit !(r >= 2.4 && r <= 3.6 && a + b >= 90)
}' || fail_now "busy_a and busy_b shares not 3:1 and 90% together"

# The same samples as --folded, and CPU time = samples x 1 ms.
samples_a=$(rows top-samples.txt | awk '$6 == "busy_a" { print $1 }')
samples_b=$(rows top-samples.txt | awk '$6 == "busy_b" { print $1 }')
[ "$samples_a" = "$folded_a" ] && [ "$samples_b" = "$folded_b" ] ||
	fail_now "pprof flat samples $samples_a, $samples_b; --folded $folded_a, $folded_b"
grep -q "Total samples = ${total}ms " top.txt ||
	fail_now "-top: total is not $total samples x 1 ms"
grep -q "Total samples = ${total} " top-samples.txt ||
	fail_now "-sample_index=samples: total is not $total"

# Labels: present, with their values, and on the right samples.
pprof -tags out.pb.gz >tags.txt
show tags.txt
for want in 'region: Total' 'thread: Total' ': phase_a$' ': phase_b$' \
	': 0$' ': worker_b$'; do
	grep -q "$want" tags.txt || fail_now "-tags: no line matching '$want'"
done
check_focus() { # FUNCTION THREAD REGION
	pprof -tags -focus="^$1\$" out.pb.gz >"tags-$1.txt"
	show "tags-$1.txt"
	grep -q "(  100%): $2\$" "tags-$1.txt" ||
		fail_now "-tags -focus=$1: thread is not all $2"
	grep -q "(  100%): $3\$" "tags-$1.txt" ||
		fail_now "-tags -focus=$1: region is not all $3"
}
check_focus busy_a 0 phase_a
check_focus busy_b worker_b phase_b
pprof -top -sample_index=samples -tagfocus=thread=worker_b out.pb.gz \
	>worker.txt
first=$(rows worker.txt | awk 'NR == 1 { print $6 }')
flat=$(rows worker.txt | awk 'NR == 1 { print $1 }')
[ "$first" = busy_b ] && [ "$flat" = "$samples_b" ] ||
	{ show worker.txt; fail_now "-tagfocus=thread=worker_b: not busy_b alone"; }
cd / && rm -rf "$work"
echo "PASS"
