"""kernelpro.inline_cache: load_inline's main.cpp gets the shared precompiled torch/extension.h.

The wrapper on a stand-in cpp_extension (what it passes on, what it leaves alone, one build shared,
a failed build remembered, switched off); and with the real g++ on a stand-in torch/extension.h, the
same main.cpp compiled with and without the precompiled header gives the same machine code, and g++
really reads the .gch. No torch needed."""

import os
import random
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))

from kernelpro import inline_cache  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutate import mutate  # noqa: E402

FAKE_GXX = """#!/bin/sh
# A stand-in g++: -v says it is gcc; a header build writes -o (or fails when $FAIL_PCH is set).
if [ "$1" = "-v" ]; then echo "gcc version 12.2.0 (fake)" >&2; exit 0; fi
echo "$*" >> "$(dirname "$0")/calls"
out=""; while [ $# -gt 0 ]; do [ "$1" = "-o" ] && out=$2; shift; done
# as g++ does, a failed build removes its output
[ -n "${FAIL_PCH:-}" ] && { rm -f "$out"; echo "fatal error: torch/extension.h: No such file" >&2; exit 1; }
echo gch > "$out"
"""


def fake_cpp_extension(cxx, include):
    seen = []

    def load_inline(name, cpp_sources, cuda_sources=None, functions=None, extra_cflags=None,
                    extra_cuda_cflags=None, extra_include_paths=None, with_cuda=None, use_pch=False,
                    no_implicit_headers=False, verbose=False):
        seen.append({"name": name, "extra_cflags": extra_cflags, "extra_cuda_cflags": extra_cuda_cflags,
                     "use_pch": use_pch, "cuda_sources": cuda_sources, "cpp_sources": cpp_sources,
                     "no_implicit_headers": no_implicit_headers})
        text = cuda_sources if isinstance(cuda_sources, str) else "\n".join(cuda_sources or [])
        if isinstance(cpp_sources, list) and not no_implicit_headers:
            cpp_sources.insert(0, "#include <torch/extension.h>")  # as torch does, into the caller's list
        if "needs_extension_h" in text and "#include <torch/extension.h>\n" not in text:
            raise RuntimeError("Error building extension '%s': needs_extension_h is undefined" % name)
        if "own_error" in text:  # the source's own error, whatever the headers
            raise RuntimeError("Error building extension '%s': cuda.cu(9): error: expected a \";\"" % name)
        if "needs_types_h" in text and no_implicit_headers:
            raise RuntimeError("Error building extension '%s': needs_types_h is undefined" % name)
        return "module " + name

    m = types.ModuleType("fake_cpp_extension")
    m.load_inline = load_inline
    m.include_paths = lambda device_type="cpu": [include, os.path.join(include, "torch/csrc/api/include")]
    m.get_cxx_compiler = lambda: cxx
    m.seen = seen
    return m


class WrapperTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.cxx = os.path.join(self.tmp, "g++")
        with open(self.cxx, "w") as f:
            f.write(FAKE_GXX)
        os.chmod(self.cxx, 0o755)
        self.cache = os.path.join(self.tmp, "cache")
        self.ext = fake_cpp_extension(self.cxx, os.path.join(self.tmp, "inc"))
        os.environ.pop("FAIL_PCH", None)
        os.environ.pop("KERNELPRO_INLINE_CACHE", None)
        del inline_cache.calls[:]

    def tearDown(self):
        shutil.rmtree(self.tmp)
        os.environ.pop("FAIL_PCH", None)
        os.environ.pop("KERNELPRO_INLINE_CACHE", None)

    def builds(self):
        p = os.path.join(self.tmp, "calls")
        if not os.path.exists(p):
            return []
        with open(p) as f:
            return f.read().splitlines()

    def test_precompiled_header_added_and_shared(self):
        self.assertTrue(inline_cache.install(self.cache, self.ext, torch_version="2.15.0 /t"))
        self.assertTrue(inline_cache.install(self.cache, self.ext, torch_version="2.15.0 /t"))  # idempotent
        self.assertEqual(self.ext.load_inline("a", "int f();", cuda_sources="k", extra_cflags=["-O3"]), "module a")
        self.ext.load_inline(name="b", cpp_sources="int g();", cuda_sources="k", extra_cflags=["-O3"])
        a, b = self.ext.seen
        self.assertEqual(a["extra_cflags"][0], "-O3")
        self.assertEqual(a["extra_cflags"][1], "-include")
        self.assertTrue(a["extra_cflags"][2].endswith("/" + inline_cache.HEADER))
        self.assertEqual(a["extra_cflags"], b["extra_cflags"])  # one header for both
        self.assertIsNone(a["extra_cuda_cflags"])  # nvcc's flags are the candidate's own
        builds = self.builds()
        self.assertEqual(len(builds), 1, builds)  # built once, for the first
        self.assertIn("-x c++-header", builds[0])
        self.assertIn("-DTORCH_API_INCLUDE_EXTENSION_H", builds[0])
        self.assertNotIn("TORCH_EXTENSION_NAME", builds[0])
        self.assertIn("-O3", builds[0])
        self.assertTrue(os.path.exists(a["extra_cflags"][2] + ".gch"))
        self.assertGreater(inline_cache.calls[0]["pch_built_s"], 0)
        self.assertEqual(inline_cache.calls[1]["pch_built_s"], 0)

    def test_other_flags_other_header(self):
        inline_cache.install(self.cache, self.ext, torch_version="v")
        self.ext.load_inline("a", "x", extra_cflags=["-O3"])
        self.ext.load_inline("b", "x", extra_cflags=["-O2"])
        self.ext.load_inline("c", "x", extra_cflags="-O2")  # a string, as some candidates pass it
        h = [s["extra_cflags"][-1] for s in self.ext.seen]
        self.assertNotEqual(h[0], h[1])
        self.assertEqual(h[1], h[2])
        self.assertEqual(len(self.builds()), 2)

    def test_left_alone(self):
        inline_cache.install(self.cache, self.ext, torch_version="v")
        self.ext.load_inline("a", "x", use_pch=True, extra_cflags=["-O3"])
        self.ext.load_inline("b", "x", no_implicit_headers=True)
        self.assertEqual(self.ext.seen[0]["extra_cflags"], ["-O3"])
        self.assertIsNone(self.ext.seen[1]["extra_cflags"])
        self.assertEqual(self.builds(), [])

    def test_failed_build_remembered(self):
        os.environ["FAIL_PCH"] = "1"
        inline_cache.install(self.cache, self.ext, torch_version="v")
        self.ext.load_inline("a", "x", extra_cflags=["-O3"])
        self.ext.load_inline("b", "x", extra_cflags=["-O3"])
        self.assertEqual([s["extra_cflags"] for s in self.ext.seen], [["-O3"], ["-O3"]])
        self.assertEqual(len(self.builds()), 1)  # not tried again for every candidate
        self.assertIn("could not be built", inline_cache.calls[1]["why"])
        logs = [os.path.join(d, "failed.log") for d, _, fs in os.walk(self.cache) if "failed.log" in fs]
        self.assertEqual(len(logs), 1)
        with open(logs[0]) as f:
            self.assertIn("No such file", f.read())

    def test_switched_off(self):
        os.environ["KERNELPRO_INLINE_CACHE"] = "0"
        self.assertFalse(inline_cache.install(self.cache, self.ext, torch_version="v"))
        self.ext.load_inline("a", "x")
        self.assertIsNone(self.ext.seen[0]["extra_cflags"])

    def test_install_for_only_load_inline_candidates(self):
        plain = os.path.join(self.tmp, "plain.py")
        with open(plain, "w") as f:
            f.write("import torch\nclass ModelNew(torch.nn.Module):\n    pass\n")
        self.assertIsNone(inline_cache.install_for(plain, self.cache))
        self.assertNotIn("torch.utils.cpp_extension", sys.modules)


# A stand-in torch/extension.h with enough in it that a compiler's parse of it shows.
EXTENSION_H = """#pragma once
#include <vector>
#include <string>
#include <map>
#include <sstream>
namespace torch {
struct Tensor { std::vector<float> v; long numel() const { return (long)v.size(); } };
template <typename T> inline std::string describe(const T &x) { std::ostringstream s; s << x.numel(); return s.str(); }
inline std::map<std::string, int> registry() { return {{"relu", 1}}; }
}
"""

MAIN_CPP = """#include <torch/extension.h>
torch::Tensor relu(torch::Tensor x) { for (auto &e : x.v) e = e > 0 ? e : 0; return x; }
int module_init() { return torch::registry()["relu"] + (int)torch::describe(torch::Tensor{}).size(); }
"""


KERNEL = """#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void k(float* y, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}

torch::Tensor f(torch::Tensor x) {
    auto y = torch::empty_like(x);
    k<<<(x.numel() + 255) / 256, 256>>>(y.data_ptr<float>(), x.data_ptr<float>(), x.numel());
    return y;
}
"""


class LightenTest(unittest.TestCase):
    """Golden cases of the cuda.cu rewrite: which includes go, what is left as written and why."""

    def test_full_headers_become_comments_of_the_same_line(self):
        src = KERNEL + '  #  include "torch/torch.h"  // for everything\n#include <torch/types.h>\n'
        out, what = inline_cache.lighten(src)
        self.assertEqual(what, "2 include(s) of torch's full headers left to torch/types.h")
        self.assertEqual(len(out.splitlines()), len(src.splitlines()))
        changed = [(a, b) for a, b in zip(src.splitlines(), out.splitlines()) if a != b]
        self.assertEqual([b for _, b in changed], [
            "// kernelpro: #include <torch/extension.h> (torch/types.h is included)",
            '// kernelpro: #  include "torch/torch.h"  // for everything (torch/types.h is included)'])
        self.assertIn("#include <torch/types.h>", out)
        self.assertIn("#include <cuda_runtime.h>", out)

    def test_list_of_sources(self):
        out, what = inline_cache.lighten([KERNEL, "#include <torch/extension.h>\nint g();\n"])
        self.assertIsInstance(out, list)
        self.assertEqual(len(out), 2)
        self.assertTrue(all("#include <torch/extension.h>\n" not in x for x in out))
        self.assertTrue(what.startswith("2 include(s)"))

    def test_left_as_written(self):
        cases = {
            KERNEL + "PYBIND11_MODULE(m, mod) { mod.def(\"f\", &f); }\n": "uses PYBIND11_MODULE",
            KERNEL + "py::object o;\n": "uses py::",
            KERNEL + "auto l = torch::nn::functional::relu(x);\n": "uses torch::nn",
            KERNEL + "bool ok = torch::cuda::is_available();\n": "uses torch::cuda",
            KERNEL + "const char* s = R\"(#include <torch/extension.h>)\";\n": "raw string literal",
            KERNEL.replace("#include <torch/extension.h>", "#include <ATen/ATen.h>"): "includes neither",
            "": "no cuda_sources",
            "x = 1 // #include <torch/extension.h>\n": "includes neither",
        }
        for src, why in cases.items():
            out, what = inline_cache.lighten(src)
            self.assertIsNone(out, src)
            self.assertIn(why, what)
        self.assertIsNone(inline_cache.lighten([KERNEL, 3])[0])
        self.assertIsNone(inline_cache.lighten(None)[0])

    def test_at_cuda_is_not_torch_cuda(self):
        src = KERNEL + "#include <ATen/cuda/CUDAContext.h>\nauto s = at::cuda::getCurrentCUDAStream();\n"
        self.assertIsNotNone(inline_cache.lighten(src)[0])

    def test_fuzz_only_include_lines_change(self):
        """Random cuts, duplications and insertions: lighten() never raises, keeps the line count, and
        changes no line but a full-header include, into its comment."""
        rng = random.Random(29)
        tokens = ["#include <torch/extension.h>", "\n", "#", "include", "<torch/torch.h>", "R\"(", "py::", "//",
                  "torch::nn", "\"", " ", "\t", "\r\n"]
        for _ in range(600):
            src = "".join(mutate(rng, KERNEL, tokens, insert=0.5, cut=0.75))
            out, what = inline_cache.lighten(src)
            self.assertIsInstance(what, str)
            if out is None:
                continue
            a, b = src.split("\n"), out.split("\n")
            self.assertEqual(len(a), len(b))
            for x, y in zip(a, b):
                if x != y:
                    self.assertTrue(y.startswith("// kernelpro: #"), (x, y))
                    self.assertRegex(x, r"^[ \t]*#[ \t]*include[ \t]*[<\"]torch/(extension|torch)\.h")


class LightWrapperTest(WrapperTest):
    """The wrapper's cuda.cu half on the stand-in cpp_extension."""

    def test_light_used(self):
        inline_cache.install(self.cache, self.ext, torch_version="v")
        self.assertEqual(self.ext.load_inline("a", "int f();", cuda_sources=KERNEL), "module a")
        self.assertEqual(len(self.ext.seen), 1)
        self.assertNotIn("#include <torch/extension.h>\n", self.ext.seen[0]["cuda_sources"])
        self.assertTrue(inline_cache.calls[0]["light"].startswith("light: 1 include(s)"))
        self.assertIsNotNone(inline_cache.calls[0]["pch"])  # both halves

    def test_light_failed_built_as_written(self):
        inline_cache.install(self.cache, self.ext, torch_version="v")
        src = KERNEL + "int z = needs_extension_h;\n"
        self.assertEqual(self.ext.load_inline("a", "int f();", cuda_sources=src), "module a")
        self.assertEqual(len(self.ext.seen), 2)
        self.assertNotEqual(self.ext.seen[0]["cuda_sources"], src)
        self.assertEqual(self.ext.seen[1]["cuda_sources"], src)  # the second build is the source as written
        self.assertEqual(self.ext.seen[0]["extra_cflags"], self.ext.seen[1]["extra_cflags"])
        self.assertEqual("as written: the light build failed (RuntimeError), so it was built again as written",
                         inline_cache.calls[0]["light"])

    def fake_build_dir(self, made):
        """The stand-in's build directory, where each build leaves the objects `made` says."""
        d = os.path.join(self.tmp, "ext")
        os.makedirs(d, exist_ok=True)
        self.ext._get_build_directory = lambda name, verbose: d
        original = self.ext.load_inline

        def load_inline(name, cpp_sources, cuda_sources=None, **kw):
            for f in os.listdir(d):
                os.unlink(os.path.join(d, f))
            for obj in made:
                with open(os.path.join(d, obj), "w") as f:
                    f.write("o")
            self.ext.seen.append({"cuda_sources": cuda_sources})
            raise RuntimeError("Error building extension '%s'" % name)
        self.ext.load_inline = load_inline
        return original

    def test_main_cpp_failure_is_not_built_again(self):
        # nvcc made cuda.cuda.o, g++ no main.o: main.cpp (the same both ways) is what failed.
        self.fake_build_dir(["cuda.cuda.o"])
        inline_cache.install(self.cache, self.ext, torch_version="v")
        with self.assertRaises(RuntimeError):
            self.ext.load_inline("a", "int f();", cuda_sources=KERNEL)
        self.assertEqual(len(self.ext.seen), 1)
        self.assertIn("failed in main.cpp", inline_cache.calls[0]["light"])

    def test_other_failures_are_built_again(self):
        for made in (["cuda.cuda.o", "main.o"], [], ["main.o"]):  # the link, nvcc, nvcc
            del inline_cache.calls[:]
            self.ext = fake_cpp_extension(self.cxx, os.path.join(self.tmp, "inc"))
            self.fake_build_dir(made)
            inline_cache.install(self.cache, self.ext, torch_version="v")
            with self.assertRaises(RuntimeError):
                self.ext.load_inline("a", "int f();", cuda_sources=KERNEL)
            self.assertEqual(len(self.ext.seen), 2, made)
            self.assertIn("built again as written", inline_cache.calls[0]["light"])

    def test_build_error_of_the_source_as_written_propagates(self):
        inline_cache.install(self.cache, self.ext, torch_version="v")
        src = KERNEL.replace("#include <torch/extension.h>", "#include <torch/torch.h>")
        src += "int z = needs_extension_h;\n"
        with self.assertRaisesRegex(RuntimeError, "needs_extension_h is undefined"):
            self.ext.load_inline("a", "int f();", cuda_sources=src)
        self.assertEqual(len(self.ext.seen), 2)

    def test_light_switched_off(self):
        os.environ["KERNELPRO_INLINE_LIGHT"] = "0"
        try:
            inline_cache.install(self.cache, self.ext, torch_version="v")
            self.ext.load_inline("a", "int f();", cuda_sources=KERNEL)
        finally:
            os.environ.pop("KERNELPRO_INLINE_LIGHT")
        self.assertEqual(self.ext.seen[0]["cuda_sources"], KERNEL)
        self.assertEqual(inline_cache.calls[0]["light"], "as written: KERNELPRO_INLINE_LIGHT=0")

    def test_describe(self):
        inline_cache.install(self.cache, self.ext, torch_version="v")
        self.ext.load_inline("a", "int f();", cuda_sources=KERNEL)
        self.ext.load_inline("b", "int f();", cuda_sources=KERNEL + "py::object o;\n")
        a, b = inline_cache.describe().split("\n")
        self.assertRegex(a, r"^load_inline a: main.cpp with the shared precompiled header \(built now, [0-9.]+ s\); "
                            r"cuda.cu light: 1 include\(s\) of torch's full headers left to torch/types.h "
                            r"\([0-9.]+ s\); nvcc as is \(no nvcc or no kp_nvcc.py\)$")
        self.assertEqual(b, "load_inline b: main.cpp with the shared precompiled header; "
                            "cuda.cu as written: the source uses py::, which only torch/extension.h declares; "
                            "nvcc as is (no nvcc or no kp_nvcc.py)")
        self.assertEqual(len(inline_cache.describe(cap=40)), 40)
        self.assertIsNone(inline_cache.describe([]))

    def test_nvcc_halves_through_pytorch_nvcc(self):
        keep = {k: os.environ.pop(k, None) for k in ("PYTORCH_NVCC", "KERNELPRO_REAL_NVCC", "KERNELPRO_INLINE_NVCC")}
        try:
            self.ext._join_cuda_home = lambda *p: os.path.join("/opt/cuda", *p)
            self.assertIsNone(inline_cache.nvcc_halves(self.ext))
            self.assertEqual(os.environ["KERNELPRO_REAL_NVCC"], "/opt/cuda/bin/nvcc")
            cmd = os.environ["PYTORCH_NVCC"].split(" ")
            self.assertEqual(cmd[:4], [sys.executable, "-E", "-s", "-B"])
            self.assertTrue(cmd[4].endswith("harness/kp_nvcc.py") and os.path.isfile(cmd[4]))
            self.assertIsNone(inline_cache.nvcc_halves(self.ext))  # ours again: fine
            os.environ["PYTORCH_NVCC"] = "ccache nvcc"
            self.assertEqual(inline_cache.nvcc_halves(self.ext), "PYTORCH_NVCC is set to the user's own")
            self.assertEqual(os.environ["PYTORCH_NVCC"], "ccache nvcc")
            os.environ["KERNELPRO_INLINE_NVCC"] = "0"
            self.assertEqual(inline_cache.nvcc_halves(self.ext), "KERNELPRO_INLINE_NVCC=0")
        finally:
            for k, v in keep.items():
                os.environ.pop(k, None)
                if v is not None:
                    os.environ[k] = v

    def test_nvcc_notes_in_the_build_note(self):
        path = os.path.join(self.tmp, "notes")
        with open(path, "w") as f:
            f.write('{"out": "cuda.cuda.o", "mode": "nvcc", "why": "cicc exited 2"}\n'
                    '{"out": "cuda.cuda.o", "mode": "halves", "s": 12.25}\n'
                    '{"out": "cuda.cuda.o", "mode": "halves", "s": 20.0, "host": 9.1, "device": 7.2, "final": 10.8}\n')
        self.assertEqual(inline_cache._nvcc_notes(path), "nvcc as is (cicc exited 2); "
                                                         "nvcc's host and device halves side by side (12.2 s); "
                                                         "nvcc's host and device halves side by side (20.0 s: host "
                                                         "half 9.1 s beside the device half 7.2 s, then the host "
                                                         "compile 10.8 s)")
        self.assertIsNone(inline_cache._nvcc_notes(os.path.join(self.tmp, "none")))

    def test_light_without_precompiled_header(self):
        os.environ["FAIL_PCH"] = "1"
        inline_cache.install(self.cache, self.ext, torch_version="v")
        self.ext.load_inline("a", "int f();", cuda_sources=[KERNEL])
        self.assertIsNone(inline_cache.calls[0]["pch"])
        self.assertTrue(inline_cache.calls[0]["light"].startswith("light: "))
        self.assertIsInstance(self.ext.seen[0]["cuda_sources"], list)


@unittest.skipUnless(shutil.which("g++") and shutil.which("objdump"), "needs g++ and objdump")
class MinWrapperTest(WrapperTest):
    """The min cuda.cu on the stand-in cpp_extension, whose include directory has ATen's Tensor and
    two operator headers."""

    def setUp(self):
        super().setUp()
        inc = os.path.join(self.tmp, "inc")
        for h in ("ATen/core/Tensor.h", "ATen/ops/empty_like.h", "ATen/ops/relu.h", "ATen/ops/zeros.h"):
            os.makedirs(os.path.dirname(os.path.join(inc, h)), exist_ok=True)
            with open(os.path.join(inc, h), "w") as f:
                f.write("#pragma once\n")

    def test_min_used(self):
        inline_cache.install(self.cache, self.ext, torch_version="v")
        self.assertEqual(self.ext.load_inline("a", "int f();", cuda_sources=KERNEL), "module a")
        self.assertEqual(len(self.ext.seen), 1)
        seen = self.ext.seen[0]
        self.assertTrue(seen["no_implicit_headers"])
        self.assertEqual(seen["cpp_sources"], ["#include <torch/extension.h>", "int f();"])  # torch's own main.cpp text
        cuda = seen["cuda_sources"]
        self.assertEqual(cuda[1:3], ["#include <cuda.h>", "#include <cuda_runtime.h>"])  # 3 lines, as torch's
        self.assertEqual(cuda[3], inline_cache.lighten(KERNEL)[0])
        header = cuda[0][len('#include "'):-1]
        with open(header) as f:
            text = f.read()
        self.assertIn("#include <ATen/ops/empty_like.h>\n", text)  # called: torch::empty_like
        self.assertNotIn("relu.h", text)  # exists, not called
        self.assertIn("constexpr auto kFloat32 = at::kFloat;", text)
        self.assertEqual(inline_cache.calls[0]["light"],
                         "min: ATen's Tensor and 1 operator header(s) in place of torch/types.h")
        # the same source again: the same header file, not another
        self.ext.load_inline("b", "int f();", cuda_sources=KERNEL)
        self.assertEqual(self.ext.seen[1]["cuda_sources"][0], cuda[0])
        self.assertEqual(len(os.listdir(os.path.dirname(header))), 1)

    def test_min_failed_then_light(self):
        inline_cache.install(self.cache, self.ext, torch_version="v")
        cpp = ["int f();"]
        src = KERNEL + "int z = needs_types_h;\n"
        self.assertEqual(self.ext.load_inline("a", cpp, cuda_sources=src), "module a")
        self.assertEqual(len(self.ext.seen), 2)
        self.assertFalse(self.ext.seen[1]["no_implicit_headers"])
        self.assertEqual(self.ext.seen[1]["cuda_sources"], inline_cache.lighten(src)[0])
        self.assertEqual(self.ext.seen[1]["cpp_sources"], ["#include <torch/extension.h>", "int f();"])
        self.assertEqual(cpp, ["int f();"])  # the candidate's own list, as it gave it
        self.assertEqual(inline_cache.calls[0]["light"],
                         "light: 1 include(s) of torch's full headers left to torch/types.h "
                         "(after the min build failed (RuntimeError))")

    def test_every_lighter_build_failed(self):
        inline_cache.install(self.cache, self.ext, torch_version="v")
        cpp = ["int f();"]
        src = KERNEL + "int z = needs_types_h + needs_extension_h;\n"
        self.assertEqual(self.ext.load_inline("a", cpp, cuda_sources=src), "module a")
        self.assertEqual(len(self.ext.seen), 3)
        self.assertEqual(self.ext.seen[2]["cuda_sources"], src)  # as written, third
        self.assertEqual(self.ext.seen[2]["cpp_sources"], ["#include <torch/extension.h>", "int f();"])
        self.assertEqual(inline_cache.calls[0]["light"],
                         "as written: the min and light builds failed (RuntimeError, RuntimeError), "
                         "so it was built again as written")

    def test_own_error_skips_light(self):
        inline_cache.install(self.cache, self.ext, torch_version="v")
        with self.assertRaisesRegex(RuntimeError, "expected a"):
            self.ext.load_inline("a", "int f();", cuda_sources=KERNEL + "int own_error\n")
        self.assertEqual(len(self.ext.seen), 2)  # min, then as written (its error is the verdict's)
        self.assertEqual(self.ext.seen[1]["cuda_sources"], KERNEL + "int own_error\n")
        self.assertIn("the failure is the source's own", inline_cache.calls[0]["light"])

    def test_may_be_headers(self):
        for text in ('cuda.cu(4): error: identifier "at_check" is undefined',
                     'error: namespace "torch" has no member "kInt8x"',
                     'error: no operator "+" matches these operands',
                     "cuda.cu:7:5: error: 'empty' is not a member of 'torch'",
                     "Error building extension 'a'"):  # no compiler error to judge by
            self.assertTrue(inline_cache.may_be_headers(text), text)
        for text in ('cuda.cu(9): error: expected a ";"',
                     'error: a value of type "float *" cannot be used to initialize an entity of type "int *"'):
            self.assertFalse(inline_cache.may_be_headers(text), text)

    def test_import_error_skips_light(self):
        def load_inline(name, cpp_sources, cuda_sources=None, no_implicit_headers=False, **kw):
            self.ext.seen.append({"cuda_sources": cuda_sources})
            if self.ext.seen[-1]["cuda_sources"] != KERNEL:
                raise ImportError("custom.so: undefined symbol: _ZN3c106detail23torchInternalAssertFail")
            return "module " + name
        self.ext.load_inline = load_inline
        inline_cache.install(self.cache, self.ext, torch_version="v")
        self.assertEqual(self.ext.load_inline("a", "int f();", cuda_sources=KERNEL), "module a")
        self.assertEqual(len(self.ext.seen), 2)  # min, then as written: a load failure is not the headers'
        self.assertIn("the failure is the source's own", inline_cache.calls[0]["light"])

    def test_min_needs_no_heavy_include(self):
        inline_cache.install(self.cache, self.ext, torch_version="v")
        src = KERNEL.replace("#include <torch/extension.h>\n", "")
        self.ext.load_inline("a", "int f();", cuda_sources=src)
        self.assertEqual(self.ext.seen[0]["cuda_sources"][3], src)
        self.assertTrue(inline_cache.calls[0]["light"].startswith("min: "))

    def test_min_skipped(self):
        inline_cache.install(self.cache, self.ext, torch_version="v")
        for i, extra in enumerate(("auto o = x.options().requires_grad(true);", "TORCH_LIBRARY(m, l) {}",
                                   "auto t = torch::tensor({1});", "using torch::indexing::Slice;")):
            self.ext.load_inline("a%d" % i, "int f();", cuda_sources=KERNEL + extra + "\n")
            self.assertFalse(self.ext.seen[-1]["no_implicit_headers"], extra)
            self.assertTrue(inline_cache.calls[-1]["light"].startswith("light: "), extra)
            self.assertIn("the source uses", inline_cache.calls[-1]["min"])

    def test_min_header_names(self):
        ops = os.path.join(self.tmp, "inc", "ATen", "ops")
        text, n = inline_cache.min_header_text("at::relu(x); torch :: zeros; relu (y); zeros_like(z);", ops)
        self.assertEqual(n, 2)
        self.assertIn("#include <ATen/ops/relu.h>\n#include <ATen/ops/zeros.h>\n", text)

    def test_no_min_without_no_implicit_headers(self):
        def old(name, cpp_sources, cuda_sources=None, functions=None, extra_cflags=None, extra_cuda_cflags=None,
                extra_include_paths=None, with_cuda=None, use_pch=False, verbose=False):
            self.ext.seen.append({"cuda_sources": cuda_sources})
            return "module " + name
        self.ext.load_inline = old
        inline_cache.install(self.cache, self.ext, torch_version="v")
        self.ext.load_inline("a", "int f();", cuda_sources=KERNEL)
        self.assertEqual(self.ext.seen[0]["cuda_sources"], inline_cache.lighten(KERNEL)[0])
        self.assertEqual(inline_cache.calls[0]["min"], "this torch's load_inline has no no_implicit_headers")


class RealCompilerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.inc = os.path.join(self.tmp, "include")
        os.makedirs(os.path.join(self.inc, "torch"))
        with open(os.path.join(self.inc, "torch", "extension.h"), "w") as f:
            f.write(EXTENSION_H)
        self.main = os.path.join(self.tmp, "main.cpp")
        with open(self.main, "w") as f:
            f.write(MAIN_CPP)
        self.ext = fake_cpp_extension("g++", self.inc)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def compile(self, out, extra):
        flags = inline_cache.main_cpp_flags(self.ext, ["-O3"], None, True)
        cmd = ["g++", "-DTORCH_EXTENSION_NAME=relu_ext"] + flags + extra + ["-H", "-c", self.main, "-o", out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        code = subprocess.run(["objdump", "-d", "--no-show-raw-insn", out], capture_output=True, text=True).stdout
        return code.split("\n", 3)[-1], r.stderr  # past the header naming the file

    def test_same_code_both_ways(self):
        ident = inline_cache._compiler_identity("g++")
        self.assertIsNotNone(ident)
        flags = inline_cache.main_cpp_flags(self.ext, ["-O3"], None, True)
        p = inline_cache.ensure(os.path.join(self.tmp, "cache"), "g++", ident, "fake", flags)
        self.assertIsNotNone(p)
        self.assertTrue(p.built and os.path.getsize(p.gch) > 0)
        plain, _ = self.compile(os.path.join(self.tmp, "plain.o"), [])
        pch, trace = self.compile(os.path.join(self.tmp, "pch.o"), ["-include", p.header])
        self.assertEqual(plain, pch)
        self.assertIn("! " + p.gch, trace)  # g++ -H marks a precompiled header it used with '!'
        again = inline_cache.ensure(os.path.join(self.tmp, "cache"), "g++", ident, "fake", flags)
        self.assertFalse(again.built)  # the second candidate finds it


if __name__ == "__main__":
    unittest.main()
