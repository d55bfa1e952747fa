#!/bin/sh
# driver.sh TRMS LIBRARY WORKDIR - `trms cc` and `trms c++` in front of a
# fake compiler (given through TRMS_CC and TRMS_CXX) that writes the
# arguments it got, one a line, and its pid, and exits with the status
# asked or dies of the signal asked: exactly which flags are added for a
# compile, a link, a -shared link, -E, queries; trms's options taken out
# wherever they are; arguments passed as they are; the exit status and a
# signal passed through (the compiler is exec'ed: same pid); the help,
# the refusals and their exit statuses; GCC and Clang told by name and
# by resolved path; libtrms missing.  Writes only under WORKDIR.
# Lists of flags are split unquoted on purpose (at new lines; see IFS):
# shellcheck disable=SC2086
set -u
trms=$1 work=$3
library=$(readlink -f "$2") || exit 1
libdir=${library%/*}
. "$(dirname "$0")/../checks.sh"
fresh_dir "$work"
mkdir -p "$work/bin" "$work/link" || exit 1

# The fake compiler.  FAKE_LOG: where its arguments go; FAKE_PID: where
# its pid goes; FAKE_SIGNAL: the signal it sends itself; FAKE_STATUS:
# its exit status.
cat >"$work/bin/gcc-fake" <<'EOF'
#!/bin/sh
: >"$FAKE_LOG"
for a in "$@"; do
	printf '%s\n' "$a" >>"$FAKE_LOG"
done
[ -n "${FAKE_PID:-}" ] && echo $$ >"$FAKE_PID"
[ -n "${FAKE_SIGNAL:-}" ] && kill -s "$FAKE_SIGNAL" $$
exit "${FAKE_STATUS:-0}"
EOF
chmod +x "$work/bin/gcc-fake" || exit 1
cp "$work/bin/gcc-fake" "$work/bin/clang-fake" || exit 1
cp "$work/bin/gcc-fake" "$work/bin/clang-xx" || exit 1
# A cc that is Clang only by the file it resolves to.
ln -s ../bin/clang-xx "$work/link/cc" || exit 1
gcc=$work/bin/gcc-fake
clang=$work/bin/clang-fake
export FAKE_LOG="$work/log"
unset FAKE_PID FAKE_SIGNAL FAKE_STATUS TRMS_CC TRMS_CXX

gcc_flags="-DTRMS_NO_INLINE
-finstrument-functions
-finstrument-functions-exclude-file-list=/usr/include/,/usr/lib/gcc/"
clang_flags="-DTRMS_NO_INLINE
-finstrument-functions-after-inlining"
gcc_full="-fsanitize=kernel-address
--param
asan-instrumentation-with-call-threshold=0
--param
asan-stack=0
--param
asan-globals=0"
clang_full="-fsanitize=kernel-address
-mllvm
-asan-instrumentation-with-call-threshold=0
-mllvm
-asan-stack=0
-mllvm
-asan-globals=0"
wrap="-Wl,--wrap=memcpy,--wrap=memmove,--wrap=memset,--wrap=memcmp,\
--wrap=strlen,--wrap=strnlen,--wrap=strcmp,--wrap=strncmp,--wrap=strchr,\
--wrap=strrchr,--wrap=strcpy,--wrap=strncpy,--wrap=strcat,--wrap=strdup,\
--wrap=__memcpy_chk,--wrap=__memmove_chk,--wrap=__memset_chk,\
--wrap=__strcpy_chk,--wrap=__strncpy_chk,--wrap=__strcat_chk"
link_flags="-Wl,--push-state,--no-as-needed,-Bdynamic
$library
-Wl,--pop-state
-Wl,-rpath,$libdir"
# The lists above are split into arguments on purpose (unquoted: SC2086
# is off), at new lines only (the library's path may hold a space), and
# never globbed.
IFS='
'
set -f

# want LINE... - the arguments the compiler should get (none: an empty
# list), one a line, into $work/want.
want() {
	: >"$work/want"
	for a in "$@"; do
		printf '%s\n' "$a" >>"$work/want"
	done
}

# run COMMAND... - run it, its status into $status, outputs into
# $work/out and $work/err; no log left from a run before.
run() {
	rm -f "$FAKE_LOG"
	status=0
	"$@" >"$work/out" 2>"$work/err" || status=$?
}

# same NAME COMMAND... - COMMAND exits 0, silent on stderr, and the
# compiler got what want said.
same() {
	name=$1
	shift
	run "$@"
	[ "$status" -eq 0 ] || fail "$name: exit status $status: $(cat "$work/err")"
	[ -s "$work/err" ] && fail "$name: stderr: $(cat "$work/err")"
	if [ ! -f "$FAKE_LOG" ]; then
		fail "$name: the compiler did not run"
	elif ! cmp -s "$work/want" "$FAKE_LOG"; then
		fail "$name: the compiler got:
$(cat "$FAKE_LOG")
instead of:
$(cat "$work/want")"
	fi
}

# refused NAME STATUS TEXT COMMAND... - COMMAND exits STATUS with TEXT
# on stderr and the compiler does not run.
refused() {
	name=$1 expected=$2 text=$3
	shift 3
	run "$@"
	[ "$status" -eq "$expected" ] ||
		fail "$name: exit status $status, not $expected"
	grep -qF -- "$text" "$work/err" ||
		fail "$name: stderr '$(cat "$work/err")' lacks '$text'"
	[ -f "$FAKE_LOG" ] && fail "$name: the compiler ran"
}

# --- Which flags, for what --------------------------------------------
export TRMS_CC="$gcc" TRMS_CXX="$clang"
want $gcc_flags $gcc_full -c x.c -o x.o
same "compile" "$trms" cc -c x.c -o x.o
want $gcc_flags $gcc_full x.o -o prog $wrap $link_flags
same "link" "$trms" cc x.o -o prog
want $gcc_flags $gcc_full -O2 -g prog.c -o prog $wrap $link_flags
same "compile and link" "$trms" cc -O2 -g prog.c -o prog
want $gcc_flags $gcc_full -shared -fPIC x.c -o libx.so $wrap $link_flags
same "-shared" "$trms" cc -shared -fPIC x.c -o libx.so
want $gcc_flags $gcc_full -x c - -o prog $wrap $link_flags
same "stdin" "$trms" cc -x c - -o prog
for stop in -c -S -E -M -MM -fsyntax-only -r; do
	want $gcc_flags $gcc_full $stop x.c
	same "$stop" "$trms" cc $stop x.c
done
for query in --version -v -dumpversion -dumpmachine -dumpspecs \
	-print-prog-name=ld -print-search-dirs --help -###; do
	want $gcc_flags $gcc_full $query
	same "$query" "$trms" cc $query
done
want $gcc_flags $gcc_full -### x.c
same "-### x.c" "$trms" cc -### x.c
# The default, --trms-full: the accesses' flags after the functions', and
# when linking, the wrapped memory and string functions before the
# library; --trms-functions: the functions' flags alone.
want $gcc_flags $gcc_full -c x.c
same "--trms-full -c" "$trms" cc --trms-full -c x.c
want $gcc_flags $gcc_full x.o -o prog $wrap $link_flags
same "--trms-full link" "$trms" cc x.o --trms-full -o prog
want $clang_flags $clang_full -c x.cc
same "c++ --trms-full -c" "$trms" c++ -c --trms-full x.cc
# With the plugin, a clang of its LLVM (by the path it resolves to) gets
# -fpass-plugin instead: the accesses checked inline.
plugin=$("$trms" cc --trms-help | sed -n '/PLUGIN, for the clang of LLVM/{n;s/^ *//;s/\.$//;p}')
llvm=$("$trms" cc --trms-help | sed -n 's/.*PLUGIN, for the clang of LLVM \([0-9]*\), is/\1/p')
if [ -n "$plugin" ]; then
	mkdir -p "$work/llvm-$llvm/bin"
	cp "$work/bin/gcc-fake" "$work/llvm-$llvm/bin/clang"
	want $clang_flags "-fpass-plugin=$plugin" -c x.c
	TRMS_CC=$work/llvm-$llvm/bin/clang same "--trms-full, clang $llvm" \
		"$trms" cc --trms-full -c x.c
	want $clang_flags "-fpass-plugin=$plugin" x.o -o prog $wrap $link_flags
	TRMS_CC=$work/llvm-$llvm/bin/clang same "--trms-full link, clang $llvm" \
		"$trms" cc x.o --trms-full -o prog
	# Functions only: the plugin too (it takes the instrumentation off
	# the system headers' functions), told to leave the accesses; it is
	# loaded first with -load so that clang knows its options.
	load="-Xclang
-load
-Xclang
$plugin"
	want $clang_flags $load "-fpass-plugin=$plugin" -Xclang -mllvm \
		-Xclang -trms-functions-only -c x.c
	TRMS_CC=$work/llvm-$llvm/bin/clang same "functions, clang $llvm" \
		"$trms" cc --trms-functions -c x.c
	# --trms-exclude: the plugin leaves the names out.
	want $clang_flags $load "-fpass-plugin=$plugin" -Xclang -mllvm \
		-Xclang -trms-exclude=foo,bar -c x.c
	TRMS_CC=$work/llvm-$llvm/bin/clang same "exclude, clang $llvm" \
		"$trms" cc --trms-exclude=foo --trms-exclude=bar -c x.c
	want $clang_flags $load "-fpass-plugin=$plugin" -Xclang -mllvm \
		-Xclang -trms-functions-only -Xclang -mllvm \
		-Xclang -trms-exclude=foo -c x.c
	TRMS_CC=$work/llvm-$llvm/bin/clang same "functions and exclude, clang $llvm" \
		"$trms" cc --trms-functions --trms-exclude=foo -c x.c
	# The default is --trms-full.
	want $clang_flags "-fpass-plugin=$plugin" -c x.c
	TRMS_CC=$work/llvm-$llvm/bin/clang same "default, clang $llvm" \
		"$trms" cc -c x.c
else
	echo "trms built without the plugin: -fpass-plugin not tested"
fi
# With GCC's plugin, a gcc of its version (gcc-N, by the path it
# resolves to) gets -fplugin, after the sanitizer's flags with
# --trms-full (its pass then instruments the accesses to globals it would
# leave out), and in functions-only mode too.
gcc_plugin=$("$trms" cc --trms-help | sed -n '/GCC-PLUGIN, for GCC/{n;s/^ *//;s/\.$//;p}')
gcc_major=$("$trms" cc --trms-help | sed -n 's/.*GCC-PLUGIN, for GCC \([0-9]*\), is/\1/p')
if [ -n "$gcc_plugin" ]; then
	cp "$work/bin/gcc-fake" "$work/bin/x86_64-linux-gnu-gcc-$gcc_major"
	want $gcc_flags $gcc_full "-fplugin=$gcc_plugin" -c x.c
	TRMS_CC=$work/bin/x86_64-linux-gnu-gcc-$gcc_major \
		same "--trms-full, gcc $gcc_major" "$trms" cc --trms-full -c x.c
	# Functions only too: its passes instrument functions after
	# inlining.
	want $gcc_flags "-fplugin=$gcc_plugin" -c x.c
	TRMS_CC=$work/bin/x86_64-linux-gnu-gcc-$gcc_major \
		same "functions, gcc $gcc_major" "$trms" cc --trms-functions \
		-c x.c
	want $gcc_flags $gcc_full "-fplugin=$gcc_plugin" -c x.c
	TRMS_CC=$work/bin/x86_64-linux-gnu-gcc-$gcc_major \
		same "default, gcc $gcc_major" "$trms" cc -c x.c
	# Not for another version's.
	cp "$work/bin/gcc-fake" "$work/bin/gcc-$((gcc_major + 1))"
	want $gcc_flags $gcc_full -c x.c
	TRMS_CC=$work/bin/gcc-$((gcc_major + 1)) \
		same "--trms-full, gcc $((gcc_major + 1))" "$trms" cc \
		--trms-full -c x.c
else
	echo "trms built without the GCC plugin: -fplugin not tested"
fi
want $gcc_flags -c x.c -o x.o
same "--trms-functions -c" "$trms" cc --trms-functions -c x.c -o x.o
want $gcc_flags x.o -o prog $link_flags
same "--trms-functions link" "$trms" cc x.o --trms-functions -o prog
want $gcc_flags -c x.c
same "--trms-full then --trms-functions" "$trms" cc --trms-full \
	--trms-functions -c x.c
# The value of an option is no input file: nothing to link.
want $gcc_flags $gcc_full -l m -o prog
same "-l m -o prog" "$trms" cc -l m -o prog
want $gcc_flags $gcc_full -static x.c -o prog
run "$trms" cc -static x.c -o prog
cmp -s "$work/want" "$FAKE_LOG" || fail "-static: $(cat "$FAKE_LOG")"
grep -q "warning: libtrms is a shared library: not linked" "$work/err" ||
	fail "-static: no warning: $(cat "$work/err")"

# --- trms's options, wherever they are --------------------------------
want $gcc_flags -finstrument-functions-exclude-function-list=foo,bar,baz \
	-c x.c -o x.o
same "options anywhere" "$trms" cc --trms-functions -c x.c \
	--trms-exclude=foo,bar -o x.o --trms-exclude=baz
want $gcc_flags x.o -o prog $link_flags
same "options last" "$trms" cc x.o -o prog --trms-functions
# Literally a dollar and a backslash:
# shellcheck disable=SC2016,SC1003
want $gcc_flags $gcc_full -DMSG="hello world" "" "it's" 'a"b' '$HOME' '\' -c \
	"my file.c"
# shellcheck disable=SC2016,SC1003
same "arguments as they are" "$trms" cc -DMSG="hello world" "" "it's" \
	'a"b' '$HOME' '\' -c "my file.c"

# --- Exit status and signals ------------------------------------------
run env FAKE_STATUS=3 "$trms" cc -c x.c
[ "$status" -eq 3 ] || fail "exit status 3 came out as $status"
# In a subshell whose stderr is discarded: the shell's "Terminated".
(
	FAKE_PID=$work/pid FAKE_SIGNAL=TERM "$trms" cc -c x.c &
	echo $! >"$work/trms-pid"
	wait $!
	echo $? >"$work/status"
) 2>/dev/null
status=$(cat "$work/status")
pid=$(cat "$work/trms-pid")
[ "$status" -eq $((128 + 15)) ] || fail "SIGTERM came out as $status"
[ "$(cat "$work/pid" 2>/dev/null)" = "$pid" ] ||
	fail "the compiler is not trms's process (pid $pid): not exec'ed"

# --- Help and refusals --------------------------------------------------
run "$trms" cc --trms-help -c x.c
[ "$status" -eq 0 ] || fail "--trms-help: exit status $status"
grep -q "^Usage: trms cc" "$work/out" || fail "--trms-help: no usage"
for word in --trms-functions --trms-full --trms-exclude TRMS_CC TRMS_CXX \
	"$library"; do
	grep -qF -- "$word" "$work/out" || fail "--trms-help lacks $word"
done
[ -s "$work/err" ] && fail "--trms-help: stderr: $(cat "$work/err")"
[ -f "$FAKE_LOG" ] && fail "--trms-help ran the compiler"
refused "--trms-x" 2 "trms cc: unknown option '--trms-x'" \
	"$trms" cc -c --trms-x x.c
refused "--trms-exclude" 2 "--trms-exclude takes =NAME" \
	"$trms" cc -c x.c --trms-exclude
refused "--trms-exclude=" 2 "--trms-exclude takes =NAME" \
	"$trms" cc -c x.c --trms-exclude=
refused "--trms-excluded" 2 "trms cc: unknown option '--trms-excluded'" \
	"$trms" cc -c x.c --trms-excluded
refused "no compiler" 127 \
	"trms cc: cannot run '$work/bin/none': No such file or directory" \
	env TRMS_CC="$work/bin/none" "$trms" cc -c x.c
refused "no C++ compiler" 127 \
	"trms c++: cannot run 'trms-no-such-compiler': No such file" \
	env TRMS_CXX=trms-no-such-compiler "$trms" c++ -c x.cc

# --- GCC or Clang --------------------------------------------------------
want $clang_flags $clang_full -c x.cc
same "c++ runs TRMS_CXX" "$trms" c++ -c x.cc
want $clang_flags $clang_full x.o -o prog $wrap $link_flags
same "clang-fake links" env TRMS_CC="$clang" "$trms" cc x.o -o prog
want $clang_flags $clang_full -c x.c
same "clang-fake in PATH" env PATH="$work/bin:$PATH" TRMS_CC=clang-fake \
	"$trms" cc -c x.c
same "cc -> clang-xx" env TRMS_CC="$work/link/cc" "$trms" cc -c x.c
same "cc -> clang-xx in PATH" env PATH="$work/link:$PATH" TRMS_CC=cc \
	"$trms" cc -c x.c
same "empty TRMS_CC: cc" env PATH="$work/link:$PATH" TRMS_CC= \
	"$trms" cc -c x.c
want $gcc_flags $gcc_full -c x.c
same "gcc-fake in PATH" env PATH="$work/bin:$PATH" TRMS_CC=gcc-fake \
	"$trms" cc -c x.c
want $gcc_flags $gcc_full -c x.cc
same "c++ as GCC" env TRMS_CXX="$gcc" "$trms" c++ -c x.cc
want $clang_flags $clang_full -c x.c
run env TRMS_CC="$clang" "$trms" cc --trms-exclude=a -c x.c \
	--trms-exclude=b
cmp -s "$work/want" "$FAKE_LOG" || fail "exclude, clang: $(cat "$FAKE_LOG")"
[ "$(cat "$work/err")" = \
	"trms cc: warning: --trms-exclude needs GCC or trms's plugin for this clang; ignored" ] ||
	fail "exclude, clang: stderr '$(cat "$work/err")'"

# --- Where libtrms is ------------------------------------------------------
# A trms with no library beside it: compiles, but refuses to link (unless
# the installed LIBDIR is absolute and holds one).
mkdir -p "$work/lone/bin" && cp "$trms" "$work/lone/bin/trms" || exit 1
want $gcc_flags $gcc_full -c x.c
same "no library, compile" "$work/lone/bin/trms" cc -c x.c
run "$work/lone/bin/trms" cc x.o -o prog
if [ "$status" -eq 0 ]; then
	echo "note: a trms alone found an installed libtrms: not checked"
else
	refused "no library, link" 2 \
		"trms cc: cannot find libtrms.so next to this trms or in" \
		"$work/lone/bin/trms" cc x.o -o prog
fi
# A library in a directory with a comma: -Wl, would split it.
mkdir -p "$work/a,b/tools" "$work/a,b/src" || exit 1
odd=$(readlink -f "$work/a,b") && cp "$trms" "$odd/tools/trms" &&
	cp "$library" "$odd/src/libtrms.so" || exit 1
want $gcc_flags $gcc_full x.o $wrap -Wl,--push-state,--no-as-needed,-Bdynamic \
	"$odd/src/libtrms.so" -Wl,--pop-state -Xlinker -rpath -Xlinker "$odd/src"
same "comma in the library's directory" "$odd/tools/trms" cc x.o

finish "cc driver"
