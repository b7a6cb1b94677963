# Issue 30, N1 and N2: a model reply that holds the API key writes it nowhere (run.db, summary.json,
# candidates, best.*, stdout, stderr, report.html), and an evaluator reading /proc/PID/environ of its
# parent and grandparent (the keeper and kernelpro) finds no key there.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/llm-lib.sh"
export KERNELPRO_HOME="$KP_ROOT"
unset KERNELPRO_LLM KERNELPRO_LLM_CONFIG KERNELPRO_RUNS
KEY=sk-test-proc-4b3a2918f7e6d5c4PROCLEAK
printf %s "$KEY" >probe
export KP_PROBE_FILE="$PWD/probe" KP_PROC_LOG="$PWD/proc.log"
sed "s/@KEY@/$KEY/g" "$KP_ROOT/tests/integration/keys/reply-with-key.md" >reply.md
start_llm_server "$KEY" "$PWD/reply.md"
mkdir work
cd work
OPENAI_API_KEY="$KEY" OPENAI_BASE_URL="http://127.0.0.1:$LLM_PORT/s=ok/v1" \
	"$KP" optimize "$KP_ROOT/examples/native/gelu" --llm openai:gpt-4o --evals 2 --name leak \
	--evaluator "exec:sh $KP_ROOT/tests/integration/keys/proc-evaluator.sh" -v >stdout.txt 2>stderr.txt ||
	{ cat stderr.txt; fail "optimize failed"; }
"$KP" report leak >>stdout.txt 2>>stderr.txt || { cat stderr.txt; fail "report failed"; }
"$KP" show leak --node 2 >>stdout.txt 2>>stderr.txt || { cat stderr.txt; fail "show failed"; }
cd ..
[ -f work/kernelpro-runs/leak/report.html ] || fail "no report.html"
[ -f work/kernelpro-runs/leak/best.cu ] || fail "no best.cu (the reply's code was not kept)"
grep -q "api key: \[redacted\]" work/kernelpro-runs/leak/best.cu || fail "best.cu lacks the scrubbed line"
# The evaluator ran and read both ancestors.
[ -s proc.log ] || fail "the evaluator did not run"
cat proc.log
grep -q found proc.log && fail "an evaluator read the key from kernelpro's /proc/PID/environ"
[ "$(grep -c 'clean\|unreadable' proc.log)" -ge 2 ] || fail "the evaluator read fewer than 2 ancestors"
for s in "$KEY" "4b3a2918f7e6d5c4" "PROCLEAK"; do
	if grep -rlaF -- "$s" work; then
		fail "'$s' (part of the key) was written to the files above"
	fi
done
exit 0
