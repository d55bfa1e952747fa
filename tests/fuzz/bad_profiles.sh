#!/bin/sh
# bad_profiles.sh - `trms report` on files that are not good profiles:
# empty, truncated at every line boundary and in the middle of every line
# of a real profile, of another version, with an unknown line type, with
# tuples of undeclared regions and threads, bad numbers, overlong lines,
# NUL bytes, broken call trees; a directory without profiles, a missing
# file, /dev/zero.
# Each time: exit status 2, nothing on stdout, and exactly one line on
# stderr, which names the file and, where there is one, the line.  Then
# each hand-written file of the fuzz corpus: read (exit 0) or refused that
# same way.
#
#   bad_profiles.sh TRMS CORPUS_DIR
#
# BAD_PROFILES_EVERY=K (the sanitizer build's run, scripts/test): the
# truncations at every K-th line only, from a line drawn at random
# (BAD_PROFILES_FROM=J, printed, to repeat a run): under the sanitizers
# a run of `trms report` takes ~150 ms, and the cuts are 400 of them;
# runs add up to all of them.  Every other case is checked every time.
set -u
every=${BAD_PROFILES_EVERY:-1}
from=${BAD_PROFILES_FROM:-$(awk -v k="$every" 'BEGIN { srand(); print int(rand() * k) }')}
[ "$every" -gt 1 ] &&
	echo "truncations at one line in $every, from line $from (BAD_PROFILES_FROM=$from)"

if [ $# -ne 2 ]; then
	echo "usage: $0 TRMS CORPUS_DIR" >&2
	exit 2
fi
trms=$1 corpus=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/trms-bad-profiles.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=$((failed + 1))
}

# refused DESCRIPTION FILE WHERE TEXT: `trms report FILE` refuses it with
# one line of stderr holding "WHERE: " (FILE or FILE:LINE) and TEXT.
refused() {
	description=$1 file=$2 where=$3 text=$4
	status=0
	"$trms" report "$file" >"$tmp/out" 2>"$tmp/err" || status=$?
	lines=$(wc -l <"$tmp/err")
	message=$(cat "$tmp/err")
	if [ "$status" -ne 2 ]; then
		fail "$description: exit status $status, not 2: $(head -c 300 "$tmp/err")"
	elif [ -s "$tmp/out" ]; then
		fail "$description: stdout: $(head -c 200 "$tmp/out")"
	elif [ "$lines" -ne 1 ] || [ "$(wc -c <"$tmp/err")" -gt 1000 ]; then
		fail "$description: not one line on stderr: $(head -c 300 "$tmp/err")"
	else
		case $message in
		*"$where: "*"$text"*) passed=$((passed + 1)) ;;
		*) fail "$description: '$message' lacks '$where: ...$text'" ;;
		esac
	fi
}

write() { # write NAME: stdin to a scratch file; prints its path
	cat >"$tmp/$1"
	echo "$tmp/$1"
}

# Two good profiles, cut after each line, in the middle of the next and
# just before its newline: one with every line type, one the library
# wrote (a sampled run of examples/prodcons.c).
for base in "$corpus/all-lines.trms" "$corpus/sampled-prodcons.trms"; do
	status=0
	"$trms" report "$base" >/dev/null 2>"$tmp/err" || status=$?
	if [ "$status" -ne 0 ]; then
		fail "$base is not read: $(cat "$tmp/err")"
		continue
	fi
	passed=$((passed + 1))
	count=$(wc -l <"$base")
	k=0
	while [ "$k" -lt "$count" ]; do
		if [ $((k % every)) -ne $((from % every)) ]; then
			k=$((k + 1))
			continue
		fi
		bytes=$(head -n "$k" "$base" | wc -c)
		length=$(sed -n "$((k + 1))p" "$base" | wc -c) # with newline
		file=$tmp/cut-$k.trms
		head -n "$k" "$base" >"$file"
		if [ "$k" -eq 0 ]; then
			refused "cut at the start" "$file" "$file" "empty file"
		else
			refused "$base cut after line $k" "$file" \
				"$file:$((k + 1))" "truncated profile"
		fi
		for at in $((length / 2)) $((length - 1)); do
			[ "$at" -gt 0 ] || continue
			head -c "$((bytes + at))" "$base" >"$file"
			refused "$base cut in line $((k + 1)) at byte $at" \
				"$file" "$file:$((k + 1))" "truncated line"
		done
		k=$((k + 1))
	done
done

header='trms-profile 1'
tuple_setup="$header
region 0 f
thread 0"

f=$(printf '' | write empty.trms)
refused "empty file" "$f" "$f" "empty file"
f=$(printf 'trms-profile 5\nend 0\n' | write version-5.trms)
refused "version 5" "$f" "$f:1" "profile format version 5"
# object lines: version 4 and later, of a declared region, once each.
f=$(printf 'trms-profile 3\nregion 0 f\nobject 0 /bin/f\nend 0\n' |
	write object-v3.trms)
refused "object line in version 3" "$f" "$f:3" "an object line in a version 3 profile"
f=$(printf 'trms-profile 4\nregion 0 f\nobject 1 /bin/f\nend 0\n' |
	write object-undeclared.trms)
refused "object of an undeclared region" "$f" "$f:3" "object of undeclared region"
f=$(printf 'trms-profile 4\nregion 0 f\nobject 0 /bin/f\nobject 0 /bin/g\nend 0\n' |
	write object-twice.trms)
refused "object twice" "$f" "$f:4" "region 0's object given twice"
f=$(printf 'trms-profile 4\nregion 0 f\nobject 0\nend 0\n' |
	write object-short.trms)
refused "object without path" "$f" "$f:3" "an object line has 3 fields"
f=$(printf 'trms-profile 0\nend 0\n' | write version-0.trms)
refused "version 0" "$f" "$f:1" "profile format version 0"
f=$(printf 'trms-profile 123456789012345678901234567890\nend 0\n' |
	write version-huge.trms)
refused "huge version" "$f" "$f:1" "profile format version"
f=$(printf 'trms-profile 1.0\nend 0\n' | write version-text.trms)
refused "version 1.0" "$f" "$f:1" "not a trms profile"
f=$(printf 'hello\n' | write hello.trms)
refused "not a profile" "$f" "$f:1" "not a trms profile"
f=$(printf '\177ELF\002\001\001\000\000' | write elf.trms)
refused "an ELF file" "$f" "$f:1" "not a trms profile"
f=$(printf '%s\nregion 0 f\nfrobnicate 1 2\nend 0\n' "$header" |
	write unknown.trms)
refused "unknown line type" "$f" "$f:3" "unknown line type 'frobnicate'"
f=$(printf '%s\n\nend 0\n' "$header" | write blank.trms)
refused "empty line" "$f" "$f:2" "empty line"
f=$(printf '%s\nend 1\n' "$header" | write count.trms)
refused "end count" "$f" "$f:2" "end line promises 1 tuples"
f=$(printf '%s\nend 0\nregion 0 f\n' "$header" | write after-end.trms)
refused "text after the end" "$f" "$f:3" "text after the end line"

f=$(printf '%s\ntuple 5 0 trms 1 1 2 2 2 4 0 0\nend 1\n' "$tuple_setup" |
	write undeclared-region.trms)
refused "undeclared region" "$f" "$f:4" "tuple for undeclared region 5"
f=$(printf '%s\ntuple 0 3 trms 1 1 2 2 2 4 0 0\nend 1\n' "$tuple_setup" |
	write undeclared-thread.trms)
refused "undeclared thread" "$f" "$f:4" "tuple for undeclared thread 3"
f=$(printf '%s\ntuple 0 0 trms 1 1 2 2 2 4 0 0\nregion 1 late\nend 1\n' \
	"$header" | write tuple-first.trms)
refused "tuple before its region" "$f" "$f:2" "undeclared region 0"
f=$(printf '%s\ntuple 0 0 trms 1 x 2 2 2 4 0 0\nend 1\n' "$tuple_setup" |
	write number.trms)
refused "bad number" "$f" "$f:4" "bad number 'x'"
f=$(printf '%s\ntuple 0 0 trms 18446744073709551616 1 2 2 2 4 0 0\nend 1\n' \
	"$tuple_setup" | write overflow.trms)
refused "number over 64 bits" "$f" "$f:4" "bad number"
f=$(printf '%s\ntuple 0 0 trms -1 1 2 2 2 4 0 0\nend 1\n' "$tuple_setup" |
	write negative.trms)
refused "negative number" "$f" "$f:4" "bad number '-1'"
f=$(printf '%s\ntuple 0 0 trms 1 1 2 2 2 4 0\nend 1\n' "$tuple_setup" |
	write short-tuple.trms)
refused "tuple of 11 fields" "$f" "$f:4" "has 12 fields"

# Version 3: tuples end with the correction's three fields, consistent.
v3_setup="trms-profile 3
region 0 f
thread 0"
f=$(printf '%s\ntuple 0 0 trms 1 1 2 2 2 4 0 0\nend 1\n' "$v3_setup" |
	write v3-short-tuple.trms)
refused "version 3 tuple of 12 fields" "$f" "$f:4" "has 15 fields"
f=$(printf '%s\ntuple 0 0 trms 1 1 2 2 2 4 0 0 2 10 5\nend 1\n' \
	"$v3_setup" | write v3-corrected.trms)
refused "more corrected than counted" "$f" "$f:4" "more activations corrected"
f=$(printf '%s\ntuple 0 0 trms 1 1 2 2 2 4 0 0 1 10 11\nend 1\n' \
	"$v3_setup" | write v3-estimated.trms)
refused "more estimated than taken out" "$f" "$f:4" "more library time estimated"
f=$(printf '%s\ntuple 0 0 trms 1 1 2 2 2 4 0 0 0 10 5\nend 1\n' \
	"$v3_setup" | write v3-uncorrected.trms)
refused "library time of no activation" "$f" "$f:4" "no activation corrected"
f=$(printf '%s\ntuple 0 0 trms 1 1 2 2 2 4 0 0 1 1x 0\nend 1\n' \
	"$v3_setup" | write v3-number.trms)
refused "bad correction number" "$f" "$f:4" "bad number '1x'"
f=$(printf '%s\nregion 4294967296 f\nend 0\n' "$header" | write region-id.trms)
refused "region id over 32 bits" "$f" "$f:2" "bad region id"
f=$(printf '%s\nthread 0 in_bytes=12a\nend 0\n' "$header" |
	write thread-counter.trms)
refused "bad thread counter" "$f" "$f:2" "bad in_bytes '12a'"
f=$(printf '%s\nthread 0 samples=3 cpu_ns=-1\nend 0\n' "$header" |
	write thread-cpu-ns.trms)
refused "bad thread cpu_ns" "$f" "$f:2" "bad cpu_ns '-1'"
f=$(printf '%s\nthread 0 samples=\nend 0\n' "$header" |
	write thread-samples.trms)
refused "empty thread samples" "$f" "$f:2" "bad samples ''"
f=$(printf '%s\nthread 0 name=x creator=\nend 0\n' "$header" |
	write thread-creator.trms)
refused "bad creator" "$f" "$f:2" "bad creator"
f=$(printf '%s\nmodule 0 1 2 3 mapped /lib/x.so\nend 0\n' "$header" |
	write module-state.trms)
refused "bad module state" "$f" "$f:2" "expected loaded or unloaded"
f=$(printf '%s\nregion 0 bad%%zzname\nend 0\n' "$header" | write escape.trms)
refused "bad escape" "$f" "$f:2" "bad escape in region name"

# Call trees: parents first, each node once, not absurdly deep.
f=$(printf '%s\ncct 0 2 1 frame 0 0 1 1 0 0 0\nend 0\n' "$tuple_setup" |
	write orphan.trms)
refused "cct node before its parent" "$f" "$f:4" "before its parent 1"
root='cct 0 1 - thread 0 0 0 0 0 0 0'
f=$(printf '%s\n%s\n%s\nend 0\n' "$tuple_setup" "$root" "$root" |
	write twice.trms)
refused "cct node twice" "$f" "$f:5" "declared twice"
f=$(printf '%s\ncct 7 1 - thread 0 0 0 0 0 0 0\nend 0\n' "$tuple_setup" |
	write cct-thread.trms)
refused "cct of an undeclared thread" "$f" "$f:4" "undeclared thread 7"
f=$tmp/deep.trms
{
	echo "$tuple_setup"
	echo "cct 0 1 - thread 0 0 0 0 0 0 0"
	awk 'BEGIN { for (i = 2; i <= 5000; i++)
		printf "cct 0 %d %d frame 0 %d 1 1 0 0 0\n", i, i - 1, i }'
	echo "end 0"
} >"$f"
refused "cct tree 5000 deep" "$f" "$f:4100" "deeper than 4096"

# Overlong lines and NUL bytes.
f=$tmp/long-line.trms
{
	echo "$header"
	printf 'region 0 '
	head -c 2000000 /dev/zero | tr '\0' a
	printf '\nend 0\n'
} >"$f"
refused "line of 2 MB" "$f" "$f:2" "line longer than"
f=$tmp/long-first-line.trms
head -c 2000000 /dev/zero | tr '\0' a >"$f"
refused "first line of 2 MB" "$f" "$f:1" "not a trms profile"
f=$(printf '%s\nregion 0 a\000b\nend 0\n' "$header" | write nul.trms)
refused "NUL byte" "$f" "$f:2" "NUL byte"
f=$(printf 'trms-profile 1\000\nend 0\n' | write nul-header.trms)
refused "NUL byte in the first line" "$f" "$f:1" "NUL byte"

# Not files.
mkdir "$tmp/a-directory"
refused "a directory without profiles" "$tmp/a-directory" "$tmp/a-directory" \
	"no profile (*.trms) in this directory"
refused "a missing file" "$tmp/missing.trms" "$tmp/missing.trms" \
	"No such file"
refused "/dev/zero" /dev/zero /dev/zero:1 "not a trms profile"

# The hand-written files of the corpus (the fuzzer's finds, named by
# their hash, go through the same checks in fuzz-corpus, in-process):
# read, or refused in one line naming the file.
for f in "$corpus"/*.trms; do
	status=0
	"$trms" report "$f" >"$tmp/out" 2>"$tmp/err" || status=$?
	if [ "$status" -eq 0 ]; then
		passed=$((passed + 1))
	elif [ "$status" -ne 2 ]; then
		fail "corpus file $f: exit status $status: $(head -c 300 "$tmp/err")"
	elif [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
		fail "corpus file $f: refused with stdout or stderr not one line"
	elif ! grep -qF "$f:" "$tmp/err"; then
		fail "corpus file $f: message lacks the name: $(cat "$tmp/err")"
	else
		passed=$((passed + 1))
	fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
