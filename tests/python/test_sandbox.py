"""kernelpro.sandbox (harness/kernelpro/sandbox.py) on a CPU: each scenario of
sandbox_scenario.py runs in its own process (a seccomp filter cannot be left) with a stand-in adapter,
and imports a candidate that tries to start a process one way or another. The sandbox must refuse
every attempt (no marker file), record it, and turn the verdict into cheat_suspected (process_spawn);
build tools started by kernelpro's own build module must still run until the lock.

Needs libkp_sandbox.so from the build ($KP_BUILD/libexec/kernelpro, else build/libexec/kernelpro)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIO = os.path.join(ROOT, "tests", "python", "sandbox_scenario.py")
BUILD = os.environ.get("KP_BUILD") or os.path.join(ROOT, "build")
LIB = os.path.join(BUILD, "libexec", "kernelpro", "libkp_sandbox.so")


def triton_python():
    """A python3 that imports triton: $KP_TRITON_PYTHON, or this one; None when neither does."""
    for py in (os.environ.get("KP_TRITON_PYTHON"), sys.executable):
        if py and subprocess.run([py, "-c", "import triton.compiler"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL).returncode == 0:
            return py
    return None


def run(scenario, sandbox_env=None, python=None, keep=None):
    work = tempfile.mkdtemp(prefix="kp-sandbox-test-")
    env = dict(os.environ, KERNELPRO_SANDBOX_LIB=LIB, TRITON_CACHE_DIR=os.path.join(work, "triton-cache"))
    env.pop("KERNELPRO_SANDBOX", None)
    if sandbox_env is not None:
        env["KERNELPRO_SANDBOX"] = sandbox_env
    try:
        p = subprocess.run([python or sys.executable, "-B", SCENARIO, scenario, work], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env, timeout=600)
        results = [json.loads(l)["result"] for l in p.stdout.decode().splitlines() if l.startswith("{")]
        if keep is not None:
            for name in os.listdir(work):
                if name.startswith("marker."):
                    with open(os.path.join(work, name)) as f:
                        keep[name] = f.read()
        return p.returncode, (results[-1] if results else None), os.path.exists(os.path.join(work, "marker")), \
            p.stderr.decode()
    finally:
        shutil.rmtree(work, ignore_errors=True)


@unittest.skipUnless(os.path.isfile(LIB), "no %s (run make first)" % LIB)
class SandboxTest(unittest.TestCase):
    def refused(self, scenario, event=None):
        rc, res, marker, err = run(scenario)
        self.assertEqual(rc, 0, err)
        self.assertFalse(marker, "the candidate's process ran (%s)" % scenario)
        self.assertEqual(res["status"], "cheat_suspected", res)
        self.assertEqual(res["flags"][-1]["check"], "process_spawn")
        sb = res["sandbox"]
        self.assertGreaterEqual(sb["attempts"]["candidate"], 1)
        self.assertEqual(sb["attempts"]["before_candidate"], 0)
        if event:
            self.assertEqual(sb["python"]["refused"][0]["event"], event)
            self.assertIn("cand.py:", sb["python"]["refused"][0]["where"])
        return res

    def test_getattr_system_is_refused(self):
        self.refused("getattr_system", "os.system")

    def test_without_the_sandbox_it_runs(self):
        # The test above fails without the sandbox: here it is switched off and the command runs.
        rc, res, marker, err = run("getattr_system", sandbox_env="off")
        self.assertTrue(marker, err)
        self.assertEqual(res["status"], "correct")

    def test_subprocess_posix_spawn_fork_kill(self):
        self.refused("subprocess", "subprocess.Popen")
        self.refused("posix_spawn", "os.posix_spawn")
        self.refused("fork", "os.fork")
        self.refused("kill_parent", "os.kill")

    def test_ctypes_lookup_of_system(self):
        self.refused("ctypes_system", "ctypes.dlsym")

    def test_native_constructor_fork_is_refused_by_the_filter(self):
        res = self.refused("native_fork")
        self.assertGreaterEqual(res["sandbox"]["refused"].get("clone", 0), 1)
        self.assertEqual(res["sandbox"]["python"]["refused"], [])

    def test_native_constructor_system_ends_the_child(self):
        # glibc's system() blocks every signal around clone: the kernel ends the process with SIGSYS,
        # which kernelpro reports as process_spawn (lib/eval/eval.c). Nothing ran.
        rc, res, marker, err = run("native_system")
        self.assertEqual(rc, -signal.SIGSYS, err)
        self.assertIsNone(res)
        self.assertFalse(marker)

    # LLVM installs a handler for every fatal signal, SIGSYS among them, the first time Triton compiles
    # (MLIR's crash reproducer): answered without effect, the filter's handler stays, and no refusal is
    # counted, for the candidate's compile as for a Triton reference's before it.
    def test_llvm_signal_handlers_are_not_a_refusal(self):
        files = {}
        rc, res, marker, err = run("native_sigsys", keep=files)
        self.assertEqual(rc, 0, err)
        self.assertEqual(files.get("marker.sigsys"), "sigsys_rc=0\n", err)
        self.assertEqual(res["status"], "correct", res)
        sb = res["sandbox"]
        self.assertEqual(sb["refused"], {})
        self.assertEqual(sb["ignored"], {"rt_sigaction": 2})
        self.assertEqual(sb["attempts"], {"before_candidate": 0, "candidate": 0, "reference_compile": 0})

    def test_after_llvm_signal_handlers_a_fork_is_still_refused(self):
        rc, res, marker, err = run("native_sigsys_fork")
        self.assertEqual(rc, 0, err)  # the filter's handler answered: the process was not ended
        self.assertFalse(marker)
        self.assertEqual(res["status"], "cheat_suspected", res)
        self.assertEqual(res["flags"][-1]["check"], "process_spawn")
        self.assertIn("sandbox.refused: clone 1", res["message"])
        self.assertEqual(res["sandbox"]["refused"], {"clone": 1})
        self.assertEqual(res["sandbox"]["refused_calls"][0]["call"], "clone")

    def test_llvm_signal_handlers_in_the_reference_are_no_harness_error(self):
        rc, res, marker, err = run("reference_sigsys")
        self.assertEqual(rc, 0, err)
        self.assertEqual(res["status"], "correct", res)
        self.assertEqual(res["sandbox"]["ignored"], {"rt_sigaction": 2})

    def triton(self):
        py = triton_python()
        if not py:
            self.skipTest("no python3 with triton (set KP_TRITON_PYTHON)")
        return py

    def test_real_triton_compiles_under_the_filter(self):
        rc, res, marker, err = run("triton", python=self.triton())
        self.assertEqual(rc, 0, err)
        self.assertEqual(res["status"], "correct", (res, err))
        self.assertTrue(res["message"].startswith("ok: cubin "), res["message"])
        sb = res["sandbox"]
        self.assertEqual(sb["refused"], {}, err)
        # LLVM's handlers (Triton 3.6: MLIR's crash reproducer in the first pass manager run), answered.
        self.assertEqual(sb["ignored"], {"rt_sigaction": 1})
        self.assertEqual(sb["attempts"], {"before_candidate": 0, "candidate": 0, "reference_compile": 0})
        self.assertTrue(any(s.endswith("/ptxas") for s in sb["python"]["build_spawns"]), sb["python"])

    def test_real_triton_cannot_compile_after_the_lock(self):
        rc, res, marker, err = run("triton_after_lock", python=self.triton())
        self.assertEqual(rc, 0, err)
        self.assertEqual(res["status"], "cheat_suspected", (res, err))
        rec = res["sandbox"]["python"]["refused"][0]
        self.assertEqual(rec["event"], "subprocess.Popen")
        self.assertIn("ptxas", rec["what"])
        self.assertIn("Triton compiled a kernel after the warm-up call", res["message"])

    def test_honest_candidate_builds_and_passes(self):
        rc, res, marker, err = run("honest")
        self.assertEqual(rc, 0, err)
        self.assertEqual(res["status"], "correct", res)
        self.assertTrue(res["message"].startswith("ok: Python 3"), res["message"])
        sb = res["sandbox"]
        self.assertEqual(sb["attempts"], {"before_candidate": 0, "candidate": 0, "reference_compile": 0})
        self.assertEqual(sb["python"]["build_spawns"], ["/bin/echo", sys.executable])
        self.assertTrue(sb["processes"]["blocked"])
        self.assertEqual(sb["processes"]["threads"], "every thread")
        self.assertEqual(sb["processes"]["since"], "before the first call of ModelNew")
        self.assertIn("before the candidate is imported", sb["processes"]["main_thread_since"])
        self.assertGreater(sb["limits"]["data_bytes"], sb["limits"]["data_growth_bytes"])
        self.assertGreaterEqual(sb["limits"]["data_growth_bytes"], 8 << 30)
        if sb["network"]["isolated"]:
            self.assertIn("namespace", sb["network"]["how"])
        else:
            self.assertIn("no network namespace could be made", sb["network"]["why"])

    def test_trusted_package_in_site_packages_builds(self):
        try:
            import setuptools._distutils.spawn  # noqa: F401
        except ImportError:
            self.skipTest("no setuptools")
        rc, res, marker, err = run("setuptools")
        self.assertEqual(res["status"], "correct", res)
        self.assertEqual(res["sandbox"]["python"]["build_spawns"][-1], sys.executable)

    def test_after_the_lock_even_builds_are_refused(self):
        rc, res, marker, err = run("after_lock")
        self.assertEqual(res["status"], "cheat_suspected", res)
        self.assertEqual(res["sandbox"]["python"]["refused"][0]["event"], "subprocess.Popen")

    def test_refusals_in_the_references_compile_are_not_the_candidates(self):
        rc, res, marker, err = run("compile_after_lock")
        self.assertEqual(res["status"], "correct", res)
        self.assertEqual(res["sandbox"]["attempts"]["reference_compile"], 1)
        self.assertEqual(res["sandbox"]["attempts"]["candidate"], 0)

    def test_refusals_before_the_candidate_are_a_harness_error(self):
        rc, res, marker, err = run("reference_spawns")
        self.assertEqual(res["status"], "harness_error", res)
        self.assertIn("KERNELPRO_SANDBOX=nospawn", res["message"])

    def test_nospawn_switches_the_process_checks_off(self):
        rc, res, marker, err = run("getattr_system", sandbox_env="nospawn")
        self.assertTrue(marker)
        self.assertEqual(res["status"], "correct")
        self.assertFalse(res["sandbox"]["processes"]["blocked"])
        self.assertEqual(res["sandbox"]["python"]["audit_hook_why"], "switched off by KERNELPRO_SANDBOX")

    def test_baseline_is_not_sandboxed(self):
        rc, res, marker, err = run("baseline")
        self.assertEqual(res["status"], "correct")
        self.assertNotIn("sandbox", res)



class TrustedDirsTest(unittest.TestCase):
    def test_distutils_lookup_imports_nothing(self):
        # setuptools' _distutils_hack answered find_spec("distutils") by importing setuptools (0.15-0.2 s
        # of every evaluation's start, the worker's children included).
        if subprocess.run([sys.executable, "-c", "import _distutils_hack"], stderr=subprocess.DEVNULL).returncode:
            self.skipTest("no setuptools with _distutils_hack here")
        code = ("import sys; sys.path.insert(0, %r); from kernelpro import sandbox; "
                "sandbox._package_dir('distutils'); print(sorted(m for m in sys.modules if 'setuptools' in m))"
                % os.path.join(ROOT, "harness"))
        out = subprocess.run([sys.executable, "-B", "-c", code], stdout=subprocess.PIPE, check=True).stdout
        self.assertEqual(out.decode().strip(), "[]")

if __name__ == "__main__":
    unittest.main()
