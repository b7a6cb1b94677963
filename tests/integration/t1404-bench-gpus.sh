# kernelpro bench over 3 fake GPUs (the exec evaluator records where and when each evaluation ran):
# 12 tasks, baselines first, then longest first by the reference's time; no GPU ever runs two
# evaluations at once; every task ends with the tree an optimize run alone makes; the results agree
# with bench/suite_metrics.py; CUDA_VISIBLE_DEVICES decides what --gpus all is.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/bench/lib.sh"

MS="3 11 7 1 12 5 9 2 10 6 8 4"
make_tasks tasks $MS
export KP_BENCH_LOG="$PWD/evals.log" KP_FAKE_SLEEP=0.05
# As on a Slurm node: its job and GPUs, Triton's cache, and secrets that must not reach an evaluator.
KP_BENCH_ENV="$PWD/child" SLURM_JOB_ID=4242 TRITON_CACHE_DIR="$PWD/tcache" OPENAI_API_KEY=sk-not-for-children \
	SLURM_JWT=jwt-not-for-children CUDA_VISIBLE_DEVICES=4,5,6 expect_exit 0 bench tasks --gpus all --evals 3 --name s
contains err "suite suites/s: 12 tasks"
contains out "suite s: 12 tasks, 12 finished, 0 failed, 0 not done"
contains out "vs eager          fast_0 1.00  fast_0.5 1.00  fast_0.8 1.00  fast_1 1.00"

# What the evaluator saw, for the baselines (lib/suite) and the run's evaluations (lib/search): the
# slot, the GPUs, the job, Triton's cache, PATH and HOME; no key.
for role in baseline reference candidate; do
	f="child.$role"
	[ -s "$f" ] || fail "the evaluator never ran as $role"
	grep -q '^KP_GPU=[012]$' "$f" || fail "$role: KP_GPU: $(grep KP_GPU "$f")"
	for kv in CUDA_VISIBLE_DEVICES=4,5,6 SLURM_JOB_ID=4242 "TRITON_CACHE_DIR=$PWD/tcache" "PATH=$PATH" "HOME=$HOME"; do
		grep -qxF "$kv" "$f" || fail "$role: the evaluator lost $kv"
	done
	lacks "$f" "not-for-children"
done

# Where and when: three slots, 0..2 (indices into CUDA_VISIBLE_DEVICES), each task on one of them.
[ "$(awk '{print $2}' evals.log | sort -u | tr '\n' ' ')" = "0 1 2 " ] || fail "GPUs used: $(awk '{print $2}' evals.log | sort -u)"
no_overlap evals.log || fail "a GPU ran two evaluations at once"
[ "$(grep -c '^start .* baseline' evals.log)" = 12 ] || fail "one baseline per task"
# Every baseline ended before the first task's reference started: the order was known in full.
last_base=$(awk '$1 == "end" && $4 == "baseline" {print $6}' evals.log | sort -n | tail -1)
first_ref=$(awk '$1 == "start" && $4 == "reference" {print $6}' evals.log | sort -n | head -1)
awk -v a="$last_base" -v b="$first_ref" 'BEGIN { exit !(a < b) }' || fail "a task started before every baseline was measured"
for t in $(ls tasks); do
	[ "$(awk -v t=$t '$1 == "start" && $3 == t && $4 != "baseline" {print $2}' evals.log | sort -u | wc -l)" = 1 ] ||
		fail "$t ran on more than one GPU"
done

# Longest first: the order the scheduler took the tasks is their reference times, descending.
expect_exit 0 "$KP" bench suites/s --status --json
python3 - out <<'PY' || fail "not longest first"
import json, sys
d = json.load(open(sys.argv[1]))
t = sorted(d["tasks"], key=lambda x: x["order"])
ms = [x["est_ms"] for x in t]
print("order:", [(x["name"], x["est_ms"], x["gpu"]) for x in t])
assert ms == sorted(ms, reverse=True), ms
assert all(x["state"] == "finished" and x["attempts"] == 1 for x in t)
PY

# Each run is the one optimize makes alone on its task: 3 evaluations, the same tree.
expect_exit 0 optimize --evals 3 --runs-dir solo --name solo
"$KP" show solo/solo --tree --json >solo.json || fail "show solo"
for r in suites/s/runs/*; do
	"$KP" show "$r" --tree --json >t.json || fail "show $r"
	python3 - solo.json t.json <<'PY' || fail "$r differs from a lone optimize run"
import json, sys
key = lambda d: [(n["node"], n["parent"], n["kind"], n["outcome"], n["speedup"]) for n in json.load(open(d))["tree"]]
a, b = key(sys.argv[1]), key(sys.argv[2])
assert a == b, (a, b)
PY
	[ -f "$r/baseline.json" ] || fail "$r has no baseline.json"
done

# Results: one kernel per task, the metrics recomputed independently agree, the eager baseline is the bench's.
[ "$(ls suites/s/kernels | wc -l)" = 12 ] || fail "kernels/"
expect_exit 0 python3 "$KP_ROOT/bench/suite_metrics.py" suites/s/results.json --check
python3 - suites/s/results.json <<'PY' || fail "results"
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["tasks"]:
    assert t["eager_from"] == "baseline" and t["torch_compile_ms"] > 0, t
    assert abs(t["speedup_eager"] - 2.1) < 1e-5, t  # the fake prints times to 6 decimals
    assert t["run"] == "runs/" + t["name"] and t["state"] == "finished" and t["evaluations"] == 3, t
assert d["summary"]["baselines"]["torch_compile"]["tasks"] == 12
PY
contains suites/s/report.html 'data-plot="fast_p"'

# One GPU: the same suite, one task after another (exactly what optimize in a loop does).
rm -f evals.log
expect_exit 0 bench tasks --gpus 7 --evals 2 --name one --no-baselines
[ "$(awk '{print $2}' evals.log | sort -u)" = 7 ] || fail "--gpus 7 evaluates as KP_GPU=7"
no_overlap evals.log || fail "one GPU ran two evaluations at once"
lacks evals.log baseline

# Options that make no sense are refused before anything runs.
expect_exit 2 bench tasks --gpus 0,0 --name dup
contains err "names GPU 0 twice"
expect_exit 2 bench tasks --gpu 1 --name g
contains err "bench takes --gpus"
expect_exit 2 bench tasks --format triton --name f
contains err "bench does not take --format or --formats yet"
expect_exit 3 env -u CUDA_VISIBLE_DEVICES KP_LIBCUDA=/nonexistent "$KP" bench tasks --suites-dir suites --name none \
	--evaluator "$FAKE_GPU" --llm "replay:$S/replay"
contains err "--gpus all found no GPU here"
[ ! -e suites/none ] || fail "a refused bench left a suite behind"
exit 0
