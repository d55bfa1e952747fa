#!/bin/sh
# The shared library exports exactly what is documented: the functions the
# public header declares with TRMS_API and the variables it declares for
# its inline forms (trms_*_vN_) with the second names of the functions
# they call, and the C library functions listed
# in docs/hooks.md (which src/trms.map exports) -- no more, no less.  And
# it has none of the test-only fault injection (src/base/vm.c, tests/faults):
# neither its counter nor its setting.  And it is bound at load (-z now):
# no function of another object is bound on first call, which would
# search symbols in a signal handler or in every forked child again.
set -eu
lib=$1
header=$2
hooks_doc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sed -n 's/^TRMS_API[^(]*[ *]\(trms_[a-z_]*\)(.*/\1/p' "$header" >"$tmp/api"
# And the variables the inline forms read, declared extern in the header.
sed -n 's/^extern .*[ *]\(trms_[a-z0-9_]*_v[0-9]*_\)$/\1/p; s/^extern .*[ *]\(trms_[a-z0-9_]*_v[0-9]*_\);$/\1/p' \
	"$header" >>"$tmp/api"
# And the second names of the API functions the inline forms call.
sed -n 's/^extern int \(trms_[a-z0-9_]*_v[0-9]*_\)(.*/\1/p' "$header" >>"$tmp/api"
# Every `name` in the first column of the tables of docs/hooks.md.
awk -F'|' '/^\|/ { print $2 }' "$hooks_doc" | grep -o '`[A-Za-z_0-9]*`' |
	tr -d '`' >"$tmp/hooks" || true
sort -u "$tmp/api" "$tmp/hooks" >"$tmp/documented"
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
echo "exports match the documentation: $(wc -l <"$tmp/api") API functions, $(wc -l <"$tmp/hooks") interposed functions"
