# optimize, runs and show: what a user can get wrong gets a clear message and the right exit code.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"

expect_exit 2 "$KP" optimize
contains err "give a TASK"
# No model chosen is a usage error (exit 2), as in ask.
expect_exit 2 "$KP" optimize "$TASK" --evaluator "$FAKE"
contains err "--llm"
[ ! -d kernelpro-runs ] || fail "a run was created without an LLM"
expect_exit 2 optimize --evals 0
contains err "option '--evals' must be at least 1, not '0'"
expect_exit 2 optimize --time 5x
contains err "--time expects a duration"
expect_exit 2 optimize --param no_such=1
contains err "unknown search parameter 'no_such'"
expect_exit 2 optimize --param repair_cap=5
contains err "repair_cap"
expect_exit 3 optimize --evaluator "exec:no-such-harness-program"
contains err "no-such-harness-program"
[ ! -d kernelpro-runs ] || [ -z "$(ls kernelpro-runs)" ] || fail "a failed setup left a run behind"
expect_exit 1 "$KP" optimize "$KP_ROOT/no/such/task" --llm "replay:$S/replay" --evaluator "$FAKE"
expect_exit 1 "$KP" optimize --resume nope --llm "replay:$S/replay"
contains err "no run 'nope'"
contains err "kernelpro runs"
expect_exit 0 optimize --evals 2 --name r
expect_exit 2 "$KP" optimize --resume r --search greedy
contains err "keeps its search settings"
expect_exit 1 optimize --evals 2 --name r
contains err "exists; resume it with --resume"
# A resumed run is judged as it always was: without --evaluator, by its own (here no GPU is needed);
# another evaluator is refused (issue 21).
expect_exit 0 "$KP" optimize --resume r --evals 3 --llm "replay:$S/replay"
contains err "resuming run r"
expect_exit 1 "$KP" optimize --resume r --evals 4 --llm "replay:$S/replay" --evaluator harness
contains err "is judged by 'exec:sh"
contains err "omit --evaluator"
# ... and on its own task: a changed one is refused, a moved one is taken (and remembered), another refused.
mkdir mytask && cp "$TASK/task.json" "$TASK/reference.cu" mytask/
expect_exit 0 "$KP" optimize mytask --llm "replay:$S/replay" --evaluator "$FAKE" --evals 1 --name mine
sed 's/0\.5f/0.6f/' "$TASK/reference.cu" >mytask/reference.cu
expect_exit 1 "$KP" optimize --resume mine --evals 2 --llm "replay:$S/replay"
contains err "changed since run 'mine' began"
contains err "start a new run"
mv mytask moved && cp "$TASK/reference.cu" moved/
expect_exit 0 "$KP" optimize --resume mine moved --evals 2 --llm "replay:$S/replay"
expect_exit 0 "$KP" optimize --resume mine --evals 3 --llm "replay:$S/replay"
expect_exit 1 "$KP" optimize --resume mine "$KP_ROOT/examples/native/swish" --evals 4 --llm "replay:$S/replay"
contains err "is not the task run 'mine' optimizes"
expect_exit 1 "$KP" show nope
contains err "no run 'nope'"
expect_exit 0 "$KP" optimize --list-params
contains out "uct_c"
contains out "repair_fpu"
# A reference that fails its own check stops before any LLM call.
cat >bad-harness.sh <<'SH'
echo '{"status":"runtime_error","log":"illegal memory access"}'
SH
expect_exit 1 "$KP" optimize "$TASK" --llm "replay:$S/replay" --evaluator "exec:sh bad-harness.sh" --name bad
contains err "the reference itself did not pass its own check"
contains err "illegal memory access"
expect_exit 0 "$KP" runs
contains out "bad"
# The built-in harness needs a GPU: without one, optimize says so before any LLM call or run.
if ! "$KP" doctor --json --no-counters --no-python 2>/dev/null | tr -d '\n ' | grep -q '"name":"gpu","status":"ok"'; then
	expect_exit 3 "$KP" optimize "$TASK" --llm "replay:$S/replay" --name nogpu
	contains err "no usable GPU"
	[ ! -d kernelpro-runs/nogpu ] || fail "a run was left behind without a GPU"
	# ... and no empty runs directory either (issue 21).
	expect_exit 3 "$KP" optimize "$TASK" --llm "replay:$S/replay" --runs-dir fresh-runs
	[ ! -e fresh-runs ] || fail "optimize without a GPU left '$(ls -A fresh-runs)' in a new runs directory"
fi
exit 0
