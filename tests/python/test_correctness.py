"""The adapter's correctness phase (kernelpro/correctness.py, kernelpro/inputs.py) on CPU tensors, where
torch is installed: the trials with their copies made only when a model needs them, the checks that
catch in-place hacks, aliases and stale results, the scaled trial, and the elementwise comparison.
The GPU runs the same code on real candidates (tests/gpu/g0502, g1301)."""

import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))
sys.path.insert(0, os.path.join(ROOT, "harness"))

try:
    import torch
except ImportError:
    torch = None

from kernelpro import correctness, inputs as kin  # noqa: E402
from kernelpro.util import REFUSE, Stop  # noqa: E402

if torch is not None:
    import kp_torch  # noqa: E402

    class CpuAdapter(kp_torch.Adapter):
        """The adapter with the CPU standing in for the GPU: no poisoning, no CUDA timers."""

        def __init__(self, ref, cand, get_inputs, **cfg):
            conf = {"seed": 42, "correct_trials": 5, "atol": 1e-4, "rtol": 1e-4, "precision": "f32"}
            conf.update(cfg)
            super().__init__(conf, chan=None)
            self.torch, self.dev, self.dtype = torch, torch.device("cpu"), torch.float32
            self.ref, self.cand = ref, cand
            self.inputs = kin.InputMaker(torch, self.dev, self.dtype, get_inputs, self.set_seed)

        def set_seed(self, seed):
            torch.manual_seed(seed)

        def _sync(self, dev):
            pass

        def poison(self, byte):
            pass

        def check_intact(self, when):
            pass


def swish_inputs():
    return [torch.randn(64, 128)]


class Swish(torch.nn.Module if torch else object):
    def forward(self, x):
        return 1.5 * x * torch.sigmoid(x)


@unittest.skipIf(torch is None, "no torch on this machine")
class TrialsTest(unittest.TestCase):
    def run_checks(self, cand, ref=None, get_inputs=swish_inputs, **cfg):
        ad = CpuAdapter(ref or Swish(), cand, get_inputs, **cfg)
        try:
            ad.correctness()
        except Stop as s:
            return ad, s
        return ad, None

    def count_clones(self):
        calls = []
        real = kin.clone

        def counting(t, xs):
            calls.append(len(xs))
            return real(t, xs)

        kin.clone = counting
        self.addCleanup(setattr, kin, "clone", real)
        return calls

    def test_honest_candidate_one_copy_per_trial(self):
        calls = self.count_clones()
        ad, stop = self.run_checks(Swish())
        self.assertIsNone(stop)
        self.assertEqual(ad.result["trials_passed"], 5)
        self.assertEqual(ad.result["scaled_trial"]["status"], "passed")
        self.assertEqual(len(calls), 5)  # the pristine copy of each trial; nothing else
        self.assertFalse(ad.ref_mutates or ad.ref_aliases)
        self.assertEqual(ad.result["inputs"], "gpu")  # the default device (here the stand-in) made them

    def test_candidate_writing_its_inputs_is_refused(self):
        class ZeroInput(torch.nn.Module):
            def forward(self, x):
                y = 1.5 * x * torch.sigmoid(x)
                x.zero_()
                return y

        _, stop = self.run_checks(ZeroInput())
        self.assertEqual((stop.status, stop.message.split("'")[1]), ("cheat_suspected", "inputs_modified"))

    def test_candidate_writing_inputs_caught_when_it_runs_first(self):
        calls = {"n": 0}

        class ZeroSecond(torch.nn.Module):  # honest in trial 0 (reference first), cheats in trial 1
            def forward(self, x):
                calls["n"] += 1
                y = 1.5 * x * torch.sigmoid(x)
                if calls["n"] == 2:
                    x.zero_()
                return y

        ad, stop = self.run_checks(ZeroSecond())
        self.assertEqual(stop.status, "cheat_suspected")
        self.assertIn("inputs_modified", stop.message)
        self.assertEqual(ad.result["trials_run"], 2)

    def test_in_place_reference_lets_the_candidate_work_in_place(self):
        class ReluInPlace(torch.nn.Module):
            def forward(self, x):
                return x.relu_()

        ad, stop = self.run_checks(ReluInPlace(), ref=ReluInPlace())
        self.assertIsNone(stop, stop and stop.message)
        self.assertTrue(ad.ref_mutates and ad.ref_aliases)

    def test_returning_a_cached_output_is_refused(self):
        class Cached(torch.nn.Module):
            out = None

            def forward(self, x):
                if self.out is None:
                    self.out = torch.empty_like(x)
                self.out.copy_(1.5 * x * torch.sigmoid(x))
                return self.out

        _, stop = self.run_checks(Cached())
        self.assertEqual(stop.status, "cheat_suspected")
        self.assertIn("output_alias", stop.message)

    def test_returning_the_reference_output_memory_is_refused(self):
        class Identity(torch.nn.Module):
            def forward(self, x):
                return x

        # The reference returns its input (a view): the candidate may too, but only its own.
        ad, stop = self.run_checks(Identity(), ref=Identity())
        self.assertIsNone(stop, stop and stop.message)
        self.assertTrue(ad.ref_aliases)

    def test_wrong_values_fail(self):
        class Off(torch.nn.Module):
            def forward(self, x):
                return 1.5 * x * torch.sigmoid(x) + 1e-2

        ad, stop = self.run_checks(Off())
        self.assertEqual(stop.status, "wrong_output")
        self.assertIn("elements differ", stop.message)
        self.assertEqual(ad.result["trials_passed"], 0)

    def test_stale_result_for_reused_buffers_is_refused(self):
        class Memo(torch.nn.Module):
            seen = {}

            def forward(self, x):
                key = x.data_ptr()
                if key not in self.seen:
                    self.seen[key] = 1.5 * x * torch.sigmoid(x)
                return self.seen[key].clone()

        _, stop = self.run_checks(Memo())
        self.assertIn(stop.status, ("cheat_suspected", "wrong_output"))
        if stop.status == "cheat_suspected":
            self.assertIn("input_memo", stop.message)

    def test_range_assuming_candidate_fails_the_scaled_trial(self):
        class Clamped(torch.nn.Module):
            def forward(self, x):
                x = x.clamp(-6, 6)  # right for randn inputs, wrong for inputs x64
                return 1.5 * x * torch.sigmoid(x)

        _, stop = self.run_checks(Clamped())
        self.assertEqual(stop.status, "wrong_output")
        self.assertIn("scaled_inputs", stop.message)

    def test_reordered_row_sum_passes_the_scaled_trial(self):
        # The H200's false rejection (examples/native/row_sum): an honest row sum in a GPU block's order
        # (256 strided partial sums, then a tree) against torch.sum. On inputs x64 the rows that cancel
        # to near zero differ by more than the task's atol; the scaled trial's atol allows for that.
        class RowSum(torch.nn.Module):
            def forward(self, x):
                return x.sum(dim=1)

        class BlockSum(torch.nn.Module):
            def forward(self, x):
                p = torch.zeros(x.shape[0], 256, dtype=x.dtype, device=x.device)
                for k in range(0, x.shape[1], 256):
                    p += x[:, k:k + 256]
                while p.shape[1] > 1:
                    h = p.shape[1] // 2
                    p = p[:, :h] + p[:, h:]
                return p[:, 0].contiguous()

        ad, stop = self.run_checks(BlockSum(), ref=RowSum(), get_inputs=lambda: [torch.rand(2048, 8192) * 2 - 1])
        self.assertIsNone(stop, stop and stop.message)
        self.assertEqual(ad.result["scaled_trial"]["status"], "passed")

    def test_zero_softmax_fails_the_scaled_trial(self):
        # Softmax over wide rows: every output is below atol, so zeros pass the trials' elementwise test;
        # on inputs x64 the outputs do not grow, atol stays the task's, and zeros fail (the degenerate
        # checks, which catch them first, are switched off to see the scaled trial alone).
        class Softmax(torch.nn.Module):
            def forward(self, x):
                return torch.softmax(x, dim=1)

        class Zeros(torch.nn.Module):
            def forward(self, x):
                return torch.zeros_like(x)

        off = ["constant_output", "partial_match", "relative_error"]
        ad, stop = self.run_checks(Zeros(), ref=Softmax(), get_inputs=lambda: [torch.rand(8, 262144)], checks_off=off)
        self.assertEqual(ad.result["trials_passed"], 5)
        self.assertEqual((stop.status, ad.result["scaled_trial"]["status"]), ("wrong_output", "failed"))
        self.assertIn("scaled_inputs", stop.message)
        self.assertIn("atol 0.0001,", ad.result["scaled_trial"]["reason"])  # the task's atol

    def test_checked_then_cheat_is_a_repeat_mismatch(self):
        # Right on the trials' calls, wrong after them (tests/adversarial kb_checked_then_cheat.py): the
        # repeats run before the scaled trial, so the verdict names the cheat, not a wrong scaled output.
        calls = {"n": 0}

        class Checked(torch.nn.Module):
            def forward(self, x):
                calls["n"] += 1
                return 1.5 * x * torch.sigmoid(x) if calls["n"] <= 5 else torch.zeros_like(x)

        ad, stop = self.run_checks(Checked())
        self.assertEqual(stop.status, "cheat_suspected")
        self.assertIn("repeat_mismatch", stop.message)
        self.assertNotIn("scaled_trial", ad.result)

    def test_inputs_fall_back_to_the_cpu(self):
        def numpy_like():
            if torch.get_default_device().type != "cpu" or kin_context["on"]:
                raise RuntimeError("needs the CPU")
            return [torch.randn(8, 40)]

        kin_context = {"on": False}
        real_device = torch.device

        class Ctx:  # a default-device context that makes get_inputs fail, as numpy would under CUDA
            def __init__(self, d):
                self.d = d

            def __enter__(self):
                kin_context["on"] = True

            def __exit__(self, *a):
                kin_context["on"] = False

        maker = kin.InputMaker(torch, real_device("cpu"), torch.float32, numpy_like, torch.manual_seed)
        maker.t = type("T", (), {"device": Ctx, "Tensor": torch.Tensor})
        xs = maker.make(1)
        self.assertEqual(tuple(xs[0].shape), (8, 40))
        self.assertTrue(maker.on_cpu)
        self.assertIn("needs the CPU", maker.describe())
        again = maker.make(1)  # sticky, and the same values for the same seed
        self.assertTrue(torch.equal(xs[0], again[0]))


@unittest.skipIf(torch is None, "no torch on this machine")
class ElementwiseTest(unittest.TestCase):
    def test_counts_first_and_stats(self):
        r = torch.linspace(-1, 1, 1000)
        o = r.clone()
        o[7] += 1.0
        o[500] = float("nan")
        e = correctness.elementwise(torch, r, o, 1e-4, 1e-4, step=64)
        self.assertEqual((e["nbad"], e["nan_bad"], e["first"]), (2, 1, 7))
        self.assertAlmostEqual(e["max_abs"], 1.0, places=5)
        self.assertAlmostEqual(e["mean_abs"], 1.0 / 999, places=6)  # the NaN is not a finite difference

    def test_matches_allclose(self):
        g = torch.Generator().manual_seed(0)
        r = torch.randn(3000, generator=g)
        o = r + torch.randn(3000, generator=g) * 1e-4
        e = correctness.elementwise(torch, r, o, 1e-4, 1e-4, step=1000)
        want = int((~torch.isclose(o, r, rtol=1e-4, atol=1e-4)).sum())  # |o - r| <= atol + rtol * |r|
        self.assertLessEqual(abs(e["nbad"] - want), 5)  # allclose scales by |out| here, as KernelBench
        self.assertEqual(e["nbad"] == 0, bool(torch.allclose(r, o, rtol=1e-4, atol=1e-4)) and e["nbad"] == 0)

    def test_integers_exact(self):
        r = torch.arange(100)
        o = r.clone()
        o[42] = 0
        e = correctness.elementwise(torch, r, o, 0, 0, step=30)
        self.assertEqual((e["nbad"], e["first"], e["max_abs"]), (1, 42, 42.0))

    def test_one_host_read_for_a_passing_output(self):
        """A passing comparison reads the device once (one synchronisation), however many chunks."""
        reads = count_host_reads(self)
        r = torch.linspace(-1, 1, 1000)
        e = correctness.elementwise(torch, r, r + 1e-6, 1e-4, 1e-4, step=64)
        self.assertEqual(e["nbad"], 0)
        self.assertTrue(0 < e["max_abs"] < 2e-6, e)
        self.assertEqual(len(reads), 1, reads)


def count_host_reads(test):
    """Counts Tensor.item() and Tensor.tolist() calls (each a device synchronisation on the GPU)."""
    reads = []
    for name in ("item", "tolist"):
        real = getattr(torch.Tensor, name)

        def counting(self, *a, _real=real, _name=name, **k):
            reads.append(_name)
            return _real(self, *a, **k)

        if name in torch.Tensor.__dict__:
            test.addCleanup(setattr, torch.Tensor, name, real)
        else:  # inherited from the C base class: take ours away again
            test.addCleanup(delattr, torch.Tensor, name)
        setattr(torch.Tensor, name, counting)
    return reads


@unittest.skipIf(torch is None, "no torch on this machine")
class PartsTest(unittest.TestCase):
    def test_correctness_phase_parts(self):
        """Every piece of the phase's work is clocked as its part; the calls are those the protocol makes:
        the reference in 5 trials, the scaled trial and input_memo; the candidate in 5 trials, the scaled
        trial, 2 repeats and 2 input_memo calls."""
        from kernelpro import util
        ad = CpuAdapter(Swish(), Swish(), swish_inputs)
        ad.inputs.part = ad.part
        ad.parts = util.Parts()
        ad.correctness()
        rep = ad.parts.report(1e9)
        for name in ("inputs", "reference", "candidate", "input_checks", "flops", "compare", "degenerate",
                     "intact"):
            self.assertIn(name, rep)
        self.assertEqual(rep["reference"]["calls"], 7)
        self.assertEqual(rep["candidate"]["calls"], 10)
        self.assertEqual(rep["flops"]["calls"], 1)
        self.assertEqual(rep["intact"]["calls"], 5)


class Judge(correctness.Correctness):
    """judge_evidence alone, on records made up here: no torch needed. (TrialsTest runs it too, but only
    where torch is installed: without torch it is skipped, which is how a cfg without a "candidate"
    path, as CpuAdapter's, crashed it with KeyError only on the GPU machine.)"""

    def __init__(self, cfg, cand_kernels=None, ref_kernels=None, cand_ops=None):
        import collections
        self.cfg, self.result, self.flags = cfg, {}, []
        kern = lambda ks: None if ks is None else collections.Counter(ks)  # noqa: E731
        ops = collections.Counter
        self.records = {"candidate": {"ops": ops(cand_ops or {"mul": 2}), "kernels": kern(cand_kernels)},
                        "reference": {"ops": ops({"mul": 2, "sigmoid": 1}), "kernels": kern(ref_kernels)}}

    def flag(self, check, severity, message):
        self.flags.append(check)
        if severity == REFUSE:
            raise Stop("cheat_suspected", message)


class JudgeEvidenceTest(unittest.TestCase):
    REF = ["void at::native::vectorized_elementwise_kernel<4, sigmoid>(int, float*)"]

    def test_no_candidate_path(self):
        """No source file (a test's config, a candidate given as a module): judged on the record."""
        j = Judge({})
        j.judge_evidence()  # ops only: recorded, nothing refused
        ev = j.result["runtime_evidence"]
        self.assertTrue(ev["recorded"])
        self.assertIn("no candidate source file", ev["no_source"])
        self.assertEqual(j.flags, [])
        j = Judge({"candidate": None}, cand_kernels=["swish_kernel(float*)"], ref_kernels=self.REF)
        j.judge_evidence()  # a kernel neither the reference's nor PyTorch's: its own, from the record alone
        self.assertEqual(j.result["runtime_evidence"]["own_kernels"], ["swish_kernel(float*)"])
        self.assertEqual(j.flags, [])
        j = Judge({}, cand_kernels=self.REF, ref_kernels=self.REF, cand_ops={"mul": 2, "sigmoid": 1})
        with self.assertRaises(Stop):  # the reference's own kernels and ops: refused on the record
            j.judge_evidence()
        self.assertEqual(j.flags, ["torch_fallback"])

    def test_source_read_or_unreadable(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cand.py")
            with open(path, "w") as f:
                f.write('src = "__global__ void swish_kernel(float* x) {}"\n')
            j = Judge({"candidate": path}, cand_kernels=["void swish_kernel(float*)"], ref_kernels=self.REF)
            j.judge_evidence()
            self.assertNotIn("no_source", j.result["runtime_evidence"])
            self.assertEqual(j.result["runtime_evidence"]["own_kernels"], ["void swish_kernel(float*)"])
            j = Judge({"candidate": os.path.join(d, "gone.py")})
            j.judge_evidence()
            self.assertIn("candidate source unreadable", j.result["runtime_evidence"]["no_source"])


if __name__ == "__main__":
    unittest.main()
