"""A held profiling run (lib/profile/ncu_run.c) starts the PyTorch adapter before its input exists:
with KERNELPRO_PRELOAD=1 the adapter imports what every evaluation imports (torch included, CUDA not
touched) and only then waits for its config on stdin, and its timeline starts when the config has
been read, not at the process start. Without it, nothing is imported before the config arrives.
Runs harness/kp_torch.py on the stand-in torch of tests/python/fake_torch (no GPU, no torch needed),
which marks a file when it is imported ($FAKE_TORCH_IMPORT_MARK)."""

import json
import os
import tempfile
import subprocess
import sys
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADAPTER = os.path.join(ROOT, "harness", "kp_torch.py")
FAKE_TORCH = os.path.join(ROOT, "tests", "python", "fake_torch")
WAIT = 3.0  # how long the process waits for its input, once it is waiting


def start(preload, mark):
    env = dict(os.environ, PYTHONPATH=FAKE_TORCH, PYTHONDONTWRITEBYTECODE="1", FAKE_TORCH_IMPORT_MARK=mark)
    env.pop("KERNELPRO_PRELOAD", None)
    if preload:
        env["KERNELPRO_PRELOAD"] = "1"
    return subprocess.Popen([sys.executable, "-B", ADAPTER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)


def imported(mark, seconds):
    """Whether torch has been imported within `seconds` (the process keeps running)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if os.path.exists(mark):
            return True
        time.sleep(0.05)
    return os.path.exists(mark)


def give(p, cfg):
    out, _ = p.communicate(json.dumps(cfg).encode(), timeout=60)
    results = [json.loads(line)["result"] for line in out.decode().splitlines() if line.startswith('{"result"')]
    return results[-1]


CFG = {"mode": "run", "task": "/nonexistent/task.py", "candidate": None, "seed": 42, "iters": 1}


class PreloadFirst(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.mark = os.path.join(self.tmp.name, "torch-imported")

    def tearDown(self):
        self.tmp.cleanup()

    def test_preload_imports_torch_before_the_input(self):
        p = start(True, self.mark)
        try:
            self.assertTrue(imported(self.mark, 60), "torch was not imported while the run waited for its input")
            time.sleep(WAIT)
            self.assertIsNone(p.poll(), "the adapter did not wait for its input")
            res = give(p, CFG)
        finally:
            p.kill()
            p.wait()
        # the run ends at the missing candidate, with a timeline that starts at the input, not before the wait
        self.assertIn(res["status"], ("harness_error", "runtime_error"), res)
        first = float(res["timeline"].split(",")[0].split()[-1])
        self.assertLess(first, WAIT, "the timeline counts the wait for the input: %s" % res["timeline"])

    def test_without_preload_nothing_before_the_input(self):
        p = start(False, self.mark)
        try:
            self.assertFalse(imported(self.mark, WAIT), "torch was imported before the input came")
            self.assertIsNone(p.poll())
            res = give(p, CFG)
        finally:
            p.kill()
            p.wait()
        self.assertIn(res["status"], ("harness_error", "runtime_error"), res)
        self.assertGreaterEqual(float(res["timeline"].split(",")[0].split()[-1]), WAIT * 0.9)


if __name__ == "__main__":
    unittest.main()
