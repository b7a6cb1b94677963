#!/bin/sh
# kernelpro bench on the GPU: the example suite (examples/suite: six native and four KernelBench-format
# tasks of our own, recorded replies) on every GPU of the machine with the harness evaluator, the
# warm evaluation worker and baselines (eager and torch.compile). Every task must finish with a
# correct version; bench/suite_metrics.py recomputes fast_p and the geomeans from the per-task results
# and must agree; bench/bench_overhead.py reports the time not spent in evaluations (target < 5%).
# Profiling is off (--no-profile) to keep the run within a few minutes; g0701 covers ncu and tools.
. "$KP_ROOT/tests/integration/lib.sh"
export KERNELPRO_HOME="$KP_ROOT"
keep=${KP_GPU_LOGS:-$KP_TMP}/g1402 # the suite is kept with the GPU test logs
export XDG_CACHE_HOME="$KP_TMP/cache" # baselines measured here, not taken from an earlier run's cache

start=$(date +%s)
"$KP" bench "$KP_ROOT/examples/suite/suite.txt" --suites-dir suites --name g1402 --no-profile --json \
	>bench.json 2>bench.err
rc=$?
cat bench.err
cat bench.json
echo "bench took $(($(date +%s) - start)) s"
mkdir -p "$keep" && cp -r suites/g1402 bench.json bench.err "$keep/" 2>/dev/null
[ $rc -eq 0 ] || fail "bench exited $rc"

S=suites/g1402
"$KP" bench $S --status || fail "status"
python3 - $S/results.json <<'PY' || fail "the suite's results did not hold (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
print("%-22s %-9s %-5s %9s %9s %9s %8s %8s  %s" % ("task", "state", "ok", "best_ms", "eager_ms", "compile", "x eager",
                                                  "x compile", "kernel"))
for t in d["tasks"]:
    f = lambda v, p="%.4g": p % v if v is not None else "-"
    print("%-22s %-9s %-5s %9s %9s %9s %8s %8s  %s" % (t["name"], t["state"], t["correct"], f(t["best_ms"]), f(t["eager_ms"]),
          f(t["torch_compile_ms"]), f(t["speedup_eager"], "%.2fx"), f(t["speedup_torch_compile"], "%.2fx"), t["kernel"]))
    if t["reason"]:
        print("    reason:", t["reason"])
for b, st in s["baselines"].items():
    print("vs %-14s n=%d fast_p %s geomean correct %s all %s" % (b, st["tasks"], st["fast_p"], st["geomean_speedup_correct"],
          st["geomean_speedup_all"]))
t = {x["name"]: x for x in d["tasks"]}
assert len(t) == 10 and s["states"]["finished"] == 10, s["states"]
assert all(x["correct"] for x in t.values()), [n for n, x in t.items() if not x["correct"]]
assert all(x["eager_from"] == "baseline" for x in t.values()), "a baseline was not measured"
kb = [n for n, x in t.items() if x["kind"] == "kernelbench"]
assert len(kb) == 4 and all(t[n]["torch_compile_ms"] for n in kb), "torch.compile was not measured for every KernelBench task"
assert s["baselines"]["torch_compile"]["tasks"] == 4 and s["baselines"]["eager"]["tasks"] == 10, s["baselines"]
assert t["1_ReluBias"]["kernel"] == "kernels/level_1_problem_1_sample_0_kernel.py", t["1_ReluBias"]["kernel"]
assert t["softmax"]["speedup_eager"] > 1, "softmax: no verified speedup (g0701 finds one)"
PY
expect_exit 0 python3 "$KP_ROOT/bench/suite_metrics.py" $S/results.json --check
cat out
python3 "$KP_ROOT/bench/bench_overhead.py" $S | tee overhead.txt
python3 "$KP_ROOT/bench/bench_overhead.py" $S --json >"$keep/overhead.json"
cp overhead.txt "$keep/" 2>/dev/null
# The resumed suite has nothing left to do: nothing runs again.
expect_exit 0 "$KP" bench $S --resume
contains out "suite g1402: 10 tasks, 10 finished, 0 failed, 0 not done"
expect_exit 0 "$KP" bench $S --status --json
python3 - out <<'PY' || fail "--resume ran a finished task again"
import json, sys
assert all(t["attempts"] == 1 for t in json.load(open(sys.argv[1]))["tasks"])
PY
exit 0
