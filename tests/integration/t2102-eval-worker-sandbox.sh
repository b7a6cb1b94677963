#!/bin/sh
# kernelpro eval --worker with the real adapter on a stand-in torch (tests/python/fake_harness/
# cpu_adapter.py, no GPU): the worker kernelpro starts carries KERNELPRO_SANDBOX_LIB, the child it
# forks applies the sandbox prelude (the verdict's sandbox object, a process the candidate starts is
# refused and never runs), and the trust checks hold on the worker's path (absurd times refused).
# --vs-compile with a compiler that leaves threads is still correct (the g1301 finding).
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null || skip "no python3"
[ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null || skip "no nvcc (the toolchain an evaluation resolves)"
lib="${KP_BUILD:-$KP_ROOT/build}/libexec/kernelpro/libkp_sandbox.so"
[ -f "$lib" ] || skip "no $lib"
home="$KP_TMP/home"
mkdir -p "$home/harness"
ln -s "$KP_ROOT/harness/kp_worker.py" "$home/harness/kp_worker.py"
ln -s "$KP_ROOT/tests/python/fake_harness/cpu_adapter.py" "$home/harness/kp_torch.py"
KERNELPRO_HOME="$home" KERNELPRO_WORKER_DIR="$KP_TMP/w" KERNELPRO_WORKER_IDLE=20
export KERNELPRO_HOME KERNELPRO_WORKER_DIR KERNELPRO_WORKER_IDLE
unset KERNELPRO_SANDBOX KERNELPRO_SANDBOX_LIB KERNELPRO_LIBEXEC
mkdir -m 700 "$KERNELPRO_WORKER_DIR"
trap 'for s in "$KERNELPRO_WORKER_DIR"/*.sock; do [ -S "$s" ] && python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b\"{\\\"op\\\": \\\"shutdown\\\"}\\n\")" "$s"; done' EXIT
PYTHONPATH="$KP_ROOT/tests/python/fake_harness" python3 - "$KP_TMP" <<'PY' || fail "writing the task"
import os, sys
import cpu_adapter as c
d = sys.argv[1]
open(os.path.join(d, "task.py"), "w").write(c.TASK)
open(os.path.join(d, "cand.py"), "w").write(c.CANDIDATE)
# Past the static checks (no literal os.system), refused by the sandbox's audit hook.
open(os.path.join(d, "spawn.py"), "w").write(
    "import os\ngetattr(os, 'sys' + 'tem')('echo pwned > %s')\n" % os.path.join(d, "marker") + c.CANDIDATE)
PY
args="eval --worker --allow no_kernel --cache $KP_TMP/cache"

expect_exit 0 "$KP" $args --vs-compile --json task.py cand.py
lacks err "cold"
lacks err "without the warm worker"
python3 - <<'PY' || fail "the honest verdict from the worker"
import json
v = json.load(open("out"))
assert v["status"] == "correct", v
assert v["compiled_ref_runtime"]["median_ms"] == 1.0, v["compiled_ref_runtime"]  # compiled, and no extra_threads
sb = v["sandbox"]
assert sb["applied"] and sb["python"]["audit_hook"], sb
assert sb["attempts"] == {"before_candidate": 0, "candidate": 0, "reference_compile": 0}, sb
PY
# The worker itself has the library's path in its environment (each job's environment names it too).
pid=$(sed -n 's/^kp-worker \([0-9]*\): serving.*/\1/p' "$KERNELPRO_WORKER_DIR"/*.log | head -1)
[ -n "$pid" ] || fail "no worker pid in its log"
tr '\0' '\n' <"/proc/$pid/environ" | grep -qx "KERNELPRO_SANDBOX_LIB=$(realpath "$lib")" ||
	fail "the worker's environment lacks KERNELPRO_SANDBOX_LIB=$lib"

expect_exit 1 "$KP" $args --json task.py spawn.py
lacks err "cold"
contains out '"check": "process_spawn"'
contains out 'os.system'
[ -e marker ] && fail "the candidate's command ran in the worker's child"

KP_STANDIN_MS=-0.5 expect_exit 1 "$KP" $args --json task.py cand.py
lacks err "cold"
contains out '"check": "implausible_result"'
contains out 'runtime -0.5 ms is not a measurement'
echo ok
