"""Lazy builds (issue 28): a candidate whose forward() builds its extension at the first call is called
once before the sandbox's lock, in a phase of its own ("lazy_build"), its seconds counted as build time;
a build that fails there is a compile_error with the reason, not a runtime error or a process_spawn.
The adapter's own run() on the stand-in torch of fake_harness/cpu_adapter.py; no torch or GPU."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fake_harness"))
sys.path.insert(0, HERE)

import cpu_adapter  # noqa: E402
from test_compile_threads import evaluate  # noqa: E402

LAZY = '''
import kp_torch

def load_inline(name, **kw):
    kp_torch.LAST_ADAPTER.result.setdefault("test_phases", []).append(kp_torch.LAST_ADAPTER.cur_phase)
    if kw.get("fail"):
        raise RuntimeError("Error building extension 'lazy_ext': nvcc: error: bad flag")
    return object()


class ModelNew:
    def __init__(self, k):
        self.k = k
        self.ext = None

    def to(self, device=None, dtype=None):
        return self

    def __call__(self, x):
        return self.forward(x)

    def forward(self, x):
        if self.ext is None:
            self.ext = load_inline(name="lazy_ext", fail=FAIL)
        return self.k * x

FAIL = False
'''


class LazyBuildTest(unittest.TestCase):
    def setUp(self):
        import kp_torch
        orig = kp_torch.Adapter.warm_lazy_build

        def spy(ad, src):  # lets the candidate see which phase its build ran in
            kp_torch.LAST_ADAPTER = ad
            return orig(ad, src)
        cpu_adapter.CpuAdapter.warm_lazy_build = spy
        self.addCleanup(delattr, cpu_adapter.CpuAdapter, "warm_lazy_build")

    def test_built_before_the_lock_and_counted_as_build_time(self):
        res, _ = evaluate(self, candidate=LAZY, with_compile=False)
        self.assertEqual(res["status"], "correct", res)
        self.assertIn("lazy_build", res["timeline"])
        self.assertGreaterEqual(res["lazy_build_s"], 0.0)
        self.assertGreaterEqual(res["build_s"], res["lazy_build_s"])
        self.assertEqual(res["test_phases"], ["lazy_build"])  # once, and before "correctness" (the lock)

    def test_failed_build_is_a_compile_error(self):
        res, _ = evaluate(self, candidate=LAZY.replace("FAIL = False", "FAIL = True"), with_compile=False)
        self.assertEqual(res["status"], "compile_error", res)
        self.assertIn("Error building extension 'lazy_ext'", res["message"])
        self.assertIn("line 24: self.ext = load_inline(", res["message"])
        self.assertEqual(res["phase"], "lazy_build")

    def test_a_candidate_built_at_import_is_not_called_early(self):
        res, _ = evaluate(self, with_compile=False)
        self.assertEqual(res["status"], "correct", res)
        self.assertNotIn("lazy_build", res["timeline"])
        self.assertNotIn("lazy_build_s", res)


if __name__ == "__main__":
    unittest.main()
