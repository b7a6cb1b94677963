# The reports in headless Chromium: every plot renders with marks and axes, tables sort both ways, no
# console error, exception, CSP violation or network request, hostile strings stay inert. Screenshots
# land in $KP_BUILD/tests/report-*.png. The checker is shown to fail on a page with a plot removed, a
# script error, a script the CSP does not allow, and an outside request. Skipped without Chromium.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/report/lib.sh"
CHECK="python3 $R/check_page.py"
SHOTS="$KP_BUILD/tests"
mkdir -p "$SHOTS"

$CHECK --help >/dev/null || fail "check_page.py does not run"
python3 "$R/check_page.py" /dev/null >/dev/null 2>&1
[ $? -eq 77 ] && skip "no Chromium (make test-deps installs chromium-headless-shell)"

make_suite runs
make_hostile hostile
"$KP" report runs >/dev/null || fail "report suite"
"$KP" report runs/gelu >/dev/null || fail "report gelu"
"$KP" report hostile/hostile >/dev/null || fail "report hostile"
SUITE_PLOTS=fast_p:8,speedup_distribution:3,time_cost:3
RUN_PLOTS=roofline:2,search_tree:9,speedup_over_evals:8

# At 1400 px nothing but the search tree scrolls sideways; every link lands (the suite page's run
# pages were written beside it, each version it names has its place there).
W="--width 1400 --no-hscroll"
[ -f runs/fail/report.html ] && [ -f runs/kb/report.html ] || fail "report SUITE wrote no run pages beside it"
grep -q 'href="gelu/report.html"' runs/report.html || fail "the suite page does not link its tasks' run pages"
grep -q 'href="fail/report.html#v2"' runs/report.html || fail "the suite page does not link the failed version"
expect_exit 0 $CHECK runs/report.html --plots $SUITE_PLOTS --sort tasks:3 $W --screenshot "$SHOTS/report-suite.png"
expect_exit 0 $CHECK runs/gelu/report.html --plots $RUN_PLOTS --sort versions:4 $W --screenshot "$SHOTS/report-run.png"
expect_exit 0 $CHECK runs/fail/report.html --plots search_tree:2 $W
expect_exit 0 $CHECK hostile/hostile/report.html --plots roofline:2,search_tree:2 $W --screenshot "$SHOTS/report-hostile.png"
for f in report-suite report-run report-hostile; do
	[ "$(head -c 8 "$SHOTS/$f.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] || fail "$f.png is not a PNG"
done

# Negative checks: each broken page must fail the same checker.
NO_CSP='import re; s = re.sub(r"<meta http-equiv=\"Content-Security-Policy\"[^>]*>", "", s); '
broken() { # broken NAME PAGE PYTHON-ON-s CHECK-ARGS...: NAME.html is PAGE changed by the code; the check must fail
	name=$1 page=$2 code=$3
	shift 3
	python3 -c 'import sys; s=open(sys.argv[1]).read(); exec(sys.argv[3]); open(sys.argv[2],"w").write(s)' \
		"$page" "$name.html" "$code"
	cmp -s "$page" "$name.html" && fail "test setup: $name.html is not broken"
	expect_exit 1 $CHECK "$name.html" "$@"
}
S=runs/report.html
broken no-plot $S 's = s.replace("data-plot=\"fast_p\"", "data-plot=\"gone\"", 1)' --plots $SUITE_PLOTS
contains out "plot 'fast_p' is missing"
broken no-marks $S 'import re; s = re.sub(r"<rect class=\"mark bar[^>]*>.*?</rect>", "", s)' --plots $SUITE_PLOTS
contains out "plot 'speedup_distribution' draws 0 marks"
broken csp-blocked $S 's = s.replace("(function(){", "(function(){ ", 1)' --plots $SUITE_PLOTS
contains out "Content Security Policy"
broken js-error $S "$NO_CSP"'s = s.replace("(function(){", "(function(){ undefined_function();", 1)' --plots $SUITE_PLOTS
contains out "uncaught exception: ReferenceError: undefined_function is not defined"
broken network $S "$NO_CSP"'s = s.replace("</main>", "<link rel=\"stylesheet\" href=\"http://127.0.0.1:9/x.css\"></main>")' \
	--plots $SUITE_PLOTS
contains out "network request at view time: http://127.0.0.1:9/x.css"
broken dead-link $S 's = s.replace("href=\"gelu/report.html\"", "href=\"gone/report.html\"", 1)' --plots $SUITE_PLOTS
contains out "link to a missing file: gone/report.html"
broken outside-link $S 's = s.replace("href=\"gelu/report.html\"", "href=\"file:///etc/passwd\"", 1)' --plots $SUITE_PLOTS
contains out "link leaves the page's folder: file:///etc/passwd"
broken wide $S 's = s.replace("<td data-v=\"finished\">finished</td>", "<td data-v=\"finished\">" + "x" * 3000 + "</td>", 1)' \
	--plots $SUITE_PLOTS $W
contains out "scrolls sideways at 1400 px"
broken unsorted runs/gelu/report.html "$NO_CSP"'s = s.replace("rows.sort(", "rows.reverse(", 1)' --plots $RUN_PLOTS \
	--sort versions:4
contains out "sorting ascending gave"
exit 0
