# Issue 30: a FIFO given as any input is refused at once (N7); bench names held to the run names'
# rule (N8); a candidate over 1 MiB refused without a leak (N9, seen by the sanitizer pass); eval
# --json prints a verdict object when the evaluation cannot finish (N11); an impossible verdict fails
# its candidate, not the run, and a speedup alone prints no "nan ms" (N12); "stopped", not
# "stopped: stopped", and no "best 1.00x (#0)" (#36); an exec LLM that never stops writing is killed at
# the 16 MiB cap, not read until its time limit (N5).
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"
CSV="$KP_ROOT/tests/golden/energy/corpus-ncu.csv"
REF="$TASK/reference.cu"

# --- N7: eleven inputs, each a FIFO with no writer. Before: each blocked in open() for ever.
mkfifo fifo
mkdir prof replay
mkfifo prof/ncu_raw.csv replay/001.md
fifo_refused() { # CMD...: ends within 20 s, failing, saying the FIFO is no regular file
	timeout -k 5 20 "$@" >out 2>err # -k: blocked in open(), kernelpro ignored SIGTERM
	rc=$?
	[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "'$*' blocked on a FIFO"
	[ $rc -ne 0 ] || fail "'$*' accepted a FIFO"
	contains err "is not a regular file"
}
fifo_refused "$KP" diagnose --ncu-csv fifo
for opt in ncu-details sass ptxas trace thresholds; do
	fifo_refused "$KP" diagnose --ncu-csv "$CSV" --$opt fifo
done
fifo_refused "$KP" analyze prof
fifo_refused "$KP" ask --mode initial --reference fifo --llm "replay:$S/replay"
fifo_refused "$KP" ask --mode initial --reference "$REF" --llm replay:replay
fifo_refused "$KP" ask --mode initial --reference "$REF" --llm-config fifo
fifo_refused "$KP" report fifo

# --- N8: bench --name as strict as --name of a run.
"$KP" bench "$TASK" --suites-dir suites --evaluator "$FAKE" --llm "replay:$S/replay" --evals 1 --gpus 0 \
	--name "$(printf 'a\nb')" >out 2>err && fail "a suite name with a newline was accepted"
contains err "suite name 'a\\x0ab' holds a control character"
"$KP" bench "$TASK" --suites-dir suites --evaluator "$FAKE" --llm "replay:$S/replay" --evals 1 --gpus 0 \
	--name "$(printf 'x\033[31m')" >out 2>err && fail "a suite name with ESC was accepted"
contains err "holds a control character (\\x1b)"
long=$(printf 'n%.0s' $(seq 1 300))
"$KP" bench "$TASK" --suites-dir suites --evaluator "$FAKE" --llm "replay:$S/replay" --evals 1 --gpus 0 \
	--name "$long" >out 2>err && fail "a 300-byte suite name was accepted"
contains err "is 300 bytes long; at most 223"
lacks err "File name too long"

# --- N9: over the 1 MiB limit: refused, and under ASan without a leak report (exit 1, not 23).
head -c 1100000 /dev/zero | tr '\0' 'x' >huge.cu
expect_exit 1 "$KP" eval "$TASK" huge.cu --build-only
contains err "larger than"

# --- N11: a reference that does not build; --json still prints the verdict object.
cp -r "$TASK" broken
echo 'garbage(' >>broken/reference.cu
printf '#include "kp_native.h"\nKP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t s) { return 0; }\n' >cand.cu
if [ -n "$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)" ]; then
	"$KP" eval broken cand.cu --json >out 2>err && fail "a broken reference evaluated"
	[ "$(json out 'd["error"]["code"]')" = parse ] || { cat out; fail "eval --json: no error in the verdict"; }
	contains out "does not build"
fi

# --- N12: one impossible verdict (speedup 1e9) fails #3 only; a speedup alone prints no "nan ms".
cat >ev.sh <<'EOS'
if [ "$KP_EVAL_ROLE" = reference ]; then printf '{"status":"correct","runtime":{"median_ms":2.0},"speedup":1.0}\n'; exit 0; fi
if [ "$KP_NODE_ID" = 3 ]; then printf '{"status":"correct","speedup":1e9}\n'; exit 0; fi
printf '{"status":"correct","speedup":1.5}\n'
EOS
expect_exit 0 "$KP" optimize "$TASK" --llm "replay:$S/replay" --evaluator "exec:sh $PWD/ev.sh" --evals 4 --name imp
contains err "#3: cheat_suspected"
contains out "best: #2, 1.50x faster than the reference"
lacks out "nan ms"
expect_exit 0 "$KP" show imp --node 3
contains out "implausible_result"
lacks err "(#0)"

# --- #36: a stopped run says so once.
slow_run stopme 1
kill -TERM $pid
wait $pid
expect_exit 0 "$KP" show stopme
contains out "(stopped"
lacks out "stopped: stopped"

# --- N5: an exec model that writes without end is stopped at the cap, long before its time limit.
cat >flood.sh <<'EOS'
exec yes
EOS
timeout 60 "$KP" ask --mode initial --reference "$REF" --llm "exec:sh $PWD/flood.sh" --llm-timeout 50 >out 2>err
rc=$?
[ $rc -ne 124 ] || fail "the flooding exec model was read until the time limit"
contains err "wrote more than 16 MiB (not retried)"
exit 0
