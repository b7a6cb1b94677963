#!/bin/sh
# On a real GPU (issue 21, High 2 and Medium 8): no API key reaches a candidate's process, and the
# harness still evaluates correctly with the allow-listed environment; Ctrl-C, SIGTERM and a double
# Ctrl-C during a kernel that never ends stop the evaluation at once and free the GPU (the harness
# gone, nothing of ours left in nvidia-smi).
. "$KP_ROOT/tests/integration/lib.sh"
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
export KERNELPRO_HOME
ex="$KP_ROOT/examples"
cache="$KP_TMP/cache"
command -v pgrep >/dev/null || skip "pgrep is needed to find the harness process"
KEY=sk-gpu-never-0123456789abcdefNEVERSEEN

# 1. A KernelBench candidate that writes its whole environment to a file when imported.
envfile="$KP_TMP/cand-env.txt"
cat >cand.py <<PY
import os
with open("$envfile", "w") as _f:
    for _k, _v in sorted(os.environ.items()):
        _f.write(_k + "=" + _v + "\n")
PY
cat "$ex/kernelbench/swish_scale_fast.py" >>cand.py
OPENAI_API_KEY=$KEY ANTHROPIC_API_KEY=$KEY KERNELPRO_API_KEY=$KEY HF_TOKEN=$KEY MY_DB_PASSWORD=$KEY \
	expect_exit 0 "$KP" eval --json --cache "$cache" "$ex/kernelbench/swish_scale.py" cand.py
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); assert v["status"] == "correct", v["status"]' out ||
	{ cat out; fail "the candidate was not evaluated correctly with the allow-listed environment"; }
[ -s "$envfile" ] || fail "the candidate did not run (no $envfile)"
if grep -F -- "$KEY" "$envfile"; then
	fail "a secret reached the candidate's process (the lines above)"
fi
contains "$envfile" "PATH="
echo "candidate environment: $(wc -l <"$envfile") variables, no secret"

# 2. stop_test SIGNAL...: once the hung kernel spins, send each signal 0.3 s apart; kernelpro, the
#    harness and its GPU context must all be gone within 15 s (the check phase would allow 600 s).
gone() { ! kill -0 "$1" 2>/dev/null; }
on_gpu() { nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | tr -d ' ' | grep -qx "$1"; }
wait_until() { # SECONDS CMD...
	t=$1; shift
	n=0
	while ! "$@"; do
		n=$((n + 1))
		[ $n -gt $((t * 10)) ] && return 1
		sleep 0.1
	done
}
harness_up() { pgrep -f kp-native-harness >/dev/null; }
stop_test() {
	"$KP" eval --json --cache "$cache" --check-timeout 600 "$ex/native/row_sum" \
		"$KP_ROOT/tests/adversarial/native/nat_hang.cu" >stop.out 2>stop.err &
	pid=$!
	wait_until 120 harness_up || { kill -9 $pid; cat stop.err; fail "the harness never started"; }
	sleep 3 # the kernel spins now
	hpids=$(pgrep -f kp-native-harness)
	for s in "$@"; do
		kill -"$s" $pid 2>/dev/null
		sleep 0.3
	done
	wait_until 15 gone $pid || { kill -9 $pid; fail "kernelpro did not stop on $*"; }
	wait $pid
	for h in $hpids; do
		wait_until 15 gone "$h" || { kill -9 "$h"; fail "the harness ($h) outlived kernelpro after $*"; }
		if on_gpu "$h"; then
			wait_until 15 eval '! on_gpu "$h"' || fail "the harness ($h) still holds the GPU after $*"
		fi
	done
	echo "stopped on $*: kernelpro, harness and GPU context gone"
}
stop_test INT
contains stop.err "canceled"
stop_test TERM
stop_test INT INT
exit 0
