# Sourced by the optimize tests: a native task, the fake harness and the recorded replies.
S="$KP_ROOT/tests/integration/search"
TASK="$KP_ROOT/examples/native/gelu"
FAKE="exec:sh $S/fake-harness.sh"
unset KERNELPRO_LLM KERNELPRO_LLM_CONFIG KERNELPRO_RUNS
export KERNELPRO_HOME="$KP_ROOT"

# json FILE EXPR: evaluates a Python expression over the JSON document in FILE (as `d`).
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

optimize() { "$KP" optimize "$TASK" --llm "replay:$S/replay" --evaluator "$FAKE" "$@"; }

# slow_run NAME N ARGS...: starts a run with slow evaluations in the background ($pid) and waits
# until it has committed N evaluations (or 20 s pass); $n is how many it had.
slow_run() {
	name=$1 want=$2
	shift 2
	KP_FAKE_SLEEP=0.3 "$KP" optimize "$TASK" --llm "replay:$S/replay" --evaluator "$FAKE" --name "$name" "$@" \
		>"$name.out" 2>"$name.err" &
	pid=$!
	n=0
	for i in $(seq 1 200); do
		sleep 0.1
		"$KP" show "$name" --json >s.json 2>/dev/null || continue
		n=$(json s.json 'd["used"]["evaluations"]')
		[ "$n" -ge "$want" ] && break
	done
}
