"""Timing on inputs the candidate has not seen (issue 28): before every timed call of the candidate its
input buffers get new values, at the same addresses: from a set per call drawn before the timing
loop when they fit the budget (predrawn), drawn just before the call over it (fresh), copied from
timing.ROTATE_CPU sets when drawn on the CPU (rotated); the outputs of timing.CHECKED_CALLS timed
calls are compared with the reference's (timed_output). A content-keyed cache (the H200's 35.9x
"speedup": a fingerprint of the inputs, a copy when it matches) never hits in a timed call, a
pointer-keyed one that answers regardless is refused. The timing phase on a stand-in GPU; no torch needed."""

import contextlib
import os
import sys
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))

from kernelpro import timing  # noqa: E402
from kernelpro.util import REFUSE, Stop  # noqa: E402


class Event:
    def __init__(self, enable_timing=False):
        pass


class Box:
    """A one-number tensor: the buffer keeps its identity when refilled (copy_), as a tensor its address."""

    size = 4  # bytes, for the predraw budget

    def __init__(self, v):
        self.v, self.shape = v, ()

    def numel(self):
        return 1

    def element_size(self):
        return self.size

    def copy_(self, other):
        self.v = other.v

    def __eq__(self, other):
        return isinstance(other, Box) and other.v == self.v

    def __repr__(self):
        return "Box(%r)" % self.v


class Adapter(timing.Timing):
    """What the timing phase uses, with inputs that are one number per seed."""

    def __init__(self, cand, on_cpu=False, trials=20, free=80 << 30):
        def mem_get_info(dev):
            if isinstance(free, Exception):
                raise free
            return free, 141 << 30
        self.torch = types.SimpleNamespace(no_grad=contextlib.nullcontext, int64="int64", Tensor=Box,
                                           empty=lambda *a, **k: types.SimpleNamespace(fill_=lambda v: None),
                                           cuda=types.SimpleNamespace(empty_cache=lambda: None,
                                                                      mem_get_info=mem_get_info))
        self.cfg = {"warmup": 2, "trials": trials, "discard_first": 1, "l2_flush": True, "seed": 42}
        self.dev = "cuda:0"
        self.result, self.flags, self.checks_off = {}, [], set()
        self.saved = {"torch.cuda.Event": Event}
        self._record = self._sync = lambda *a: None
        self._perf = lambda: 0.0
        self._elapsed = lambda a, b: 1.0
        self.draws = []
        self.looping = False  # inside the candidate's timing loop (time_model with a refill)
        self.draws_in_loop = 0

        def make(seed):
            self.draws.append(seed)
            self.draws_in_loop += self.looping
            return [Box(float(seed % 100003))]
        self.inputs = types.SimpleNamespace(make=make, on_cpu=on_cpu)
        self.cand = cand
        self.ref = lambda x: Box(2.0 * x.v)
        self.ref_mutates = False

    def private(self, x):
        return x

    def time_model(self, model, args, who, refill=None, check_at=()):
        self.looping = refill is not None
        try:
            return super().time_model(model, args, who, refill, check_at)
        finally:
            self.looping = False

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
    """kb_content_cache.py's idea on numbers: a fingerprint of the input's value; a hit returns the
    stored result without computing. `stale`: key on the buffer (its identity, an address) instead,
    so refilled buffers get the old answer."""

    def __init__(self, stale=False):
        self.key, self.value, self.hits, self.misses, self.stale = None, None, 0, 0, stale
        self.timed = False  # counting only while timed calls run
        self.seen = []  # the input of each timed call

    def __call__(self, x):
        key = id(x) if self.stale else x.v
        if self.timed:
            self.seen.append(x.v)
        if self.key == key:
            self.hits += self.timed
            return self.value
        self.misses += self.timed
        self.key, self.value = key, Box(2.0 * x.v)
        return self.value


def run(ad):
    try:
        ad.timing()
        return "correct"
    except Stop as s:
        return s.status


class TimingInputsTest(unittest.TestCase):
    def timed_only(self, ad, cache):
        """Counts the cache's hits in the timed calls only (not the warm-ups or host-timed calls)."""
        orig = ad._record

        def record(ev):
            cache.timed = not cache.timed  # start event on, end event off
            return orig(ev)
        ad._record = record
        ad.host_trials = lambda fn, n=0: 0.0  # host-timed calls reuse the buffers as they are (test_host_time)

    def test_predrawn_inputs(self):
        """Within the budget every timed call's set is drawn before the loop: no get_inputs() between
        two timed calls (the host work that let the H200's clocks drop), each call inputs of its own."""
        cache = ContentCache()
        ad = Adapter(cache)
        self.timed_only(ad, cache)
        self.assertEqual(run(ad), "correct", ad.flags)
        how = ad.result["timing_inputs"]
        self.assertEqual((how["mode"], how["sets"]), ("predrawn", 21), how)
        self.assertNotIn("why", how)
        self.assertEqual(ad.draws_in_loop, 0)  # nothing drawn inside the timing loop
        self.assertEqual(cache.hits, 0)  # the cache never pays in a timed call
        self.assertEqual(cache.misses, 21)
        self.assertEqual(len(cache.seen), 21)
        self.assertEqual(len(set(cache.seen)), 21)  # every timed call saw inputs of its own
        self.assertEqual(len(how["checked"]), timing.CHECKED_CALLS)
        # the timing's own set, then one draw per timed call of the candidate, each from its own seed
        self.assertEqual(ad.draws[1:22], [timing.timing_seed(42, k) for k in range(21)])

    def test_over_the_budget_each_call_is_drawn_fresh(self):
        for free, why in ((4 * 20, "over the budget"), (RuntimeError("no device"), "free device memory unknown")):
            cache = ContentCache()
            ad = Adapter(cache, free=free)  # 21 sets of 4 bytes: over a quarter of 80 bytes
            self.timed_only(ad, cache)
            self.assertEqual(run(ad), "correct", ad.flags)
            how = ad.result["timing_inputs"]
            self.assertEqual((how["mode"], how["sets"]), ("fresh", None), how)
            self.assertIn(why, how["why"])
            self.assertEqual(ad.draws_in_loop, 21)  # one draw before each timed call
            self.assertEqual(cache.hits, 0)
            self.assertEqual(len(set(cache.seen)), 21)
            self.assertEqual(ad.draws[1:22], [timing.timing_seed(42, k) for k in range(21)])

    def test_the_two_gib_cap(self):
        ad = Adapter(lambda x: Box(2.0 * x.v), free=1 << 40)
        sets, why = ad.predraw(42, timing.PREDRAW_MAX_BYTES // 21 + 1, 21)
        self.assertIsNone(sets)
        self.assertIn("over the budget of 8192 MiB", why)
        sets, why = ad.predraw(42, timing.PREDRAW_MAX_BYTES // 21, 21)
        self.assertEqual((len(sets), why), (21, None))

    def test_a_predraw_that_fails_falls_back_to_fresh(self):
        ad = Adapter(lambda x: Box(2.0 * x.v))
        make = ad.inputs.make

        def oom_once(seed):
            if len(ad.draws) == 5 and not ad.looping:
                ad.draws.append(None)
                raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
            return make(seed)
        ad.inputs.make = oom_once
        self.assertEqual(run(ad), "correct", ad.flags)
        how = ad.result["timing_inputs"]
        self.assertEqual(how["mode"], "fresh")
        self.assertIn("predrawing failed after 4 sets: CUDA out of memory", how["why"])
        self.assertEqual(ad.draws_in_loop, 21)

    def test_no_timing_no_record(self):
        ad = Adapter(lambda x: Box(2.0 * x.v))
        ad.cfg.update(time_candidate=False, time_reference=False)
        self.assertEqual(run(ad), "correct")
        self.assertNotIn("timing_inputs", ad.result)
        self.assertEqual(len(ad.draws), 1)  # nothing predrawn for a candidate that is not timed

    def test_a_pointer_keyed_cache_is_refused(self):
        ad = Adapter(ContentCache(stale=True))
        self.assertEqual(run(ad), "cheat_suspected")
        self.assertEqual(ad.flags[-1][0], "timed_output")
        self.assertIn("differs from the reference on the same inputs", ad.flags[-1][1])

    def test_cpu_inputs_rotate(self):
        cache = ContentCache()
        ad = Adapter(cache, on_cpu=True)
        self.timed_only(ad, cache)
        self.assertEqual(run(ad), "correct", ad.flags)
        self.assertEqual(ad.result["timing_inputs"], {"mode": "rotated", "sets": timing.ROTATE_CPU,
                                                      "checked": ad.result["timing_inputs"]["checked"]})
        self.assertEqual(cache.hits, 0)  # a one-entry cache misses on every call of a rotation of 3

    def test_an_input_that_cannot_be_written_keeps_its_values(self):
        class Expanded(Box):  # as torch.randn(n).expand(m, n): copy_ into it raises
            def copy_(self, other):
                raise RuntimeError("unsupported operation: more than one element of the written-to tensor "
                                   "refers to a single memory location")
        ad = Adapter(lambda x: Box(2.0 * x.v))
        ad.inputs.make = lambda seed: [Expanded(1.0)]
        self.assertEqual(run(ad), "correct", ad.flags)
        self.assertIn("more than one element", ad.result["timing_inputs"]["kept"]["0"])

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
