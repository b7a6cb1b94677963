# tools/demo-report.sh, the end of `make demo` without a GPU: runs kept as text (tools/recorded-run.py)
# come back as the same runs and are reported, suite page and run pages; without a recording it says
# how one is made. (The shipped recording is real H200 runs; here CPU runs stand in for them.)
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/report/lib.sh"

make_suite runs
for r in gelu kb; do python3 "$KP_ROOT/tools/recorded-run.py" dump runs/$r rec/$r || fail "dump $r"; done
[ -f rec/kb/baseline.json ] || fail "the baseline was not kept"
KP_DEMO_RECORDED=rec KP_DEMO_OUT=demo expect_exit 0 sh "$KP_ROOT/tools/demo-report.sh"
contains out "demo: the report is demo/report.html (the suite) with each run's page beside it"
contains out "demo/gelu/report.html"
contains out "best:      #8, 2.60x"
# The restored runs are the runs: the same summary, every version, the same report figures.
"$KP" show runs/gelu --json | python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("dir"); print(json.dumps(d, sort_keys=True))' >a.json
"$KP" show demo/gelu --json | python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("dir"); print(json.dumps(d, sort_keys=True))' >b.json
cmp -s a.json b.json || { diff a.json b.json | head; fail "the restored run differs"; }
contains demo/report.html 'href="kb/report.html"'
contains demo/gelu/report.html "Diff against its parent"
# No recording: the demo says how one is made and does not fail.
KP_DEMO_RECORDED=none KP_DEMO_OUT=demo2 expect_exit 0 sh "$KP_ROOT/tools/demo-report.sh"
contains out "demo: no recorded run in none: tests/gpu/g1401-report-real-runs.sh records them on a GPU machine"
exit 0
