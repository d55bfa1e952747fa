#!/bin/sh
# demangle.sh TRMS BURN_CXX SCRATCH - C++ function names in reports: the
# sampled frames of a C++ program (burn_cxx.cc) run under `trms run` are
# demangled by default in --folded and --tree --lines, and left as the
# linker knows them with --no-demangle.  Exit status 77 (skipped) if the
# library cannot be preloaded (a sanitizer build) or c++filt is missing.
set -u

trms=$1
burn=$2
work=$3/$$

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

[ -z "${PPROF_NO_PRELOAD:-}" ] || { echo "SKIP: no preloading"; exit 77; }
command -v c++filt >/dev/null || { echo "SKIP: no c++filt"; exit 77; }
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1

"$trms" run -F 1000 -o "$work/cxx.trms" -- "$burn" >/dev/null ||
	fail "trms run $burn failed"
profile=$work/cxx.trms
[ -s "$profile" ] || fail "no profile at $profile"

"$trms" report --folded "$profile" >folded.txt || fail "--folded failed"
# (The compiler may make a clone of spin: "spin(int) [clone .isra.0]".)
grep -q ';demo::burn(double);demo::Box<unsigned long>::spin(int)[^;]* [0-9]*$' \
	folded.txt || { cat folded.txt; fail "--folded: no demangled stack"; }
if grep -q '_ZN4demo' folded.txt; then
	cat folded.txt
	fail "--folded: a mangled name is left"
fi

"$trms" report --folded --no-demangle "$profile" >mangled.txt ||
	fail "--folded --no-demangle failed"
grep -q ';_ZN4demo4burnEd;_ZN4demo3BoxImE4spinEi[^;]* [0-9]*$' mangled.txt ||
	{ cat mangled.txt; fail "--no-demangle: names are not the linker's"; }

"$trms" report --tree --lines --min 0 "$profile" >tree.txt ||
	fail "--tree --lines failed"
grep -q 'demo::Box<unsigned long>::spin(int)[^(]* (burn_cxx.cc:[0-9]*)' tree.txt ||
	{ cat tree.txt; fail "--tree --lines: no demangled name with its line"; }

echo "PASS: demangled in --folded and --tree --lines, mangled with --no-demangle"
rm -rf "$work"
