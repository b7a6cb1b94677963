# kernelpro report SUITE --export: the suite's metrics from its runs (fast_p against eager and a cached
# torch.compile baseline, a tie at p = 2, a task with no correct version), results.json/csv, kernels/ in
# KernelBench's layout, and an independent recomputation (bench/suite_metrics.py) that agrees.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/report/lib.sh"
M="python3 $KP_ROOT/bench/suite_metrics.py"

make_suite runs
expect_exit 0 "$KP" report runs --export res
contains out "wrote runs/report.html"
for plot in fast_p speedup_distribution time_cost; do contains runs/report.html "data-plot=\"$plot\""; done
J=res/results.json
[ "$(json $J 'd["schema"]')" = kernelpro.bench-results/1 ] || fail "schema"
[ "$(json $J 'd["summary"]["tasks"]')" = 3 ] || fail "tasks"
[ "$(json $J 'd["summary"]["correct"]')" = 2 ] || fail "correct"
E='d["summary"]["baselines"]["eager"]'
C='d["summary"]["baselines"]["torch_compile"]'
[ "$(json $J "$E[\"tasks\"]")" = 3 ] || fail "eager n"
[ "$(json $J "round($E[\"fast_p\"][\"1.0\"], 6)")" = 0.666667 ] || fail "eager fast_1"
# kb is exactly 2.0x faster than eager: fast_2 counts speedups strictly above 2, so only gelu (2.6x).
[ "$(json $J "round($E[\"fast_p\"][\"2.0\"], 6)")" = 0.333333 ] || fail "eager fast_2 (tie at 2.0)"
[ "$(json $J "round($E[\"geomean_speedup_correct\"], 4)")" = 2.2804 ] || fail "eager geomean over correct"
[ "$(json $J "round($E[\"geomean_speedup_all\"], 4)")" = 1.7325 ] || fail "eager geomean over all"
# torch.compile was measured for kb only: the natives are left out of its denominator, and counted.
[ "$(json $J "$C[\"tasks\"]")" = 1 ] || fail "compile n"
[ "$(json $J "$C[\"missing_baseline\"]")" = 2 ] || fail "compile missing"
[ "$(json $J "$C[\"geomean_speedup_correct\"]")" = 1.6 ] || fail "compile geomean"
[ "$(json $J '[t["eager_from"] for t in d["tasks"]]')" = "['run', 'run', 'baseline']" ] || fail "eager_from"
[ "$(json $J '[t["correct"] for t in d["tasks"]]')" = "[False, True, True]" ] || fail "per-task correct"
# kernels/: KernelBench's file name for the KernelBench task, the task's name for the native one.
[ -f res/kernels/level_1_problem_2_sample_0_kernel.py ] || fail "no KernelBench-layout kernel"
grep -q "class ModelNew" res/kernels/level_1_problem_2_sample_0_kernel.py || fail "kb kernel is not ModelNew"
grep -q "fake-verdict: correct 2.0" res/kernels/level_1_problem_2_sample_0_kernel.py || fail "kb kernel is not the fastest"
grep -q "fake-verdict: correct 2.6" res/kernels/gelu.cu || fail "gelu kernel is not the fastest"
[ "$(ls res/kernels | wc -l)" -eq 2 ] || fail "a kernel for the task with no correct version"
[ ! -e res/eval_results.json ] || fail "eval_results.json would make KernelBench skip the kernels"
head -1 res/results.csv | grep -q '^name,run,kind,level,problem_id,state,correct,' || fail "csv header"
[ "$(wc -l <res/results.csv)" -eq 4 ] || fail "csv rows"

# The documented schema holds (checked where Python's jsonschema module is installed).
if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])), cls=jsonschema.Draft202012Validator)' \
		"$KP_ROOT/docs/bench-results.schema.json" $J || fail "results.json does not follow docs/bench-results.schema.json"
fi

# The independent recomputation agrees; a tampered summary is caught.
expect_exit 0 $M $J --check
contains out "agree"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["summary"]["baselines"]["eager"]["fast_p"]["2.0"]=2/3; json.dump(d,open("tampered.json","w"))' $J
expect_exit 1 $M tampered.json --check
contains err "DISAGREE eager fast_2.0"

# Hand-made results (failures, ties at 1.5, missing baselines, pending, energy) through the same path.
expect_exit 0 "$KP" report "$KP_ROOT/tests/golden/suite/results-in.json" -o hand.html --export hand
expect_exit 0 $M hand/results.json --check
[ "$(json hand/results.json 'd["summary"]["baselines"]["eager"]["fast_p"]["1.5"]')" = 0.3333333333333333 ] || fail "hand fast_1.5"
contains hand.html "data-plot=\"fast_p\""
# NaN is not JSON: both sides refuse it.
sed 's/"best_ms": 1.0/"best_ms": NaN/' "$KP_ROOT/tests/golden/suite/results-in.json" >nan.json
grep -q NaN nan.json || fail "test setup: no NaN"
expect_exit 1 "$KP" report nan.json
contains err "nan.json: line"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["tasks"][0]["best_ms"]=float("nan"); json.dump(d,open("nan2.json","w"))' hand/results.json
expect_exit 2 $M nan2.json --check
contains err "which is not JSON"
exit 0
