#!/bin/sh
# check_man.sh TRMS MANDIR - the man pages render without a warning (groff
# -ww, man --warnings) and each names every option that the --help it was
# made from lists: trms(1) every command and setting of `trms help`,
# trms-CMD(1) every --option of `trms CMD --help`.
set -eu
trms=$1
mandir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
pages=0

# check PAGE HELP_ARG...: PAGE.1 against what `trms HELP_ARG...` prints.
check() {
	page=$mandir/$1.1
	shift
	pages=$((pages + 1))
	if [ ! -s "$page" ]; then
		echo "$page: missing"
		status=1
		return
	fi
	groff -ww -z -man "$page" 2>"$tmp/groff" || true
	LC_ALL=C MANWIDTH=80 man --warnings -l "$page" 2>"$tmp/man" | col -b >"$tmp/text"
	for w in "$tmp/groff" "$tmp/man"; do
		if [ -s "$w" ]; then
			echo "$page: warnings:"
			cat "$w"
			status=1
		fi
	done
	"$trms" "$@" >"$tmp/help" 2>&1 || true
	# The words --help defines: its options, and trms help's commands
	# and settings.
	grep -o -- '--[a-z][a-z0-9-]*' "$tmp/help" | sort -u >"$tmp/words"
	sed -n 's/^  \(TRMS_[A-Z_]*\) .*/\1/p; s/^  \([a-z+]*\)  .*/\1/p' \
		"$tmp/help" | sort -u >>"$tmp/words"
	[ -s "$tmp/words" ] || { echo "$page: no option in $*"; status=1; }
	while read -r word; do
		# man hyphenates and justifies: look for the word whole,
		# with the page's lines joined.
		if ! tr '\n' ' ' <"$tmp/text" | sed 's/- *//g' |
			grep -q -- "$(printf '%s' "$word" | sed 's/-//g')"; then
			echo "$page: $word, in trms $* , is not on the page"
			status=1
		fi
	done <"$tmp/words"
}

check trms help
check trms-run run --help
check trms-report report --help
check trms-cc cc --trms-help
check trms-merge merge --help
check trms-replay replay --help
[ $status -ne 0 ] ||
	echo "$pages man pages render without warnings and name every option of their --help"
exit $status
