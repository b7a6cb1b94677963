# Ctrl-C and SIGTERM stop a run promptly, whatever it is waiting for, and leave nothing running:
# an LLM request in flight is dropped (not retried) and the run ends 'stopped'; a hung evaluator is
# stopped with its whole process group (SIGTERM, then SIGKILL); a second Ctrl-C kills the
# evaluator's group before kernelpro exits, so no candidate keeps holding the GPU. bench stops the
# same way, on SIGUSR1 too (Slurm's warning before a time limit).
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"
. "$KP_ROOT/tests/integration/llm-lib.sh"

# wait_for SECONDS CMD...: polls CMD every 0.1 s; fails when it is still false after SECONDS.
wait_for() {
	t=$1; shift
	n=0
	while ! "$@"; do
		n=$((n + 1))
		[ $n -gt $((t * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}
gone() { ! kill -0 "$1" 2>/dev/null; }
has_file() { [ -s "$1" ]; }
status_of() { "$KP" show "$1" --json >st.json 2>/dev/null && json st.json 'd["status"]'; }

# An evaluator that answers for the reference but hangs on every candidate, ignoring SIGTERM and
# SIGINT, with a grandchild in its process group: what a wedged GPU harness looks like.
cat >hang-eval.sh <<'SH'
#!/bin/sh
if [ "$KP_EVAL_ROLE" = reference ]; then
	printf '{"status":"correct","runtime":{"median_ms":2.0},"ref_runtime":{"median_ms":2.0},"speedup":1.0}\n'
	exit 0
fi
trap '' TERM INT
sleep 600 &
echo "$$ $!" >"$KP_TEST_HANG_PIDS.tmp" && mv "$KP_TEST_HANG_PIDS.tmp" "$KP_TEST_HANG_PIDS"
wait
SH
HANG="exec:sh $PWD/hang-eval.sh"

# 1. Ctrl-C while an LLM request hangs: the request is dropped at once, not retried, and the run
#    is 'stopped' (resumable), not 'failed'.
start_llm_server sk-test-stop-0123456789abcdef
# A failing check must not leave a run (and its hung evaluator) behind: kill -9 kills the evaluator too.
pid=
trap 'kill $LLM_PID 2>/dev/null; [ -n "$pid" ] && kill -9 $pid 2>/dev/null; wait' EXIT
OPENAI_API_KEY=sk-test-stop-0123456789abcdef OPENAI_BASE_URL="http://127.0.0.1:$LLM_PORT/s=slow,ms=60000,id=st1/v1" \
	"$KP" optimize "$TASK" --llm openai:gpt-4o --evaluator "$FAKE" --evals 3 --name llm >llm.out 2>llm.err &
pid=$!
wait_for 20 grep -q 'id=st1' "$LLM_LOG" || { cat llm.err; fail "the run never asked the LLM"; }
kill -INT $pid
wait_for 10 gone $pid || { kill -9 $pid; fail "Ctrl-C did not stop a run waiting on an LLM request"; }
wait $pid
rc=$?
[ $rc -eq 1 ] || { cat llm.err; fail "a stopped run exits 1, not $rc"; }
[ "$(status_of llm)" = stopped ] || { cat llm.err; fail "a run stopped during an LLM request says '$(status_of llm)'"; }
[ "$(grep -c 'id=st1' "$LLM_LOG")" = 1 ] || fail "the cancelled request was retried"
contains llm.out "continue with: kernelpro optimize --resume"

# 2. SIGTERM while the evaluator hangs: the run stops now (not after the evaluator's time limit),
#    the evaluator's whole group is gone, and the candidate is evaluated again on resume.
export KP_TEST_HANG_PIDS="$PWD/hang1.pids"
"$KP" optimize "$TASK" --llm "replay:$S/replay" --evaluator "$HANG" --evals 3 --name term >term.out 2>term.err &
pid=$!
wait_for 20 has_file "$KP_TEST_HANG_PIDS" || { cat term.err; fail "the evaluator never started on a candidate"; }
kill -TERM $pid
wait_for 15 gone $pid || { kill -9 $pid; fail "SIGTERM waited for a hung evaluator"; }
wait $pid
read -r ev gc <"$KP_TEST_HANG_PIDS"
wait_for 5 gone "$ev" || fail "the hung evaluator ($ev) outlived the run"
wait_for 5 gone "$gc" || fail "the evaluator's child ($gc) outlived the run"
[ "$(status_of term)" = stopped ] || { cat term.err; fail "a run stopped by SIGTERM says '$(status_of term)'"; }
json st.json 'd["used"]["evaluations"]' >evals.txt
[ "$(cat evals.txt)" = 0 ] || fail "the interrupted evaluation was recorded as a result"

# 3. Two Ctrl-C: kernelpro exits at once, and kills the evaluator's group on its way out.
export KP_TEST_HANG_PIDS="$PWD/hang2.pids"
"$KP" optimize "$TASK" --llm "replay:$S/replay" --evaluator "$HANG" --evals 3 --name twice >tw.out 2>tw.err &
pid=$!
wait_for 20 has_file "$KP_TEST_HANG_PIDS" || { cat tw.err; fail "the evaluator never started on a candidate"; }
kill -INT $pid
sleep 0.2
kill -INT $pid 2>/dev/null
wait_for 5 gone $pid || { kill -9 $pid; fail "a second Ctrl-C did not end kernelpro"; }
wait $pid
read -r ev gc <"$KP_TEST_HANG_PIDS"
wait_for 5 gone "$ev" || { kill -9 "$ev" "$gc"; fail "the evaluator ($ev) outlived kernelpro after two Ctrl-C"; }
wait_for 5 gone "$gc" || { kill -9 "$gc"; fail "the evaluator's child ($gc) outlived kernelpro after two Ctrl-C"; }

# 4. bench on SIGUSR1 (src/main.c's one handler, as for Ctrl-C): the hung evaluation stops now with
#    its group, not after its time limit, and the task is 'stopped', to resume.
export KP_TEST_HANG_PIDS="$PWD/hang3.pids"
"$KP" bench "$TASK" --suites-dir suites --name usr1 --gpus 0 --no-baselines --llm "replay:$S/replay" \
	--evaluator "$HANG" --evals 3 >usr1.out 2>usr1.err &
pid=$!
wait_for 20 has_file "$KP_TEST_HANG_PIDS" || { cat usr1.err; fail "bench's evaluator never started on a candidate"; }
kill -USR1 $pid
wait_for 15 gone $pid || { kill -9 $pid; fail "SIGUSR1 left bench waiting for a hung evaluator"; }
wait $pid
rc=$?
[ $rc -eq 1 ] || { cat usr1.err; fail "a stopped bench exits 1, not $rc"; }
read -r ev gc <"$KP_TEST_HANG_PIDS"
wait_for 5 gone "$ev" || fail "the hung evaluator ($ev) outlived bench"
wait_for 5 gone "$gc" || fail "the evaluator's child ($gc) outlived bench"
contains usr1.out "stopped; continue with: kernelpro bench suites/usr1 --resume"
expect_exit 0 "$KP" bench suites/usr1 --status
contains out "1 stopped"
exit 0
