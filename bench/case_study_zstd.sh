#!/bin/bash
# bench/case_study_zstd.sh [BUILD_DIR] - the case study of
# docs/case-study-zstd.md: zstd -T2 built by `trms cc --trms-full` with
# Clang (no annotation), compressing eleven files of 8 KiB to 8 MiB in one
# run, costs in events (deterministic), sampling off.  Prints, for the
# main thread's FIO_compressFilename_srcFile (one activation per file),
# each file's size, the activation's trms and rms, the cells of its trms
# another thread or the kernel wrote last, its cost and its cost per trms
# cell; then which threads ran ZSTD_compressBlock_internal; and writes
# the plot of cost against trms and against rms as an SVG file,
# BUILD_DIR/case-study-zstd.svg (docs/case-study-zstd.svg is one).
#
# Needs the zstd builds and the input text of bench/whole_program.sh:
#   PROGRAMS=zstd bench/whole_program.sh BUILD_DIR
set -u
build=${1:-build-release}
trms=$build/tools/trms
zstd=$build/whole-program/bin/zstd-full-clang
text=$build/whole-program/input.txt
[ -x "$trms" ] && [ -x "$zstd" ] && [ -f "$text" ] || {
	echo "case_study_zstd.sh: build zstd first: PROGRAMS=zstd bench/whole_program.sh $build" >&2
	exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/trms-zstd-study.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
for kib in 8 16 32 64 128 256 512 1024 2048 4096 8192; do
	head -c $((kib * 1024)) "$text" >"$work/f$(printf %05d $kib).txt"
done
(cd "$work" && TRMS_COST=events TRMS_SAMPLE_HZ=0 \
	TRMS_OUTPUT="$work/zstd.trms" "$OLDPWD/$zstd" -T2 -q -f f*.txt) ||
	{ echo "case_study_zstd.sh: zstd failed" >&2; exit 1; }
"$trms" report --tuples "$work/zstd.trms" >"$work/tuples" || exit 1
"$trms" report --threads --filter '^ZSTD_compressBlock_internal$' \
	"$work/zstd.trms" | sed -n '1,/^$/p' >"$work/threads"

python3 - "$work/tuples" "$build/case-study-zstd.svg" <<'EOF'
import math, sys

rows = {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if f[0] != "FIO_compressFilename_srcFile":
        continue
    # region thread metric n count min max sum sumsq induced_thread
    # induced_external
    rows.setdefault(int(f[7]), {})[f[2]] = (int(f[3]), int(f[9]),
                                              int(f[10]))
points = []
print("%9s %10s %9s %9s %9s %10s %9s" % (
    "file", "trms", "rms", "thread", "kernel", "cost", "cost/trms"))
for cost in sorted(rows, key=lambda c: rows[c]["trms"][0]):
    t, induced_thread, induced_kernel = rows[cost]["trms"]
    r = rows[cost]["rms"][0]
    points.append((t, r, cost))
    # Every byte of the file is read into cells the kernel wrote.
    print("%9s %10d %9d %9d %9d %10d %9.2f" % (
        "%d KiB" % (induced_kernel * 4 // 1024), t, r, induced_thread,
        induced_kernel, cost, cost / t))

# The plot: cost against trms (dots) and against rms (rings), log-log.
W, H, L, B = 640, 400, 70, 50
xs = [p[0] for p in points] + [p[1] for p in points]
ys = [p[2] for p in points]
# Whole decades, so that both axes have ticks at their ends.
x0, x1 = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
X = lambda v: L + (math.log10(v) - x0) / (x1 - x0) * (W - L - 20)
Y = lambda v: H - B - (math.log10(v) - y0) / (y1 - y0) * (H - B - 20)
out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
       'font-family="sans-serif" font-size="12">' % (W, H),
       '<rect width="100%" height="100%" fill="white"/>',
       '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (
           L, H - B, W - 20, H - B),
       '<line x1="%d" y1="20" x2="%d" y2="%d" stroke="black"/>' % (
           L, L, H - B)]
for e in range(math.ceil(x0), math.floor(x1) + 1):
    out.append('<text x="%.0f" y="%d" text-anchor="middle">1e%d</text>'
               % (X(10 ** e), H - B + 16, e))
for e in range(math.ceil(y0), math.floor(y1) + 1):
    out.append('<text x="%d" y="%.0f" text-anchor="end">1e%d</text>'
               % (L - 6, Y(10 ** e) + 4, e))
out.append('<text x="%d" y="%d" text-anchor="middle">input size '
           '(cells of 4 bytes)</text>' % ((W + L) / 2, H - 12))
out.append('<text x="16" y="%d" transform="rotate(-90 16 %d)" '
           'text-anchor="middle">cost (events)</text>' % (H / 2, H / 2))
for t, r, c in points:
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
               'stroke="#bbb"/>' % (X(r), Y(c), X(t), Y(c)))
    out.append('<circle cx="%.1f" cy="%.1f" r="4" fill="none" '
               'stroke="#d62728" stroke-width="1.5"/>' % (X(r), Y(c)))
    out.append('<circle cx="%.1f" cy="%.1f" r="4" fill="#1f77b4"/>'
               % (X(t), Y(c)))
# The legend in the lower right corner, which the points leave empty.
lx, ly = W - 300, H - B - 70
out.append('<circle cx="%d" cy="%d" r="4" fill="#1f77b4"/>' % (lx, ly))
out.append('<text x="%d" y="%d">trms</text>' % (lx + 10, ly + 4))
out.append('<circle cx="%d" cy="%d" r="4" fill="none" stroke="#d62728" '
           'stroke-width="1.5"/>' % (lx, ly + 20))
out.append('<text x="%d" y="%d">rms</text>' % (lx + 10, ly + 24))
out.append('<text x="%d" y="%d" fill="#555">one activation of '
           'FIO_compressFilename_srcFile</text>' % (lx - 4, ly + 44))
out.append('<text x="%d" y="%d" fill="#555">per file, 8 KiB to 8 MiB</text>'
           % (lx - 4, ly + 60))
out.append("</svg>")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
EOF
echo
cat "$work/threads"
echo "plot: $build/case-study-zstd.svg"
