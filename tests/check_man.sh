#!/bin/sh
# check_man.sh TRMS MANDIR HEADER - the man pages render without a warning
# (groff -ww, man --warnings) and each names every option that the --help
# it was made from lists: trms(1) every command and setting of `trms
# help`, trms-CMD(1) every --option of `trms CMD --help`; libtrms(3) every
# function HEADER (include/trms.h) declares and every setting.
set -eu
trms=$1
mandir=$2
header=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
pages=0

# render PAGE: its text in $tmp/text, said if it warns or is missing.
render() {
	page=$1
	pages=$((pages + 1))
	if [ ! -s "$page" ]; then
		echo "$page: missing"
		status=1
		return 1
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
}

# on_page WORD: whether WORD is in $tmp/text (man hyphenates and
# justifies: the word looked for whole, with the page's lines joined).
on_page() {
	tr '\n\t' '  ' <"$tmp/text" | tr -s ' ' | sed 's/- *//g' |
		grep -qF -- "$(printf '%s' "$1" | sed 's/-//g')"
}

# check PAGE HELP_ARG...: PAGE.1 against what `trms HELP_ARG...` prints.
check() {
	render "$mandir/$1.1" || return 0
	shift
	"$trms" "$@" >"$tmp/help" 2>&1 || true
	# The words --help defines: its options, and trms help's commands
	# and settings.
	grep -o -- '--[a-z][a-z0-9-]*' "$tmp/help" | sort -u >"$tmp/words"
	sed -n 's/^  \(TRMS_[A-Z_]*\) .*/\1/p; s/^  \([a-z+]*\)  .*/\1/p' \
		"$tmp/help" | sort -u >>"$tmp/words"
	[ -s "$tmp/words" ] || { echo "$page: no option in $*"; status=1; }
	while read -r word; do
		if ! on_page "$word"; then
			echo "$page: $word, in trms $* , is not on the page"
			status=1
		fi
	done <"$tmp/words"
}

# libtrms(3): every function the header declares, by its declaration,
# and every setting.
check_api() {
	render "$mandir/libtrms.3" || return 0
	sed -n 's/^TRMS_API \(.*\);$/\1/p' "$header" | sort -u >"$tmp/words"
	[ "$(wc -l <"$tmp/words")" -ge 10 ] ||
		{ echo "$header: only $(wc -l <"$tmp/words") functions found"; status=1; }
	"$trms" help | sed -n 's/^  \(TRMS_[A-Z_]*\) .*/\1/p' >>"$tmp/words"
	while read -r word; do
		if ! on_page "$word"; then
			echo "$page: $word is not on the page"
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
check_api
[ $status -ne 0 ] ||
	echo "$pages man pages render without warnings and name every option of their --help"
exit $status
