#!/bin/sh
# output_failures.sh TRMS LIBRARY - when the library cannot write its
# profile, the program's exit status and output are unchanged and the
# library says so on stderr; a symbolic link at the output path is replaced,
# not followed; an invalid setting gets one message and the default.
#
# Each program (/bin/true; /bin/echo hello world; sh -c '...exit 7', which
# writes to stdout and stderr) is run once plainly for reference, then with
# LD_PRELOAD=LIBRARY and a TRMS_OUTPUT that cannot be written:
#   (a) in a directory that does not exist;
#   (b) in a directory the program may not write to: a directory without
#       write permission, or, as root (whom permissions do not stop), a path
#       whose parent is a regular file and a path under /proc;
#   (c) /dev/full.  The library writes /dev/null, /dev/zero and /dev/full
#       as they are (other destinations are built beside and renamed over
#       them), so /dev/full fails as it fails for anyone: the message must
#       say "No space left on device".  As root the case runs on a device
#       node made with mknod (major 1, minor 7: the same device) in a
#       scratch directory, never on the real /dev/full, should the library
#       ever replace it.  The device must still be a device afterwards and
#       no temporary file be left next to it;
# and each must leave status, stdout and stderr as in the plain run, except
# for lines starting "trms:" on stderr, at least one of which names the
# path that could not be written.
#   (d) a symbolic link planted at the output path (to a victim file, and a
#       dangling one): the victim is unchanged (the dangling link's target
#       is not created), the output path becomes a regular file holding a
#       profile ("trms-profile 1" first, `trms report` reads it), and the
#       program runs as plainly (stderr identical too).
#   (e) invalid settings (TRMS_GRANULARITY=3, TRMS_COST=cycles,
#       TRMS_VERBOSE=9, TRMS_OFF=yes): exactly one line on stderr, naming
#       the variable, the value and every accepted value; the program runs
#       as plainly and the profile is written with the default.
#   (f) `trms run -o` with an unwritable output: the command's status and
#       stdout, and trms run's message naming the directory.
#   (g) a destination that is a directory, or a FIFO: refused, in words
#       ("Is a directory", "it is a FIFO"), the FIFO left as it was, nothing
#       left beside it.
# One line per check; exit status 1 if any failed.
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 TRMS LIBRARY" >&2
	exit 2
fi
abs() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s\n' "$(pwd)/$1" ;;
	esac
}
trms=$(abs "$1")
lib=$(abs "$2")
for f in "$trms" "$lib"; do
	if [ ! -r "$f" ]; then
		echo "$0: $f: no such file" >&2
		exit 2
	fi
done

unset LD_PRELOAD TRMS_OUTPUT TRMS_VERBOSE TRMS_OFF TRMS_GRANULARITY \
	TRMS_COST TRMS_RUN_SOCKET
LC_ALL=C
export LC_ALL
# Every case is about writing a profile, and most of the programs here
# record nothing (no samples, regions or I/O), which by default leaves no
# profile at all: keep theirs.
TRMS_EMPTY=keep
export TRMS_EMPTY

work=$(mktemp -d "${TMPDIR:-/tmp}/trms-output-failures.XXXXXX") || exit 2
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	chmod -R u+w "$work" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cwd=$work/cwd
mkdir -p "$cwd"

if [ "$(id -u)" -eq 0 ]; then
	root=yes
else
	root=no
fi

passes=0
failures=0
skips=0
pass() {
	echo "PASS $*"
	passes=$((passes + 1))
}
fail() {
	echo "FAIL $*"
	failures=$((failures + 1))
}
skip() {
	echo "SKIP $*"
	skips=$((skips + 1))
}
# Indented detail lines under a FAIL.
detail() { sed 's/^/    /'; }

programs="true echo sh"

# run PROGRAM PREFIX [NAME=VALUE...]: runs PROGRAM (true, echo or sh) in the
# scratch working directory with the given environment; PREFIX.out,
# PREFIX.err, PREFIX.status.
run() {
	r_prog=$1 r_prefix=$2
	shift 2
	case $r_prog in
	true) set -- "$@" /bin/true ;;
	echo) set -- "$@" /bin/echo hello world ;;
	sh) set -- "$@" sh -c 'echo out; echo "err on stderr" >&2; exit 7' ;;
	esac
	(cd "$cwd" && exec env "$@") </dev/null >"$r_prefix.out" \
		2>"$r_prefix.err"
	echo $? >"$r_prefix.status"
}

# The reference: each program run plainly.
for p in $programs; do
	run "$p" "$work/plain-$p"
done
describe() {
	case $1 in
	true) echo "/bin/true" ;;
	echo) echo "/bin/echo hello world" ;;
	sh) echo "sh -c '... exit 7'" ;;
	esac
}

# compare PROGRAM PREFIX: status and stdout as in the plain run; stderr
# without its "trms:" lines as in the plain run.  Appends what differs to
# $problems, the "trms:" lines to PREFIX.trms.
compare() {
	c_prefix=$2 plain=$work/plain-$1
	if [ "$(cat "$c_prefix.status")" != "$(cat "$plain.status")" ]; then
		problems="${problems}exit status $(cat "$c_prefix.status"), expected $(cat "$plain.status")
"
	fi
	if ! cmp -s "$c_prefix.out" "$plain.out"; then
		problems="${problems}stdout differs: $(cmp "$plain.out" "$c_prefix.out" 2>&1)
"
	fi
	grep '^trms:' "$c_prefix.err" >"$c_prefix.trms"
	grep -v '^trms:' "$c_prefix.err" >"$c_prefix.rest"
	if ! cmp -s "$c_prefix.rest" "$plain.err"; then
		problems="${problems}stderr (without trms: lines) differs from the plain run's
"
	fi
}

# expect_failure CASE PROGRAM TEMPLATE NAMED: run PROGRAM preloaded with
# TRMS_OUTPUT=TEMPLATE, which cannot be written; a "trms:" line on stderr
# must contain NAMED (the path, or its fixed part).
n=0
expect_failure() {
	label=$1 prog=$2 template=$3 named=$4
	n=$((n + 1))
	prefix=$work/run$n
	problems=""
	run "$prog" "$prefix" LD_PRELOAD="$lib" TRMS_OUTPUT="$template"
	compare "$prog" "$prefix"
	if ! grep -F -- "$named" "$prefix.trms" >/dev/null; then
		problems="${problems}no message on stderr saying the profile was not written to $named
"
		if [ "$prog" = echo ]; then
			problems="${problems}(coreutils programs close stdout and stderr at exit, in an atexit handler, before the library writes the profile)
"
		fi
	fi
	stray=$(find "$cwd" -mindepth 1 | head -n 3)
	if [ -n "$stray" ]; then
		problems="${problems}files left in the working directory: $stray
"
	fi
	what="$label: $(describe "$prog"), TRMS_OUTPUT=$template"
	if [ -z "$problems" ]; then
		pass "$what -> status $(cat "$prefix.status"), output unchanged," \
			"\"$(head -n 1 "$prefix.trms")\""
	else
		fail "$what"
		printf '%s' "$problems" | detail
		if [ -s "$prefix.err" ]; then
			echo "stderr of the preloaded run:" | detail
			sed -n '1,8p' "$prefix.err" | detail | detail
		else
			echo "stderr of the preloaded run: empty" | detail
		fi
	fi
}

# --- (a) a directory that does not exist --------------------------------

for p in $programs; do
	expect_failure "(a) no such directory" "$p" \
		"$work/no-such-dir/%e.%p.trms" "$work/no-such-dir/"
done
for p in $programs; do
	expect_failure "(a) no such directory, relative" "$p" \
		"no-such-dir/sub/out.trms" "no-such-dir/sub/out.trms"
done

# --- (b) a directory the program may not write to ------------------------

if [ "$root" = no ]; then
	mkdir "$work/readonly"
	chmod 555 "$work/readonly"
	for p in $programs; do
		expect_failure "(b) directory without write permission" "$p" \
			"$work/readonly/%e.%p.trms" "$work/readonly/"
	done
	if [ -n "$(ls -A "$work/readonly")" ]; then
		fail "(b) files appeared in the read-only directory:" \
			"$(ls -A "$work/readonly")"
	fi
else
	echo "note: running as root, whom permissions do not stop: (b) uses" \
		"a path whose parent is a regular file, and /proc"
	echo "not a directory" >"$work/afile"
	cp "$work/afile" "$work/afile.orig"
	for p in $programs; do
		expect_failure "(b) parent is a regular file" "$p" \
			"$work/afile/%e.%p.trms" "$work/afile/"
	done
	if ! cmp -s "$work/afile" "$work/afile.orig"; then
		fail "(b) the regular file standing for a directory changed"
	fi
	for p in $programs; do
		expect_failure "(b) under /proc" "$p" \
			"/proc/trms-test-%p.trms" "/proc/trms-test-"
	done
fi

# --- (c) /dev/full ----------------------------------------------------------

# check_device CASE DEVICE: DEVICE is still a character device and no
# temporary file of the library was left next to it.
check_device() {
	label=$1 dev=$2
	dir=${dev%/*}
	left=$(find "$dir" -maxdepth 1 -name "${dev##*/}.tmp*" 2>/dev/null)
	if [ ! -c "$dev" ]; then
		fail "$label: $dev is no longer a character device:" \
			"$(ls -l "$dev" 2>&1)"
		if [ -f "$dev" ]; then
			echo "its first line: $(head -n 1 "$dev")" | detail
		fi
	elif [ -n "$left" ]; then
		fail "$label: temporary files left next to $dev:" \
			"$(echo "$left" | tr '\n' ' ')"
	else
		pass "$label: $dev is still a character device, nothing left" \
			"next to it"
	fi
}

if [ -w /dev ] || [ "$root" = yes ]; then
	# The rename would replace the real /dev/full: use a copy of the node.
	mkdir "$work/dev"
	if mknod "$work/dev/full" c 1 7 2>/dev/null &&
		! echo x 2>/dev/null >"$work/dev/full"; then
		echo "note: /dev is writable (running as root): (c) uses a" \
			"device node like /dev/full made in $work/dev," \
			"not the real one"
		for p in $programs; do
			expect_failure "(c) /dev/full (a copy)" "$p" \
				"$work/dev/full" \
				"$work/dev/full: No space left on device"
			check_device "(c) /dev/full (a copy), $(describe "$p")" \
				"$work/dev/full"
			if [ ! -c "$work/dev/full" ]; then
				rm -f "$work/dev/full"
				mknod "$work/dev/full" c 1 7
			fi
		done
	else
		skip "(c) /dev/full: /dev is writable and no device node" \
			"can be made to stand for /dev/full (mknod)"
	fi
else
	for p in $programs; do
		expect_failure "(c) /dev/full" "$p" /dev/full \
			"/dev/full: No space left on device"
	done
	check_device "(c) /dev/full" /dev/full
fi

# --- (d) a symbolic link planted at the output path ------------------------

for p in $programs; do
	n=$((n + 1))
	prefix=$work/run$n
	d=$work/symlink-$p
	mkdir -p "$d" "$work/victims"
	printf 'precious data of %s\n' "$p" >"$work/victims/$p"
	cp "$work/victims/$p" "$work/victims/$p.orig"
	ln -s "$work/victims/$p" "$d/out.trms"
	ln -s "$work/victims/$p-dangling" "$d/dangling.trms"
	problems=""
	run "$p" "$prefix" LD_PRELOAD="$lib" TRMS_OUTPUT="$d/out.trms"
	compare "$p" "$prefix"
	if [ -s "$prefix.trms" ]; then
		problems="${problems}messages on stderr: $(cat "$prefix.trms")
"
	fi
	run "$p" "$prefix.dangling" LD_PRELOAD="$lib" \
		TRMS_OUTPUT="$d/dangling.trms"
	compare "$p" "$prefix.dangling"
	if ! cmp -s "$work/victims/$p" "$work/victims/$p.orig"; then
		problems="${problems}the victim file changed: $(head -c 60 "$work/victims/$p")
"
	fi
	if [ -e "$work/victims/$p-dangling" ] ||
		[ -L "$work/victims/$p-dangling" ]; then
		problems="${problems}the dangling link's target was created
"
	fi
	for out in "$d/out.trms" "$d/dangling.trms"; do
		if [ -L "$out" ] || [ ! -f "$out" ]; then
			problems="${problems}$out is not a regular file: $(ls -l "$out")
"
		elif [ "$(head -n 1 "$out")" != "trms-profile 1" ]; then
			problems="${problems}$out does not start with trms-profile 1: $(head -c 60 "$out")
"
		elif ! "$trms" report "$out" >"$prefix.report" 2>&1; then
			problems="${problems}trms report $out fails: $(head -n 3 "$prefix.report")
"
		fi
	done
	left=$(find "$d" -name '*.tmp*')
	if [ -n "$left" ]; then
		problems="${problems}temporary files left: $left
"
	fi
	what="(d) symbolic link at the output path: $(describe "$p")"
	if [ -z "$problems" ]; then
		pass "$what -> victim unchanged, dangling target not created," \
			"output paths are regular profiles"
	else
		fail "$what"
		printf '%s' "$problems" | detail
	fi
done

# --- (e) invalid settings --------------------------------------------------

# invalid NAME VALUE META DEFAULT ACCEPTED...: NAME=VALUE gets one message
# naming NAME, VALUE and each accepted value; the profile (if META is not
# "-") has "meta META DEFAULT".
invalid() {
	var=$1 value=$2 meta=$3 default=$4
	shift 4
	for p in $programs; do
		n=$((n + 1))
		prefix=$work/run$n
		d=$work/invalid$n
		mkdir "$d"
		problems=""
		run "$p" "$prefix" LD_PRELOAD="$lib" TRMS_OUTPUT="$d/%e.%p.trms" \
			"$var=$value"
		compare "$p" "$prefix"
		lines=$(wc -l <"$prefix.trms" | tr -d ' ')
		extra=$(($(wc -l <"$prefix.err") - $(wc -l <"$work/plain-$p.err")))
		if [ "$lines" -ne 1 ] || [ "$extra" -ne 1 ]; then
			problems="${problems}$extra line(s) added to stderr, $lines starting trms:, expected 1
"
		fi
		msg=$(head -n 1 "$prefix.trms")
		for word in "$var" "$value" "$@"; do
			if ! printf '%s\n' "$msg" | grep -F -w -- "$word" >/dev/null
			then
				problems="${problems}the message does not name \"$word\"
"
			fi
		done
		profile=$(find "$d" -name '*.trms' | head -n 1)
		if [ -z "$profile" ]; then
			problems="${problems}no profile written
"
		elif [ "$meta" != - ] &&
			! grep -x "meta $meta $default" "$profile" >/dev/null; then
			problems="${problems}the profile does not say \"meta $meta $default\": $(grep "^meta $meta" "$profile")
"
		fi
		what="(e) $var=$value: $(describe "$p")"
		if [ -z "$problems" ]; then
			pass "$what -> \"$msg\""
		else
			fail "$what"
			printf '%s' "$problems" | detail
			echo "stderr:" | detail
			sed -n '1,5p' "$prefix.err" | detail | detail
		fi
	done
}
invalid TRMS_GRANULARITY 3 granularity 4 1 2 4 8 16
invalid TRMS_COST cycles cost ns ns events
invalid TRMS_VERBOSE 9 - - 0 1 2
invalid TRMS_OFF yes - - 0 1

# --- (f) trms run with an output it cannot write ---------------------------

for p in sh echo; do
	n=$((n + 1))
	prefix=$work/run$n
	problems=""
	case $p in
	sh) set -- sh -c 'echo out; echo "err on stderr" >&2; exit 7' ;;
	echo) set -- /bin/echo hello world ;;
	esac
	(cd "$cwd" && exec "$trms" run -o "$work/no-such-dir/%e.%p.trms" -- "$@") \
		</dev/null >"$prefix.out" 2>"$prefix.err"
	echo $? >"$prefix.status"
	compare "$p" "$prefix"
	problems=$(printf '%s' "$problems" | grep -v '^stderr')
	if [ -n "$problems" ]; then
		problems="$problems
"
	fi
	if ! grep -F "$work/no-such-dir/" "$prefix.trms" >/dev/null; then
		problems="${problems}no message naming $work/no-such-dir/
"
	fi
	what="(f) trms run -o $work/no-such-dir/%e.%p.trms -- $(describe "$p")"
	if [ -z "$problems" ]; then
		pass "$what -> status $(cat "$prefix.status"), stdout unchanged"
	else
		fail "$what"
		printf '%s' "$problems" | detail
		echo "stderr:" | detail
		sed -n '1,5p' "$prefix.err" | detail | detail
	fi
done

# --- (g) a directory or a FIFO at the output path --------------------------

mkdir -p "$work/dest/a-directory"
mkfifo "$work/dest/a-fifo"
for p in $programs; do
	expect_failure "(g) a directory at the output path" "$p" \
		"$work/dest/a-directory" "a-directory: Is a directory"
	expect_failure "(g) a FIFO at the output path" "$p" \
		"$work/dest/a-fifo" "a-fifo: it is a FIFO"
done
left=$(ls -A "$work/dest" | tr '\n' ' ')
if [ ! -p "$work/dest/a-fifo" ] || [ ! -d "$work/dest/a-directory" ] ||
	[ "$left" != "a-directory a-fifo " ]; then
	fail "(g) the destinations changed, or files were left: $left"
else
	pass "(g) the directory and the FIFO are as they were, nothing beside"
fi

echo "output-failures: $passes passed, $failures failed, $skips skipped"
[ "$failures" -eq 0 ] || exit 1
exit 0
