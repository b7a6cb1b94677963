"""An honest candidate evaluated with --vs-compile is not refused by extra_threads for the threads
torch.compile(reference) leaves running (tests/gpu/g1301 on the H200: "2 Python thread(s) running at
the end", inductor's worker pool). The adapter compiles the reference before the candidate is loaded
(compile_reference) and takes the thread count the candidate is held to after that compile.

The adapter's own run() on a stand-in torch (fake_harness/cpu_adapter.py) whose compile() starts
threads that stay, as inductor's does; no torch or GPU needed."""

import os
import sys
import tempfile
import threading
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fake_harness"))

import cpu_adapter  # noqa: E402
from kernelpro.util import Stop  # noqa: E402

# A candidate that leaves a thread of its own running: extra_threads must still refuse it.
THREADED = cpu_adapter.CANDIDATE.replace("        return self.k * x", """\
        import threading
        if not getattr(self, "started", False):
            self.started = True
            threading.Thread(target=threading.Event().wait, args=(30,), daemon=True).start()
        return self.k * x""")


class Chan:
    def __init__(self):
        self.sent = []

    def send(self, obj):
        self.sent.append(obj)


def evaluate(test, candidate=cpu_adapter.CANDIDATE, **cfg):
    """One evaluation as kp_torch.main runs it (less the sandbox and os._exit): the result document."""
    d = tempfile.mkdtemp(prefix="kp-compile-threads-")
    paths = {}
    for name, text in (("task", cpu_adapter.TASK), ("candidate", candidate)):
        paths[name] = os.path.join(d, name + ".py")
        with open(paths[name], "w") as f:
            f.write(text)
    conf = {"mode": "eval", "seed": 42, "precision": "f32", "atol": 1e-4, "rtol": 1e-4, "with_compile": True,
            "limits": {}, "build": {"nvcc": "/bin/false", "cache": d}}
    conf.update(paths)
    conf.update(cfg)
    t = cpu_adapter.fake_torch(conf)
    test.addCleanup(t.release)
    chan = Chan()
    with mock.patch.dict(sys.modules, {"torch": t}), mock.patch.dict(os.environ):
        # As lib/eval/drivers.c starts every harness: where Triton is installed (the GPU machine),
        # its precision check reads this.
        os.environ["TRITON_F32_DEFAULT"] = "ieee"
        ad = cpu_adapter.CpuAdapter(conf, chan)
        try:
            ad.run()
        except Stop as s:
            ad.finish(s.status, s.message, s.log)
    results = [m["result"] for m in chan.sent if "result" in m]
    test.assertEqual(len(results), 1, chan.sent)
    return results[0], t


class CompileThreadsTest(unittest.TestCase):
    def test_honest_candidate_with_vs_compile_is_correct(self):
        res, t = evaluate(self)
        self.assertEqual(res["status"], "correct", res)
        self.assertEqual([f for f in res["flags"] if f["check"] == "extra_threads"], [])
        self.assertEqual(res["compiled_runtime"]["median_ms"], 1.0)
        # The compiler's threads were running all along, the final check included.
        self.assertEqual(len(t.compile_threads), 2)
        self.assertTrue(all(th.is_alive() for th in t.compile_threads))

    def test_a_failed_compile_leaves_its_threads_to_the_reference_too(self):
        res, t = evaluate(self, compile_fails=True)
        self.assertEqual(res["status"], "correct", res)
        self.assertIn("the stand-in compiler failed", res["compile_error"])
        self.assertNotIn("compiled_runtime", res)
        self.assertTrue(all(th.is_alive() for th in t.compile_threads))

    def test_the_candidates_own_thread_is_still_refused(self):
        before = threading.active_count()
        res, _ = evaluate(self, candidate=THREADED)
        self.assertEqual(res["status"], "cheat_suspected", res)
        self.assertEqual(res["flags"][-1]["check"], "extra_threads")
        self.assertIn("1 Python thread(s) running while running ModelNew", res["message"])
        self.assertGreater(threading.active_count(), before)

    def test_without_vs_compile_nothing_is_compiled(self):
        res, t = evaluate(self, with_compile=False)
        self.assertEqual(res["status"], "correct", res)
        self.assertEqual(t.compile_threads, [])
        self.assertNotIn("compiled_runtime", res)


if __name__ == "__main__":
    unittest.main()
