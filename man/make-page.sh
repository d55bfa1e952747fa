#!/bin/sh
# make-page.sh TRMS VERSION PAGE SECTION SUMMARY OUT [ARG...] - the man page
# PAGE(SECTION) of trms's command, made by help2man from what
# `TRMS ARG... --help` (or the option the ARGs end with) prints, so that
# the page says what --help says and cannot drift from it.  help2man
# titles a page after the program (trms): the title and the NAME line
# are renamed to PAGE.  TRMS may be a command line (help2man runs it with
# the shell): libtrms(3)'s is man/api-help.py's.
set -eu
trms=$1 version=$2 page=$3 section=$4 summary=$5 out=$6
shift 6
help=${*:---help}
tmp=$out.tmp
manual="User Commands"
[ "$section" = 3 ] && manual="Library Functions Manual"
help2man --no-info --no-discard-stderr --section="$section" \
	--manual="$manual" \
	--version-string="$version" --name="$summary" \
	--help-option="$help" --output="$tmp" "$trms"
title=$(printf '%s' "$page" | tr '[:lower:]' '[:upper:]')
sed -e "s/^\\.TH TRMS /.TH $title /" \
	-e "/^\\.SH NAME/{n;s/^[a-z]* /$page /;}" "$tmp" >"$out"
rm -f "$tmp"
