# kernelpro bench killed with kill -9 at random points, again and again, resumes each time; in the end
# every task has exactly the run an uninterrupted bench makes, none was lost and none ran again after
# it finished. Ctrl-C stops every GPU after its step; a task that crashes its evaluator is recorded as
# failed (and only --retry-failed runs it again); a broken setup stops the bench and resumes cleanly.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/bench/lib.sh"

make_tasks tasks 3 11 7 1 12 5 9 2 10 6 8 4
export KP_BENCH_LOG="$PWD/evals.log"
KP_FAKE_SLEEP=0 expect_exit 0 bench tasks --gpus 0,1,2 --evals 4 --name whole

trees() { # SUITE OUT: every run's tree, by task
	for r in suites/$1/runs/*; do
		printf '%s ' "$(basename "$r")"
		"$KP" show "$r" --tree --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["used"]["evaluations"], [(n["node"], n["parent"], n["kind"], n["outcome"], n["speedup"]) for n in d["tree"]])'
	done >"$2"
}
trees whole whole.trees

# Kill -9 at random points (the first may land before the suite exists) until a session completes.
# Each session lives at most 1 s and the suite needs about 4 s of work (72 evaluations of 0.15 s on
# 3 GPUs), so at least 3 kills land whatever the draws.
seed=${KP_SEED:-$(date +%s)}
echo "kill points from seed $seed (KP_SEED=$seed reproduces them)"
export KP_FAKE_SLEEP=0.15
rm -f evals.log
done=0 kills=0
for i in $(seq 1 14); do
	delay=$(awk -v s="$seed" -v i="$i" 'BEGIN { srand(s + i); printf "%.2f", 0.1 + rand() * 0.9 }')
	if [ -d suites/cut ]; then args="suites/cut --resume --gpus 0,1,2"; else args="tasks --gpus 0,1,2 --evals 4 --name cut"; fi
	bench_bg "run$i.out" "run$i.err" $args
	pid=$!
	sleep "$delay"
	if kill -9 $pid 2>/dev/null; then
		wait $pid 2>/dev/null
		kills=$((kills + 1))
		echo "kill -9 after ${delay}s: $(cat suites/cut/shards/0-of-1.db >/dev/null 2>&1 && "$KP" bench suites/cut --status | tail -1)"
	else
		wait $pid && { done=1; break; }
		cat "run$i.err"; fail "session $i ended badly"
	fi
done
[ $kills -ge 3 ] || fail "only $kills kills landed"
if [ $done -eq 0 ]; then
	KP_FAKE_SLEEP=0 expect_exit 0 bench suites/cut --resume --gpus 0,1,2
fi
trees cut cut.trees
diff whole.trees cut.trees || fail "the killed and resumed suite's runs differ from the uninterrupted one's"
expect_exit 0 "$KP" bench suites/cut --status --json
cp out status.json
python3 - status.json evals.log <<'PY' || fail "a task was lost or ran after it had finished"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["tasks"]) == 12 and all(t["state"] == "finished" for t in d["tasks"]), d["tasks"]
ended = {t["name"]: t["ended_unix_ms"] / 1000.0 for t in d["tasks"]}
for line in open(sys.argv[2]):
    kind, gpu, task, role, node, t = line.split()
    if kind == "start" and role != "baseline":
        assert float(t) < ended[task], "%s: %s #%s started at %s, after the task ended at %s" % (task, role, node, t, ended[task])
print("resumed tasks:", sorted((t["name"], t["attempts"]) for t in d["tasks"] if t["attempts"] > 1))
PY
[ "$(ls suites/cut/runs | wc -l)" = 12 ] || fail "runs/: $(ls suites/cut/runs)"
expect_exit 0 python3 "$KP_ROOT/bench/suite_metrics.py" suites/cut/results.json --check

# Ctrl-C: no new task, every GPU's current step is stopped; the stopped tasks resume.
KP_FAKE_SLEEP=0.2 bench_bg int.out int.err tasks --gpus 0,1 --evals 4 --name int
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 1 ] || { cat int.err; fail "Ctrl-C: exit $rc, expected 1"; }
contains int.err "stopping: no new task, each GPU's current step is stopped"
contains int.out "stopped; continue with: kernelpro bench suites/int --resume"
expect_exit 0 "$KP" bench suites/int --status
contains out " stopped"
KP_FAKE_SLEEP=0 expect_exit 0 bench suites/int --resume --gpus 0,1
trees int int.trees
diff whole.trees int.trees || fail "the interrupted suite's runs differ"

# A task whose evaluations crash is failed with the reason; the others finish; --resume leaves it;
# --retry-failed runs it again.
rm -f evals.log
KP_FAKE_SLEEP=0 KP_FAKE_CRASH=t03 expect_exit 0 bench tasks --gpus 0,1 --evals 2 --name crash
contains err "gpu"
contains err "t03 failed: "
contains out "11 finished, 1 failed"
python3 - suites/crash/results.json <<'PY' || fail "the failed task's record"
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))["tasks"]}
assert t["t03"]["state"] == "failed" and "signal" in t["t03"]["reason"], t["t03"]
assert t["t04"]["state"] == "finished" and t["t04"]["reason"] is None, t["t04"]
PY
rm -f evals.log
KP_FAKE_SLEEP=0 expect_exit 0 bench suites/crash --resume --gpus 0,1
[ ! -s evals.log ] || fail "--resume ran something again: $(cat evals.log)"
KP_FAKE_SLEEP=0 expect_exit 0 bench suites/crash --resume --retry-failed --gpus 0,1
contains out "12 finished, 0 failed"

# A broken setup (the evaluator program is missing) stops the bench, leaving every task to resume.
expect_exit 3 "$KP" bench tasks --suites-dir suites --name broken --gpus 0,1 --evals 2 \
	--evaluator "exec:/nonexistent/fake" --llm "replay:$S/replay"
contains err "continue it with: kernelpro bench suites/broken --resume"
expect_exit 0 "$KP" bench suites/broken --status
contains out "12 tasks: 10 pending 0 running 2 stopped 0 finished 0 failed"
contains out "stopped   gpu0  exec evaluator: program '/nonexistent/fake' not found"
[ ! -d suites/broken/runs/t11 ] || fail "a run that never began was left behind"
KP_FAKE_SLEEP=0 expect_exit 0 bench suites/broken --resume --gpus 0,1
contains out "12 finished, 0 failed"

# One process per shard: a second one is refused with 75 and the holder named.
KP_FAKE_SLEEP=0.3 bench_bg busy.out busy.err tasks --gpus 0 --evals 2 --name busy
pid=$!
for i in $(seq 1 50); do [ -f suites/busy/shards/0-of-1.lock ] && break; sleep 0.1; done
expect_exit 75 bench suites/busy --resume --gpus 1
contains err "is in use by another kernelpro process"
contains err "\"pid\":$pid"
kill -9 $pid
wait $pid 2>/dev/null
exit 0
