"""kernelpro.util: statistics, excerpts, tolerances, the result channel, prebuild discovery."""

import json
import math
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))

from kernelpro import util  # noqa: E402


class StatsTest(unittest.TestCase):
    def test_stats(self):
        s = util.stats([3.0, 1.0, 2.0, 4.0])
        self.assertEqual(s["median_ms"], 2.5)
        self.assertEqual(s["mean_ms"], 2.5)
        self.assertAlmostEqual(s["std_ms"], math.sqrt(1.25))  # population std, as numpy
        self.assertEqual((s["min_ms"], s["max_ms"], s["trials"]), (1.0, 4.0, 4))
        self.assertEqual(util.stats([5])["median_ms"], 5.0)
        self.assertIsNone(util.stats([]))


class ExcerptTest(unittest.TestCase):
    def test_short_is_whole(self):
        self.assertEqual(util.excerpt("abc"), "abc")

    def test_error_lines_kept(self):
        text = "\n".join("ok %d" % i for i in range(2000)) + "\nk.cu(3): error: bad\n" + "x\n" * 2000
        out = util.excerpt(text, cap=500)
        self.assertIn("k.cu(3): error: bad", out)
        self.assertLessEqual(len(out), 500)

    def test_tail_without_errors(self):
        text = "\n".join("step %d" % i for i in range(5000))
        out = util.excerpt(text, cap=200)
        self.assertLessEqual(len(out), 200)
        self.assertTrue(out.endswith("step 4999"))


class ToleranceTest(unittest.TestCase):
    def test_tolerance(self):
        self.assertEqual(util.tolerance("f32"), 1e-4)
        self.assertEqual(util.tolerance("bf16"), 1e-2)
        self.assertEqual(util.tolerance("f32", "v0.1"), 1e-2)


class ChannelTest(unittest.TestCase):
    def test_lines_and_nan(self):
        r, w = os.pipe()
        ch = util.Channel(fd=w)
        ch.send({"phase": "build"})
        ch.send({"result": util.clean_json({"x": float("nan"), "y": [1.0, float("inf")], "z": 2})})
        ch._f.close()
        lines = os.read(r, 65536).decode().splitlines()
        os.close(r)
        self.assertEqual(json.loads(lines[0]), {"phase": "build"})
        self.assertEqual(json.loads(lines[1]), {"result": {"x": None, "y": [1.0, None], "z": 2}})


class FastSourcesTest(unittest.TestCase):
    SRC = '''
import torch
from kernelpro.fast import load_cuda
A = r"""
__global__ void k() {}
extern "C" int run() { return 0; }
"""
B = "not cuda"
C = """#include <torch/extension.h>
__global__ void k() {} extern "C" int f();"""
lib = load_cuda(A, name="relu")
lib2 = load_cuda(A, "second")
'''

    def test_finds_fast_path_sources_only(self):
        found = util.fast_sources(self.SRC)
        self.assertEqual([n for n, _ in found], ["A"])
        self.assertIn("__global__", found[0][1])

    def test_names(self):
        self.assertEqual(util.fast_load_names(self.SRC), {"A": "second"})

    def test_syntax_error_is_empty(self):
        self.assertEqual(util.fast_sources("def (:"), [])
        self.assertEqual(util.fast_load_names("def (:"), {})


class FormatExceptionTest(unittest.TestCase):
    def test_format(self):
        try:
            raise ValueError("boom")
        except ValueError as e:
            text = util.format_exception(e)
        self.assertIn("ValueError: boom", text)
        self.assertIn("Traceback", text)


class CudaErrorTextTest(unittest.TestCase):
    def test_name_and_words(self):
        from kernelpro import fast  # noqa: PLC0415

        self.assertEqual(fast._cuda_error_name(700),
                         "cudaErrorIllegalAddress: an illegal memory access was encountered")
        self.assertEqual(fast._cuda_error_name(716), "cudaErrorMisalignedAddress: misaligned address")
        self.assertEqual(fast._cuda_error_name(12345), "error code 12345")


if __name__ == "__main__":
    unittest.main()
