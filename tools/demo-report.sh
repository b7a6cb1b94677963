#!/bin/sh
# The end of `make demo` on a machine without a GPU: the report pages of real H200 runs shipped with
# the project (examples/recorded/h200/NAME/run.sql, dumped by tools/recorded-run.py from the runs
# tests/gpu/g1401-report-real-runs.sh makes), restored under build/demo-recorded/ and reported there.
set -u
KP=${KP:-build/bin/kernelpro}
root=$(cd "$(dirname "$0")/.." && pwd)
rec=${KP_DEMO_RECORDED:-$root/examples/recorded/h200}
out=${KP_DEMO_OUT:-$root/build/demo-recorded}

printf '\n== the report of a recorded H200 run (%s)\n' "$rec"
if ! ls "$rec"/*/run.sql >/dev/null 2>&1; then
	echo "demo: no recorded run in $rec: tests/gpu/g1401-report-real-runs.sh records them on a GPU machine"
	exit 0
fi
rm -rf "$out" && mkdir -p "$out" || exit 1
for d in "$rec"/*/; do
	name=$(basename "$d")
	python3 "$root/tools/recorded-run.py" restore "$d" "$out/$name" || exit 1
done
for d in "$out"/*/; do
	"$KP" show "$d" | sed -n '1p;/^best:/p'
done
"$KP" report "$out" >/dev/null || exit 1
echo
echo "demo: the report is $out/report.html (the suite) with each run's page beside it"
for d in "$out"/*/; do echo "      $d""report.html"; done
echo "      open them in a browser: they are self-contained and fetch nothing"
