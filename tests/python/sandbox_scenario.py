"""One evaluation child's life under kernelpro.sandbox, without torch: run by test_sandbox.py as
`python3 sandbox_scenario.py SCENARIO WORKDIR` (a filter cannot be left, so each scenario is its own
process). An adapter with the methods the sandbox wraps stands in for kp_torch.Adapter; the candidate is
imported the way kp_torch.load_candidate imports it. Prints the result line the adapter would send."""

import importlib.util
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))

from kernelpro import build as kbuild  # noqa: E402
from kernelpro import sandbox  # noqa: E402


class FakeAdapter:
    def __init__(self, cfg):
        self.cfg = cfg
        self.checks_off = set(cfg.get("checks_off", []))
        self.flags = []
        self.result = {"flags": self.flags}
        self.phases = []

    def phase(self, name, limit_key):
        self.phases.append(name)

    def finish(self, status, message, log=""):
        self.result.update(status=status, message=message, log=log, phases=self.phases)
        print(json.dumps({"result": self.result}), flush=True)

    def time_compiled(self, fn):
        fn()


def import_candidate(path):
    spec = importlib.util.spec_from_file_location("kp_candidate", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write(work, name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


TRITON_CANDIDATE = """
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget


@triton.jit
def double(x, y, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + i, tl.load(x + i, mask=i < n) * 2, mask=i < n)


def compile_for(block):
    src = triton.compiler.ASTSource(fn=double, signature={"x": "*fp32", "y": "*fp32", "n": "i32"},
                                    constexprs={"BLOCK": block})
    return triton.compile(src, target=GPUTarget("cuda", 90, 32))


VERSION = "cubin %%d bytes" %% len(compile_for(128).asm["cubin"])
"""

# What LLVM's RegisterHandlers does (llvm/lib/Support/Unix/Signals.inc): its handler for each fatal
# signal, the old actions kept; restored later. Writes "sigsys_rc=R" to the marker's .sigsys file.
SIGSYS_BODY = r"""
	static const int sigs[] = {SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGBUS, SIGSEGV, SIGQUIT, SIGSYS};
	struct sigaction sa, old[8];
	int rc = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_ONSTACK | SA_NODEFER | SA_RESETHAND;
	for (int i = 0; i < 8; i++)
		rc |= sigaction(sigs[i], &sa, &old[i]);
	for (int i = 0; i < 8; i++)
		rc |= sigaction(sigs[i], &old[i], NULL);
	FILE *f = fopen("%s.sigsys", "w");
	if (f) { fprintf(f, "sigsys_rc=%%d\n", rc); fclose(f); }
"""

CANDIDATES = {
    # The audit's case: os.system reached without naming it.
    "getattr_system": "import os\nrc = getattr(os, 'sys' + 'tem')('echo pwned > %(marker)s')\n",
    "subprocess": "import subprocess\nsubprocess.run(['/bin/sh', '-c', 'echo pwned > %(marker)s'])\n",
    "posix_spawn": "import os\nos.posix_spawn('/bin/sh', ['/bin/sh', '-c', 'echo pwned > %(marker)s'], {})\n",
    "fork": "import os\npid = os.fork()\nif pid == 0:\n    open('%(marker)s', 'w').close()\n    os._exit(0)\n",
    "ctypes_system": "import ctypes\nctypes.CDLL(None).system(b'echo pwned > %(marker)s')\n",
    "kill_parent": "import os, signal\nos.kill(os.getppid(), signal.SIGCONT)\n",
    # kernelpro's own build module is a trusted caller: a build tool it starts runs (here: python3).
    "honest": "import sys\nfrom kernelpro import build\nVERSION = build.nvcc_version_of(sys.executable)\n",
    # A trusted package in site-packages, which often lies inside the standard library's directory.
    "setuptools": "import sys\nfrom setuptools._distutils.spawn import spawn\nspawn([sys.executable, '-c', 'pass'])\n",
    # An extension's constructor (native code run at import) forking: refused by the filter.
    "native_fork": "import ctypes\nctypes.CDLL('%(ctor_fork)s')\n",
    "native_system": "import ctypes\nctypes.CDLL('%(ctor_system)s')\n",
    # LLVM's crash handlers, which Triton's first compile installs (SIGSYS among them): not a refusal.
    "native_sigsys": "import ctypes\nctypes.CDLL('%(ctor_sigsys)s')\n",
    # The same handlers, then a fork: still refused, and the filter's handler still answers it.
    "native_sigsys_fork": "import ctypes\nctypes.CDLL('%(ctor_sigsys_fork)s')\n",
    # A real Triton compile (LLVM in process, ptxas through the spawner), for a GPU it need not see.
    "triton": TRITON_CANDIDATE,
    # The same kernel compiled again after the lock (a specialization the warm-up did not make).
    "triton_after_lock": TRITON_CANDIDATE,
}

CTOR = r'''
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
__attribute__((constructor)) static void ctor(void)
{
	%s
}
'''


def build_ctor(work, name, body):
    src = write(work, name + ".c", CTOR % body)
    lib = os.path.join(work, name + ".so")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", lib, src], check=True)
    return lib


def main():
    scenario, work = sys.argv[1], sys.argv[2]
    marker = os.path.join(work, "marker")
    subst = {"marker": marker}
    if scenario.startswith("native_"):
        subst["ctor_fork"] = build_ctor(work, "fork", "pid_t p = fork(); if (p == 0) { system(\"echo pwned > %s\"); "
                                        "_exit(0); } if (p > 0) waitpid(p, 0, 0);" % marker)
        subst["ctor_system"] = build_ctor(work, "system", "system(\"echo pwned > %s\");" % marker)
        subst["ctor_sigsys"] = build_ctor(work, "sigsys", SIGSYS_BODY % marker)
        subst["ctor_sigsys_fork"] = build_ctor(work, "sigsys_fork", (SIGSYS_BODY % marker) + "pid_t p = fork(); "
                                               "if (p == 0) { system(\"echo pwned > %s\"); _exit(0); } "
                                               "if (p > 0) waitpid(p, 0, 0);" % marker)
    if scenario == "reference_sigsys":
        subst["ctor_sigsys"] = build_ctor(work, "sigsys", SIGSYS_BODY % marker)
    mode = "baseline" if scenario == "baseline" else "eval"
    name = scenario.split(":")[0]
    cand = write(work, "cand.py", CANDIDATES.get(name, "X = 1\n") % subst)
    ad = FakeAdapter({"mode": mode, "candidate": cand, "limits": {"build": 60, "check": 60, "timing": 60}})
    sandbox.apply(ad)
    # What the adapter does before the candidate: start a build (the fast path's prebuild).
    kbuild.nvcc_version_of("/bin/echo")
    if scenario == "reference_spawns":
        try:
            os.system("true")  # the task's reference, before the candidate: not the candidate's doing
        except PermissionError:
            pass
    if scenario == "reference_sigsys":
        import ctypes
        ctypes.CDLL(subst["ctor_sigsys"])  # a Triton reference's first compile: LLVM's handlers
    ad.phase("build", "build")
    try:
        mod = import_candidate(cand)
    except Exception as e:
        return ad.finish("compile_error", "importing the candidate failed: %s" % e)
    ad.phase("load", "check")
    ad.phase("correctness", "check")
    if scenario == "after_lock":
        try:
            kbuild.nvcc_version_of("/bin/echo")  # trusted, but the lock is on: nothing starts
        except Exception:
            pass
    if scenario == "triton_after_lock":
        try:
            mod.compile_for(256)  # a new constexpr: Triton compiles again and must start ptxas
        except Exception as e:
            print("after the lock: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:300]), file=sys.stderr)
    if scenario == "compile_after_lock":
        def spawn():
            try:
                kbuild.nvcc_version_of("/bin/echo")
            except Exception:
                pass
        ad.time_compiled(spawn)
    ad.finish("correct", "ok: %s" % getattr(mod, "VERSION", "").strip())


if __name__ == "__main__":
    main()
