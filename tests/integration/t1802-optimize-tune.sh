#!/bin/sh
# optimize --llm none and --from on the CPU (issue 18): the tune action alone, through the exec evaluator
# and through the built-in harness evaluator (a fake libcuda, the stand-in nvcc and harnesses of
# tests/integration/tune/, whose times come from a formula over the knob values): the best variant
# becomes the best version, every variant counts once in the budget, the run database records the action,
# summary.json and show say so, a KernelBench candidate's variants run in the warm worker, a run killed
# while tuning goes on with it, and every way of having nothing to tune gets an error that says what to do.
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null || skip "no python3"
d="$KP_ROOT/tests/integration/tune"
FAKECUDA="$KP_BUILD/tests/libfakecuda.so"
[ -f "$FAKECUDA" ] || fail "missing $FAKECUDA (make integration builds it)"
mkdir -p home/harness libexec nvcc w
chmod 700 w
ln -s "$KP_ROOT/harness/include" home/harness/include
ln -s "$KP_ROOT/prompts" home/prompts # the run with a model
ln -s "$KP_ROOT/harness/kp_worker.py" home/harness/kp_worker.py
ln -s "$d/fake-harness.py" home/harness/kp_torch.py
ln -s "$d/fake-harness.py" libexec/kp-native-harness
KERNELPRO_HOME="$KP_TMP/home" KERNELPRO_LIBEXEC="$KP_TMP/libexec" KERNELPRO_WORKER_DIR="$KP_TMP/w"
KERNELPRO_WORKER_IDLE=30 XDG_CACHE_HOME="$KP_TMP/xdg" KP_FAKE_TRACE="$KP_TMP/trace"
export KERNELPRO_HOME KERNELPRO_LIBEXEC KERNELPRO_WORKER_DIR KERNELPRO_WORKER_IDLE XDG_CACHE_HOME KP_FAKE_TRACE
unset KERNELPRO_LLM KERNELPRO_LLM_CONFIG KERNELPRO_RUNS
trap 'for s in "$KERNELPRO_WORKER_DIR"/*.sock; do [ -S "$s" ] && python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b\"{\\\"op\\\": \\\"shutdown\\\"}\\n\")" "$s"; done' EXIT
task="$d/task"
EXEC="exec:python3 $d/fake-harness.py --exec"
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
none() { "$KP" optimize --llm none "$@"; }

# The exec evaluator: the given version (2.25 ms), its 14 feasible variants all tried (the budget less the
# given version and one child), the fastest (BLOCK=512 ITEMS=1, 1.125 ms) the best version.
expect_exit 0 none "$task" --from "$d/scale.cu" --evaluator "$EXEC" --evals 16 --name ex
contains out "best: #3, 8.89x faster than the reference (1.125 ms vs 10 ms)"
contains out "#3    tune     correct          8.89x  BLOCK=512 ITEMS=1: tuned from #2 (1.125 ms; untuned 2.25 ms)"
contains out "tuning:    1 action, 14 variants measured (88% of the evaluations)"
contains err "#2: tune action, up to 14 variants (auto, declared or derived knobs)"
lacks err "code search off" # no prompt to put snippets in
R=kernelpro-runs/ex
python3 - $R/summary.json <<'PY' || fail "summary.json of the exec run"
import json, sys
d = json.load(open(sys.argv[1]))
t, u = d["tuning"], d["used"]
assert u["evaluations"] == 16 and u["tune_evaluations"] == 14 and u["generations"] == 0 and u["tokens_in"] == 0, u
assert t["actions"] == 1 and t["running"] == 0 and t["evaluations"] == 14 and abs(t["share"] - 14 / 16) < 1e-9, t
assert t["variants_per_minute"] > 0, t
e = t["tuned"][0]
assert e["node"] == 2 and e["status"] == "done" and e["strategy"] == "exhaustive" and e["trials"] == 14, e
assert e["untuned_point"] == "BLOCK=256 ITEMS=2" and e["best_point"] == "BLOCK=512 ITEMS=1", e
assert [c["node"] for c in e["children"]] == [3] and e["children"][0]["point"] == "BLOCK=512 ITEMS=1", e
assert d["best"]["node"] == 3 and [p["kind"] for p in d["best"]["path"]] == ["root", "given", "tune"], d["best"]
assert d["end_reason"].startswith("budget: evaluations"), d["end_reason"]
PY
contains $R/best.cu 'KP_TUNE(BLOCK, 512, 256, 64, 128, 1024)'
expect_exit 0 "$KP" show ex --node 2
contains out "== tuning (done, exhaustive: 14 trials, 14 measured, 0 from earlier)"
contains out "BLOCK=256 ITEMS=2                        ok           2.25 ms  (untuned)"
contains out "BLOCK=1024 ITEMS=2                       wrong"
contains out "child #3: BLOCK=512 ITEMS=1"
expect_exit 0 "$KP" show ex --tree
contains out "#3* tune 8.89x"

# A smaller budget: bayes within it, and the run's total within the budget.
expect_exit 0 none "$task" --from "$d/scale.cu" --evaluator "$EXEC" --evals 8 --name small
[ "$(json kernelpro-runs/small/summary.json 'd["used"]["evaluations"]')" = 8 ] || fail "8 evaluations"
[ "$(json kernelpro-runs/small/summary.json 'd["tuning"]["tuned"][0]["strategy"]')" = bayes ] || fail "bayes"
[ "$(json kernelpro-runs/small/summary.json 'd["tuning"]["evaluations"]')" = 6 ] || fail "6 variants"

# No --from: a native reference with knobs (its launch's block size, derived) is tuned itself; every
# variant of it is as fast here, so none becomes a child and the run ends with nothing left to tune.
expect_exit 0 none "$task" --evaluator "$EXEC" --evals 10 --name ref
contains out "run ref: finished (nothing left to do without an LLM: every version with knobs is tuned)"
contains out "no candidate beat the reference yet"
python3 - kernelpro-runs/ref/summary.json <<'PY' || fail "the reference tuned"
import json, sys
e = json.load(open(sys.argv[1]))["tuning"]["tuned"][0]
assert e["node"] == 1 and e["status"] == "done" and e["children"] == [] and "no variant" in e["note"], e
assert e["untuned_point"] == "block_scale2=256", e
PY

# The built-in harness evaluator (a fake GPU): the tuner's path, the same answer.
HARNESS="--no-profile --nvcc $d/fake-nvcc --arch sm_90a --cache $KP_TMP/builds"
KP_LIBCUDA="$FAKECUDA" FAKE_NVCC_DIR="$KP_TMP/nvcc" expect_exit 0 none "$task" --from "$d/scale.cu" $HARNESS --evals 16 --name h
contains out "best: #3, 8.89x faster than the reference (1.125 ms vs 10 ms)"
[ "$(json kernelpro-runs/h/summary.json 'd["tuning"]["evaluations"]')" = 14 ] || fail "harness: 14 variants"
[ "$(json kernelpro-runs/h/summary.json 'd["used"]["evaluations"]')" = 16 ] || fail "harness: 16 evaluations"

# A KernelBench candidate through the warm worker: every evaluation in it (the reference's timing aside):
# the given version, the tuner's re-check of it and its 7 other variants, the child.
: >trace
KP_LIBCUDA="$FAKECUDA" expect_exit 0 none "$KP_ROOT/examples/kernelbench/swish_scale.py" \
	--from "$d/swish_tunable.py" --no-profile --evals 12 --name kb
contains out "#3    tune     correct         20.00x  BLOCK=256 WAVES=16"
[ "$(json kernelpro-runs/kb/summary.json 'd["tuning"]["tuned"][0]["trials"]')" = 8 ] || fail "kb: 8 variants"
[ "$(grep -c cold trace)" = 1 ] && [ "$(grep -c warm trace)" = 10 ] || fail "evaluations: $(sort trace | uniq -c)"
ls "$KERNELPRO_WORKER_DIR"/*.sock >/dev/null 2>&1 || fail "no warm worker was started"

# kill -9 while tuning, then --resume: the variants measured before are not measured again, each counts once.
KP_FAKE_SLEEP=0.3 "$KP" optimize --llm none "$task" --from "$d/scale.cu" --evaluator "$EXEC" --evals 16 --name cut \
	>cut.out 2>cut.err &
pid=$!
n=0
for i in $(seq 1 200); do
	sleep 0.1
	"$KP" show cut --json >s.json 2>/dev/null || continue
	n=$(json s.json 'd["tuning"]["evaluations"]')
	[ "$n" -ge 4 ] && break
done
kill -9 $pid
wait $pid 2>/dev/null
[ "$n" -ge 4 ] || fail "the tuning never got going: $(cat cut.err)"
[ "$(json s.json 'd["tuning"]["running"]')" = 1 ] || fail "no tuning left running"
expect_exit 0 "$KP" optimize --resume cut --evaluator "$EXEC"
contains err "tuning #2 (going on with it: results measured before are not measured again)"
python3 - kernelpro-runs/cut/summary.json <<'PY' || fail "the resumed tuning"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["tuning"]["tuned"][0]
assert e["status"] == "done" and e["trials"] == 14 and e["cache_hits"] >= 4 and e["best_point"] == "BLOCK=512 ITEMS=1", e
assert d["used"]["evaluations"] == 16 and d["used"]["tune_evaluations"] == 14 and d["best"]["node"] == 3, d["used"]
PY

# --from with a model: the given version is the root's first child, evaluated first.
expect_exit 0 "$KP" optimize "$task" --llm "replay:$KP_ROOT/tests/integration/search/replay" --from "$d/scale.cu" \
	--evaluator "$EXEC" --evals 3 --name seeded
contains err "#2: given: $d/scale.cu"
contains err "#3: refine of #2"
[ "$(json kernelpro-runs/seeded/summary.json 'd["used"]["generations"]')" = 2 ] || fail "two generations"

# Nothing to tune: each error says what to do, before any run is made.
runs=$(ls kernelpro-runs | wc -l)
expect_exit 1 none "$KP_ROOT/examples/kernelbench/swish_scale.py" --evaluator "$EXEC"
contains err "the reference of 'swish_scale' is a kernelbench task's PyTorch Model, not a candidate: give a version with knobs with --from FILE"
cp -r "$task" plain
cp "$d/plain.cu" plain/reference.cu
expect_exit 1 none plain --evaluator "$EXEC"
contains err "--llm none tunes the reference when no version is given (--from FILE): 'reference.cu' declares no knob"
contains err "declare the values to try with KP_TUNE(NAME, default, v2, ...)"
contains err "or give a model with --llm PROVIDER:MODEL"
cp "$d/plain.cu" plain.cu
expect_exit 1 none "$task" --from plain.cu --evaluator "$EXEC"
contains err "--llm none tunes the version --from gives: 'plain.cu' declares no knob"
expect_exit 2 none "$task" --from "$d/swish_tunable.py" --evaluator "$EXEC"
contains err "--from '$d/swish_tunable.py': native tasks take .cu candidates"
expect_exit 2 none "$task" --from "$d/scale.cu" --param tune=off --evaluator "$EXEC"
contains err "--llm none runs the tune action alone, and --param tune=off switches it off"
expect_exit 2 "$KP" optimize --resume ex --from "$d/scale.cu"
contains err "--from gives a new run its first version"
[ "$(ls kernelpro-runs | wc -l)" = "$runs" ] || fail "an error left a run behind: $(ls kernelpro-runs)"
echo ok
