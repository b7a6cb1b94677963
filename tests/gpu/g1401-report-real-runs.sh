#!/bin/sh
# Reports over real runs on the GPU (replayed replies, the harness evaluator, ncu): the run page's
# roofline places the reference and the best version from their measured Stage-1 profiles; a suite of
# a native task and a KernelBench-layout task (with `kernelpro baseline` cached as baseline.json, so
# torch.compile is measured) exports results whose fast_p and geomeans bench/suite_metrics.py
# recomputes and agrees with. The pages and results are kept with the GPU logs for review, and the
# two runs as text (tools/recorded-run.py) for `make demo` on machines without a GPU.
. "$KP_ROOT/tests/integration/lib.sh"
export KERNELPRO_HOME="$KP_ROOT"
E="$KP_ROOT/examples/optimize"
keep=${KP_GPU_LOGS:-$KP_TMP}/g1401

# The KernelBench task under a KernelBench-style path (our own task, problem 4 of a level of one).
mkdir -p KernelBench/level1
cp "$E/rmsnorm/rmsnorm.py" KernelBench/level1/4_RMSNorm.py
"$KP" optimize "$E/softmax" --llm "replay:$E/softmax/replies" --evals 5 --runs-dir runs --name softmax \
	>softmax.out 2>&1 || { cat softmax.out; fail "optimize softmax"; }
"$KP" optimize KernelBench/level1/4_RMSNorm.py --llm "replay:$E/rmsnorm/replies" --evals 4 --runs-dir runs \
	--name rmsnorm >rmsnorm.out 2>&1 || { cat rmsnorm.out; fail "optimize rmsnorm"; }
"$KP" baseline KernelBench/level1/4_RMSNorm.py --json >runs/rmsnorm/baseline.json || fail "baseline rmsnorm"
cat runs/rmsnorm/baseline.json

expect_exit 0 "$KP" report runs/softmax
P=runs/softmax/report.html
contains $P 'data-plot="roofline"'
contains $P "reference #1"
grep -q "best #[0-9]" $P || fail "the roofline has no point for the best version"
contains $P 'data-plot="search_tree"'
contains $P "<h3>Diagnosis</h3>" # the tools' findings and feedback on a version
expect_exit 0 "$KP" report runs --export res
cat out
expect_exit 0 python3 "$KP_ROOT/bench/suite_metrics.py" res/results.json --check
cat out
python3 - res/results.json <<'PY' || fail "the suite's results did not hold (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["name"]: x for x in d["tasks"]}
for name, x in t.items():
    print(name, x["state"], x["correct"], x["best_ms"], x["eager_ms"], x["eager_from"], x["torch_compile_ms"],
          x["speedup_eager"], x["speedup_torch_compile"], x["kernel"])
assert all(x["correct"] for x in t.values()), "a run ended without a correct version"
assert t["softmax"]["speedup_eager"] > 1, "softmax: no verified speedup over its reference"
kb = t["4_RMSNorm"]
assert (kb["level"], kb["problem_id"], kb["eager_from"]) == (1, 4, "baseline"), kb
assert kb["torch_compile_ms"] and kb["speedup_torch_compile"], "torch.compile was not measured"
assert kb["kernel"] == "kernels/level_1_problem_4_sample_0_kernel.py", kb["kernel"]
assert t["softmax"]["kernel"] == "kernels/softmax.cu", t["softmax"]["kernel"]
s = d["summary"]["baselines"]
print("fast_p vs eager", s["eager"]["fast_p"], "vs torch.compile", s["torch_compile"]["fast_p"])
assert s["eager"]["tasks"] == 2 and s["torch_compile"]["tasks"] == 1, s
PY
grep -q "class ModelNew" res/kernels/level_1_problem_4_sample_0_kernel.py || fail "the KernelBench kernel is not a ModelNew"
mkdir -p "$keep" && cp -r runs/softmax/report.html "$keep/run-softmax.html" && cp runs/report.html "$keep/suite.html" &&
	cp -r res "$keep/" || fail "keeping the pages"
# The two runs as text, for `make demo` on machines without a GPU (examples/recorded/h200/: copy
# $keep/recorded/* there), and the demo's report made from them, as it will be made there.
for r in softmax rmsnorm; do
	python3 "$KP_ROOT/tools/recorded-run.py" dump runs/$r "$keep/recorded/$r" || fail "recording $r"
done
KP_DEMO_RECORDED="$keep/recorded" KP_DEMO_OUT=demo expect_exit 0 sh "$KP_ROOT/tools/demo-report.sh"
cat out
contains out "demo: the report is demo/report.html"
[ -f demo/softmax/report.html ] && [ -f demo/rmsnorm/report.html ] || fail "the demo wrote no run pages"
du -sh "$keep/recorded"/*
# Where a browser exists (not on the GPU machine today), the pages must also render cleanly.
if command -v chromium-headless-shell >/dev/null 2>&1 || command -v chromium >/dev/null 2>&1; then
	expect_exit 0 python3 "$KP_ROOT/tests/integration/report/check_page.py" $P \
		--plots roofline:2,search_tree:6,speedup_over_evals:5 --screenshot "$keep/run-softmax.png"
fi
exit 0
