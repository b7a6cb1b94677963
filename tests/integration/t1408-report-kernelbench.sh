# kernelpro report SUITE --export: KernelBench interop. Kernels that KernelBench runs as they are
# (kernelpro's fast path inlined, its code unchanged), kernelpro's verdicts as KernelBench's
# eval_results.json with the refusing check, KernelBench-format baseline files; then, with a local
# KernelBench clone or mirror (KP_KERNELBENCH_GIT), KernelBench's own scripts/benchmark_eval_analysis.py
# reads them and agrees with results.json. Without one, that last part is skipped (as in CI).
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/report/lib.sh"

# A KernelBench level of our own tasks: #2 on the fast path (2.5x), #4 refused by reads_reference.
suite_of() { # suite_of RUNS FILE2 FILE4: the two tasks optimized with recorded replies
	"$KP" optimize "$2" --llm "replay:$R/replay-kb-fast" --evaluator "$RFAKE" --evals 1 --name two \
		--runs-dir "$1" >/dev/null 2>&1 || fail "optimize $2"
	"$KP" optimize "$3" --llm "replay:$R/replay-kb-cheat" --evaluator "$RFAKE" --evals 1 --name four \
		--runs-dir "$1" >/dev/null 2>&1 || fail "optimize $3"
}
mkdir -p KB/level1
cp "$KP_ROOT/examples/kernelbench/swish_scale.py" KB/level1/2_Swish_scale.py
cp "$KP_ROOT/examples/kernelbench/swish_scale.py" KB/level1/4_Swish_again.py
suite_of runs KB/level1/2_Swish_scale.py KB/level1/4_Swish_again.py
expect_exit 0 "$KP" report runs --export exp
K=exp/kernels/level_1_problem_2_sample_0_kernel.py
[ -f "$K" ] || fail "no kernel for problem 2"
contains "$K" "load_cuda = _kp_fast.load_cuda"

# The inlined texts are kernelpro's own build.py and fast.py (fast.py's one relative import aside),
# and they load: the kernel's fast path is the code kernelpro judged, not a copy that drifted.
python3 - "$K" "$KP_ROOT/harness/kernelpro" <<'PY' || fail "the inlined fast path"
import ast, os, sys
src = open(sys.argv[1]).read()
tree = ast.parse(src)
for n in ast.walk(tree):  # no import of kernelpro is left (its docstring's example is text)
    names = [a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""] if isinstance(n, ast.ImportFrom) else []
    assert not any(x.split(".")[0] == "kernelpro" for x in names), ast.dump(n)
call = [n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "_kp_fast"][0]
build_py, fast_py = (a.value for a in call.args)
want_build = open(os.path.join(sys.argv[2], "build.py")).read()
want_fast = open(os.path.join(sys.argv[2], "fast.py")).read()
assert build_py == want_build, "build.py differs"
line = "from . import build as _build\n"
assert fast_py == want_fast.replace(line, "_build = __kp_build__  # inlined; was: " + line), "fast.py differs"
# The block alone, run: the function and the assignment (the rest of the file needs torch).
mod = ast.Module(body=[n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_kp_inline_fast"]
                 + [n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "_kp_fast"],
                 type_ignores=[])
os.environ["KP_ARCH"] = "sm_90"
g = {}
exec(compile(mod, "kernel", "exec"), g)
fast = g["_kp_fast"]
assert callable(fast.load_cuda) and fast._build.nvcc_target("sm_90") == "-gencode=arch=compute_90,code=sm_90"
PY

# kernelpro's verdicts in KernelBench's format, one run_name per level; the refused task says why.
E=exp/kernelbench/level1/eval_results.json
B=exp/kernelbench/baseline_time_torch.json
python3 - "$E" "$B" exp/results.json <<'PY' || fail "eval_results.json / baseline file"
import json, sys
ev, base, res = (json.load(open(p)) for p in sys.argv[1:4])
two, four = ev["2"][0], ev["4"][0]
assert two["sample_id"] == 0 and two["compiled"] and two["correctness"], two
assert abs(two["runtime"] - 0.8 * 1.02) < 1e-9 and two["metadata"]["kernelpro"]["statistic"] == "mean", two
assert four["compiled"] and not four["correctness"] and four["runtime"] == -1.0, four
kp = four["metadata"]["kernelpro"]
assert kp["outcome"] == "cheat_suspected" and kp["check"] == "reads_reference", kp
assert kp["message"] == "ModelNew calls get_inputs()", kp
lv = base["level1"]
assert abs(lv["2_Swish_scale.py"]["mean"] - 2.0 * 1.02) < 1e-9 and "4_Swish_again.py" in lv, lv
t4 = [t for t in res["tasks"] if t["name"] == "4_Swish_again"][0]
assert t4["failure_check"] == "reads_reference" and t4["failure_outcome"] == "cheat_suspected", t4
assert [l["level"] for l in res["summary"]["levels"]] == [1], res["summary"]["levels"]
PY
contains exp/results.csv ",cheat_suspected,reads_reference,ModelNew calls get_inputs(),"
# The same reason in show --node (text and JSON) and on the suite page.
expect_exit 0 "$KP" show runs/four --node 2
contains out "cheat_suspected (refused by reads_reference: ModelNew calls get_inputs())"
contains out "refuse  reads_reference: ModelNew calls get_inputs()"
contains out "warn    flop_floor: above the fp32 peak"
expect_exit 0 "$KP" show runs/four --tree
contains out "#2 initial cheat_suspected (reads_reference)"
expect_exit 0 "$KP" show runs/four --node 2 --json
[ "$(json out 'd["reason"]["check"]')" = reads_reference ] || fail "show --node --json: reason"
[ "$(json out 'len(d["verdict"]["flags"])')" = 2 ] || fail "show --node --json: the verdict's flags"
contains runs/report.html "#2 CH reads_reference</a>: ModelNew calls get_inputs()"

# KernelBench's own analysis over the same files.
GIT=${KP_KERNELBENCH_GIT:-/work/.mirror/ScalingIntelligence+KernelBench/repo}
[ -d "$GIT" ] || skip "no KernelBench clone or mirror at '$GIT' (set KP_KERNELBENCH_GIT): KernelBench's analysis not run"
python3 -c 'import numpy, tabulate, pydra' 2>/dev/null ||
	skip "KernelBench's analysis needs numpy, tabulate and pydra-config (pip install numpy tabulate pydra-config)"
KBSRC="$KP_BUILD/kernelbench-src" # ignored by git (build/); never committed
rm -rf "$KBSRC" && mkdir -p "$KBSRC"
git --git-dir="$GIT" archive HEAD src/kernelbench/dataset.py src/kernelbench/score.py \
	scripts/benchmark_eval_analysis.py KernelBench/level1 | tar -x -C "$KBSRC" || fail "exporting KernelBench from '$GIT'"
# Our two tasks under KernelBench's own level-1 names for problems 2 and 4, so its dataset and our
# baseline file name the same problems (the fake harness never runs their code).
mkdir -p KBN/level1
for p in 2 4; do cp "$KBSRC"/KernelBench/level1/${p}_*.py KBN/level1/ || fail "KernelBench level 1 problem $p"; done
suite_of runs2 KBN/level1/2_*.py KBN/level1/4_*.py
expect_exit 0 "$KP" report runs2 --export exp2
python3 - "$KBSRC" exp2 <<'PY' || fail "KernelBench's analysis"
import importlib.util, json, os, sys, types
kb, out = sys.argv[1], os.path.abspath(sys.argv[2])
# dataset.py and score.py as kernelbench.*, without the package's __init__ (it imports torch to patch
# torch.randn, which the analysis never uses); the analysis script itself runs unchanged.
pkg = types.ModuleType("kernelbench")
pkg.__path__ = [os.path.join(kb, "src", "kernelbench")]
sys.modules["kernelbench"] = pkg
for name in ("dataset", "score"):
    spec = importlib.util.spec_from_file_location("kernelbench." + name, os.path.join(kb, "src", "kernelbench", name + ".py"))
    m = importlib.util.module_from_spec(spec)
    sys.modules["kernelbench." + name] = m
    spec.loader.exec_module(m)
spec = importlib.util.spec_from_file_location("analysis", os.path.join(kb, "scripts", "benchmark_eval_analysis.py"))
analysis = importlib.util.module_from_spec(spec)
spec.loader.exec_module(analysis)
got = analysis.analyze_greedy_eval("level1", "H200", "baseline_time_torch", 1,
                                   baseline_file=os.path.join(out, "kernelbench", "baseline_time_torch.json"),
                                   eval_results_dir=os.path.join(out, "kernelbench"))
ours = json.load(open(os.path.join(out, "results.json")))["summary"]["levels"][0]["baselines"]["eager"]
assert got["correct_count"] == 1 and got["total_eval"] == 2, got
for p, v in got["fast_p"].items():
    assert abs(v - ours["fast_p"][p]) < 1e-12, (p, v, ours["fast_p"][p])
assert abs(got["geo_mean_speedup"] - ours["geomean_speedup_correct"]) < 1e-9, (got, ours)
print("KernelBench's analysis agrees:", got["fast_p"], got["geo_mean_speedup"])
PY
exit 0
