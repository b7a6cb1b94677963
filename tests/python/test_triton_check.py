"""The Triton precision checks of the adapter (kernelpro/triton_check.py) on Triton IR lines and on a
cache directory laid out as Triton lays it out (<hash>/<kernel>.ttir). No torch, no triton."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "harness"))

from kernelpro import triton_check as tc  # noqa: E402

# tt.dot lines as Triton 3.x prints them in .ttir (the default ieee precision is not printed).
IEEE = ("%42 = tt.dot %40, %41, %cst : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32> loc(#loc23)")
TF32 = ("%42 = tt.dot %40, %41, %cst, inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x64xf32> -> "
        "tensor<64x64xf32> loc(#loc23)")
TF32X3 = TF32.replace("= tf32 ", "= tf32x3 ")
F16 = ("%9 = tt.dot %7, %8, %cst : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32> loc(#loc9)")
ENC = ("%9 = tt.dot %7, %8, %cst, inputPrecision = tf32 : tensor<128x32xf32, #ttg.dot_op<{opIdx = 0}>> * "
       "tensor<32x128xf32, #ttg.dot_op<{opIdx = 1}>> -> tensor<128x128xf32, #mma>")


class Flags:
    def __init__(self):
        self.flags = []

    def flag(self, check, severity, message):
        self.flags.append((check, severity, message))


class TritonModule:
    class knobs:
        class language:
            fp32_default = None


class TestDots(unittest.TestCase):
    def test_ieee_passes(self):
        self.assertEqual(tc.dot_problems(IEEE), [])

    def test_tf32_and_tf32x3_found(self):
        self.assertIn("tf32", tc.dot_problems(TF32)[0][1])
        self.assertIn("tf32x3", tc.dot_problems(TF32X3)[0][1])
        self.assertIn("tf32", tc.dot_problems(ENC)[0][1])

    def test_half_operands_found(self):
        (line, what), = tc.dot_problems("x\n" + F16)
        self.assertEqual(line, 2)
        self.assertIn("f16 x f16", what)

    def test_other_lines_ignored(self):
        self.assertEqual(tc.dot_problems("%1 = tt.load %0 : tensor<64x!tt.ptr<f32>>\n// tt.dotty"), [])


class TestCache(unittest.TestCase):
    def make(self, files):
        d = tempfile.mkdtemp()
        for rel, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
        return d

    def test_scan_names_the_kernel(self):
        d = self.make({"AAAA/mm.ttir": IEEE, "BBBB/mm_fast.ttir": "x\n" + TF32, "BBBB/mm_fast.ttgir": TF32,
                       "BBBB/mm_fast.json": "{}"})
        self.assertEqual(tc.scan(d), [("mm_fast.ttir", 2, "a tl.dot on f32 operands with input precision tf32")])

    def test_ttgir_when_no_ttir(self):
        d = self.make({"CCCC/k.ttgir": F16})
        self.assertEqual(len(tc.scan(d)), 1)

    def test_missing_dir(self):
        self.assertEqual(tc.scan(None), [])
        self.assertEqual(tc.scan("/nonexistent/kp"), [])

    def test_check_refuses_and_skips(self):
        d = self.make({"DDDD/k.ttir": TF32})
        saved = dict(os.environ)
        try:
            os.environ["TRITON_CACHE_DIR"] = d
            os.environ["TRITON_F32_DEFAULT"] = "ieee"
            a = Flags()
            tc.check(a, {"triton": TritonModule}, True, "import torch\n")
            self.assertEqual([f[0] for f in a.flags], ["precision"])
            a = Flags()
            tc.check(a, {"triton": TritonModule}, False, "")  # fp16 task: not a downgrade
            tc.check(a, {}, True, "")  # no triton loaded: nothing compiled
            tc.check(a, {"triton": TritonModule}, True, "x.to(tl.float16)")  # the reference's own choice
            self.assertEqual(a.flags, [])
            os.environ["TRITON_F32_DEFAULT"] = "tf32"
            tc.check(a, {"triton": TritonModule}, True, "tf32")
            self.assertIn("TRITON_F32_DEFAULT", a.flags[0][2])
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def test_settings(self):
        self.assertIsNone(tc.settings_changed({"TRITON_F32_DEFAULT": "ieee"}, None))
        self.assertIsNone(tc.settings_changed({"TRITON_F32_DEFAULT": "ieee"}, "ieee"))
        self.assertIn("knobs", tc.settings_changed({"TRITON_F32_DEFAULT": "ieee"}, "tf32"))
        self.assertIn("None", tc.settings_changed({}, None))


class TestUsesTriton(unittest.TestCase):
    """Which candidates the adapter calls once before the sandbox's lock, so that Triton compiles then."""

    def test_imports(self):
        self.assertTrue(tc.uses_triton("import torch\nimport triton\nimport triton.language as tl\n"))
        self.assertTrue(tc.uses_triton("from triton import jit\n"))
        self.assertTrue(tc.uses_triton("if True:\n    import triton\n"))

    def test_mentions_are_not_imports(self):
        self.assertFalse(tc.uses_triton("# no triton here\nSRC = 'import triton'\n"))
        self.assertFalse(tc.uses_triton("import tritonclient\n"))
        self.assertFalse(tc.uses_triton("import torch\n"))


if __name__ == "__main__":
    unittest.main()
