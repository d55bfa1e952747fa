#!/bin/bash
# bench/whole_program.sh [BUILD_DIR] - whole-program mode on real programs
# built from Debian's sources (issue 11), side by side with the same
# programs built natively and run under Valgrind's callgrind:
#
#   minigzip  zlib's example compressor (zlib source package), -6
#   bzip2     bzip2 (bzip2 source package), -9
#   zstd -T2  zstd with two worker threads (libzstd source package), -6
#   sqlite3   the SQLite shell (sqlite3 source package: its amalgamation,
#             made once with tclsh) running bench/whole_program.sql on an
#             in-memory database: inserts, an index, joins, sorts
#
# PROGRAMS="sqlite3 bzip2" runs only those (names as above, zstd for
# zstd -T2).
# Each is built six times with the same flags (-O2 -g): by the native
# compiler (cc, GCC) and by clang, and by BUILD_DIR's `trms cc
# --trms-functions` and `trms cc --trms-full` with each (VARIANTS_BUILT
# chooses); each trms build is compared with the native build of its
# compiler.  Each build compresses the same input (INPUT_MB, default
# 8 MiB of text made from the bundled word list, in a fixed order), and
# its output must equal the native build's, byte for byte (exit status 1
# if one does not).  Reported per program and variant: the median over
# REPS runs (default 3; the variants interleaved) of CPU time (user +
# system, from wait4) and of peak RSS, their ratios to native, and for
# the trms builds the number of function regions in the profile; then
# each variant's geometric mean of the ratios over the programs.  callgrind (--tool=callgrind, output discarded)
# runs on the native build, once per rep.  Costs are in events, sampling
# is off (TRMS_SAMPLE_HZ=0): the measurement itself, not the sampler.
#
# Sources are fetched with `apt-get source` (a deb-src entry for the
# system's own archive is added if there is none: as root) into
# BUILD_DIR/whole-program/, which is kept for inspection; about 30
# minutes on 2 CPUs, most of it in the full mode and callgrind.
set -u

build=${1:-build}
reps=${REPS:-3}
input_mb=${INPUT_MB:-8}
here=$(cd "$(dirname "$0")/.." && pwd)
trms=$(cd "$build" && pwd)/tools/trms
work=$(cd "$build" && pwd)/whole-program

[ -x "$trms" ] || { echo "whole_program.sh: $trms not built" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "whole_program.sh: valgrind not installed" >&2; exit 2; }
command -v tclsh >/dev/null || { echo "whole_program.sh: tclsh not installed (apt-get install tcl: SQLite's amalgamation is made with it)" >&2; exit 2; }
mkdir -p "$work/src" "$work/bin" "$work/out" || exit 2

fetch() { # PACKAGE - its source tree's directory on stdout
	local dir
	dir=$(find "$work/src" -maxdepth 1 -type d -name "$1-*" | head -n 1)
	if [ -z "$dir" ]; then
		(cd "$work/src" && apt-get source -qq "$1" >/dev/null 2>&1) ||
			{ echo "whole_program.sh: apt-get source $1 failed" >&2; exit 2; }
		dir=$(find "$work/src" -maxdepth 1 -type d -name "$1-*" | head -n 1)
	fi
	echo "$dir"
}

# The builds: by GCC (cc) natively, with trms cc and trms cc --trms-full,
# and the same by Clang (whose --trms-full checks accesses inline when
# trms has its plugin: trms cc --trms-help says).
VARIANTS_BUILT=${VARIANTS_BUILT:-native functions full clang functions-clang full-clang}

# build_all NAME DIR COMMAND: COMMAND (which uses $CC and $OUT) run in a
# fresh copy of DIR once per variant, the program left as bin/NAME-VARIANT.
build_all() {
	local name=$1 dir=$2 command=$3 variant cc copy
	for variant in $VARIANTS_BUILT; do
		[ -x "$work/bin/$name-$variant" ] && continue
		case $variant in
		native) cc="cc" ;;
		functions) cc="$trms cc --trms-functions" ;;
		full) cc="$trms cc --trms-full" ;;
		clang) cc="clang" ;;
		functions-clang) cc="env TRMS_CC=clang $trms cc --trms-functions" ;;
		full-clang) cc="env TRMS_CC=clang $trms cc --trms-full" ;;
		esac
		copy=$work/build-$name-$variant
		rm -rf "$copy" && cp -r "$dir" "$copy" || exit 2
		echo "building $name ($variant)..." >&2
		(cd "$copy" && CC=$cc OUT=$work/bin/$name-$variant \
			TRMS_OFF=1 bash -c "$command") >"$work/build-$name-$variant.log" 2>&1 ||
			{ echo "whole_program.sh: building $name ($variant) failed: $work/build-$name-$variant.log" >&2; exit 2; }
	done
}

"$(dirname "$0")/../scripts/ensure-deb-src" || exit 2
zlib=$(fetch zlib)
bzip2=$(fetch bzip2)
zstd=$(fetch libzstd)
sqlite=$(fetch sqlite3)
# SQLite's amalgamation, made once natively (every variant then compiles
# the same two files).
if [ ! -s "$sqlite/amalgamation/sqlite3.c" ]; then
	echo "making sqlite3's amalgamation..." >&2
	(mkdir -p "$sqlite/amalgamation" && cd "$sqlite/amalgamation" &&
		../configure --disable-tcl && make sqlite3.c shell.c) \
		>"$work/amalgamation.log" 2>&1 ||
		{ echo "whole_program.sh: sqlite3's amalgamation failed: $work/amalgamation.log" >&2; exit 2; }
fi

build_all minigzip "$zlib" '$CC -O2 -g -I. -o "$OUT" test/minigzip.c adler32.c compress.c crc32.c deflate.c gzclose.c gzlib.c gzread.c gzwrite.c infback.c inffast.c inflate.c inftrees.c trees.c uncompr.c zutil.c'
build_all bzip2 "$bzip2" '$CC -O2 -g -D_FILE_OFFSET_BITS=64 -o "$OUT" bzip2.c blocksort.c huffman.c crctable.c randtable.c compress.c decompress.c bzlib.c'
build_all zstd "$zstd" 'make -j2 -C programs zstd CC="$CC" MOREFLAGS="-O2 -g" HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0 && cp programs/zstd "$OUT"'
build_all sqlite3 "$sqlite/amalgamation" '$CC -O2 -g -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -I. -o "$OUT" sqlite3.c shell.c -lm'

# The input: the bundled word list, each line numbered, over and over.
input=$work/input.txt
if [ ! -s "$input" ]; then
	awk -v want=$((input_mb << 20)) '
		{ line[n++] = $0 }
		END { for (i = 0; size < want; i++) {
			s = i " " line[i % n]; print s; size += length(s) + 1 } }' \
		"$here/examples/data/words.txt" >"$input"
fi

python3 - "$work" "$trms" "$reps" "$input" "$VARIANTS_BUILT" \
	"$here/bench/whole_program.sql" "${PROGRAMS:-}" <<'PY'
import math, os, statistics, subprocess, sys
work, trms, reps, data = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
built = sys.argv[5].split()
programs = {
    "minigzip": ["-6", "-c", data],
    "bzip2": ["-9", "-c", data],
    "zstd -T2": ["-T2", "-6", "-c", "-q", data],
    "sqlite3": [":memory:", ".read " + sys.argv[6]],
}
if sys.argv[7]:
    wanted = sys.argv[7].split()
    programs = {k: v for k, v in programs.items() if k.split()[0] in wanted}
variants = built + ["callgrind"]

def base(v):
    """The native build a variant is compared with: the same compiler's."""
    return "clang" if v.endswith("clang") else "native"
env_base = dict(os.environ, TRMS_COST="events", TRMS_SAMPLE_HZ="0")

def run(prog, variant, rep):
    exe = os.path.join(work, "bin", prog.split()[0] + "-" +
                       ("native" if variant == "callgrind" else variant))
    argv = [exe] + programs[prog]
    if variant == "callgrind":
        argv = ["valgrind", "--tool=callgrind", "-q",
                "--callgrind-out-file=/dev/null"] + argv
    out = os.path.join(work, "out", f"{prog.split()[0]}-{variant}.out")
    profile = os.path.join(work, "out", f"{prog.split()[0]}-{variant}.trms")
    env = dict(env_base, TRMS_OUTPUT=profile)
    with open(out, "wb") as f:
        p = subprocess.Popen(argv, stdout=f, env=env)
        _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"{prog} ({variant}): exit status {status}")
    regions = None
    if variant.startswith(("functions", "full")):
        t = subprocess.run([trms, "report", "--tuples", profile],
                           capture_output=True, text=True).stdout
        regions = len({l.split("\t")[0] for l in t.splitlines()[1:]})
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss, out, regions

print(f"whole-program mode on Debian sources: {reps} rounds, input "
      f"{os.path.getsize(data) >> 20} MiB; CPU s and peak RSS (MiB), medians;"
      " ratios to the native build of the same compiler (GCC or Clang)")
print(f"{'program':10} {'variant':15} {'CPU s':>8} {'ratio':>7} "
      f"{'RSS':>7} {'ratio':>6} {'regions':>8}  output")
ratios = {v: [] for v in variants}
different = []
for prog in programs:
    res = {v: [] for v in variants}
    for rep in range(reps):
        k = rep % len(variants)
        order = variants[k:] + variants[:k]
        for v in order:
            res[v].append(run(prog, v, rep))
    native_out = open(res["native"][0][2], "rb").read()
    for v in variants:
        nat_cpu = statistics.median(r[0] for r in res[base(v)])
        nat_rss = statistics.median(r[1] for r in res[base(v)])
        cpu = statistics.median(r[0] for r in res[v])
        rss = statistics.median(r[1] for r in res[v])
        same = open(res[v][0][2], "rb").read() == native_out
        regions = res[v][0][3]
        ratios[v].append((cpu / nat_cpu, rss / nat_rss))
        if not same:
            different.append(f"{prog} ({v})")
        print(f"{prog:10} {v:15} {cpu:8.2f} {cpu / nat_cpu:6.2f}x "
              f"{rss / 1024:7.1f} {rss / nat_rss:5.2f}x "
              f"{regions if regions is not None else '-':>8}  "
              f"{'same' if same else 'DIFFERENT'}")
def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))
for v in variants:
    if v in ("native", "clang") or not ratios[v]:
        continue
    print(f"{'geo. mean':10} {v:15} {'':8} {geomean([r[0] for r in ratios[v]]):6.2f}x "
          f"{'':7} {geomean([r[1] for r in ratios[v]]):5.2f}x")
if different:
    print("whole_program.sh: output different from the native build's: "
          + ", ".join(different), file=sys.stderr)
    sys.exit(1)
PY
