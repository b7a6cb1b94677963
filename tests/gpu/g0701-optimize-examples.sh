#!/bin/sh
# The main job end to end on a real GPU with the replay backend: kernelpro optimize on the two
# bundled examples (examples/optimize: a native CUDA task and a KernelBench-format task) with the
# harness evaluator (lib/eval timing and checks, ncu + Stage 1 + tools on each correct version).
# Each story: a first version that fails (compile error / wrong output), its repair, then
# optimizations; the run must end with a verified speedup and the tools' feedback in the prompts.
. "$KP_ROOT/tests/integration/lib.sh"
export KERNELPRO_HOME="$KP_ROOT"
E="$KP_ROOT/examples/optimize"
keep=${KP_GPU_LOGS:-$KP_TMP}/g0701  # the runs are kept with the GPU test logs

story() { # NAME TASK FAILURE
	name=$1 task=$2 failure=$3
	n=$(ls "$E/$name/replies" | wc -l)
	"$KP" optimize "$task" --llm "replay:$E/$name/replies" --evals "$n" --runs-dir runs --name "$name" \
		>"$name.out" 2>"$name.err"
	rc=$?
	cat "$name.out" "$name.err"
	[ $rc -eq 0 ] || fail "optimize $name exited $rc"
	"$KP" show "runs/$name" --tree --json >"$name.json" || fail "show $name"
	"$KP" show "runs/$name" --tree
	for i in $(seq 2 $((n + 1))); do "$KP" show "runs/$name" --node "$i" >"$name-node$i.txt"; done
	mkdir -p "$keep" && cp -r "runs/$name" "$name".* "$name"-node*.txt "$keep/" 2>/dev/null
	python3 - "$name.json" "$failure" "$n" <<'PY' || fail "$name: the story did not hold (see above)"
import json, sys
d, failure, n = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
tree = {t["node"]: t for t in d["tree"]}
assert d["used"]["evaluations"] == n, d["used"]
assert tree[2]["outcome"] == failure, ("the first version should be", failure, tree[2])
assert tree[3]["kind"] == "repair" and tree[3]["outcome"] == "correct", ("the repair", tree[3])
best = d["best"]
assert best and best["improved"] and best["speedup"] > 1.0, ("no verified speedup", best)
correct = [t for t in d["tree"] if t["outcome"] == "correct" and t["parent"]]
print("%s: best #%d at %.2fx (%.4g ms vs the reference's %.4g ms); %d of %d versions correct" % (
    sys.argv[1], best["node"], best["speedup"], best["time_ms"], best["ref_time_ms"], len(correct), n))
PY
	# Every profile after the first went through a held ncu run (started during an evaluation, given
	# its config when the profile came) and produced a diagnosis; its files are in its own directory.
	python3 - "runs/$name" <<'PY' || fail "$name: a held profile did not work (see runs/$name/profiles)"
import json, os, sqlite3, sys
run = sys.argv[1]
rows = sqlite3.connect(os.path.join(run, "run.db")).execute("SELECT node_id, json FROM profiles ORDER BY node_id").fetchall()
profs = [(n, json.loads(j)) for n, j in rows]
held = [(n, p) for n, p in profs if p.get("held")]
print("%s: %d profiles, %d through a held ncu run: %s" % (run, len(profs), len(held),
      ", ".join("#%d ncu %.1f s, step %.1f s%s" % (n, p.get("ncu_s", 0), p.get("profile_s", 0), " (held)" if p.get("held") else "") for n, p in profs)))
assert len(profs) >= 2 and held, "no profile used a held run"
for n, p in held:
    assert not p.get("error"), (n, p.get("error"))
    assert os.path.exists(os.path.join(p["dir"], "ncu.log")), (n, "ncu.log not moved into", p["dir"])
    assert os.path.exists(os.path.join(p["dir"], "ncu_raw.csv")), (n, "no raw page in", p["dir"])
assert not os.path.exists(os.path.join(run, "profiles", ".held")), "a held run's directory was left behind"
PY
	# The tools' feedback on a correct version reaches the prompt made from it.
	grep -l "## Profiling diagnosis of this version" "$name"-node*.txt >/dev/null ||
		fail "$name: no saved prompt carries the tools' feedback (was ncu usable? see runs/$name/profiles/*/ncu.log)"
}

story softmax "$E/softmax" compile_error
story rmsnorm "$E/rmsnorm/rmsnorm.py" wrong_output
exit 0
