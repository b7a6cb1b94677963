"""The prepared run (mode "run": a candidate put under ncu for the profile step, after the evaluation
that found it correct) does one compared trial and none of the evaluation's further work: no FLOP
count, no degenerate-output statistics, no repeat_mismatch / input_memo, no scaled trial. An
evaluation (mode "eval") does all of it. kernelpro.correctness.Correctness on a stub torch that only
records which steps ran; no torch or GPU needed (the real steps: test_correctness.py, tests/gpu)."""

import contextlib
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))

from kernelpro.correctness import Correctness  # noqa: E402


class Out:
    dtype = "torch.float32"

    def is_floating_point(self):
        return True

    def numel(self):
        return 4

    def element_size(self):
        return 4


class StubTorch:
    Tensor = Out
    no_grad = contextlib.nullcontext

    def manual_seed(self, s):
        pass

    def randint(self, lo, hi, shape):
        return type("Scalar", (), {"item": lambda self: 7})()


class Inputs:
    def make(self, seed):
        return [Out()]

    def describe(self):
        return "stub"


class Recording(Correctness):
    def __init__(self, mode, trials=5):
        self.torch = StubTorch()
        self.cfg = {"mode": mode, "seed": 42, "correct_trials": trials}
        self.result = {}
        self.checks_off = set()
        self.inputs = Inputs()
        self.steps = []

    def copy(self, args):
        return list(args)

    def trial(self, i, s, x, pristine):
        self.steps.append("trial")
        return [Out()], [Out()], x

    def check_alias(self, outs, against):
        pass

    def check_intact(self, when):
        self.steps.append("intact")

    def count_flops(self, inputs, seed):
        self.steps.append("flops")
        return 0.0

    def compare(self, ref_outs, outs, trial, where, degenerate=False, atols=None):
        self.steps.append("compare+degenerate" if degenerate else "compare")
        return True, "", (0.0, 0.0), None

    def extra_checks(self, seed, pristine, ref_outs, last_outs):
        self.steps.append("extra_checks")

    def scaled_trial(self, seed):
        self.steps.append("scaled_trial")


class PreparedRunTest(unittest.TestCase):
    def test_prepared_run_is_one_compared_trial(self):
        c = Recording("run", trials=5)
        c.correctness()
        self.assertEqual(c.steps, ["trial", "compare", "intact"])
        self.assertEqual(c.result["trials_passed"], 1)
        self.assertNotIn("flops", c.result)

    def test_evaluation_does_every_check(self):
        c = Recording("eval", trials=2)
        c.correctness()
        self.assertEqual(c.steps, ["trial", "flops", "compare+degenerate", "intact", "trial", "compare+degenerate",
                                   "intact", "extra_checks", "scaled_trial"])
        self.assertEqual(c.result["flops"], 0.0)
        self.assertEqual(c.result["trials_passed"], 2)


if __name__ == "__main__":
    unittest.main()
