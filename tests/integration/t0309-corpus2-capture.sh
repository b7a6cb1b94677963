#!/bin/sh
# bench/gpu-capture-corpus2.sh without a GPU, over stand-ins for nvcc, cuobjdump and ncu (ncu's pages
# are the H200 probe fixtures): the steps run in order, a refused metric list falls back to --set full
# alone, every profile directory gets its files, $OUT holds exactly the three files that come back,
# and the capture is scored by bench/diagnosis.py --all. Then diagnosis.py on the committed captures.
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null || skip "no python3"
G="$KP_ROOT/tests/golden/h200-probe"
export XDG_CACHE_HOME="$PWD/cache"
mkdir -p fake

# nvcc: ptxas -v lines on stderr and a "binary" that prints what the real one would
cat >fake/nvcc <<'EOF'
#!/bin/sh
out=
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
cat "$KP_ROOT/tests/golden/h200-probe/ptxas.txt" >&2
printf '#!/bin/sh\necho "ok $1"\n' >"$out" && chmod +x "$out"
EOF
printf '#!/bin/sh\necho "Function : fake"\n' >fake/cuobjdump
# ncu: a report for a collection (refusing --metrics when FAKE_REFUSE is set), the fixtures for --import
cat >fake/ncu <<'EOF'
#!/bin/sh
G="$KP_ROOT/tests/golden/h200-probe"
[ "$1" = --version ] && { echo "Version 2025.3.1.0 (fake)"; exit 0; }
log=/dev/null rep= page= metrics= imp=
while [ $# -gt 0 ]; do
	case "$1" in
	--import) imp=1; shift 2 ;;
	--page) page=$2; shift 2 ;;
	--log-file) log=$2; shift 2 ;;
	--export) rep=$2; shift 2 ;;
	--metrics) metrics=$2; shift 2 ;;
	--set|--clock-control|--launch-count|--profile-from-start|--print-units|--print-source|--print-metric-instances) shift 2 ;;
	--*) shift ;;
	*) break ;;
	esac
done
if [ -n "$imp" ]; then
	case "$page" in raw) cat "$G/ncu_raw.csv" ;; details) cat "$G/ncu_details.csv" ;; source) cat "$G/ncu_source_sass_excerpt.csv" ;; esac
	exit 0
fi
echo "$metrics" >>"$FAKE_ROOT/metrics-asked"
if [ -n "$metrics" ] && [ -n "${FAKE_REFUSE:-}" ]; then
	echo "==ERROR== Failed to find metric sm__no_such_metric" >"$log"
	exit 1
fi
echo "==PROF== Connected to process $$ ($1)" >"$log"
echo fake >"$rep.ncu-rep"
EOF
chmod +x fake/*
export FAKE_ROOT="$PWD"

run_capture() {
	rm -rf "$1"
	(cd "$KP_ROOT" && KP_CORPUS_REPORTS=${KP_CORPUS_REPORTS:-1} KP_CAPTURE_DEADLINE_S=${KP_CAPTURE_DEADLINE_S:-330} OUT="$FAKE_ROOT/$1" NVCC="$FAKE_ROOT/fake/nvcc" CUOBJDUMP="$FAKE_ROOT/fake/cuobjdump" \
		NCU="$FAKE_ROOT/fake/ncu" TORCHPY=python3 KP="$KP" sh bench/gpu-capture-corpus2.sh) >"$1.log" 2>&1
}

run_capture out1 || { cat out1.log; fail "capture script failed"; }
[ "$(ls out1 | sort | tr '\n' ' ')" = "corpus2-capture.tgz corpus2-reports.tgz corpus2-summary.txt " ] ||
	fail "\$OUT holds $(ls out1)"
tar xzf out1/corpus2-capture.tgz -C out1 || fail "capture tarball"
C=out1/corpus2-capture
for d in heldout dev heldout-conv1x1_gn_silu_res heldout-linear_gelu_fp32 dev-conv3x3_bn_relu dev-ln_linear_relu_bf16; do
	for f in ncu_raw.csv ncu_raw_instances.csv ncu_details.csv ncu_source_sass.csv program.log ncu.log; do
		[ -s "$C/$d/$f" ] || fail "no $d/$f"
	done
done
for d in heldout dev; do
	[ -s "$C/$d/sass.txt" ] && [ -s "$C/$d/ptxas.txt" ] && [ -s "$C/$d/plain-run.log" ] || fail "$d: no sass/ptxas/plain run"
done
cmp "$C/heldout/ncu_raw.csv" "$G/ncu_raw.csv" || fail "raw page not exported as is"
contains "$C/log.txt" "ncu heldout: exit 0"
contains "$C/log.txt" "ncu dev-ln_linear_relu_bf16: exit 0"
contains "$C/env.txt" "Version 2025.3.1.0 (fake)"
# the explicit metrics: the corpus's list and the tools' (kernelpro tools metrics), in one --metrics
head -1 metrics-asked | tr ',' '\n' >asked
grep -qx 'breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed' asked || fail "metrics.txt not asked for"
grep -qx 'smsp__sass_average_branch_targets_threads_uniform.pct' asked || fail "the tools' metrics not asked for"
[ "$(sort asked | uniq -d | wc -l)" -eq 0 ] || fail "a metric asked for twice"
lacks asked "source-level"
# scored right away: the probe and issue-4 corpora, and the fake capture of the new ones
contains "$C/score.txt" "== side by side"
contains "$C/score.txt" "h200-probe (shared)        17 12/12"
lacks "$C/score.txt" "could not score"
contains out1/corpus2-summary.txt "== side by side"
tar tzf out1/corpus2-reports.tgz | grep -q 'rep/heldout.ncu-rep' || fail "no heldout report"

# ncu refuses a metric: the collection is redone with --set full alone and the log says so
FAKE_REFUSE=1 run_capture out2 || { cat out2.log; fail "capture script failed (refused metrics)"; }
tar xzf out2/corpus2-capture.tgz -C out2
contains out2/corpus2-capture/log.txt "ncu refused the explicit metrics"
contains out2/corpus2-capture/log.txt "ncu heldout (set full only): exit 0"
[ -s out2/corpus2-capture/heldout/ncu.log.metrics ] || fail "the refusal's log was not kept"

# out of time: the steps are skipped and said so, the three files still come back
KP_CAPTURE_DEADLINE_S=0 run_capture out3 || { cat out3.log; fail "capture script failed (deadline)"; }
[ "$(ls out3 | wc -l)" -eq 3 ] || fail "deadline: \$OUT holds $(ls out3)"
# without KP_CORPUS_REPORTS the 17 MB reports stay behind: two files come back
KP_CORPUS_REPORTS=0 KP_CAPTURE_DEADLINE_S=0 run_capture out4 || { cat out4.log; fail "capture script failed (no reports)"; }
[ "$(ls out4 | sort | tr '\n' ' ')" = "corpus2-capture.tgz corpus2-summary.txt " ] || fail "no reports: \$OUT holds $(ls out4)"
contains out3/corpus2-summary.txt "SKIPPED (deadline): plain run heldout"

# diagnosis.py on the committed captures (no GPU): totals as JSON, the new corpora not captured yet
(cd "$KP_ROOT" && python3 bench/diagnosis.py --kp "$KP" --all --capture-root "$FAKE_ROOT/none" --json "$FAKE_ROOT/s.json") \
	>out 2>err || { cat out err; fail "diagnosis.py --all"; }
contains out "held-out (corpus2)          - (no capture yet)"
python3 - <<'PY' || fail "diagnosis.py --json totals"
import json
s = json.load(open("s.json"))
p = s["h200-probe (shared)"]["totals"]
assert (p["scored"], p["planted"], p["classed"], p["near"]) == (17, 12, 17, 3), p
o = s["own (issue 4)"]["totals"]
assert (o["scored"], o["planted"], o["classed"]) == (5, 5, 5), o
assert s["held-out (corpus2)"]["totals"] is None and s["held-out (corpus2)"]["rows"] == []
PY
echo ok
