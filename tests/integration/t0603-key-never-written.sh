# A run never writes the API key: not in recordings, outputs, logs (even curl's trace), or error messages,
# including when the server echoes a wrong key back masked.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/llm-lib.sh"
# The prompts of this tree, whichever build directory the binary is in.
export KERNELPRO_HOME="$KP_ROOT"
V="$KP_ROOT/tests/golden/prompts/vec_add"
KEY=sk-test-never-9d8c7b6a5f4e3d2cNEVERWRITE
start_llm_server "$KEY"
unset KERNELPRO_LLM KERNELPRO_LLM_CONFIG
export XDG_CONFIG_HOME="$PWD/xdg"
mkdir run
cd run

OPENAI_API_KEY="$KEY" OPENAI_BASE_URL="http://127.0.0.1:$LLM_PORT/s=e500,n=1/v1" \
	"$KP" -v -v -v ask --reference "$V/reference.cu" --llm openai:gpt-4o --record rec --out cand.cu \
	>stdout.txt 2>stderr.txt || { cat stderr.txt; fail "openai run failed"; }
ANTHROPIC_API_KEY="$KEY" ANTHROPIC_BASE_URL="http://127.0.0.1:$LLM_PORT/s=ok" \
	"$KP" -v -v -v ask --reference "$V/reference.cu" --llm anthropic:claude-sonnet-4-5 --record rec --json \
	>stdout2.txt 2>stderr2.txt || { cat stderr2.txt; fail "anthropic run failed"; }
# A wrong key: the server answers 401 quoting it masked.
WRONG=sk-test-wrong-00aa11bb22cc33ddWRONGKEY
OPENAI_API_KEY="$WRONG" OPENAI_BASE_URL="http://127.0.0.1:$LLM_PORT/s=ok/v1" \
	"$KP" -v -v -v ask --reference "$V/reference.cu" --llm openai:gpt-4o --record rec \
	>stdout3.txt 2>stderr3.txt && fail "a wrong key was accepted"
grep -q "refused the key in OPENAI_API_KEY" stderr3.txt || { cat stderr3.txt; fail "no clear auth error"; }
grep -q "Authorization: \[redacted\]" stderr.txt || fail "the trace did not run (nothing to check)"
grep -q "x-api-key: \[redacted\]" stderr2.txt || fail "the anthropic trace did not run"
[ -f rec/000002.json ] || fail "recordings missing"
cd ..

# Everything the runs wrote, every file, whole: neither key nor a distinctive piece of either.
n=$(find run -type f | wc -l)
[ "$n" -ge 7 ] || fail "expected the runs to write at least 7 files, found $n"
for s in "$KEY" "9d8c7b6a5f4e3d2c" "NEVERWRITE" "$WRONG" "00aa11bb22cc33dd" "WRONGKEY" "sk-tes"; do
	if grep -rlF -- "$s" run; then
		fail "'$s' (part of a key) was written to the files above"
	fi
done
exit 0
