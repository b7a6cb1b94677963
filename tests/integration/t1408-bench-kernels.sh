# bench --kernels: a KernelBench run directory of our own making (kernels named by KernelBench's
# convention, an eval_results.json beside them) paired with its tasks and re-judged by the exec
# evaluator, one evaluation per kernel and no model; the side-by-side table in the output, results.json
# and the report; --samples best; a list file; a malformed eval_results.json refused with nothing made;
# kill -9 at random points and resumed to the same results; `kernelpro compare` of the two.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/bench/lib.sh"
# kbench ARGS...: bench with the fake GPU evaluator (no model: a re-judge takes none).
kbench() { "$KP" bench --suites-dir suites --evaluator "$FAKE_GPU" "$@"; }
# row NAME RECORDED KERNELPRO AGREE: the table has that line.
row() { grep -qE "^$1 +$2 +$3 +$4" out || { cat out; fail "no row '$*'"; }; }

mkdir -p KernelBench/level1 run
for p in 2 4 6 8; do
	{ echo "# fake-ref-ms: $p"; echo "# fake-task: p$p"; cat "$KP_ROOT/examples/kernelbench/swish_scale.py"; } \
		>KernelBench/level1/${p}_Swish$p.py
done
cp KernelBench/level1/2_Swish2.py KernelBench/level1/3_Odd.py # never named by a kernel
kernel() { # PROBLEM SAMPLE VERDICT
	{ echo "# fake-verdict: $3"; sed 's/class Model(/class ModelNew(/' "$KP_ROOT/examples/kernelbench/swish_scale.py"; } \
		>run/level_1_problem_$1_sample_$2_kernel.py
}
kernel 2 0 "correct 1.5"
kernel 2 1 "correct 2.5"
kernel 4 0 "correct 1.2"   # recorded as a compile error: kernelpro disagrees
kernel 4 1 "wrong_output"  # recorded correct: kernelpro refuses it
kernel 6 0 "compile_error"
kernel 8 0 "correct 3.0"   # not recorded
echo "not a kernel" >run/level_1_problem_2_sample_0_response.txt
cat >run/eval_results.json <<'JSON'
{"2": [{"sample_id": 0, "compiled": true, "correctness": true, "metadata": {"hardware": "NVIDIA L40S"}, "runtime": 1.5, "ref_runtime": 2.1, "runtime_stats": {}},
       {"sample_id": 1, "compiled": true, "correctness": true, "metadata": {}, "runtime": 0.9, "ref_runtime": 2.1, "runtime_stats": {}}],
 "4": [{"sample_id": 0, "compiled": false, "correctness": false, "metadata": {"compilation_error": "nvcc: error: identifier \"vec4\" is undefined"}, "runtime": -1.0, "runtime_stats": {}},
       {"sample_id": 1, "compiled": true, "correctness": true, "metadata": {}, "runtime": 3.0, "ref_runtime": 4.2, "runtime_stats": {}}],
 "6": [{"sample_id": 0, "compiled": false, "correctness": false, "metadata": {"compilation_error": "ninja: build stopped"}, "runtime": -1.0, "runtime_stats": {}}]}
JSON

# Pairing: each kernel, its task, whether a verdict was recorded; nothing is made.
expect_exit 0 "$KP" bench --kernels run --tasks KernelBench --list-tasks
[ "$(wc -l <out)" = 6 ] || fail "six kernels: $(cat out)"
contains out "level_1_problem_4_sample_1 $PWD/run/level_1_problem_4_sample_1_kernel.py $PWD/KernelBench/level1/4_Swish4.py recorded"
contains out "level_1_problem_8_sample_0 $PWD/run/level_1_problem_8_sample_0_kernel.py $PWD/KernelBench/level1/8_Swish8.py"
lacks out "level_1_problem_8_sample_0_kernel.py $PWD/KernelBench/level1/8_Swish8.py recorded"
[ ! -d suites ] || fail "--list-tasks made a suite"
expect_exit 0 "$KP" bench --kernels 'run/level_1_problem_2_*_kernel.py' --tasks KernelBench/level1 --list-tasks
[ "$(wc -l <out)" = 2 ] || fail "a glob and the level folder as --tasks: $(cat out)"
expect_exit 0 "$KP" bench --kernels run --tasks KernelBench --samples best --list-tasks
[ "$(awk '{print $1}' out | tr '\n' ' ')" = "level_1_problem_2_sample_1 level_1_problem_4_sample_1 level_1_problem_6_sample_0 level_1_problem_8_sample_0 " ] ||
	fail "--samples best: $(cat out)"

# What does not apply to a re-judge, and what is missing, is refused before anything is made.
expect_exit 2 "$KP" bench --kernels run
contains err "--kernels needs --tasks DIR"
expect_exit 2 "$KP" bench --kernels run --tasks KernelBench --llm openai:gpt-5
contains err "--llm does not apply"
expect_exit 2 "$KP" bench --kernels run --tasks KernelBench --evals 3
contains err "--evals does not apply"
expect_exit 1 "$KP" bench --kernels nowhere --tasks KernelBench
contains err "kernels 'nowhere' not found"
mkdir -p other && kernel 10 0 "correct 1.1" && mv run/level_1_problem_10_sample_0_kernel.py other/
expect_exit 1 "$KP" bench --kernels other --tasks KernelBench --suites-dir suites
contains err "no task for level 1 problem 10 under 'KernelBench'"
[ ! -d suites ] || fail "a kernel without a task made a suite"

# A malformed eval_results.json: a clear error naming the entry and the field; no suite, the file as it was.
mkdir -p bad && cp run/level_1_problem_2_sample_0_kernel.py bad/
printf '{"2": [{"sample_id": 0, "compiled": "yes", "correctness": true}]}' >bad/eval_results.json
cp bad/eval_results.json bad.before
expect_exit 1 kbench --kernels bad --tasks KernelBench --gpus 0
contains err "problem \"2\" [0]: 'compiled' must be true or false"
contains err "nothing was made"
[ ! -d suites ] || fail "a malformed eval_results.json made a suite"
cmp bad/eval_results.json bad.before || fail "the malformed file was changed"
printf '[{"evaluation_id": "level_1_problem_2_sample_0", "compiled": true, "correctness": true, "runtime": NaN}]' >bad/eval_results.json
expect_exit 1 kbench --kernels bad --tasks KernelBench --gpus 0
contains err "bad/eval_results.json: line 1, column"
[ ! -d suites ] || fail "a NaN made a suite"

# The re-judge, uninterrupted: one evaluation per kernel, no model, the table beside the recorded verdicts.
export KP_BENCH_LOG="$PWD/evals.log"
KP_FAKE_SLEEP=0 expect_exit 0 kbench --kernels run --tasks KernelBench --gpus 0,1 --name whole
contains out "suite whole: 6 tasks, 6 finished, 0 failed, 0 not done"
row level_1_problem_2_sample_0 correct correct yes
row level_1_problem_4_sample_0 compile_error correct NO
row level_1_problem_4_sample_1 correct wrong_output "NO +3 of 5 trials differ"
row level_1_problem_6_sample_0 compile_error compile_error yes
# A verdict that is not correct says why, agreeing or not.
grep -E "^level_1_problem_6_sample_0 +compile_error +compile_error +yes +[^ ]" out >/dev/null || { cat out; fail "no reason beside the agreeing compile error"; }
row level_1_problem_8_sample_0 - correct -
contains out "agree on correctness: 3 of 5 compared (1 recorded correct and refused here, 1 the other way)"
contains out "recorded  correct 3/5  fast_0 0.60  fast_0.5 0.60  fast_0.8 0.60  fast_1 0.60  fast_1.5 0.20  fast_2 0.20  geomean 1.66x"
lacks evals.log " candidate 3"
python3 - suites/whole/results.json <<'PY' || fail "the re-judge's results"
import json, sys
d = json.load(open(sys.argv[1]))
assert [t["evaluations"] for t in d["tasks"]] == [1] * 6, [t["evaluations"] for t in d["tasks"]]
assert all(t["tokens_in"] == 0 for t in d["tasks"])
rj = d["rejudge"]
k = {x["name"]: x for x in rj["kernels"]}
assert k["level_1_problem_4_sample_1"]["agree"] is False
assert k["level_1_problem_4_sample_1"]["recorded"]["outcome"] == "correct"
assert k["level_1_problem_4_sample_1"]["kernelpro"]["outcome"] == "wrong_output"
assert k["level_1_problem_4_sample_1"]["kernelpro"]["message"] == "3 of 5 trials differ"
assert k["level_1_problem_4_sample_0"]["recorded"]["message"].startswith("nvcc: error")
assert k["level_1_problem_8_sample_0"]["recorded"] is None and k["level_1_problem_8_sample_0"]["agree"] is None
assert k["level_1_problem_6_sample_0"]["agree"] is True
assert abs(k["level_1_problem_2_sample_1"]["kernelpro"]["speedup"] - 2.5) < 1e-4
assert abs(k["level_1_problem_2_sample_1"]["recorded"]["speedup"] - 2.1 / 0.9) < 1e-9
s = rj["summary"]
assert (s["kernels"], s["with_recorded"], s["compared"], s["agree"], s["disagree"]) == (6, 5, 5, 3, 2), s
assert abs(s["kernelpro"]["fast_p"]["0.0"] - 4 / 6) < 1e-9 and abs(s["kernelpro"]["fast_p"]["2.0"] - 2 / 6) < 1e-9, s
assert abs(s["recorded"]["fast_p"]["1.5"] - 1 / 5) < 1e-9 and s["recorded"]["with_baseline"] == 5, s
PY
contains suites/whole/report.html 'id="s-rejudge"'
contains suites/whole/report.html "3 of 5 trials differ"
expect_exit 0 python3 "$KP_ROOT/bench/suite_metrics.py" suites/whole/results.json --check
# The report from the databases again (results.json deleted): the section is rebuilt.
rm suites/whole/results.json suites/whole/report.html
expect_exit 0 "$KP" report suites/whole
contains suites/whole/report.html 'id="s-rejudge"'
[ "$(json suites/whole/results.json 'd["rejudge"]["summary"]["agree"]')" = 3 ] || fail "report SUITE lost the table"

# --per-gpu: three slots on GPU 0 judge the same kernels to the same table; the two samples of a problem
# share one baseline, measured once (before, the slots measured it side by side); its bounds are refused.
KP_FAKE_SLEEP=0.2 KP_BENCH_LOG="$PWD/pergpu.log" expect_exit 0 kbench --kernels run --tasks KernelBench --gpus 0 \
	--per-gpu 3 --name pergpu
[ "$(grep -c '^start 0 p[0-9]* baseline' pergpu.log)" = 4 ] || { cat pergpu.log; fail "one baseline per problem"; }
[ "$(grep -c '^start 0 level_[0-9a-z_]* candidate' pergpu.log)" = 6 ] || { cat pergpu.log; fail "one evaluation per kernel"; }
contains out "suite pergpu: 6 tasks, 6 finished, 0 failed, 0 not done"
python3 - suites/whole/results.json suites/pergpu/results.json <<'PY' || fail "--per-gpu judged otherwise"
import json, sys
a, b = (json.load(open(p))["rejudge"] for p in sys.argv[1:3])
key = lambda r: sorted((k["name"], k["kernelpro"]["outcome"], k["agree"]) for k in r["kernels"])
assert key(a) == key(b), (key(a), key(b))
assert a["summary"]["agree"] == b["summary"]["agree"]
PY
expect_exit 2 kbench KernelBench/level1 --gpus 0 --per-gpu 2 --name search
contains err "--per-gpu is for bench --kernels"
[ ! -d suites/search ] || fail "--per-gpu on a search suite made it"
expect_exit 2 kbench --kernels run --tasks KernelBench --gpus 0 --per-gpu 17 --name toomany
contains err "per-gpu"
expect_exit 2 kbench --kernels run --tasks KernelBench --gpus 0,1,2,3,4 --per-gpu 16 --name toomany
contains err "makes 80 slots; at most 64"

# --recorded-baseline: a run whose eval_results.json records no ref_runtime gets its recorded speedups
# from KernelBench's reference times; a malformed file is refused with nothing made.
printf '{"2": [{"sample_id": 0, "compiled": true, "correctness": true, "runtime": 1.5}]}' >noref.json
printf '{"level1": {"2_Swish2.py": {"mean": 2.7, "hardware": "NVIDIA L40S"}}}' >base.json
KP_FAKE_SLEEP=0 expect_exit 0 kbench --kernels run/level_1_problem_2_sample_0_kernel.py --tasks KernelBench \
	--recorded noref.json --recorded-baseline base.json --gpus 0 --name withbase
python3 - suites/withbase/results.json <<'PY' || fail "--recorded-baseline"
import json, sys
k = json.load(open(sys.argv[1]))["rejudge"]["kernels"][0]
assert abs(k["recorded"]["ref_ms"] - 2.7) < 1e-12 and abs(k["recorded"]["speedup"] - 1.8) < 1e-9, k["recorded"]
PY
printf '{"level1": {"2_Swish2.py": {"mean": 0}}}' >badbase.json
expect_exit 1 kbench --kernels run --tasks KernelBench --recorded-baseline badbase.json --gpus 0 --name badbase
contains err "the reference times are malformed"
contains err "level1/2_Swish2.py: 'mean' must be a number of milliseconds > 0"
[ ! -d suites/badbase ] || fail "a malformed --recorded-baseline made a suite"
expect_exit 1 kbench --kernels run --tasks KernelBench --recorded-baseline nowhere.json --gpus 0 --name badbase
contains err "--recorded-baseline 'nowhere.json' not found"

# kill -9 at random points until a session completes; the results equal the uninterrupted run's.
seed=${KP_SEED:-$(date +%s)}
echo "kill points from seed $seed (KP_SEED=$seed reproduces them)"
export KP_FAKE_SLEEP=0.5
done=0 kills=0
for i in $(seq 1 12); do
	delay=$(awk -v s="$seed" -v i="$i" 'BEGIN { srand(s + i); printf "%.2f", 0.2 + rand() * 0.8 }')
	if [ -d suites/cut ]; then
		"$KP" bench suites/cut --resume --suites-dir suites --gpus 0,1 >"run$i.out" 2>"run$i.err" &
	else
		"$KP" bench --suites-dir suites --evaluator "$FAKE_GPU" --kernels run --tasks KernelBench --gpus 0,1 \
			--name cut >"run$i.out" 2>"run$i.err" & # $! is kernelpro itself
	fi
	pid=$!
	sleep "$delay"
	if kill -9 $pid 2>/dev/null; then
		wait $pid 2>/dev/null
		kills=$((kills + 1))
	else
		wait $pid && { done=1; break; }
		cat "run$i.err"; fail "session $i ended badly"
	fi
done
[ $kills -ge 2 ] || fail "only $kills kills landed"
[ $done -eq 1 ] || KP_FAKE_SLEEP=0 expect_exit 0 "$KP" bench suites/cut --resume --suites-dir suites --gpus 0,1
expect_exit 0 python3 "$B/same-results.py" suites/whole suites/cut
for r in suites/cut/runs/*; do
	[ "$("$KP" show "$r" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["used"]["evaluations"])')" = 1 ] ||
		fail "$r: a kernel evaluated more than once after the kills"
done

# A list file for kernels named otherwise; compare the two re-judges (the best samples against all).
cp run/level_1_problem_2_sample_1_kernel.py mine.py
printf '# kernel task\nmine.py KernelBench/level1/2_Swish2.py name=mine\n' >kernels.txt
KP_FAKE_SLEEP=0 expect_exit 0 kbench --kernels kernels.txt --tasks KernelBench --gpus 0 --name listed
row mine - correct -
KP_FAKE_SLEEP=0 expect_exit 0 kbench --kernels run --tasks KernelBench --samples best --gpus 0 --name best
expect_exit 0 "$KP" compare suites/whole suites/best --json --html cmp.html
python3 - out <<'PY' || fail "compare"
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["key"]: x for x in d["tasks"]}
# whole counts each problem's best sample (2.5, 1.2, 1.0, 3.0); best kept 2_1, 4_1 (wrong: 1.0), 6_0, 8_0.
assert abs(t["level 1 problem 4"]["ratio"] - 1.2) < 1e-4, t["level 1 problem 4"]
assert d["paired"] == 4 and d["a_faster"] == 1 and d["ties"] == 3, d
assert d["wilcoxon"]["n"] == 1 and d["wilcoxon"]["method"] == "exact" and d["wilcoxon"]["p"] == 1.0, d["wilcoxon"]
assert d["ci"]["lo"] <= d["geomean_ratio"] <= d["ci"]["hi"], d
PY
contains cmp.html 'id="s-compare"'
expect_exit 0 "$KP" compare suites/whole/results.json suites/best
contains out "A = whole, B = best: 4 tasks paired, 0 only in A, 0 only in B"
contains out "Wilcoxon signed-rank on log(A/B)"
expect_exit 1 "$KP" compare suites/whole nowhere.json
contains err "'nowhere.json' not found"
echo ok
