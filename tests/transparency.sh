#!/bin/sh
# transparency.sh LIBRARY - standard programs behave byte-identically with
# and without the library preloaded.
#
# Each case runs a program twice, in the same scratch working directory,
# with the same input and environment except LD_PRELOAD: once plainly and
# once with LD_PRELOAD=LIBRARY.  TRMS_OUTPUT points into a scratch directory
# of each run's own.  The case passes when
#   - standard output is byte-identical (cmp),
#   - standard error is byte-identical,
#   - the exit status is the same,
#   - the preloaded run wrote at least one profile (first line
#     "trms-profile 1") and every file it left in its profile directory is
#     a complete profile (no temporary files), and
#   - the plain run wrote none (and neither run wrote a profile into the
#     working directory).
# One line per case; on any difference a summary of it, and exit status 1.
# Programs that are not installed are reported as SKIP (scripts/install-deps --tests
# installs them); exit status 77 (skipped) if every case was skipped.
set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 LIBRARY" >&2
	exit 2
fi
case $1 in
/*) lib=$1 ;;
*) lib=$(pwd)/$1 ;;
esac
if [ ! -r "$lib" ]; then
	echo "$0: $lib: no such library" >&2
	exit 2
fi

# The same settings for both runs, and none of the library's own inherited
# from whoever runs the test.
unset LD_PRELOAD TRMS_OUTPUT TRMS_VERBOSE TRMS_OFF TRMS_GRANULARITY \
	TRMS_COST TRMS_RUN_SOCKET
LC_ALL=C
export LC_ALL

work=$(mktemp -d "${TMPDIR:-/tmp}/trms-transparency.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# A program that hangs must not hang the test.
if command -v timeout >/dev/null 2>&1; then
	limit="timeout 300"
else
	limit=""
fi

failures=0
passes=0
skips=0
case_no=0

# How many profiles the preloaded run must write at least (one per process
# that loaded the library); a case that starts processes sets more.
min_profiles=1

# Called before each of the two runs of a case; a case that needs a fresh
# state (a new database) sets it.
before_each() { :; }

# run DIR INPUT PRELOAD CMD... : one run; files DIR.out DIR.err DIR.status,
# profiles in DIR.prof/.
run() {
	dir=$1 input=$2 preload=$3
	shift 3
	mkdir -p "$dir.prof" "$work/cwd"
	before_each
	# shellcheck disable=SC2086 # $limit is a command and its argument
	if [ "$preload" = yes ]; then
		(cd "$work/cwd" && TRMS_OUTPUT="$dir.prof/%e.%p.trms" \
			exec $limit env LD_PRELOAD="$lib" "$@") \
			<"$input" >"$dir.out" 2>"$dir.err"
	else
		(cd "$work/cwd" && TRMS_OUTPUT="$dir.prof/%e.%p.trms" \
			exec $limit "$@") \
			<"$input" >"$dir.out" 2>"$dir.err"
	fi
	echo $? >"$dir.status"
}

# Show how two files differ: the first differing byte and a short diff.
show_diff() {
	what=$1 plain=$2 preloaded=$3
	echo "    $what differs: $(cmp "$plain" "$preloaded" 2>&1 | head -n 1)"
	echo "    plain $(wc -c <"$plain") bytes, preloaded" \
		"$(wc -c <"$preloaded") bytes; diff (plain -> preloaded):"
	if diff -u "$plain" "$preloaded" >"$work/diff" 2>&1; then
		:
	fi
	sed -n '3,22s/^/      /p' "$work/diff"
}

# check_case NAME INPUT CMD... : run plainly and preloaded, compare.
check_case() {
	name=$1 input=$2
	shift 2
	case_no=$((case_no + 1))
	if ! command -v "$1" >/dev/null 2>&1; then
		echo "SKIP $name ($1 is not installed)"
		skips=$((skips + 1))
		before_each() { :; }
		min_profiles=1
		return
	fi
	base=$work/case$case_no
	run "$base.plain" "$input" no "$@"
	run "$base.preload" "$input" yes "$@"
	before_each() { :; }
	need=$min_profiles
	min_profiles=1

	problems=""
	if ! cmp -s "$base.plain.out" "$base.preload.out"; then
		problems="$problems stdout"
	fi
	if ! cmp -s "$base.plain.err" "$base.preload.err"; then
		problems="$problems stderr"
	fi
	st_plain=$(cat "$base.plain.status")
	st_pre=$(cat "$base.preload.status")
	[ "$st_plain" = "$st_pre" ] || problems="$problems status"
	profiles=0 bad_files=""
	for f in "$base.preload.prof"/*; do
		[ -e "$f" ] || continue
		if [ -f "$f" ] && [ "$(head -n 1 "$f")" = "trms-profile 1" ] &&
			[ "$(tail -n 1 "$f" | cut -d' ' -f1)" = end ]; then
			profiles=$((profiles + 1))
		else
			bad_files="$bad_files ${f##*/}"
		fi
	done
	[ "$profiles" -ge "$need" ] || problems="$problems no-profile"
	[ -z "$bad_files" ] || problems="$problems bad-profile-files"
	plain_files=$(ls -A "$base.plain.prof")
	[ -z "$plain_files" ] || problems="$problems profile-in-plain-run"
	stray=$(find "$work/cwd" -name '*.trms*' | head -n 5)
	[ -z "$stray" ] || problems="$problems stray-profile"

	if [ -z "$problems" ]; then
		echo "PASS $name (status $st_plain, stdout" \
			"$(wc -c <"$base.plain.out" | tr -d ' ') bytes, stderr" \
			"$(wc -c <"$base.plain.err" | tr -d ' ') bytes," \
			"$profiles profile(s))"
		passes=$((passes + 1))
		return
	fi
	failures=$((failures + 1))
	echo "FAIL $name:$problems"
	echo "    command: $(printf '%s ' "$@" | tr '\n' ' ' | cut -c 1-160)"
	case $problems in *stdout*)
		show_diff stdout "$base.plain.out" "$base.preload.out" ;;
	esac
	case $problems in *stderr*)
		show_diff stderr "$base.plain.err" "$base.preload.err" ;;
	esac
	case $problems in *status*)
		echo "    exit status: plain $st_plain, preloaded $st_pre" ;;
	esac
	case $problems in *no-profile*)
		echo "    the preloaded run wrote $profiles profile(s), expected at" \
			"least $need, in $base.preload.prof" ;;
	esac
	case $problems in *bad-profile-files*)
		echo "    files in the profile directory that are not complete" \
			"profiles:$bad_files" ;;
	esac
	case $problems in *profile-in-plain-run*)
		echo "    the plain run left files:" \
			"$(echo "$plain_files" | tr '\n' ' ')" ;;
	esac
	case $problems in *stray-profile*)
		echo "    profiles in the working directory:" \
			"$(echo "$stray" | tr '\n' ' ')" ;;
	esac
	if [ -s "$base.preload.err" ]; then
		echo "    stderr of the preloaded run (first lines):"
		sed -n '1,10s/^/      /p' "$base.preload.err"
	fi
}

# --- Inputs ---------------------------------------------------------------

in=$work/in
mkdir -p "$in"
: >"$in/empty"
# A few thousand random lines: numbers, words, duplicates.
awk 'BEGIN {
	srand(20240601)
	for (i = 0; i < 4000; i++) {
		r = int(rand() * 1000000)
		if (i % 3 == 0)
			printf "%d\n", r - 500000
		else if (i % 3 == 1)
			printf "line %06d %s\n", r % 1500, substr("abcdefghij", 1 + r % 10)
		else
			printf "%08x\t%d.%d\n", r, r % 97, r % 13
	}
}' >"$in/lines"
head -c 10485760 /dev/urandom >"$in/big"
head -c 100000 /dev/urandom >"$in/medium"
printf 'short\n' >"$in/short"

# --- sort ------------------------------------------------------------------

check_case "sort" "$in/lines" sort
check_case "sort -n" "$in/lines" sort -n
check_case "sort -u" "$in/lines" sort -u
check_case "sort -n -u (file argument)" "$in/empty" sort -n -u "$in/lines"
# Several threads and temporary files: a small buffer forces merges.
check_case "sort --parallel=4 -S 64K" "$in/empty" \
	sort --parallel=4 -S 64K -T "$work/cwd" "$in/lines" "$in/lines"

# --- gzip ------------------------------------------------------------------

check_case "gzip -c (lines)" "$in/lines" gzip -c
check_case "gzip -c (10 MB, file argument)" "$in/empty" gzip -c "$in/big"
# The round trip: what gzip made plainly, decompressed both ways.
if command -v gzip >/dev/null 2>&1; then
	gzip -c <"$in/lines" >"$in/lines.gz"
	gzip -c <"$in/big" >"$in/big.gz"
	gzip -c <"$in/lines" | head -c 2000 >"$in/truncated.gz"
fi
check_case "gzip -dc (lines)" "$in/lines.gz" gzip -dc
check_case "gzip -dc (10 MB)" "$in/empty" gzip -dc "$in/big.gz"
check_case "gzip -dc (truncated input, error)" "$in/truncated.gz" gzip -dc
if command -v gzip >/dev/null 2>&1; then
	# The round trip, all preloaded, gives back the input.
	env LD_PRELOAD="$lib" TRMS_OUTPUT="$work/roundtrip.%p.trms" gzip -c \
		<"$in/big" | env LD_PRELOAD="$lib" \
		TRMS_OUTPUT="$work/roundtrip.%p.trms" gzip -dc >"$in/big.back"
	if cmp -s "$in/big" "$in/big.back"; then
		echo "PASS gzip -c | gzip -dc round trip, both preloaded (10 MB)"
		passes=$((passes + 1))
	else
		echo "FAIL gzip -c | gzip -dc round trip, both preloaded: the" \
			"output is not the input: $(cmp "$in/big" "$in/big.back" 2>&1)"
		failures=$((failures + 1))
	fi
fi

# --- sha256sum -------------------------------------------------------------

check_case "sha256sum (4 files, 10 MB one)" "$in/empty" \
	sha256sum "$in/empty" "$in/short" "$in/medium" "$in/big"
check_case "sha256sum (stdin)" "$in/big" sha256sum
check_case "sha256sum (a missing file, error)" "$in/empty" \
	sha256sum "$in/short" "$in/missing" "$in/lines"

# --- python3 ---------------------------------------------------------------

cat >"$in/script.py" <<'EOF'
import hashlib, os, subprocess, sys, threading

data = sys.stdin.buffer.read()
lines = data.splitlines()
result = {}

def worker():
    result["longest"] = max(len(l) for l in lines)
    result["digest"] = hashlib.sha256(data).hexdigest()

t = threading.Thread(target=worker)
t.start()
t.join()
print("lines", len(lines), "bytes", len(data), "longest", result["longest"])
print("sha256", result["digest"])
sys.stdout.flush()
print("a line on stderr", file=sys.stderr)
sys.stderr.flush()

r = subprocess.run(["sh", "-c", "echo from sh; echo sh-err >&2; exit 3"],
                   capture_output=True)
print("subprocess", r.returncode, r.stdout, r.stderr)
sys.stdout.flush()

pid = os.fork()
if pid == 0:
    sys.stdout.write("forked child %d lines\n" % len(lines))
    sys.stdout.flush()
    os._exit(5)
_, status = os.waitpid(pid, 0)
print("child exit", os.waitstatus_to_exitcode(status))
for l in sorted(lines)[:5]:
    sys.stdout.buffer.write(l + b"\n")
sys.stdout.flush()
sys.stderr.write("exiting with 42\n")
sys.exit(42)
EOF
# Profiles: python3, its forked child, the sh it runs (at least).
min_profiles=3
check_case "python3 (stdin, thread, subprocess, fork, exit 42)" \
	"$in/lines" python3 -c "$(cat "$in/script.py")"

# --- sqlite3 ---------------------------------------------------------------

cat >"$in/script.sql" <<'EOF'
.mode csv
.headers on
CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL
  REFERENCES author(id), title TEXT, pages INTEGER);
INSERT INTO author(name) VALUES ('Coppa'), ('Demetrescu'), ('Finocchi'),
  ('Marotta');
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
INSERT INTO book(author_id, title, pages)
  SELECT 1 + i % 4, 'book ' || i, (i * 7919) % 613 FROM n;
COMMIT;
CREATE INDEX book_author ON book(author_id);
SELECT a.name, b.title, b.pages FROM book b JOIN author a ON a.id = b.author_id
  WHERE b.id % 250 = 0 ORDER BY b.id;
SELECT a.name, count(*) AS books, sum(b.pages) AS pages, min(b.pages) AS least,
  max(b.pages) AS most, printf('%.3f', avg(b.pages)) AS mean
  FROM author a JOIN book b ON b.author_id = a.id GROUP BY a.name
  ORDER BY a.name;
.mode list
SELECT count(*), total(pages) FROM book;
SELECT * FROM no_such_table;
SELECT 'after the error';
EOF
db=$work/cwd/test.db
sqlite_fresh_db() { rm -f "$db" "$db-journal" "$db-wal" "$db-shm"; }
before_each() { sqlite_fresh_db; }
check_case "sqlite3 (tables, inserts, join, aggregate, an error)" \
	"$in/script.sql" sqlite3 -batch "$db"

echo "transparency: $passes passed, $failures failed, $skips skipped"
if [ "$failures" -gt 0 ]; then
	exit 1
fi
if [ "$passes" -eq 0 ]; then
	exit 77
fi
exit 0
