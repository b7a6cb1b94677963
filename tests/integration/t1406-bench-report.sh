# A bench suite's results and report: a list file mixing a KernelBench level directory (its kernels in
# KernelBench's layout, with ids from the paths) and native tasks with their own settings; the suite
# run as two shards and merged equals the suite run whole; `kernelpro report SUITE` and `bench --report`
# rewrite the results and page from the suite's databases; --merge says when shards are missing.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/bench/lib.sh"

make_tasks tasks 3 11 7
mkdir -p KernelBench/level1
for i in 1 2 10; do
	{ echo "# fake-ref-ms: $((i + 1))"; cat "$KP_ROOT/examples/kernelbench/swish_scale.py"; } >KernelBench/level1/${i}_Swish$i.py
done
cat >suite.txt <<LIST
# the KernelBench tasks answer from their own replies
KernelBench/level1  llm=replay:$B/replay-py evals=2
tasks/t01 name=first evals=3   # a name and a budget of its own
tasks/t02
tasks/t03 time=1h
LIST
expect_exit 0 "$KP" bench suite.txt --list-tasks
contains out "KernelBench/level1/1_Swish1.py evals=2 llm=replay:$B/replay-py"
contains out "tasks/t01 name=first evals=3"
[ "$(sed -n 3p out | awk '{print $1}' | sed 's|.*/||')" = "10_Swish10.py" ] || fail "the level's order: $(cat out)"
[ ! -d suites ] || fail "--list-tasks made a suite"

export KP_FAKE_SLEEP=0
expect_exit 0 bench suite.txt --gpus 0,1 --evals 2 --name mix
contains out "suite mix: 6 tasks, 6 finished, 0 failed, 0 not done"
python3 - suites/mix/results.json <<'PY' || fail "the mixed suite's results"
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["run"]: x for x in d["tasks"]}
print(sorted((k, x["name"], x["evaluations"], x["kernel"], x["speedup_eager"]) for k, x in t.items()))
assert [x["run"] for x in d["tasks"]] == ["runs/1_Swish1", "runs/2_Swish2", "runs/10_Swish10", "runs/first", "runs/t02", "runs/t03"]
kb = t["runs/10_Swish10"]
assert (kb["kind"], kb["level"], kb["problem_id"]) == ("kernelbench", 1, 10), kb
assert kb["kernel"] == "kernels/level_1_problem_10_sample_0_kernel.py", kb
assert kb["evaluations"] == 2 and abs(kb["speedup_eager"] - 3.0) < 1e-5, kb
assert t["runs/first"]["evaluations"] == 3 and t["runs/first"]["kernel"] == "kernels/t01.cu", t["runs/first"]
assert t["runs/t02"]["evaluations"] == 2, t["runs/t02"]
assert d["summary"]["baselines"]["eager"]["tasks"] == 6
PY
grep -q "class ModelNew" suites/mix/kernels/level_1_problem_2_sample_0_kernel.py || fail "the KernelBench kernel"
grep -q "fake-verdict: correct 1.6" suites/mix/kernels/t02.cu || fail "the native kernel is not the best version"
expect_exit 0 python3 "$KP_ROOT/bench/suite_metrics.py" suites/mix/results.json --check
# The run's settings: the list's budget and model are the run's own.
expect_exit 0 "$KP" show suites/mix/runs/t03 --json
[ "$(json out 'd["budget"]["wall_s"]')" = 3600.0 ] || fail "time=1h: $(json out 'd["budget"]')"
expect_exit 0 "$KP" show suites/mix/runs/2_Swish2 --json
[ "$(json out 'd["task"]["kind"]')" = kernelbench ] || fail "kind"

# The report, from the suite's databases: results rewritten (even when deleted), the page with its plots.
rm -rf suites/mix/results.json suites/mix/results.csv suites/mix/kernels suites/mix/report.html
expect_exit 0 "$KP" report suites/mix --json
[ "$(json out 'd["report"]')" = suites/mix/report.html ] || fail "report path"
[ "$(json out 'd["summary"]["tasks"]')" = 6 ] || fail "report summary"
[ -f suites/mix/results.json ] && [ -f suites/mix/results.csv ] && [ -d suites/mix/kernels ] || fail "report SUITE wrote no results"
P=suites/mix/report.html
for plot in fast_p speedup_distribution time_cost; do contains $P "data-plot=\"$plot\""; done
contains $P "10_Swish10"
contains $P "<td data-v=\"t01\"><a href=\"runs/first/report.html\">t01</a>" # each task links its run page,
[ -f suites/mix/runs/first/report.html ] || fail "report SUITE wrote no run page beside the suite's" # written beside it
rm -f $P
expect_exit 0 "$KP" bench suites/mix --report
[ -f $P ] || fail "bench --report wrote no page"
if python3 "$KP_ROOT/tests/integration/report/check_page.py" /dev/null >/dev/null 2>&1 || [ $? -ne 77 ]; then
	expect_exit 0 python3 "$KP_ROOT/tests/integration/report/check_page.py" $P \
		--plots fast_p:8,speedup_distribution:3,time_cost:6 --sort tasks:6 --width 1400 --no-hscroll \
		--screenshot "$KP_BUILD/tests/report-bench.png"
fi

# Two shards, run one after the other, then merged: the same results as the whole suite.
expect_exit 0 bench suite.txt --gpus 0 --evals 2 --name sh --shard 0/2
contains out "shard 0/2: 3 tasks finished, 0 failed"
[ ! -f suites/sh/results.json ] || fail "a shard wrote the suite's results"
expect_exit 2 "$KP" bench suites/sh --merge
contains err "3 tasks are not done"
expect_exit 0 "$KP" bench suites/sh --status --json
python3 - out <<'PY' || fail "shard 0 ran the even tasks"
import json, sys
d = json.load(open(sys.argv[1]))
assert [t["state"] for t in d["tasks"]] == ["finished", "pending"] * 3, [t["state"] for t in d["tasks"]]
PY
expect_exit 0 bench suites/sh --gpus 1 --shard 1/2 --resume
expect_exit 0 "$KP" bench suites/sh --merge
contains out "suite sh: 6 tasks, 6 finished, 0 failed, 0 not done"
python3 - suites/mix/results.json suites/sh/results.json <<'PY' || fail "the sharded suite differs from the whole one"
import json, sys
key = lambda f: [(t["name"], t["state"], t["correct"], t["best_node"], t["best_ms"], t["eager_ms"], t["evaluations"], t["kernel"])
                 for t in json.load(open(f))["tasks"]]
a, b = key(sys.argv[1]), key(sys.argv[2])
assert a == b, (a, b)
PY
expect_exit 0 "$KP" bench suites/sh --status
contains out "6 tasks: 0 pending 0 running 0 stopped 6 finished 0 failed"

# A resumed suite keeps its settings; a changed one is refused.
expect_exit 2 "$KP" bench suites/mix --resume --search greedy
contains err "a suite keeps its name, baselines and search settings"
expect_exit 1 "$KP" bench nosuch --resume
contains err "no suite 'nosuch'"
exit 0
