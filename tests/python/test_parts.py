"""Where the correctness phase's time goes (kernelpro.util.Parts, the result's correctness_parts): parts
clocked exclusively, so they never sum to more than the phase; reported on every verdict that reached
the phase, failed ones too; nothing outside the phase counts. The adapter's own run() on the stand-in
torch (fake_harness/cpu_adapter.py); no torch or GPU needed."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "fake_harness"))

import cpu_adapter  # noqa: E402
from kernelpro import util  # noqa: E402
from test_compile_threads import evaluate  # noqa: E402

SLOW = cpu_adapter.CANDIDATE.replace("        return self.k * x", """\
        import time
        time.sleep(0.2)
        return self.k * x""")
WRONG = cpu_adapter.CANDIDATE.replace("return self.k * x", "return self.k * x + 1")


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class PartsTest(unittest.TestCase):
    def test_nested_parts_are_exclusive(self):
        c = Clock()
        p = util.Parts(clock=c)
        with p.part("candidate"):
            c.now += 1.0
            with p.part("poison"):
                c.now += 0.5
            c.now += 2.0
        with p.part("candidate"):
            c.now += 0.25
        rep = p.report(5.0)
        self.assertEqual(list(rep), ["candidate", "poison", "other"])
        self.assertEqual(rep["candidate"], {"seconds": 3.25, "calls": 2, "longest": 3.0})
        self.assertEqual(rep["poison"], {"seconds": 0.5, "calls": 1, "longest": 0.5})
        self.assertEqual(rep["other"], {"seconds": 1.25, "calls": 0, "longest": 0.0})
        self.assertEqual(sum(v["seconds"] for v in rep.values()), 5.0)

    def test_a_part_left_by_an_exception_is_clocked(self):
        c = Clock()
        p = util.Parts(clock=c)
        with self.assertRaises(ValueError):
            with p.part("compare"):
                c.now += 2.0
                raise ValueError("x")
        self.assertEqual(p.report(2.0)["compare"]["seconds"], 2.0)
        self.assertEqual(p.report(2.0)["other"]["seconds"], 0.0)
        self.assertEqual(p.report(1.0)["other"]["seconds"], 0.0)  # never negative


def phase_seconds(res, name):
    for item in res["timeline"].split(", "):
        k, v = item.rsplit(" ", 1)
        if k == name:
            return float(v)
    raise AssertionError("no %s in %r" % (name, res["timeline"]))


class AdapterPartsTest(unittest.TestCase):
    def check_sum(self, res):
        parts = res["correctness_parts"]
        total = sum(p["seconds"] for p in parts.values())
        # The timeline rounds to 0.01 s; the parts are the phase's seconds, "other" included.
        self.assertLessEqual(total, phase_seconds(res, "correctness") + 0.005 + 1e-9, res)
        self.assertGreaterEqual(total, phase_seconds(res, "correctness") - 0.005 - 1e-9, res)
        for name, p in parts.items():
            self.assertGreaterEqual(p["seconds"], 0.0, name)
            self.assertLessEqual(p["longest"], p["seconds"] + 1e-12, name)
        return parts

    def test_correct_verdict_has_the_parts(self):
        res, _ = evaluate(self, candidate=SLOW, with_compile=False)
        self.assertEqual(res["status"], "correct", res)
        parts = self.check_sum(res)
        self.assertEqual(list(parts)[-1], "other")
        for name in ("inputs", "reference", "candidate", "triton"):
            self.assertIn(name, parts)
        # The stand-in's correctness calls the candidate once; timing's calls are not the phase's.
        self.assertEqual(parts["candidate"]["calls"], 1)
        self.assertGreaterEqual(parts["candidate"]["seconds"], 0.2)
        self.assertGreaterEqual(phase_seconds(res, "correctness"), 0.2)

    def test_failed_verdict_has_the_parts(self):
        res, _ = evaluate(self, candidate=WRONG, with_compile=False)
        self.assertEqual(res["status"], "wrong_output", res)
        parts = self.check_sum(res)
        self.assertEqual(parts["candidate"]["calls"], 1)
        self.assertIn("triton", parts)  # a wrong output still has its Triton IR read

    def test_no_parts_before_the_phase(self):
        res, _ = evaluate(self, with_compile=False, build_only=True)
        self.assertEqual(res["status"], "compiled", res)
        self.assertNotIn("correctness_parts", res)


if __name__ == "__main__":
    unittest.main()
