"""kernelpro.timing's host_time check on a simulated GPU (no torch): host time with a full device sync
minus CUDA-event time, over a call that does nothing. Work deferred to another stream must stay
refused; an honest ~0.03 ms kernel must not be refused because the host was slower while its calls
were measured (issue 17's CuTe example was, on the H200: 0.024 ms hidden against a 0.02 ms bound)."""

import contextlib
import os
import sys
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))

from kernelpro import timing  # noqa: E402
from kernelpro.util import REFUSE, Stop  # noqa: E402

LAUNCH_MS = 0.003  # host cost of one enqueue
SYNC_MS = 0.012    # host cost of a device sync after the GPU is done


class Gpu:
    """One device with the main stream and a side stream; host time in ms. `slow_syncs`: the first n
    syncs take `slow_ms` longer (the host busy elsewhere for a while)."""

    def __init__(self, slow_syncs=0, slow_ms=0.0):
        self.h = 0.0
        self.main = 0.0  # when the main stream's queued work ends
        self.side = 0.0
        self.syncs = 0
        self.slow_syncs, self.slow_ms = slow_syncs, slow_ms

    def perf(self):
        return self.h / 1e3

    def record(self, ev):
        self.h += LAUNCH_MS
        ev.t = max(self.h, self.main)  # the GPU writes the stamp when the stream reaches it
        self.main = ev.t

    def sync(self, dev=None):
        self.syncs += 1
        self.h = max(self.h, self.main, self.side) + SYNC_MS
        if self.syncs <= self.slow_syncs:
            self.h += self.slow_ms

    def launch(self, stream, ms):
        self.h += LAUNCH_MS
        start = max(self.h, getattr(self, stream))
        setattr(self, stream, start + ms)


class Event:
    def __init__(self, enable_timing=False):
        self.t = None


class Adapter(timing.Timing):
    """The timing phase's needs, on Gpu."""

    def __init__(self, gpu, cand):
        self.gpu = gpu
        self.torch = types.SimpleNamespace(no_grad=contextlib.nullcontext, int64="int64", Tensor=type("T", (), {}),
                                           empty=lambda *a, **k: types.SimpleNamespace(fill_=lambda v: None),
                                           cuda=types.SimpleNamespace(empty_cache=lambda: None))
        self.cfg = {"warmup": 1, "trials": 20, "discard_first": 1, "l2_flush": True, "time_reference": False}
        self.dev = "cuda:0"
        self.result, self.flags = {}, []
        self.saved = {"torch.cuda.Event": Event}
        self._record, self._sync, self._perf = gpu.record, gpu.sync, gpu.perf
        self._elapsed = lambda a, b: b.t - a.t
        self.inputs = types.SimpleNamespace(make=lambda seed: [1.0], on_cpu=False)
        self.checks_off = {"timed_output"}  # tests/python/test_timing_inputs.py holds that check
        self.cand = cand

    def private(self, x):
        return x

    def check_intact(self, when):
        pass

    def flag(self, check, severity, message):
        self.flags.append((check, message))
        if severity == REFUSE:
            raise Stop("cheat_suspected", message)

    def runtime_stop(self, what, e):
        return Stop("runtime_error", "%s: %s" % (what, e))


def honest(gpu, kernel_ms=0.037, python_ms=0.005):
    """Python work, then the kernel on the current stream: the events see all of it."""
    def forward(x):
        gpu.h += python_ms
        gpu.launch("main", kernel_ms)
        return x
    return forward


def side_stream(gpu, kernel_ms=0.03, python_ms=0.02):
    """tests/adversarial/kernelbench/kb_side_stream.py: the work on a stream the events do not see."""
    def forward(x):
        gpu.h += python_ms
        gpu.launch("side", kernel_ms)
        return x
    return forward


def run(gpu, cand):
    ad = Adapter(gpu, cand)
    try:
        ad.timing()
        return "correct", ad
    except Stop as s:
        return s.status, ad


class HostTimeTest(unittest.TestCase):
    def test_honest_small_kernel_passes(self):
        gpu = Gpu()
        status, ad = run(gpu, honest(gpu))
        self.assertEqual(status, "correct", ad.flags)
        self.assertEqual(ad.result["host_time"]["calls"], timing.HOST_TRIALS)  # no second measurement needed
        self.assertLess(ad.result["host_time"]["hidden_ms"], 0.005)

    def test_slow_host_while_the_candidate_was_measured(self):
        # The host is slower for the first 103 syncs: the candidate's timing and its host-timed calls
        # (3 syncs a call). Its 20 calls measured apart from the 20 empty ones read 0.03 ms hidden over a
        # 0.0225 ms bound and were refused; paired, the slowness falls on both sides of each pair.
        gpu = Gpu(slow_syncs=103, slow_ms=0.03)
        status, ad = run(gpu, honest(gpu))
        self.assertEqual(status, "correct", ad.flags)

    def test_slow_host_during_the_first_measurement_is_measured_again(self):
        # Slow on the sync that ends each of the candidate's calls (the 3rd of a pair's 6) during the first
        # measurement only: that one is over the bound, the second, longer one is not.
        class Alternating(Gpu):
            def sync(self, dev=None):
                super().sync(dev)
                if 103 < self.syncs <= 103 + 6 * timing.HOST_TRIALS and self.syncs % 6 == 4:
                    self.h += 0.03
        gpu = Alternating()
        status, ad = run(gpu, honest(gpu))
        self.assertEqual(status, "correct", ad.flags)
        self.assertEqual(ad.result["host_time"]["calls"], timing.HOST_CONFIRM)

    def test_side_stream_refused(self):
        for kernel_ms in (0.03, 0.5, 5.0):
            gpu = Gpu()
            status, ad = run(gpu, side_stream(gpu, kernel_ms))
            self.assertEqual(status, "cheat_suspected", kernel_ms)
            check, message = ad.flags[-1]
            self.assertEqual(check, "host_time")
            self.assertIn("measured twice", message)
            self.assertEqual(ad.result["host_time"]["calls"], timing.HOST_CONFIRM)

    def test_side_stream_refused_on_a_noisy_host(self):
        gpu = Gpu(slow_syncs=1000, slow_ms=0.03)
        status, ad = run(gpu, side_stream(gpu, 0.03))
        self.assertEqual(status, "cheat_suspected")


if __name__ == "__main__":
    unittest.main()
