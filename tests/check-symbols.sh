#!/bin/sh
# The shared library exports exactly the functions the public header
# declares with TRMS_API, no more, no less.
set -eu
lib=$1
header=$2

declared=$(sed -n 's/^TRMS_API[^(]*[ *]\(trms_[a-z_]*\)(.*/\1/p' "$header" | sort)
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TWDBRVi]$/ { print $3 }' |
	sed 's/@.*//' | sort)

if [ "$declared" != "$exported" ]; then
	echo "declared in $header but not exported:"
	comm -23 "$(printf '%s\n' "$declared" > /tmp/trms-declared.$$; echo /tmp/trms-declared.$$)" \
		"$(printf '%s\n' "$exported" > /tmp/trms-exported.$$; echo /tmp/trms-exported.$$)"
	echo "exported but not declared:"
	comm -13 /tmp/trms-declared.$$ /tmp/trms-exported.$$
	rm -f /tmp/trms-declared.$$ /tmp/trms-exported.$$
	exit 1
fi
echo "exports match the header: $(echo "$declared" | wc -l) functions"
