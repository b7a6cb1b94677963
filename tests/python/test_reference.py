"""kp_torch.Adapter.load_reference without torch (issue 21, medium 13): a task whose reference does not
load, cannot be built or fails on its first inputs is the task's fault, found before the candidate is
loaded, and ends as harness_error (kernelpro: an error, exit 3), never as the candidate's runtime_error.
A stand-in for the few torch calls the reference's set-up makes keeps this on a CPU; tests/gpu/g2101
runs the same task through `kernelpro eval` with torch."""

import contextlib
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))

import kp_torch  # noqa: E402


class FakeTorch:
    """The calls load_reference makes: seeds, no_grad, the Tensor type."""

    class Tensor:
        pass

    class cuda:
        @staticmethod
        def manual_seed(seed):
            pass

    @staticmethod
    def manual_seed(seed):
        pass

    @staticmethod
    def no_grad():
        return contextlib.nullcontext()


TASK = """
class Model:
    def __init__(self, k):
        %(init)s
        self.k = k

    def to(self, device=None, dtype=None):
        return self

    def __call__(self, x):
        %(forward)s
        return x * self.k


def get_inputs():
    return [2.0]


def get_init_inputs():
    return [3.0]
"""


def adapter(init="pass", forward="pass", broken_module=False):
    d = tempfile.mkdtemp(prefix="kp-ref-")
    path = os.path.join(d, "task.py")
    with open(path, "w") as f:
        f.write("raise ImportError('no such module')\n" if broken_module else TASK % {"init": init, "forward": forward})
    ad = kp_torch.Adapter({"task": path, "seed": 42}, chan=None)
    ad.torch = FakeTorch
    ad.dev = "cpu"
    ad.dtype = None
    ad._sync = lambda dev: None
    return ad


class LoadReferenceTest(unittest.TestCase):
    def stop(self, ad, probe=True):
        with self.assertRaises(kp_torch.Stop) as cm:
            ad.load_reference(probe=probe)
        return cm.exception

    def test_reference_failing_on_its_inputs_is_a_harness_error(self):
        e = self.stop(adapter(forward="raise ValueError('shapes do not match')"))
        self.assertEqual(e.status, "harness_error")
        self.assertIn("the task's reference fails on its first inputs (before the candidate was loaded): "
                      "ValueError: shapes do not match", e.message)

    def test_reference_that_cannot_be_built(self):
        e = self.stop(adapter(init="raise RuntimeError('bad weights')"))
        self.assertEqual(e.status, "harness_error")
        self.assertIn("cannot be built", e.message)

    def test_reference_module_that_does_not_load(self):
        e = self.stop(adapter(broken_module=True))
        self.assertEqual(e.status, "harness_error")
        self.assertIn("does not load", e.message)

    def test_a_sound_reference_loads(self):
        ad = adapter()
        ad.load_reference(probe=True)
        self.assertEqual(ad.ref(2.0), 6.0)

    def test_baselines_skip_the_probe(self):
        adapter(forward="raise ValueError('x')").load_reference(probe=False)


if __name__ == "__main__":
    unittest.main()
