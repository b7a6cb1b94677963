# Sourced by the optimize tests: a native task, the fake harness and the recorded replies.
S="$KP_ROOT/tests/integration/search"
TASK="$KP_ROOT/examples/native/gelu"
FAKE="exec:sh $S/fake-harness.sh"
unset KERNELPRO_LLM KERNELPRO_LLM_CONFIG KERNELPRO_RUNS
export KERNELPRO_HOME="$KP_ROOT"

# json FILE EXPR: evaluates a Python expression over the JSON document in FILE (as `d`).
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

optimize() { "$KP" optimize "$TASK" --llm "replay:$S/replay" --evaluator "$FAKE" "$@"; }
