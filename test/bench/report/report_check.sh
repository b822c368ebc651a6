#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The benchmark report's test: renders the report of INDIR (a bench or
# bench-smoke directory) into OUTDIR, opens it in Debian's headless
# Chromium and checks that every image loads and shows data (coloured
# pixels: report_check.js), that each plot says it has data points, and
# that the plots named in REQUIRED (space-separated figure ids) are there.
# A screenshot of the whole page goes to OUTDIR/screenshot.png.
# Usage: report_check.sh INDIR OUTDIR "REQUIRED"
set -uo pipefail
here=$(dirname "$0")
indir=$1 outdir=$2 required=$3
MIN_COLORED=${MIN_COLORED:-200}	# pixels: a line of a few dozen points

fail() { echo "report-check: FAIL: $*" >&2; exit 1; }

chrome=$(command -v chromium || command -v chromium-browser) ||
	fail "chromium not found (Debian package chromium)"
/usr/bin/python3 "$here/bench_report.py" "$indir" "$outdir" ||
	fail "bench_report.py failed"
page=$outdir/index.html
check=$outdir/check.html
sed '/<\/body>/d; /<\/html>/d' "$page" > "$check"
{ echo "<script>"; cat "$here/report_check.js"; echo "</script></body></html>"; } >> "$check"

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# Root needs --no-sandbox; the profile is the test's own, and no
# network is used: every image is a data: URI.
opts=(--headless --no-sandbox --disable-gpu --no-first-run
      --user-data-dir="$profile" --virtual-time-budget=10000
      --window-size=1100,3000)
dom=$(timeout 120 "$chrome" "${opts[@]}" --dump-dom "file://$(realpath "$check")" 2>/dev/null) ||
	fail "chromium --dump-dom failed"
timeout 120 "$chrome" "${opts[@]}" --screenshot="$(realpath "$outdir")/screenshot.png" \
	"file://$(realpath "$page")" >/dev/null 2>&1 ||
	fail "chromium --screenshot failed"
[ -s "$outdir/screenshot.png" ] || fail "no screenshot"

json=$(printf '%s\n' "$dom" | sed -n 's/.*REPORT-CHECK \(\[.*\]\).*/\1/p' |
	sed 's/&quot;/"/g')
[ -n "$json" ] || fail "the page's check did not run (no REPORT-CHECK in the DOM)"
printf '%s\n' "$json" | /usr/bin/python3 -c '
import json, sys
imgs = json.load(sys.stdin)
need = sys.argv[1].split()
minc = int(sys.argv[2])
bad = []
for i in imgs:
    ok = i["loaded"] and i["points"] > 0 and i["colored"] >= minc
    print("report-check: %-16s loaded %-5s points %6d coloured pixels %6d %s"
          % (i["id"], i["loaded"], i["points"], i["colored"],
             "ok" if ok else "FAIL"))
    if not ok:
        bad.append(i["id"])
ids = {i["id"] for i in imgs}
bad += ["%s (missing)" % n for n in need if n not in ids]
if not imgs:
    bad.append("no image at all")
if bad:
    sys.exit("report-check: FAIL: " + ", ".join(bad))
print("report-check: %d plots ok" % len(imgs))
' "$required" "$MIN_COLORED"
