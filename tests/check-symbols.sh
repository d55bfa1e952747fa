#!/bin/sh
# check-symbols.sh LIB HEADER HOOKS_DOC MAP DEF - the shared library
# exports exactly what is documented: the functions the public header
# declares with TRMS_API and the variables it declares for its inline
# forms (trms_*_vN_) with the second names of the functions they call,
# and the names of its version script MAP -- the entries that code built
# with trms cc calls and every function of the table of interposed C
# library functions DEF (src/base/real_functions.def), from which MAP is
# written -- no more, no less; and docs/hooks.md lists each of the latter.  And
# it has none of the test-only fault injection (src/base/vm.c, tests/faults):
# neither its counter nor its setting.  And it is bound at load (-z now):
# no function of another object is bound on first call, which would
# search symbols in a signal handler or in every forked child again.
set -eu
lib=$1
header=$2
hooks_doc=$3
map=$4
def=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sed -n 's/^TRMS_API[^(]*[ *]\(trms_[a-z_]*\)(.*/\1/p' "$header" >"$tmp/api"
# And the variables the inline forms read, declared extern in the header.
sed -n 's/^extern .*[ *]\(trms_[a-z0-9_]*_v[0-9]*_\)$/\1/p; s/^extern .*[ *]\(trms_[a-z0-9_]*_v[0-9]*_\);$/\1/p' \
	"$header" >>"$tmp/api"
# And the second names of the API functions the inline forms call.
sed -n 's/^extern int \(trms_[a-z0-9_]*_v[0-9]*_\)(.*/\1/p' "$header" >>"$tmp/api"
# The names of the version script but its wildcard (trms_*, the API).
sed 's|/\*.*\*/||; s/;/\n/g' "$map" | sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z_0-9]*\)[[:space:]]*$/\1/p' |
	sort -u >"$tmp/map"
# Every symbol of the table is in the version script.
sed -n 's/^\(REAL_FUNCTION\(_VERSIONED\)\{0,1\}([a-z_0-9]*, *\|INTERPOSED(\)"\([^"]*\)".*/\3/p' \
	"$def" | sort -u >"$tmp/table"
if [ ! -s "$tmp/table" ] || [ -n "$(comm -23 "$tmp/table" "$tmp/map")" ]; then
	echo "interposed in $def but not in $map:"
	comm -23 "$tmp/table" "$tmp/map"
	exit 1
fi
sort -u "$tmp/api" "$tmp/map" >"$tmp/documented"
# Every `name` in the first column of the tables of docs/hooks.md.
awk -F'|' '/^\|/ { print $2 }' "$hooks_doc" | grep -o '`[A-Za-z_0-9]*`' |
	tr -d '`' | sort -u >"$tmp/hooks" || true
if ! cmp -s "$tmp/hooks" "$tmp/map"; then
	echo "in the version script but not in $hooks_doc:"
	comm -13 "$tmp/hooks" "$tmp/map"
	echo "in $hooks_doc but not in the version script:"
	comm -23 "$tmp/hooks" "$tmp/map"
	exit 1
fi
nm -D --defined-only "$lib" | awk '$2 ~ /^[TWDBRVi]$/ { print $3 }' |
	sed 's/@.*//' | sort -u >"$tmp/exported"

if ! cmp -s "$tmp/documented" "$tmp/exported"; then
	echo "documented but not exported:"
	comm -23 "$tmp/documented" "$tmp/exported"
	echo "exported but not documented:"
	comm -13 "$tmp/documented" "$tmp/exported"
	exit 1
fi
if nm "$lib" 2>/dev/null | grep -q 'vm_allocations' ||
	grep -q 'TRMS_FAULT_ALLOC' "$lib"; then
	echo "the library has the test-only fault injection (TRMS_FAULT_INJECTION)"
	exit 1
fi
if ! readelf -dW "$lib" | grep -q '(FLAGS).*BIND_NOW'; then
	echo "the library is not linked with -z now"
	exit 1
fi
echo "exports match the documentation: $(wc -l <"$tmp/api") API functions, $(wc -l <"$tmp/map") other entries ($(wc -l <"$tmp/table") from the table of interposed functions)"
