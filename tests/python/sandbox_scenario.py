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
sys.path.insert(0, os.path.join(ROOT, "harness", "python"))

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
}

CTOR = r'''
#include <stdlib.h>
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
