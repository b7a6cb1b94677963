"""kernelpro.evidence's pure parts: kernel names from sources and from the profiler, which launched
kernels are the candidate's own, and what a record refuses (torch_fallback, no_kernel) or not. The
recorder itself needs torch and a GPU (tests/gpu/g0502 runs it on every candidate)."""

import collections
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))

from kernelpro import evidence  # noqa: E402

SRC = r'''
K = """
template <int B>
__global__ void __launch_bounds__(256) fused_relu(const float *x, float *y, long n) {}
extern "C" __global__ void plain_add(float *y) {}
"""
import triton
@triton.jit
def softmax_kernel(x_ptr):
    pass
@triton.autotune(configs=[], key=["n"])
@triton.jit
def tuned(x_ptr):
    pass
'''

CONV = "void at::native::conv_depthwise2d_forward_kernel<float>(float const*, float*)"
GEMM = "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8"


def rec(cand_kernels, cand_ops, ref_kernels, ref_ops):
    return {"candidate": {"kernels": collections.Counter(cand_kernels), "ops": collections.Counter(cand_ops)},
            "reference": {"kernels": collections.Counter(ref_kernels), "ops": collections.Counter(ref_ops)}}


class NamesTest(unittest.TestCase):
    def test_candidate_kernels(self):
        self.assertEqual(evidence.candidate_kernels(SRC), {"fused_relu", "plain_add", "softmax_kernel", "tuned"})

    def test_base_name(self):
        self.assertEqual(evidence.base_name("void fused_relu<128>(float const*, float*, long)"), "fused_relu")
        self.assertEqual(evidence.base_name("void ns::inner::k(float*)"), "k")
        self.assertEqual(evidence.base_name("softmax_kernel_0d1d2"), "softmax_kernel_0d1d2")
        self.assertEqual(evidence.base_name(GEMM), GEMM)


class JudgeTest(unittest.TestCase):
    defined = {"fused_relu"}

    def test_own_kernel_ran(self):
        r = rec([GEMM, "void fused_relu<128>(float const*, float*, long)"], ["mm", "relu"], [GEMM, CONV],
                ["mm", "relu"])
        self.assertEqual(evidence.judge(r, self.defined), (None, None))

    def test_every_reference_op_and_no_kernel_of_its_own(self):
        r = rec([GEMM], ["mm", "relu", "view"], [GEMM], ["mm", "relu"])
        check, msg = evidence.judge(r, self.defined)
        self.assertEqual(check, "torch_fallback")
        self.assertIn("every ATen op of the reference ran as often: mm, relu", msg)

    def test_kernel_defined_never_launched(self):
        r = rec([CONV], ["convolution"], [GEMM], ["mm", "relu"])
        check, msg = evidence.judge(r, self.defined)
        self.assertEqual(check, "no_kernel")
        self.assertIn("defined: fused_relu", msg)

    def test_an_unknown_kernel_counts_as_its_own(self):
        # a CUTLASS template the candidate built: not the reference's, not PyTorch's: never refused
        r = rec(["void cutlass::Kernel<Gemm>(Params)"], ["mm"], [GEMM], ["mm"])
        self.assertEqual(evidence.judge(r, set()), (None, None))

    def test_fewer_calls_than_the_reference_is_not_a_fallback(self):
        r = rec([CONV], ["max_pool3d_with_indices"], [CONV], {"max_pool3d_with_indices": 2})
        self.assertEqual(evidence.judge(r, set())[0], "no_kernel")

    def test_ops_alone_refuse_nothing(self):
        r = rec([], ["mm", "relu"], [], ["mm", "relu"])
        r["candidate"]["kernels"] = r["reference"]["kernels"] = None
        self.assertEqual(evidence.judge(r, self.defined), (None, None))
        s = evidence.summary(r, self.defined)
        self.assertEqual((s["kernels"], s["own_kernels"], s["aten_ops"]), (None, None, {"mm": 1, "relu": 1}))

    def test_summary_is_bounded(self):
        r = rec(["k%d" % i for i in range(40)], ["mm"] * 3, [], ["mm"])
        s = evidence.summary(r, set())
        self.assertTrue(s["recorded"])
        self.assertEqual(len(s["kernels"]), evidence.MAX_LISTED)
        self.assertEqual(s["aten_ops"], {"mm": 3})


if __name__ == "__main__":
    unittest.main()
