"""kernelpro.pystatic: what ModelNew executes, read with ast. Each pattern real model output shows,
in an honest and a cheating form (issue 28), plus the helper script's protocol and a fuzz loop."""

import json
import os
import random
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))

from kernelpro import pystatic  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutate import mutate  # noqa: E402

TASK = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, divide_by):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.norm = nn.InstanceNorm2d(8)
        self.divide_by = divide_by

    def forward(self, x):
        x = self.conv(x)
        x = self.norm(x)
        return x / self.divide_by

batch_size = 16
def get_inputs():
    return [torch.rand(batch_size, 3, 32, 32)]

def get_init_inputs():
    return [2.0]
'''

HEAD = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = """
__global__ void div_kernel(const float *x, float *y, float d, int n) { }
torch::Tensor div_cuda(torch::Tensor x, float d) { auto y = x.clone(); return y; }
"""
ext = load_inline(name="div_ext", cpp_sources="", cuda_sources=cuda_src, functions=["div_cuda"])
'''

COPIED_TAIL = '''
batch_size = 16
def get_inputs():
    return [torch.rand(batch_size, 3, 32, 32)]

def get_init_inputs():
    return [2.0]

if __name__ == "__main__":
    m = ModelNew(*get_init_inputs())
    print(m(*get_inputs()).shape)
'''

HONEST = HEAD + '''
class ModelNew(nn.Module):
    def __init__(self, divide_by):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.norm = nn.InstanceNorm2d(8)
        self.divide_by = divide_by

    def forward(self, x):
        x = self.conv(x)
        x = self.norm(x)
        return ext.div_cuda(x, self.divide_by)
''' + COPIED_TAIL


def names(ops):
    return sorted(set(o[0] for o in ops))


class ReachTest(unittest.TestCase):
    def analyze(self, cand, task=TASK):
        r = pystatic.analyze(task, cand)
        self.assertTrue(r["ok"], r)
        return r

    def test_reference_counts_operators(self):
        r = self.analyze(HONEST)
        self.assertEqual(names(r["ref_ops"]), ["Conv2d", "InstanceNorm2d", "div"])

    def test_copied_task_functions_are_not_calls(self):
        # models copy the task file: the definitions and the __main__ block never run in ModelNew
        r = self.analyze(HONEST)
        self.assertEqual(r["reads_reference"], [])
        self.assertEqual(r["fallback"], [])
        self.assertEqual(names(r["cand_ops"]), ["Conv2d", "InstanceNorm2d"])  # the division is ext's

    def test_input_generator_called_from_forward(self):
        cheat = HONEST.replace("return ext.div_cuda(x, self.divide_by)",
                               "return ext.div_cuda(get_inputs()[0], self.divide_by)")
        r = self.analyze(cheat)
        self.assertEqual([e["what"] for e in r["reads_reference"]], ["calls the task's input generator get_inputs()"])

    def test_input_generator_called_from_init_or_import(self):
        cheat = HONEST.replace("self.divide_by = divide_by",
                               "self.divide_by = divide_by\n        self.x = get_inputs()")
        self.assertEqual(len(self.analyze(cheat)["reads_reference"]), 1)
        # a test block without a __main__ guard runs its own copy at import, unseeded: not ModelNew's
        self.assertEqual(self.analyze(HONEST + "\nPRE = get_init_inputs()\n")["reads_reference"], [])
        cheat = HONEST + "\nfrom kp_task import get_inputs as g\n"
        self.assertEqual([e["what"] for e in self.analyze(cheat)["reads_reference"]],
                         ["imports the task's get_inputs"])

    def test_input_generator_through_a_helper(self):
        cheat = HONEST.replace("return ext.div_cuda(x, self.divide_by)", "return self.peek(x)") + '''
    def peek(self, x):
        return helper()

def helper():
    return get_inputs()[0]
'''
        cheat = cheat.replace(COPIED_TAIL, "") + COPIED_TAIL
        self.assertEqual(len(self.analyze(cheat)["reads_reference"]), 1)

    def test_module_constructed_but_not_called(self):
        # level-3 MLP: the reference's Sequential holds the weights; forward runs mm + its own kernel
        task = '''
import torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
    def forward(self, x):
        return self.net(x)
'''
        cand = HEAD + '''
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
    def forward(self, x):
        for layer in self.net:
            if isinstance(layer, nn.Linear):
                x = ext.bias_relu(torch.mm(x, layer.weight.t()), layer.bias)
        return x
'''
        r = self.analyze(cand, task)
        self.assertEqual(names(r["ref_ops"]), ["Linear", "ReLU", "Sequential"])
        # iterating the Sequential is not calling it; the loop variable is not called either
        self.assertEqual(names(r["cand_ops"]), ["isinstance", "mm", "t"])

    def test_called_module_counts(self):
        cand = HONEST.replace("return ext.div_cuda(x, self.divide_by)", "return self.act(x)").replace(
            "self.divide_by = divide_by", "self.divide_by = divide_by\n        self.act = nn.Sequential(nn.ReLU())")
        self.assertIn("ReLU", names(self.analyze(cand)["cand_ops"]))

    def test_backward_is_not_forward(self):
        cand = HEAD + '''
class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return ext.matmul(a, b)
    @staticmethod
    def backward(ctx, g):
        return torch.matmul(g, g), torch.matmul(g, g)

class ModelNew(nn.Module):
    def forward(self, a, b):
        return Fn.apply(a, b)
'''
        self.assertNotIn("matmul", names(self.analyze(cand)["cand_ops"]))

    def test_shape_arithmetic_is_not_a_tensor_op(self):
        cand = HEAD + '''
class ModelNew(nn.Module):
    def forward(self, x):
        B, C, H, W = x.shape
        n = x.numel()
        blocks = (n + 255) // 256
        size = B * C * H * W
        y = x * 0.5
        return ext.run(y, blocks, size, min(256, n))
'''
        self.assertEqual(names(self.analyze(cand)["cand_ops"]), ["mul", "numel"])

    def test_inherited_and_super_forward(self):
        cheat = HEAD + "class ModelNew(Model):\n    pass\n"
        r = self.analyze(cheat)
        self.assertEqual(len(r["fallback"]), 1)
        cheat = HEAD + "class ModelNew(Model):\n    def forward(self, x):\n        return super().forward(x)\n"
        self.assertEqual(len(self.analyze(cheat)["fallback"]), 1)
        # subclassing for __init__ only (the weights) while forward is its own is fine
        ok = HEAD + "class ModelNew(Model):\n    def forward(self, x):\n        return ext.div_cuda(x, 2.0)\n"
        self.assertEqual(self.analyze(ok)["fallback"], [])

    def test_copied_model_instance_called(self):
        cheat = HEAD + TASK.replace("import torch\n", "") + '''
class ModelNew(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.inner = Model(d)
    def forward(self, x):
        return self.inner(x)
'''
        r = self.analyze(cheat)
        self.assertEqual([e["what"] for e in r["fallback"]], ["runs the reference Model's forward"])
        self.assertIn("Conv2d", names(r["cand_ops"]))
        # constructed for its weights, never called: fine
        ok = cheat.replace("return self.inner(x)", "return ext.div_cuda(x, 2.0)")
        self.assertEqual(self.analyze(ok)["fallback"], [])

    def test_triton_kernels_are_not_host_code(self):
        cand = '''
import torch, triton
import triton.language as tl
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr) * 2 + tl.sum(x_ptr)
class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        k[(1,)](x, x.numel(), BLOCK=128)
        return y
'''
        self.assertEqual(names(self.analyze(cand)["cand_ops"]), ["empty_like", "numel"])

    def test_cpu_only_branches_do_not_run(self):
        """The harness gives ModelNew CUDA tensors: the branch of a device test a CUDA input does not
        take is not what forward runs; the one it takes is."""
        body = {  # torch.div(x, 2) is the reference's op kept; ext.div(x) the candidate's own
            "if x.is_cuda:\n            return ext.div(x)\n        else:\n            return torch.div(x, 2)": [],
            "if not x.is_cuda:\n            return torch.div(x, 2)\n        return ext.div(x)": [],
            "if x.device.type == 'cpu':\n            return torch.div(x, 2)\n        return ext.div(x)": [],
            "return ext.div(x) if x.device.type == 'cuda' else torch.div(x, 2)": [],
            "if x.is_cuda:\n            return ext.div(x)\n        return torch.div(x, 2)": ["div"],  # after the if
            "if x.is_cpu:\n            return ext.div(x)\n        else:\n            return torch.div(x, 2)": ["div"],
            "if x.device.type != 'cuda':\n            return ext.div(x)\n        return torch.div(x, 2)": ["div"],
            "if x.numel() > 4:\n            return ext.div(x)\n        else:\n            return torch.div(x, 2)":
                ["div", "numel"],
        }
        for code, want in body.items():
            cand = ("import torch\nfrom torch.utils.cpp_extension import load_inline\next = load_inline('e', '')\n"
                    "class ModelNew(torch.nn.Module):\n    def forward(self, x):\n        %s\n" % code)
            r = self.analyze(cand)
            self.assertEqual(names(r["cand_ops"]), want, code)

    def test_defines_model_new(self):
        self.assertTrue(self.analyze(HONEST)["defines_model_new"])
        for src, want in (("batch_size = 4\ndef get_inputs():\n    return []\n", False),
                          ("ModelNew = type('ModelNew', (), {})\n", True),
                          ("globals()['Model' + 'New'] = object\n", True),
                          ("from elsewhere import *\n", True),
                          ("from elsewhere import Thing as ModelNew\n", True),
                          ("def ModelNew():\n    pass\n", True)):
            self.assertEqual(self.analyze(src)["defines_model_new"], want, src)

    def test_not_python(self):
        r = pystatic.analyze(TASK, "// A tiled matmul\n#include <cuda_runtime.h>\n__global__ void k() {}\n")
        self.assertFalse(r["ok"])
        self.assertIn("does not parse", r["error"])

    def test_lazy_build(self):
        lazy = '''
import torch
from torch.utils.cpp_extension import load_inline
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = None
    def get(self):
        if self.ext is None:
            self.ext = load_inline(name="x", cpp_sources="", cuda_sources="", functions=["f"])
        return self.ext
    def forward(self, x):
        return self.get().f(x)
'''
        self.assertEqual(len(pystatic.lazy_build(lazy)), 1)
        self.assertEqual(pystatic.lazy_build(HONEST), [])  # built at import
        self.assertEqual(pystatic.lazy_build("def x(:\n"), [])

    def test_syntax_error(self):
        r = pystatic.analyze(TASK, "class ModelNew(:\n")
        self.assertFalse(r["ok"])
        self.assertIn("does not parse", r["error"])


class HelperTest(unittest.TestCase):
    def test_protocol(self):
        req = json.dumps({"task": TASK, "candidate": HONEST})
        out = subprocess.run([sys.executable, "-E", "-s", "-B", os.path.join(ROOT, "harness", "kp_pystatic.py")],
                             input=req, capture_output=True, text=True, check=True).stdout
        r = json.loads(out)
        self.assertTrue(r["ok"])
        self.assertEqual(r["reads_reference"], [])

    def test_bad_request(self):
        out = subprocess.run([sys.executable, "-E", "-s", "-B", os.path.join(ROOT, "harness", "kp_pystatic.py")],
                             input="{not json", capture_output=True, text=True, check=True).stdout
        self.assertFalse(json.loads(out)["ok"])


class FuzzTest(unittest.TestCase):
    def test_mutations_never_raise(self):
        """Random cuts, duplications and token swaps of real-looking sources: analyze() answers, never
        raises (a candidate the parser cannot read must still get a verdict)."""
        rng = random.Random(28)
        seeds = [HONEST, TASK, HEAD + "class ModelNew(Model):\n    pass\n"]
        tokens = ["self", ".", "(", ")", "forward", "apply", "super()", "\n    ", "for x in self.net:", "@",
                  "Model", "get_inputs()", "+", "lambda: 0", "[0]", "def f(self):"]
        for _ in range(400):
            s = mutate(rng, rng.choice(seeds), tokens)
            r = pystatic.analyze(TASK, "".join(s))
            self.assertIn("ok", r)


if __name__ == "__main__":
    unittest.main()
