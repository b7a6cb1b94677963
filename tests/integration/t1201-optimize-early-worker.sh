#!/bin/sh
# optimize starts the warm worker early (issue 12): on a KernelBench task (a fake GPU, the stand-in harness
# of tests/integration/tune/ as the adapter), the worker is launched with the evaluator, so its import runs
# while the reference is evaluated (the reference sees it starting) and the candidates run in it; a worker
# that fails to start gives one warning and cold evaluations; a run that ends before its first candidate
# leaves no worker behind and does not wait for the import.
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null || skip "no python3"
d="$KP_ROOT/tests/integration/tune"
FAKECUDA="$KP_BUILD/tests/libfakecuda.so"
[ -f "$FAKECUDA" ] || fail "missing $FAKECUDA (make integration builds it)"
mkdir -p home/harness
ln -s "$KP_ROOT/harness/include" home/harness/include
ln -s "$KP_ROOT/harness/kp_worker.py" home/harness/kp_worker.py
ln -s "$d/fake-harness.py" home/harness/kp_torch.py
KERNELPRO_HOME="$KP_TMP/home" KERNELPRO_WORKER_IDLE=30 KP_FAKE_TRACE="$KP_TMP/trace" KP_LIBCUDA="$FAKECUDA"
KP_FAKE_PRELOAD_MARK="$KP_TMP/preloading"
export KERNELPRO_HOME KERNELPRO_WORKER_IDLE KP_FAKE_TRACE KP_LIBCUDA KP_FAKE_PRELOAD_MARK
unset KERNELPRO_LLM KERNELPRO_LLM_CONFIG KERNELPRO_RUNS
trap 'for s in "$KP_TMP"/w*/*.sock; do [ -S "$s" ] && python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b\"{\\\"op\\\": \\\"shutdown\\\"}\\n\")" "$s"; done' EXIT
task="$KP_ROOT/examples/kernelbench/swish_scale.py"
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# run NAME: optimize --llm none from the tunable candidate, its own worker directory and reference cache.
run() {
	mkdir -p "w$1" && chmod 700 "w$1"
	: >trace
	rm -f preloading
	KERNELPRO_WORKER_DIR="$KP_TMP/w$1" XDG_CACHE_HOME="$KP_TMP/xdg$1" "$KP" optimize --llm none "$task" \
		--from "$d/swish_tunable.py" --no-profile --evals 6 --name "$1"
}
gone() { # gone PID: the process has ended (or is a zombie for init to reap), within 30 s
	for i in $(seq 1 300); do
		kill -0 "$1" 2>/dev/null || return 0
		grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# The reference (evaluated cold, first) waits for the worker's import to begin: it begins while the
# reference is evaluated, not when the first candidate is.
KP_FAKE_REF_WAIT=60 KP_FAKE_PRELOAD_SLEEP=1 expect_exit 0 run early
contains trace "reference: the worker was starting"
[ "$(grep -c '^cold' trace)" = 1 ] && [ "$(grep -c '^warm' trace)" -ge 5 ] || fail "evaluations: $(sort trace | uniq -c)"
lacks err "warm worker"
[ "$(json kernelpro-runs/early/summary.json 'd["used"]["evaluations"]')" = 6 ] || fail "6 evaluations"

# A worker that cannot start (its import fails): one warning, every evaluation cold, the same results.
KP_FAKE_PRELOAD_FAIL=1 expect_exit 0 run failed
[ "$(grep -c 'warm worker' err)" = 1 ] || fail "one warning: $(cat err)"
contains err "the warm worker refused to start: loading the adapter"
contains err "this run evaluates without the warm worker (a cold start each time)"
lacks trace warm
[ "$(grep -c '^cold' trace)" -ge 6 ] || fail "cold evaluations: $(sort trace | uniq -c)"
[ "$(json kernelpro-runs/failed/summary.json 'd["used"]["evaluations"]')" = 6 ] || fail "6 evaluations, cold"

# A worker directory that cannot be used: said once at the start, cold evaluations.
mkdir -p wbad && chmod 755 wbad
: >trace
KERNELPRO_WORKER_DIR="$KP_TMP/wbad" XDG_CACHE_HOME="$KP_TMP/xdgbad" expect_exit 0 "$KP" optimize --llm none "$task" \
	--from "$d/swish_tunable.py" --no-profile --evals 6 --name baddir
[ "$(grep -c 'warm worker' err)" = 1 ] || fail "one warning: $(cat err)"
contains err "must be a directory owned by you with mode 0700"
lacks trace warm

# The run ends before its first candidate (the reference fails) while the worker still imports (300 s):
# kernelpro does not wait for it, and the worker it launched is ended.
KP_FAKE_REF_WAIT=60 KP_FAKE_REF_FAIL=1 KP_FAKE_PRELOAD_SLEEP=300 expect_exit 1 run stopped
contains trace "reference: the worker was starting"
lacks trace warm
pid=$(cat preloading)
gone "$pid" || fail "the worker ($pid) outlived a run that never used it"
ls wstopped/*.sock >/dev/null 2>&1 && fail "a worker serves: $(ls wstopped)"

# Ctrl-C while the reference is evaluated: the same.
rm -f preloading
mkdir -p wint && chmod 700 wint
KERNELPRO_WORKER_DIR="$KP_TMP/wint" XDG_CACHE_HOME="$KP_TMP/xdgint" KP_FAKE_REF_WAIT=60 KP_FAKE_PRELOAD_SLEEP=300 \
	"$KP" optimize --llm none "$task" --from "$d/swish_tunable.py" --no-profile --evals 6 --name int >int.out 2>int.err &
kp=$!
for i in $(seq 1 600); do [ -s preloading ] && break; sleep 0.1; done
[ -s preloading ] || fail "no worker launched: $(cat int.err)"
kill -INT $kp
wait $kp
pid=$(cat preloading)
gone "$pid" || fail "the worker ($pid) outlived a stopped run"
exit 0
