"""harness/kp_torch.py without torch: its protocol on bad input and on a python3 without torch."""

import json
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADAPTER = os.path.join(ROOT, "harness", "kp_torch.py")
sys.path.insert(0, os.path.join(ROOT, "harness"))

import kp_torch  # noqa: E402


def run(stdin):
    p = subprocess.run([sys.executable, "-B", ADAPTER], input=stdin.encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    lines = [json.loads(line) for line in p.stdout.decode().splitlines() if line.strip()]
    return p.returncode, lines, p.stderr.decode()


def have_torch():
    try:
        import torch  # noqa: F401
        return True
    except ImportError:
        return False


class ProtocolTest(unittest.TestCase):
    def test_bad_config(self):
        rc, lines, _ = run("not json")
        self.assertEqual(lines[-1]["result"]["status"], "harness_error")
        self.assertIn("bad config", lines[-1]["result"]["message"])

    @unittest.skipIf(have_torch(), "this python3 has torch")
    def test_no_torch_is_a_harness_error(self):
        cand = os.path.join(ROOT, "examples", "kernelbench", "swish_scale_fast.py")
        task = os.path.join(ROOT, "examples", "kernelbench", "swish_scale.py")
        rc, lines, err = run(json.dumps({"mode": "eval", "task": task, "candidate": cand, "atol": 1e-4,
                                         "rtol": 1e-4, "limits": {"build": 60, "check": 60, "timing": 60},
                                         "build": {"nvcc": "/bin/false", "nvcc_version": "x", "arch": "sm_90",
                                                   "cache": "/tmp/kp-pytest-cache"}}))
        self.assertEqual(rc, 0)
        self.assertEqual(lines[0]["phase"], "build")
        res = lines[-1]["result"]
        self.assertEqual(res["status"], "harness_error")
        self.assertIn("cannot import torch", res["message"])

    def test_unravel(self):
        self.assertEqual(kp_torch._unravel(0, (2, 3)), [0, 0])
        self.assertEqual(kp_torch._unravel(5, (2, 3)), [1, 2])
        self.assertEqual(kp_torch._unravel(7, (2, 2, 2)), [1, 1, 1])

    def test_first_line(self):
        self.assertEqual(kp_torch._first_line(RuntimeError("a\nb")), "a")
        self.assertEqual(kp_torch._first_line(RuntimeError("")), "RuntimeError")


if __name__ == "__main__":
    unittest.main()
