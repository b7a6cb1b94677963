#!/bin/sh
# kernelpro eval --worker without a GPU, with a stand-in adapter (tests/python/fake_harness, no torch):
# the first call starts the worker, later calls are forked by it, a crash ends only its evaluation, and
# a worker directory others could use means a cold start with the same verdict.
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null || skip "no python3"
[ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null || skip "no nvcc (the toolchain an evaluation resolves)"
home="$KP_TMP/home"
mkdir -p "$home/harness"
ln -s "$KP_ROOT/harness/kp_worker.py" "$home/harness/kp_worker.py"
ln -s "$KP_ROOT/tests/python/fake_harness/kp_torch.py" "$home/harness/kp_torch.py"
KERNELPRO_HOME="$home" KERNELPRO_WORKER_DIR="$KP_TMP/w" KERNELPRO_WORKER_IDLE=20
# The stand-in's switch reaches it as a user's variable reaches any harness child (docs/eval.md).
KERNELPRO_PASS_ENV=FAKE_DO
export KERNELPRO_HOME KERNELPRO_WORKER_DIR KERNELPRO_WORKER_IDLE KERNELPRO_PASS_ENV
mkdir -m 700 "$KERNELPRO_WORKER_DIR"
task="$KP_ROOT/examples/kernelbench/swish_scale.py"
cand="$KP_ROOT/examples/kernelbench/swish_scale_fast.py"
args="eval --cache $KP_TMP/cache"
trap 'for s in "$KERNELPRO_WORKER_DIR"/*.sock; do [ -S "$s" ] && python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b\"{\\\"op\\\": \\\"shutdown\\\"}\\n\")" "$s"; done' EXIT

expect_exit 0 "$KP" $args --worker "$task" "$cand"
contains out "correct  fake pid="
first=$(sed -n 's/.*ppid=\([0-9]*\).*/\1/p' out)
expect_exit 0 "$KP" $args --worker "$task" "$cand"
second=$(sed -n 's/.*ppid=\([0-9]*\).*/\1/p' out)
[ "$first" = "$second" ] || fail "two evaluations, two parents ($first, $second): not the same worker"
grep -q " cold" out && fail "the worker's evaluation ran cold"
FAKE_DO=crash expect_exit 1 "$KP" $args --worker "$task" "$cand"
contains out "runtime_error"
contains out "signal 11"
expect_exit 0 "$KP" $args --worker "$task" "$cand"
contains out "ppid=$first"

# Without --worker: a fresh process, as always.
expect_exit 0 "$KP" $args "$task" "$cand"
contains out " cold"
# Where the harness's correctness phase went: in -v's account and the JSON verdict.
expect_exit 0 "$KP" $args -v "$task" "$cand"
contains out "correctness: candidate 0.25 (3 calls, longest 0.20), other 0.50"
expect_exit 0 "$KP" $args --json "$task" "$cand"
python3 -c 'import json,sys; p = json.load(open(sys.argv[1]))["seconds"]["correctness_parts"]; assert p["candidate"] == {"seconds": 0.25, "calls": 3, "longest": 0.2}, p' out || fail "no seconds.correctness_parts"
# A worker directory others could use: refused, and the evaluation runs cold with the same verdict.
chmod 755 "$KERNELPRO_WORKER_DIR"
expect_exit 0 "$KP" $args --worker "$task" "$cand"
contains out " cold"
chmod 700 "$KERNELPRO_WORKER_DIR"
