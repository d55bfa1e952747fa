#!/bin/sh
# The exe_wrapper of `meson test --setup valgrind` (tests/meson.build):
#
#   valgrind.sh VALGRIND PROGRAM [ARG...]
#
# runs PROGRAM, one of the tests' own executables, under VALGRIND (its
# options in VALGRIND_OPTS).  A test that is a script is skipped (exit 77):
# under Valgrind it would be the shell or Python that is checked, and what
# those scripts run cannot be traced in reasonable time or at all (trms
# some 500 times for bad-profiles and report-golden, over 8 minutes
# traced; the library preloaded into programs that close its descriptors
# or enter seccomp sandboxes, hostile-*).
valgrind=$1
shift
case $(head -c 4 "$1" 2>/dev/null) in
*ELF) exec "$valgrind" "$@" ;;
esac
echo "SKIP: $(basename "$1") is a script: not run under Valgrind" \
	"(tests/valgrind.sh says why)"
exit 77
