#!/bin/sh
# html.sh RENDER_PAGE SOURCE_DIR SCRATCH TRMS BURN - `trms report --html`
# pages loaded in headless Chromium (Debian's chromium, which
# scripts/install-deps installs).  Works in SCRATCH/<pid>, removed if every
# check passes; the screenshots stay in SCRATCH.
#
# Every page is checked two or three ways (check_page.py says exactly
# what):
#   - as written: the report's JSON inside, nothing loaded from outside;
#   - as rendered (--dump-dom, after its script ran): no error noted by the
#     page and no console message at all, and per region the plots with
#     one point per input size, the fitted curve with its formula, the
#     workload, guess-ratio, trms and rms plots and the input shares; the
#     icicle of the call tree, regions and threads marked;
#   - as a 1366x768 screenshot: not blank (the hand-written report and
#     the call-stack samples' page: plots, and the icicle).
# The pages:
#   - the hand-written report SOURCE_DIR/fixture.json (every kind of
#     region, a name that holds "</script>", a per-thread call tree),
#     written by RENDER_PAGE with report_html.c; then again after a click
#     that zooms the icicle and one that switches every plot to linear
#     axes (interact.js);
#   - the profiles of the examples wordfreq (str_tolower quadratic,
#     addword linear) and prodcons (input from another thread) under
#     `trms run`: the page holds what `trms report --json` prints;
#   - the call-stack samples of BURN (tests/pprof/burn.c) at 1000 Hz,
#     merged and with --threads.
# And: OUT that cannot be written is an error (status 1, a message), and
# leaves what was there.
# Exit status 77 (skipped) if Chromium is not installed or cannot start.
# The profiles are skipped, with a note, where the library cannot be
# preloaded (HTML_NO_PRELOAD: a sanitizer build) or the examples are not
# built (WORDFREQ, PRODCONS, WORDS unset).
set -u

render=$1
src=$2
scratch=$3
work=$3/$$
trms=$4
burn=$5

. "$(dirname "$0")/../checks.sh"

browser=""
for b in chromium chromium-browser; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
if [ -z "$browser" ]; then
	echo "SKIP: chromium is not installed (scripts/install-deps installs it)"
	exit 77
fi

rm -rf "$work"
mkdir -p "$work/home" "$work/runtime" || fail_now "cannot create $work"
chmod 700 "$work/runtime"
cd "$work" || fail_now "cannot enter $work"
# Chromium writes its profile, caches and crash reports under these.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" \
	XDG_CACHE_HOME="$work/home/.cache" XDG_RUNTIME_DIR="$work/runtime"

# As root (a CI container), Chromium runs only without its sandbox; the
# page is our own and nothing else is loaded.  --virtual-time-budget lets
# the page's script and timers finish before the DOM is dumped.
browse() {
	timeout 60 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-dev-shm-usage --no-first-run \
		--no-default-browser-check --disable-extensions \
		--disable-background-networking --disable-component-update \
		--disable-sync --disable-default-apps --mute-audio \
		--hide-scrollbars --user-data-dir="$work/browser" \
		--virtual-time-budget=5000 --window-size=1366,768 "$@"
}

check() {
	python3 "$src/check_page.py" "$@" || fail_now "check_page.py $*"
}

# The rendered DOM, then console messages: the page writes none, so any
# is an error (an exception, a blocked load, a CSP violation).
dump_dom() { # PAGE DOM
	browse --enable-logging=stderr --v=0 --dump-dom "file://$work/$1" \
		>"$2" 2>"$2.log" || { show "$2.log"; fail_now "chromium --dump-dom $1"; }
	if grep -a 'CONSOLE' "$2.log" >"$2.console"; then
		show "$2.console"
		fail_now "$1: console messages while loading"
	fi
	[ -s "$2" ] || fail_now "$1: chromium dumped nothing"
}

screenshot() { # PAGE PNG
	rm -f "$2"
	browse --screenshot="$work/$2" "file://$work/$1" >"$2.log" 2>&1 ||
		{ show "$2.log"; fail_now "chromium --screenshot $1"; }
	[ -s "$2" ] || { show "$2.log"; fail_now "$1: no screenshot"; }
	check png "$2" 1366 768
	cp "$2" "$scratch/$2"
}

# PAGE with the script SCRIPT run after its own, as OUT.
with_script() { # PAGE SCRIPT OUT
	python3 - "$1" "$2" "$3" <<'EOF' || fail_now "cannot add $2 to $1"
import sys
page = open(sys.argv[1], encoding="utf-8").read()
script = "<script>\n" + open(sys.argv[2], encoding="utf-8").read() + \
    "</script>\n</body>"
at = page.rindex("</body>")
open(sys.argv[3], "w", encoding="utf-8").write(
    page[:at] + script + page[at + len("</body>"):])
EOF
}

# The page's static text, its rendered DOM and, unless a second argument
# says "no screenshot", a screenshot (each Chromium start takes seconds:
# the screenshots are of the hand-written page and of a call tree, the
# two ways the page draws).
check_page() { # PAGE [no screenshot]
	name=${1%.html}
	check static "$1"
	dump_dom "$1" "$name.dom"
	check dom "$1" "$name.dom"
	[ $# -gt 1 ] || screenshot "$1" "$name.png"
}

# --- Chromium starts --------------------------------------------------------
printf '<!DOCTYPE html><title>t</title><p id=p>static</p>
<script>document.getElementById("p").textContent = "scripted";</script>\n' \
	>start.html
if ! browse --dump-dom "file://$work/start.html" >start.dom 2>start.log ||
	! grep -q scripted start.dom; then
	show start.log
	echo "SKIP: chromium is installed but cannot load a page here"
	exit 77
fi

# --- The hand-written report --------------------------------------------------
"$render" "$src/fixture.json" fixture.html 2>render.err ||
	{ show render.err; fail_now "render-page fixture.json"; }
check_page fixture.html

with_script fixture.html "$src/interact.js" interacted.html
dump_dom interacted.html interacted.dom
grep -q 'data-interacted="yes"' interacted.dom ||
	fail_now "interact.js did not run"
check dom interacted.html interacted.dom --interacted

# --- Many regions: drawn as they come into view ------------------------------
# fixture.json's regions 60 times over: the first 24 are drawn at once, the
# others wait; scrolled into view, the last one is drawn.
python3 - "$src/fixture.json" <<'EOF' || fail_now "cannot make many.json"
import copy, json, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
regions = []
for k in range(60):
    r = copy.deepcopy(report["regions"][k % len(report["regions"])])
    r["name"] = "copy %d of %s" % (k, r["name"])
    regions.append(r)
report["regions"] = regions
json.dump(report, open("many.json", "w", encoding="utf-8"))
EOF
"$render" many.json many.html 2>render.err ||
	{ show render.err; fail_now "render-page many.json"; }
check_page many.html no screenshot
grep -q 'data-pending' many.dom || fail_now "many.html: every region drawn at once"
cat >scroll.js <<'EOF'
document.getElementById('region-59').scrollIntoView({ behavior: 'instant' });
setTimeout(() => document.body.setAttribute('data-scrolled', 'yes'), 1500);
EOF
with_script many.html scroll.js scrolled.html
dump_dom scrolled.html scrolled.dom
grep -q 'data-scrolled="yes"' scrolled.dom ||
	fail_now "the scrolling script did not run"
check dom scrolled.html scrolled.dom --drawn 59

# --- OUT that cannot be written --------------------------------------------------
# A missing directory: status 1, a message naming OUT, nothing created.
"$render" "$src/fixture.json" missing/out.html >bad.out 2>bad.err
[ $? -eq 1 ] || fail_now "render-page to a missing directory: not status 1"
grep -q 'missing/out.html' bad.err || { show bad.err; fail_now "no message"; }
# OUT a directory: the rename fails; the directory stays, no temporary
# file is left beside it.
mkdir -p taken
"$render" "$src/fixture.json" taken >bad.out 2>bad.err
[ $? -eq 1 ] || fail_now "render-page onto a directory: not status 1"
[ -d taken ] || fail_now "the directory at OUT was replaced"
ls taken.* >/dev/null 2>&1 && fail_now "a temporary file was left: $(ls taken.*)"
# OUT an existing page: replaced whole.
cp fixture.html again.html
"$render" "$src/fixture.json" again.html || fail_now "render-page over a page"
cmp -s fixture.html again.html || fail_now "a page written over differs"

# --- Real profiles ------------------------------------------------------------------
if [ -n "${HTML_NO_PRELOAD:-}" ]; then
	echo "NOTE: a sanitizer build cannot preload the library: the" \
		"profiles are not checked"
	cd / && rm -rf "$work"
	exit 0
fi

if [ -n "${WORDFREQ:-}" ] && [ -n "${PRODCONS:-}" ] && [ -n "${WORDS:-}" ]; then
	"$trms" run --cost events --granularity 1 --output wf.trms -- \
		"$WORDFREQ" "$WORDS" >wf.out 2>wf.err ||
		{ show wf.err; fail_now "trms run -- wordfreq"; }
	"$trms" run --cost events --output pc.trms -- "$PRODCONS" 2000 \
		>pc.out 2>pc.err || { show pc.err; fail_now "trms run -- prodcons"; }
	"$trms" report --html examples.html wf.trms pc.trms >report.out \
		2>report.err || { show report.err; fail_now "trms report --html"; }
	[ -s report.out ] && { show report.out; fail_now "--html printed something"; }
	"$trms" report --json wf.trms pc.trms >examples.json ||
		fail_now "trms report --json"
	python3 - <<'EOF' || fail_now "the page does not hold what --json prints"
import json
page = open("examples.html", encoding="utf-8").read()
start = page.index('id="report-data">') + len('id="report-data">')
inside = json.loads(page[start:page.index("</script>", start)])
printed = json.load(open("examples.json", encoding="utf-8"))
assert inside == printed
names = {r["name"]: r for r in inside["regions"]}
# what the examples are for: a quadratic fitted, input from a thread
assert names["str_tolower"]["fit"] is not None, "str_tolower: no fit"
assert len(names["str_tolower"]["points"]) >= 10, "str_tolower: few sizes"
assert any((r["input_thread_share"] or 0) > 0 for r in inside["regions"]), \
    "no region with input from another thread"
print("ok: examples.html holds the --json report: %d regions, "
      "str_tolower %s" % (len(inside["regions"]),
                          names["str_tolower"]["fit"]["formula"]))
EOF
	check_page examples.html no screenshot
	# by the other size and another statistic
	"$trms" report --size rms --stat mean --html rms.html wf.trms pc.trms \
		2>report.err || { show report.err; fail_now "--size rms --html"; }
	check static rms.html
	dump_dom rms.html rms.dom
	check dom rms.html rms.dom

	"$trms" report --html nowhere/out.html wf.trms >bad.out 2>bad.err
	status=$?
	[ $status -eq 1 ] || { show bad.err; fail_now "--html nowhere/: $status"; }
	grep -q 'nowhere/out.html' bad.err || { show bad.err; fail_now "no message"; }
	[ -s bad.out ] && fail_now "--html nowhere/ printed something"
else
	echo "NOTE: the examples are not built: wordfreq and prodcons skipped"
fi

TRMS_SAMPLE_HZ=1000 "$trms" run --output burn.trms -- "$burn" 300 100 \
	>burn.out 2>burn.err || { show burn.err; fail_now "trms run -- burn"; }
grep -q '^meta samples [1-9]' burn.trms || fail_now "burn.trms: no samples"
"$trms" report --html samples.html burn.trms 2>report.err ||
	{ show report.err; fail_now "trms report --html burn.trms"; }
grep -q '"call_tree"' samples.html || fail_now "samples.html: no call tree"
check_page samples.html
"$trms" report --threads --html threads.html burn.trms 2>report.err ||
	{ show report.err; fail_now "trms report --threads --html burn.trms"; }
check static threads.html
dump_dom threads.html threads.dom
check dom threads.html threads.dom

cd / && rm -rf "$work"
echo "every page checked; screenshots in $scratch"
