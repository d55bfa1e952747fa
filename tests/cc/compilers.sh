#!/bin/sh
# compilers.sh TRMS SRCDIR WORKDIR [SANITIZE] - `trms cc` and `trms c++`
# with the real compilers found (gcc, clang; g++, clang++): SRCDIR's
# prog.c and prog.cc built through trms, compiling and linking in
# separate steps and in one, run with TRMS_OFF=1 and with the library on,
# print what the same program built natively prints, and profile the
# memory their functions read (the default mode, --trms-full); they need
# libtrms.so.0 (DT_NEEDED, found through their run path) and call
# __cyg_profile_func_enter; and the two as one project built by Meson,
# make, autotools and CMake with CC="trms cc" CXX="trms c++".  Exit
# status 77 (skipped) if no compiler is found, or in a sanitizer build (SANITIZE other than "none": a
# sanitized libtrms cannot load into an ordinary program).  Writes only
# under WORKDIR.
set -u
trms=$1 src=$2 work=$3 sanitize=${4:-none}
if [ "$sanitize" != none ]; then
	echo "SKIP: libtrms is built with -fsanitize=$sanitize"
	exit 77
fi
. "$(dirname "$0")/../checks.sh"
fresh_dir "$work"
cd "$work" || exit 1
built=0

# check NAME BINARY - BINARY runs as NAME's native build does, with the
# library off and on, and is linked with libtrms and instrumented.
check() {
	name=$1 bin=$2
	TRMS_OFF=1 "./$bin" >"$bin.out" 2>"$bin.err" ||
		fail "$name: TRMS_OFF=1 ./$bin: $(cat "$bin.err")"
	cmp -s "native-$name.out" "$bin.out" ||
		fail "$name: TRMS_OFF=1 ./$bin printed '$(cat "$bin.out")'"
	TRMS_OUTPUT="$work/$bin.%p.trms" "./$bin" >"$bin.on" 2>"$bin.err" ||
		fail "$name: ./$bin: $(cat "$bin.err")"
	cmp -s "native-$name.out" "$bin.on" ||
		fail "$name: ./$bin printed '$(cat "$bin.on")'"
	# The default mode, --trms-full: memory read by some function.
	"$trms" report --tuples "$work/$bin".*.trms >"$bin.tuples" 2>&1 ||
		fail "$name: trms report of ./$bin: $(cat "$bin.tuples")"
	awk -F '\t' '$3 == "rms" && $4 > 0 { found = 1 } END { exit !found }' \
		"$bin.tuples" || fail "$name: ./$bin's profile shows no memory read"
	readelf -dW "$bin" | grep -q '(NEEDED).*\[libtrms\.so\.0\]' ||
		fail "$name: $bin does not need libtrms.so.0"
	readelf --dyn-syms -W "$bin" | grep -q ' __cyg_profile_func_enter' ||
		fail "$name: $bin does not call __cyg_profile_func_enter"
}

# build NAME COMMAND VARIABLE COMPILER SOURCE - SOURCE built natively by
# COMPILER and through `trms COMMAND` (VARIABLE=COMPILER), in one step
# and in two.
build() {
	name=$1 cmd=$2 var=$3 compiler=$4 source=$src/$5
	if ! command -v "$compiler" >/dev/null; then
		echo "note: no $compiler: not checked"
		# CI installs all four (scripts/install-deps --tests).
		[ -n "${CI:-}" ] && fail "no $compiler, with CI set"
		return
	fi
	built=$((built + 1))
	"$compiler" -O1 -g "$source" -o "native-$name" ||
		{ fail "$name: native build"; return; }
	"./native-$name" >"native-$name.out" ||
		{ fail "$name: native run"; return; }
	if env "$var=$compiler" "$trms" "$cmd" -O1 -g "$source" \
		-o "one-$name"; then
		check "$name" "one-$name"
	else
		fail "$name: trms $cmd in one step"
	fi
	if env "$var=$compiler" "$trms" "$cmd" -O1 -g -c "$source" \
		-o "$name.o" &&
		env "$var=$compiler" "$trms" "$cmd" "$name.o" -o "two-$name"; then
		readelf -sW "$name.o" | grep -q ' __cyg_profile_func_enter' ||
			fail "$name: $name.o not instrumented"
		check "$name" "two-$name"
	else
		fail "$name: trms $cmd in two steps"
	fi
}

build gcc cc TRMS_CC gcc prog.c
build clang cc TRMS_CC clang prog.c
build g++ c++ TRMS_CXX g++ prog.cc
build clang++ c++ TRMS_CXX clang++ prog.cc

# project CC CXX - prog.c and prog.cc as one project built by Meson and,
# if installed, CMake, with CC="trms cc" and CXX="trms c++" in front of
# CC and CXX (TRMS_CC, TRMS_CXX), as trms-cc.md tells users to: configured
# with TRMS_OFF=1, each program runs as its native build does.
project() {
	c=$1 cxx=$2
	command -v "$c" >/dev/null && command -v "$cxx" >/dev/null &&
		[ -e "native-$c.out" ] && [ -e "native-$cxx.out" ] || return 0
	mkdir -p project && cp "$src/prog.c" "$src/prog.cc" project/ || return
	cat >project/meson.build <<-EOF
		project('prog', 'c', 'cpp')
		executable('prog_c', 'prog.c')
		executable('prog_cc', 'prog.cc')
	EOF
	cat >project/CMakeLists.txt <<-EOF
		cmake_minimum_required(VERSION 3.13)
		project(prog C CXX)
		add_executable(prog_c prog.c)
		add_executable(prog_cc prog.cc)
	EOF
	export TRMS_CC="$c" TRMS_CXX="$cxx"
	if command -v meson >/dev/null && command -v ninja >/dev/null; then
		if TRMS_OFF=1 CC="$trms cc" CXX="$trms c++" meson setup \
			"meson-$c" project >"meson-$c.log" 2>&1 &&
			ninja -C "meson-$c" >>"meson-$c.log" 2>&1; then
			check "$c" "meson-$c/prog_c"
			check "$cxx" "meson-$c/prog_cc"
		else
			fail "meson with trms cc ($c): $(tail -n 5 "meson-$c.log")"
		fi
	fi
	# make, its built-in rules compiling and linking in two steps.
	if command -v make >/dev/null; then
		mkdir -p "make-$c" && cp "$src/prog.c" "make-$c/prog_c.c" &&
			cp "$src/prog.cc" "make-$c/prog_cc.cc" || return
		printf '%s\n' 'all: prog_c prog_cc' 'prog_c: prog_c.o' \
			'prog_cc: prog_cc.o' '	$(CXX) $(LDFLAGS) -o $@ $^' \
			>"make-$c/Makefile"
		if make -C "make-$c" CC="$trms cc" CXX="$trms c++" \
			>"make-$c.log" 2>&1; then
			check "$c" "make-$c/prog_c"
			check "$cxx" "make-$c/prog_cc"
		else
			fail "make with trms cc ($c): $(tail -n 5 "make-$c.log")"
		fi
	else
		echo "note: no make: not checked"
	fi
	# autotools: configure (with TRMS_OFF=1: its test programs write no
	# profiles) and make.
	if command -v autoreconf >/dev/null && command -v automake >/dev/null &&
		command -v make >/dev/null; then
		mkdir -p "autotools-$c" &&
			cp "$src/prog.c" "autotools-$c/prog_c.c" &&
			cp "$src/prog.cc" "autotools-$c/prog_cc.cc" || return
		printf '%s\n' 'AC_INIT([prog], [1.0])' \
			'AM_INIT_AUTOMAKE([foreign])' 'AC_PROG_CC' 'AC_PROG_CXX' \
			'AC_CONFIG_FILES([Makefile])' 'AC_OUTPUT' \
			>"autotools-$c/configure.ac"
		printf '%s\n' 'bin_PROGRAMS = prog_c prog_cc' \
			'prog_c_SOURCES = prog_c.c' 'prog_cc_SOURCES = prog_cc.cc' \
			>"autotools-$c/Makefile.am"
		if (cd "autotools-$c" && autoreconf -fi &&
			TRMS_OFF=1 ./configure CC="$trms cc" CXX="$trms c++" &&
			make) >"autotools-$c.log" 2>&1; then
			check "$c" "autotools-$c/prog_c"
			check "$cxx" "autotools-$c/prog_cc"
		else
			fail "autotools with trms cc ($c): $(tail -n 5 "autotools-$c.log")"
		fi
	else
		echo "note: no autoconf and automake: not checked"
	fi
	if command -v cmake >/dev/null; then
		if TRMS_OFF=1 CC="$trms cc" CXX="$trms c++" cmake -S project \
			-B "cmake-$c" >"cmake-$c.log" 2>&1 &&
			cmake --build "cmake-$c" >>"cmake-$c.log" 2>&1; then
			check "$c" "cmake-$c/prog_c"
			check "$cxx" "cmake-$c/prog_cc"
		else
			fail "cmake with trms cc ($c): $(tail -n 5 "cmake-$c.log")"
		fi
	else
		echo "note: no cmake: not checked"
	fi
	unset TRMS_CC TRMS_CXX
}

project gcc g++
project clang clang++

if [ "$built" -eq 0 ]; then
	echo "SKIP: none of gcc, clang, g++, clang++ found"
	exit 77
fi
finish "cc compilers ($built)"
