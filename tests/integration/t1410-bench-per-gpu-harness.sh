# bench --kernels --per-gpu with the built-in harness evaluator: the real adapter on a stand-in torch
# (tests/python/fake_harness/cpu_adapter.py) and a fake libcuda. The slots of one GPU evaluate side by
# side, cold, and none in the warm worker: a KernelBench task would use the worker by default, and it
# runs one job at a time, so before the fix (session 8) the slots queued on it and a 100-kernel
# re-judge on the H200 evaluated one kernel after another. The adapter holds the GPU's lock
# (timeline phase gpu_wait), and `bench --no-worker` means no worker at --per-gpu 1 too.
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null || skip "no python3"
FAKECUDA="$KP_BUILD/tests/libfakecuda.so"
[ -f "$FAKECUDA" ] || fail "missing $FAKECUDA (make integration builds it)"
home="$KP_TMP/home"
mkdir -p "$home/harness" "$KP_TMP/cuda/bin" KernelBench/level1 run
ln -s "$KP_ROOT/harness/kp_worker.py" "$home/harness/kp_worker.py"
ln -s "$KP_ROOT/tests/python/fake_harness/cpu_adapter.py" "$home/harness/kp_torch.py"
printf '#!/bin/sh\necho "Cuda compilation tools, release 13.0, V13.0.88"\n' >"$KP_TMP/cuda/bin/nvcc"
chmod +x "$KP_TMP/cuda/bin/nvcc"
KERNELPRO_HOME="$home" KERNELPRO_WORKER_DIR="$KP_TMP/w" KP_LIBCUDA="$FAKECUDA" CUDA_HOME="$KP_TMP/cuda"
XDG_CACHE_HOME="$KP_TMP/xdg"
export KERNELPRO_HOME KERNELPRO_WORKER_DIR KP_LIBCUDA CUDA_HOME XDG_CACHE_HOME
unset KERNELPRO_SANDBOX KERNELPRO_PYTHON
mkdir -m 700 "$KERNELPRO_WORKER_DIR"
# Two problems, three kernels each. Every kernel's import writes when it starts and ends into a log of
# its own and spins for 2 s (a build's stand-in), so the logs show whether the evaluations overlapped.
PYTHONPATH="$KP_ROOT/tests/python/fake_harness" python3 - "$KP_TMP" <<'PY' || fail "writing the kernels"
import os, sys
import cpu_adapter as c
d = sys.argv[1]
for p in (2, 4):
    with open("KernelBench/level1/%d_T%d.py" % (p, p), "w") as f:
        f.write(c.TASK)
    for s in range(3):
        log = os.path.join(d, "span-%d-%d" % (p, s))
        with open("run/level_1_problem_%d_sample_%d_kernel.py" % (p, s), "w") as f:
            f.write('SRC = """__global__ void k(float* x) { x[0] = 1.0f; }"""\n'
                    "import time\n"
                    "_t0 = time.time()\n"
                    "while time.time() - _t0 < 2:\n"
                    "    pass\n"
                    "with open(%r, 'w') as _f:\n"
                    "    _f.write('%%f %%f' %% (_t0, time.time()))\n" % log + c.CANDIDATE)
PY
expect_exit 0 "$KP" bench --kernels run --tasks KernelBench --gpus 0 --per-gpu 6 --suites-dir suites --name pg \
	--tolerance-mode kernelbench-v0.1
grep -q "correct 6/6" out || { cat out; fail "six correct verdicts"; }
no_worker() { # what started one, when one did
	for f in "$KERNELPRO_WORKER_DIR"/*; do
		[ -e "$f" ] && fail "$1: a warm worker was started ($f)"
	done
	return 0
}
no_worker "--per-gpu 6"
# Side by side: some two evaluations' spans overlap (one after another, none would).
python3 - "$KP_TMP" <<'PY' || fail "the evaluations ran one after another"
import glob, sys
spans = sorted(tuple(map(float, open(p).read().split())) for p in glob.glob(sys.argv[1] + "/span-*"))
assert len(spans) == 6, spans
assert any(b[0] < a[1] for a, b in zip(spans, spans[1:])), spans
PY
python3 - suites/pg/runs/*/run.db <<'PY' || fail "a kernel's evaluation has no gpu_wait phase (the GPU's lock)"
import json, sqlite3, sys
for db in sys.argv[1:]:
    (v,), = sqlite3.connect(db).execute("select verdict_json from evaluations where node_id = 2").fetchall()
    assert "gpu_wait" in json.loads(v)["timeline"], (db, json.loads(v)["timeline"])
    # the reference's probe memory went back to the driver before the lock did (the stand-in keeps 64 MiB)
    assert json.loads(v)["runtime_evidence"]["gpu_released_mib"] == 64.0, (db, json.loads(v)["runtime_evidence"])
    # --tolerance-mode reached the harness: KernelBench v0.1's 1e-2, not HEAD's 1e-4 for fp32
    assert json.loads(v)["conditions"]["atol"] == 0.01, (db, json.loads(v)["conditions"])
PY
# --no-worker at one slot per GPU: cold too.
rm -f "$KP_TMP"/span-*
expect_exit 0 "$KP" bench --kernels run --tasks KernelBench --gpus 0 --no-worker --suites-dir suites --name nw
grep -q "correct 6/6" out || { cat out; fail "six correct verdicts with --no-worker"; }
no_worker "--no-worker"
echo ok
