#!/bin/sh
# optimize --llm none --from on a real GPU (issue 18): the tune action alone, no model. A native task
# (row_sum with candidates/tunable.cu: THREADS x VEC x UNROLL, 48 points, bayes within the budget; the
# versions profiled as in any run) and a KernelBench-format task (examples/optimize/rmsnorm/rmsnorm.py with
# examples/kernelbench/rmsnorm_tunable.py: 12 points, every one tried, in the warm worker). Checks what does
# not depend on the clock: the tune action ran on the given version and measured variants, the run's best
# is a correct version (the given one or the variant the action chose, evaluated again as a version), its
# file is correct under `kernelpro eval`, and the budget was kept. Prints the share of the run's evaluations
# the tuning took, variants per minute, and the untuned and tuned times.
. "$KP_ROOT/tests/integration/lib.sh"
"$KP" doctor --json --no-counters --no-python 2>/dev/null | tr -d '\n ' | grep -q '"name":"gpu","status":"ok"' ||
	skip "no GPU on this machine"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the JSON"
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
KERNELPRO_WORKER_DIR="$KP_TMP/workers"
export KERNELPRO_HOME KERNELPRO_WORKER_DIR
unset KERNELPRO_LLM KERNELPRO_LLM_CONFIG KERNELPRO_RUNS
mkdir -m 700 "$KERNELPRO_WORKER_DIR"
trap 'for s in "$KERNELPRO_WORKER_DIR"/*.sock; do [ -S "$s" ] && python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b\"{\\\"op\\\": \\\"shutdown\\\"}\\n\")" "$s"; done' EXIT
ex="$KP_ROOT/examples"

check_run() { # NAME EVALS: the tune action ran, the best is correct, the budget kept; the figures printed
	expect_exit 0 "$KP" show "$1" --tree --json
	python3 - out "$2" <<'PY' || { cat out; fail "run $1"; }
import json, sys
d = json.load(open(sys.argv[1]))
evals = int(sys.argv[2])
tree = {n["node"]: n for n in d["tree"]}
t, u, best = d["tuning"], d["used"], d["best"]
e = t["tuned"][0]
assert t["actions"] == 1 and t["running"] == 0 and e["node"] == 2 and e["status"] == "done", t
assert e["evaluated"] >= 2 and e["trials"] >= 2 and e["untuned_ms"] > 0 and e["best_ms"] > 0, e
assert u["evaluations"] <= evals and u["generations"] == 0 and u["tokens_in"] == 0, u
assert best["outcome"] == "correct" and best["path"][1]["kind"] == "given", best
assert best["node"] == 2 or best["kind"] == "tune", best
for c in e["children"]:  # each variant the action chose, evaluated again as a version, is correct
    assert tree[c["node"]]["kind"] == "tune" and tree[c["node"]]["outcome"] == "correct", tree[c["node"]]
print("%s: %s, %d trials (%d measured) in %.1f s; tuning took %d of %d evaluations (%.0f%%), %.1f variants/min; "
      "untuned %s %.4g ms, best variant %s %.4g ms; the run's best #%d (%s) %.4g ms, %.2fx the reference" %
      (d["run"], e["strategy"], e["trials"], e["evaluated"], e["wall_s"], t["evaluations"], u["evaluations"],
       100 * t["share"], t["variants_per_minute"] or 0, e["untuned_point"], e["untuned_ms"], e["best_point"],
       e["best_ms"], best["node"], best["kind"], best["time_ms"], best["speedup"]))
PY
}

best_correct() { # TASK FILE: the run's best file (there when a version beat the reference) is correct
	[ -f "$2" ] || return 0
	expect_exit 0 "$KP" eval --json "$1" "$2"
	[ "$(python3 -c 'import json; print(json.load(open("out"))["status"])')" = correct ] || fail "$2 is not correct"
}

# Native: bayes within the budget (48 points, 22 trials), the versions profiled.
expect_exit 0 "$KP" optimize --llm none "$ex/native/row_sum" --from "$ex/native/row_sum/candidates/tunable.cu" \
	--evals 24 --name native
cat out
check_run native 24
best_correct "$ex/native/row_sum" kernelpro-runs/native/best.cu

# KernelBench format, in the warm worker: every one of the 12 points.
expect_exit 0 "$KP" optimize --llm none "$ex/optimize/rmsnorm/rmsnorm.py" --from "$ex/kernelbench/rmsnorm_tunable.py" \
	--evals 16 --no-profile --name kb
cat out
check_run kb 16
[ "$(python3 -c 'import json; print(json.load(open("kernelpro-runs/kb/summary.json"))["tuning"]["tuned"][0]["trials"])')" = 12 ] ||
	fail "not every point of rmsnorm_tunable.py was tried"
best_correct "$ex/optimize/rmsnorm/rmsnorm.py" kernelpro-runs/kb/best.py
echo ok
