"""The degenerate-output checks of the PyTorch adapter (harness/kernelpro/outcheck.py): the judgement
against the cases lib/eval/outcheck.c is held to as well, and, where torch is installed, the statistics
measured on CPU tensors for the adversarial patterns (zeros, a constant, every k-th element, a scaled copy,
small rows) and for honest kernels (reordered sums, fp16 with fp32 accumulation)."""

import json
import math
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))

from kernelpro import outcheck  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_correctness import count_host_reads  # noqa: E402

with open(os.path.join(ROOT, "tests", "golden", "eval", "outcheck-cases.json")) as f:
    CASES = json.load(f)

try:
    import torch
except ImportError:
    torch = None


class GoldenTest(unittest.TestCase):
    def test_bounds(self):
        for c in CASES["bounds"]:
            b = outcheck.bounds(c["dtype"], c["atol"], c["rtol"])
            self.assertAlmostEqual(b["rel"], c["rel"], delta=1e-12 * c["rel"], msg=c)
            self.assertAlmostEqual(b["noise"], c["noise"], delta=1e-12 * c["noise"], msg=c)

    def test_layouts(self):
        for c in CASES["layouts"]:
            lay = outcheck.layouts(c["shape"])
            for key in ("rows", "chans"):
                want = tuple(c[key]) if c[key] is not None else None
                self.assertEqual(lay[key], want, (c["shape"], key))

    def test_judge(self):
        for c in CASES["judge"]:
            b = outcheck.bounds(c["dtype"], c["atol"], c["rtol"])
            s = dict(c["stats"])
            for key in ("rows", "chans"):
                s[key] = s.get(key) or outcheck.no_groups()
            got, msg = outcheck.judge(s, b, "y", c.get("coords"), skip=set(c.get("skip", [])))
            self.assertEqual(got, c["expect"], (c["case"], msg))
            for part in c.get("message_has", []):
                self.assertIn(part, msg, c["case"])
            self.assertEqual(msg == "", got is None, c["case"])

    def test_scaled_atol(self):
        for c in CASES["scaled_atol"]:
            got = outcheck.scaled_atol(c["dtype"], c["atol"], c["ref_rms"])
            self.assertAlmostEqual(got, c["expect"], delta=1e-12 * c["expect"], msg=c["case"])
        self.assertEqual(outcheck.scaled_atol("f32", 1e-4, float("nan")), 1e-4)
        self.assertEqual(outcheck.scaled_atol("f32", 1e-4, float("inf")), 1e-4)

    def test_spans_cover_and_suit_every_layout(self):
        for shape, step in (((10, 10), 20), ((100, 7), 20), ((4, 30, 10), 20), ((4, 16, 8, 8), 100),
                            ((2, 64, 4096), 1000), ((3, 5), 2), ((8, 65536), 1000), ((4, 3, 7), 5)):
            numel = math.prod(shape)
            lay = outcheck.layouts(shape)
            lays = [lay[k][:2] for k in ("rows", "chans") if lay[k] is not None]
            spans = list(outcheck._spans(numel, lays, step))
            self.assertEqual(spans[0][0], 0)
            self.assertEqual(spans[-1][1], numel)
            for (a0, a1), (b0, _) in zip(spans, spans[1:]):
                self.assertEqual(a1, b0)
            for c0, c1 in spans:
                self.assertTrue(0 < c1 - c0 <= step, (shape, c0, c1))
                for inner, nseg in lays:
                    slab = inner * nseg
                    whole_slabs = c0 % slab == 0 and (c1 - c0) % slab == 0
                    groups_in_slab = c0 % inner == 0 and (c1 - c0) % inner == 0 and c0 // slab == (c1 - 1) // slab
                    in_one_group = c0 // inner == (c1 - 1) // inner
                    self.assertTrue(whole_slabs or groups_in_slab or in_one_group, (shape, inner, nseg, c0, c1))


@unittest.skipIf(torch is None, "no torch on this machine (tests/gpu/g1301 runs these where there is)")
class MeasureTest(unittest.TestCase):
    """The statistics on CPU tensors, judged as the adapter judges them."""

    def verdict(self, ref, out, dtype="f32", atol=1e-4, rtol=1e-4, step=1 << 24):
        b = outcheck.bounds(dtype, atol, rtol)
        # The elementwise tolerance must pass for the checks to matter at all.
        diff = (ref.double() - out.double()).abs()
        self.assertTrue(bool((diff <= atol + rtol * out.double().abs()).all()), "test case fails allclose")
        s = outcheck.measure(torch, ref, out, b, step=step)
        return outcheck.judge(s, b, "y", "?")[0], s

    def softmax(self, rows=16, cols=16384, seed=0):
        g = torch.Generator().manual_seed(seed)
        return torch.softmax(torch.rand(rows, cols, generator=g), dim=-1)

    def test_host_reads(self):
        """measure() reads the device once per pass and once per group layout: a 2-D output has both."""
        reads = count_host_reads(self)
        ref = self.softmax(rows=64, cols=256)  # both layouts: 64 rows of 256, 256 channels of 64
        st = outcheck.measure(torch, ref, ref.clone(), outcheck.bounds("f32", 1e-4, 1e-4), step=1000)
        self.assertEqual(st["nbad"], 0)
        self.assertEqual(st["rows"]["bad"], 0)
        self.assertGreater(st["rows"]["considered"], 0)
        self.assertGreater(st["chans"]["considered"], 0)
        self.assertEqual(len(reads), 4, reads)  # pass 1, pass 2, rows, channels

    def test_zeros_constant_kth_scaled_tiny(self):
        ref = self.softmax()
        self.assertEqual(self.verdict(ref, torch.zeros_like(ref))[0], outcheck.CONSTANT)
        self.assertEqual(self.verdict(ref, torch.full_like(ref, 1.0 / ref.shape[1]))[0], outcheck.CONSTANT)
        kth = torch.zeros_like(ref)
        kth.view(-1)[::4] = ref.view(-1)[::4]
        self.assertEqual(self.verdict(ref, kth)[0], outcheck.PARTIAL)
        x = torch.rand(ref.shape, generator=torch.Generator().manual_seed(1))
        self.assertEqual(self.verdict(ref, x * 1e-5)[0], outcheck.PARTIAL)  # a scaled copy of the input
        self.assertEqual(self.verdict(ref, ref * 0.5)[0], outcheck.PARTIAL)  # wrong but tiny

    def test_small_rows_wrong(self):
        g = torch.Generator().manual_seed(2)
        ref = torch.randn(64, 1024, generator=g) * 1e-3
        ref[::8] *= 1e-5  # every 8th row at 1e-5 of the scale
        out = ref.clone()
        out[::8] = 0  # ... and wrong
        got, s = self.verdict(ref, out)
        self.assertEqual(got, outcheck.RELATIVE)
        self.assertEqual(s["rows"]["bad"], 8)
        self.assertEqual(s["nbad"], 0)

    def test_small_channels_wrong(self):
        g = torch.Generator().manual_seed(3)
        ref = torch.randn(4, 16, 32, 32, generator=g) * 1e-3
        ref[:, 5] *= 1e-5
        out = ref.clone()
        out[:, 5] = -out[:, 5]
        got, s = self.verdict(ref, out)
        self.assertEqual(got, outcheck.RELATIVE)
        self.assertEqual((s["chans"]["bad"], s["chans"]["worst"]), (1, 5))

    def test_group_sums_match_direct_sums(self):
        g = torch.Generator().manual_seed(8)
        for shape in ((6, 40), (3, 4, 40), (2, 3, 5, 36)):
            ref = torch.randn(*shape, generator=g)
            out = ref + torch.randn(*shape, generator=g) * 1e-6
            b = outcheck.bounds("f32", 1e-4, 1e-4)
            for step in (7, 40, 1 << 20):
                s = outcheck.measure(torch, ref, out, b, step=step)
                lay = outcheck.layouts(shape)
                for key in ("rows", "chans"):
                    if lay[key] is None:
                        continue
                    inner, nseg, _ = lay[key]
                    gid = (torch.arange(ref.numel()) // inner) % nseg
                    r2 = torch.zeros(nseg, dtype=torch.float64).index_add_(0, gid, ref.double().reshape(-1) ** 2)
                    d2 = torch.zeros(nseg, dtype=torch.float64).index_add_(
                        0, gid, (out.double() - ref.double()).reshape(-1) ** 2)
                    want = outcheck.groups(torch, r2, d2, lay[key][2], s["ref_maxabs"], b)
                    self.assertEqual(s[key]["considered"], want["considered"], (shape, step, key))
                    self.assertEqual(s[key]["n"], nseg)

    def test_rms_chunked_skips_non_finite(self):
        g = torch.Generator().manual_seed(9)
        ref = torch.randn(3, 1000, generator=g)
        want = float(ref.double().pow(2).mean().sqrt())
        bad = ref.clone()
        bad[1, 7], bad[2, 9] = float("nan"), float("inf")
        fin = torch.isfinite(bad)
        want_bad = float(bad.double()[fin].pow(2).mean().sqrt())
        for step in (7, 1000, 1 << 20):
            self.assertAlmostEqual(outcheck.rms(torch, ref, step=step), want, delta=1e-12 * want)
            self.assertAlmostEqual(outcheck.rms(torch, bad, step=step), want_bad, delta=1e-12 * want_bad)
        self.assertEqual(outcheck.rms(torch, torch.full((4,), float("nan"))), 0.0)

    def test_honest_reordered_sum(self):
        g = torch.Generator().manual_seed(4)
        x = torch.rand(256, 8192, generator=g) * 2 - 1
        ref = x.sum(dim=1)
        out = x.reshape(256, 64, 128).sum(dim=2).flip(1).sum(dim=1)  # another order
        self.assertIsNone(self.verdict(ref, out)[0])

    def test_honest_fp16_with_fp32_accumulation(self):
        g = torch.Generator().manual_seed(5)
        a = (torch.rand(128, 512, generator=g) - 0.5).half()
        w = (torch.rand(512, 256, generator=g) - 0.5).half()
        ref = (a.double() @ w.double()).half()  # the exact product, rounded once
        out = (a.float() @ w.float()).half()
        got, _ = self.verdict(ref.float(), out.float(), "f16", 1e-2, 1e-2)
        self.assertIsNone(got)

    def test_honest_fast_math_softmax(self):
        ref = self.softmax(8, 4096, seed=6)
        x = torch.log(ref)  # any input whose softmax is ref
        e = torch.exp2(x * 1.4426950408889634)  # exp through exp2, as __expf does
        out = e / e.sum(dim=-1, keepdim=True)
        self.assertIsNone(self.verdict(ref, out)[0])

    def test_chunked_equals_whole(self):
        ref = self.softmax(8, 65536, seed=7)
        out = ref.clone()
        out[3] = 0
        _, whole = self.verdict(ref, out)
        _, parts = self.verdict(ref, out, step=1000)
        for k in ("n", "nbad", "first_bad"):
            self.assertEqual(whole[k], parts[k], k)
        for k in ("ref_sumsq", "diff_sumsq", "ref_maxabs"):
            self.assertTrue(math.isclose(whole[k], parts[k], rel_tol=1e-9), k)
        self.assertEqual(whole["rows"], parts["rows"])
        self.assertEqual(whole["chans"]["bad"], parts["chans"]["bad"])


if __name__ == "__main__":
    unittest.main()
