# checks.sh - what the tests' shell scripts share, sourced by them:
#
#   . "$(dirname "$0")/../checks.sh"
#
# fresh_dir DIR     DIR emptied and made (exit 1 if it cannot be)
# fail MESSAGE...   one failed check, said on standard error
# finish NAME       the verdict: "NAME: all checks passed" and exit 0,
#                   or exit 1 if a check failed
# fail_now MESSAGE...  a failure after which nothing can go on: exit 1
# show FILE         FILE's content in the test's log, under its name
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=$((failed + 1))
}

fresh_dir() {
	rm -rf "$1" && mkdir -p "$1" || exit 1
}

finish() {
	[ "$failed" -eq 0 ] && echo "$1: all checks passed"
	exit $((failed != 0))
}

fail_now() {
	echo "FAIL: $*" >&2
	exit 1
}

show() {
	echo "--- $1"
	cat "$1"
}
