#!/bin/sh
# Triton under the evaluation sandbox, without a GPU: the real adapter (harness/kp_torch.py) on a
# stand-in torch (tests/python/fake_harness/cpu_adapter.py) and a stand-in `triton` package whose
# kernel compiles at its first call by starting a process, as Triton starts ptxas. The adapter calls
# a candidate that imports triton once before the sandbox's lock (warm_triton), so the compile runs
# through the sandbox's build thread and the candidate is correct; from the lock on nothing starts,
# so a kernel that compiled only in the trials would be refused as process_spawn.
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null || skip "no python3"
[ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null || skip "no nvcc (the toolchain an evaluation resolves)"
lib="${KP_BUILD:-$KP_ROOT/build}/libexec/kernelpro/libkp_sandbox.so"
[ -f "$lib" ] || skip "no $lib"
home="$KP_TMP/home"
mkdir -p "$home/harness" "$KP_TMP/py/triton"
ln -s "$KP_ROOT/tests/python/fake_harness/cpu_adapter.py" "$home/harness/kp_torch.py"
KERNELPRO_HOME="$home" PYTHONPATH="$KP_TMP/py" KP_STANDIN_TRITON_LOG="$KP_TMP/compiled"
export KERNELPRO_HOME PYTHONPATH KP_STANDIN_TRITON_LOG
unset KERNELPRO_SANDBOX KERNELPRO_SANDBOX_LIB KERNELPRO_LIBEXEC

cat >"$KP_TMP/py/triton/__init__.py" <<'EOF'
"""A stand-in for Triton: a kernel compiles at its first call, in a process of its own (Triton's
ptxas), which appends a line to $KP_STANDIN_TRITON_LOG; the environment it saw goes to that .env."""
import json
import os
import subprocess
import sys


class _Kernel:
    def __init__(self, fn):
        self.fn = fn
        self.compiled = False

    def __getitem__(self, grid):
        return self

    def __call__(self, *args):
        if not self.compiled:
            log = os.environ["KP_STANDIN_TRITON_LOG"]
            subprocess.run([sys.executable, "-c", "open(%r, 'a').write('compiled\\n')" % log], check=True)
            # What Triton's compile sees: the environment kernelpro's allow-list let through.
            with open(log + ".env", "w") as f:
                json.dump(dict(os.environ), f)
            self.compiled = True
        return self.fn(*args)


def jit(fn):
    return _Kernel(fn)
EOF
PYTHONPATH="$KP_ROOT/tests/python/fake_harness" python3 - "$KP_TMP" <<'PY' || fail "writing the task"
import os, sys
import cpu_adapter as c
d = sys.argv[1]
open(os.path.join(d, "task.py"), "w").write(c.TASK)
# cpu_adapter's candidate with its work done by a stand-in Triton kernel.
kernel = "import triton\n\n\n@triton.jit\ndef scale_kernel(k, x):\n    return k * x\n\n"
cand = kernel + c.CANDIDATE.lstrip().replace("return self.k * x", "return scale_kernel[(1,)](self.k, x)")
assert "scale_kernel[(1,)]" in cand
open(os.path.join(d, "cand.py"), "w").write(cand)
PY

# The parent's environment as on a cluster node: Triton's own settings, a Slurm job and its GPUs,
# and secrets that must stay behind (kernelpro's allow-list, docs/eval.md "What a child sees").
TRITON_HOME="$KP_TMP/triton-home" TRITON_PTXAS_PATH=/opt/ptxas SLURM_JOB_ID=4242 CUDA_VISIBLE_DEVICES=3,5 \
	OPENAI_API_KEY=sk-must-not-reach-triton SLURM_JWT=jwt-must-not-reach-triton \
	expect_exit 0 "$KP" eval --allow no_kernel --gpu 1 --cache "$KP_TMP/cache" --json task.py cand.py
python3 - <<'PY' || fail "the Triton candidate under the sandbox"
import json
v = json.load(open("out"))
assert v["status"] == "correct", (v["status"], v.get("message"), v.get("log"))
sb = v["sandbox"]
assert sb["applied"] and sb["python"]["audit_hook"], sb
assert sb["attempts"] == {"before_candidate": 0, "candidate": 0, "reference_compile": 0}, sb["attempts"]
assert sb["python"]["build_spawns"], sb["python"]  # the compile went through the build thread
PY
[ "$(cat compiled)" = "compiled" ] || fail "the stand-in kernel compiled $(wc -l <compiled) time(s), not once"
python3 - "$KP_TMP" <<'PY' || fail "the environment Triton's compile saw (above)"
import json, os, sys
env = json.load(open("compiled.env"))
want = {"TRITON_HOME": sys.argv[1] + "/triton-home", "TRITON_PTXAS_PATH": "/opt/ptxas", "SLURM_JOB_ID": "4242",
        "CUDA_VISIBLE_DEVICES": "5", "TRITON_F32_DEFAULT": "ieee", "PATH": os.environ["PATH"],
        "HOME": os.environ["HOME"]}
for k, v in want.items():
    assert env.get(k) == v, (k, env.get(k), v)
assert env.get("TRITON_CACHE_DIR"), "no TRITON_CACHE_DIR"
for k in ("OPENAI_API_KEY", "SLURM_JWT"):
    assert k not in env, k
assert not any("must-not-reach" in v for v in env.values())
print("triton's environment ok; cache", env["TRITON_CACHE_DIR"])
PY

# A process the candidate starts itself, from its forward(), is still refused (past the static
# checks: no literal os.system), and never runs.
sed -e '1s/^/import os\n/' -e "s|        return scale_kernel|        getattr(os, 'sys' + 'tem')('echo pwned > $KP_TMP/marker')\n&|" \
	cand.py >spawn.py
expect_exit 1 "$KP" eval --allow no_kernel --cache "$KP_TMP/cache" --json task.py spawn.py
contains out '"check": "process_spawn"'
[ -e marker ] && fail "the candidate's command ran"
echo ok
