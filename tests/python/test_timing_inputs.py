"""Timing on inputs the candidate has not seen (issue 28): every timed call gets inputs of its own
(rotated among timing.ROTATE_CPU sets when drawn on the CPU), and the outputs of timing.CHECKED_CALLS
timed calls are compared with the reference's (timed_output). A content-keyed cache (the H200's
35.9x "speedup": a fingerprint of the inputs, a copy when it matches) never hits, and one that answers
from its cache regardless is refused. The timing phase on a stand-in GPU; no torch needed."""

import contextlib
import os
import sys
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness", "python"))

from kernelpro import timing  # noqa: E402
from kernelpro.util import REFUSE, Stop  # noqa: E402


class Event:
    def __init__(self, enable_timing=False):
        pass


class Adapter(timing.Timing):
    """What the timing phase uses, with inputs that are one number per seed."""

    def __init__(self, cand, on_cpu=False, trials=20):
        self.torch = types.SimpleNamespace(no_grad=contextlib.nullcontext, int64="int64",
                                           empty=lambda *a, **k: types.SimpleNamespace(fill_=lambda v: None),
                                           cuda=types.SimpleNamespace(empty_cache=lambda: None))
        self.cfg = {"warmup": 2, "trials": trials, "discard_first": 1, "l2_flush": True, "seed": 42}
        self.dev = "cuda:0"
        self.result, self.flags, self.checks_off = {}, [], set()
        self.saved = {"torch.cuda.Event": Event}
        self._record = self._sync = lambda *a: None
        self._perf = lambda: 0.0
        self._elapsed = lambda a, b: 1.0
        self.draws = []

        def make(seed):
            self.draws.append(seed)
            return [float(seed % 100003)]
        self.inputs = types.SimpleNamespace(make=make, on_cpu=on_cpu)
        self.cand = cand
        self.ref = lambda x: 2.0 * x
        self.ref_mutates = False

    def private(self, x):
        return list(x)

    def outputs(self, out, who):
        return [out]

    def compare(self, ref_outs, outs, trial, where):
        ok = ref_outs == outs
        return ok, "" if ok else "got %r, expected %r" % (outs, ref_outs), None, None

    def check_intact(self, when):
        pass

    def check_host_time(self, event_ms, args):
        pass

    def flag(self, check, severity, message):
        self.flags.append((check, message))
        if severity == REFUSE:
            raise Stop("cheat_suspected", message)

    def runtime_stop(self, what, e):
        return Stop("runtime_error", "%s: %s" % (what, e))


class ContentCache:
    """kb_content_cache.py's idea on numbers: a fingerprint of the input; a hit returns the stored
    result without computing. `stale`: answer from the cache whatever the fingerprint says."""

    def __init__(self, stale=False):
        self.key, self.value, self.hits, self.misses, self.stale = None, None, 0, 0, stale

    def __call__(self, x):
        if self.key is not None and (self.stale or self.key == x):
            self.hits += 1
            return self.value
        self.misses += 1
        self.key, self.value = x, 2.0 * x
        return self.value


def run(ad):
    try:
        ad.timing()
        return "correct"
    except Stop as s:
        return s.status


class TimingInputsTest(unittest.TestCase):
    def test_every_timed_call_gets_fresh_inputs(self):
        cache = ContentCache()
        ad = Adapter(cache)
        self.assertEqual(run(ad), "correct", ad.flags)
        self.assertEqual(cache.hits, 0)  # the cache never pays
        self.assertEqual(ad.result["timing_inputs"]["mode"], "fresh")
        self.assertEqual(len(ad.result["timing_inputs"]["checked"]), timing.CHECKED_CALLS)
        # the first draw (host_time's inputs), the candidate's warm-ups and timed calls, the reference's
        self.assertEqual(len(set(ad.draws[1:1 + 2 + 21])), 2 + 21)

    def test_a_cache_that_answers_regardless_is_refused(self):
        ad = Adapter(ContentCache(stale=True))
        self.assertEqual(run(ad), "cheat_suspected")
        self.assertEqual(ad.flags[-1][0], "timed_output")
        self.assertIn("differs from the reference on the same inputs", ad.flags[-1][1])

    def test_cpu_inputs_rotate(self):
        cache = ContentCache()
        ad = Adapter(cache, on_cpu=True)
        self.assertEqual(run(ad), "correct", ad.flags)
        self.assertEqual(ad.result["timing_inputs"], {"mode": "rotated", "sets": timing.ROTATE_CPU,
                                                      "checked": ad.result["timing_inputs"]["checked"]})
        self.assertEqual(cache.hits, 0)  # a one-entry cache misses on every call of a rotation of 3

    def test_switched_off(self):
        ad = Adapter(ContentCache(stale=True))
        ad.checks_off = {"timed_output"}
        self.assertEqual(run(ad), "correct")
        self.assertEqual(ad.result["timing_inputs"]["checked"], [])

    def test_seeds_differ_from_each_other(self):
        seeds = {timing.timing_seed(42, k) for k in range(-3, 101)}
        self.assertEqual(len(seeds), 104)


if __name__ == "__main__":
    unittest.main()
