"""kernelpro.gpulock and the adapter's use of it (bench --per-gpu): the lock is held while the adapter
uses the GPU and not while the candidate builds; waiting for it is a phase of its own in the timeline
and the result says how long it took. The adapter runs on the stand-in torch (fake_harness/); no torch
or GPU needed."""

import fcntl
import os
import sys
import tempfile
import threading
import time
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "fake_harness"))

import cpu_adapter  # noqa: E402
from kernelpro import gpulock  # noqa: E402
from test_compile_threads import evaluate  # noqa: E402


def free(path):
    """Whether another open file description can take the lock now (then it lets it go)."""
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


class GpuLockTest(unittest.TestCase):
    def setUp(self):
        self.path = os.path.join(tempfile.mkdtemp(prefix="kp-gpulock-"), "gpu-locks", "0.lock")

    def test_no_path_is_a_no_op(self):
        g = gpulock.GpuLock(None)
        g.acquire()
        g.release()
        self.assertIsNone(g.fd)
        self.assertEqual(g.waited_s, 0.0)

    def test_one_holder_at_a_time(self):
        a, b = gpulock.GpuLock(self.path), gpulock.GpuLock(self.path)
        a.acquire()
        a.acquire()  # held already: nothing to wait for
        self.assertFalse(free(self.path))
        order = []

        def second():
            b.acquire()
            order.append("b")

        t = threading.Thread(target=second)
        t.start()
        time.sleep(0.2)
        order.append("a releases")
        a.release()
        t.join(10)
        self.assertEqual(order, ["a releases", "b"])
        self.assertGreater(b.waited_s, 0.1)
        b.release()
        self.assertTrue(free(self.path))


class AdapterLockTest(unittest.TestCase):
    def test_held_for_the_gpu_not_for_the_build(self):
        path = os.path.join(tempfile.mkdtemp(prefix="kp-gpulock-"), "gpu-locks", "0.lock")
        os.makedirs(os.path.dirname(path))
        holder = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(holder, fcntl.LOCK_EX)  # another evaluation on this GPU, for 0.3 s
        threading.Timer(0.3, lambda: os.close(holder)).start()
        seen = {}
        original = cpu_adapter.CpuAdapter.load_candidate

        def load_candidate(ad):
            seen["free_while_building"] = free(path)
            return original(ad)

        with mock.patch.object(cpu_adapter.CpuAdapter, "load_candidate", load_candidate):
            res, _ = evaluate(self, gpu_lock=path)
        self.assertEqual(res["status"], "correct", res)
        self.assertTrue(seen["free_while_building"])
        self.assertGreater(res["gpu_wait_s"], 0.2)
        names = [item.rsplit(" ", 1)[0] for item in res["timeline"].split(", ")]
        self.assertEqual(names[:3], ["start", "build", "gpu_wait"])
        self.assertEqual(names.count("gpu_wait"), 2)  # before the reference's probe, after the build
        self.assertLess(names.index("gpu_wait", 3), names.index("correctness"))

    def test_no_lock_no_wait(self):
        res, _ = evaluate(self)
        self.assertNotIn("gpu_wait_s", res)
        self.assertNotIn("gpu_wait", res["timeline"])


if __name__ == "__main__":
    unittest.main()
