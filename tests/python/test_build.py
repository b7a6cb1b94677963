"""kernelpro.build (fast-path cache): keys agree with the C side, builds land in <cache>/<key>,
failures keep nvcc's output, and a finished key is never rebuilt. nvcc is faked by a script."""

import os
import stat
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))

from kernelpro import build  # noqa: E402

FAKE_NVCC = """#!/bin/sh
# A stand-in for nvcc: --version prints a version; otherwise writes the -o file, or fails when the
# source contains FAIL (printing an nvcc-like error).
if [ "$1" = "--version" ]; then echo "nvcc fake"; echo "Build cuda_fake_1"; exit 0; fi
out=""; src=""
while [ $# -gt 0 ]; do
  case "$1" in -o) out=$2; shift ;; *.cu) src=$1 ;; esac
  shift
done
echo "$src" >> "$(dirname "$0")/calls"
if grep -q FAIL "$src"; then echo "$src(1): error: FAIL is not defined" >&2; exit 2; fi
echo built > "$out"
"""


class KeyTest(unittest.TestCase):
    def test_matches_c_golden(self):
        # The same inputs as tests/unit/t_eval_verdict.c test_build_key.
        self.assertEqual(build.cache_key("src", ["-O3", "-lineinfo"], "V13.0.88", "sm_90a"),
                         "327a425c2d8135f2fd8887ad678c1a648d2f86798b60413178cc63045e7528bf")

    def test_every_input_matters(self):
        base = build.cache_key("s", ["-O3"], "v", "sm_90")
        self.assertNotEqual(base, build.cache_key("s ", ["-O3"], "v", "sm_90"))
        self.assertNotEqual(base, build.cache_key("s", ["-O2"], "v", "sm_90"))
        self.assertNotEqual(base, build.cache_key("s", ["-O3"], "w", "sm_90"))
        self.assertNotEqual(base, build.cache_key("s", ["-O3"], "v", "sm_90a"))
        self.assertNotEqual(base, build.cache_key("s", ["-O3"], "v", "sm_90", extras=["h"]))
        # Framing: moving text between fields changes the key.
        self.assertNotEqual(build.cache_key("s", ["a", "b"], "v", "x"), build.cache_key("s", ["a\x00b"], "v", "x"))

    def test_newline_flag_rejected(self):
        with self.assertRaises(ValueError):
            build.cache_key("s", ["-O3\n"], "v", "sm_90")


class BuildTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="kp-pytest-")
        self.nvcc = os.path.join(self.dir, "nvcc")
        with open(self.nvcc, "w") as f:
            f.write(FAKE_NVCC)
        os.chmod(self.nvcc, stat.S_IRWXU)
        self.tc = build.Toolchain(nvcc=self.nvcc, arch="sm_90", cache=os.path.join(self.dir, "cache"),
                                  flags=["-O3"])
        build._registry.clear()

    def tearDown(self):
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)
        build._registry.clear()

    def calls(self):
        p = os.path.join(self.dir, "calls")
        return open(p).read().split() if os.path.exists(p) else []

    def test_version_from_nvcc(self):
        self.assertEqual(self.tc.version, "Build cuda_fake_1")

    def test_build_then_cached(self):
        b = build.Build(self.tc, "__global__ void k() {}", "my kernel!", self.tc.flags, timeout=30)
        lib = b.wait()
        self.assertTrue(lib.endswith(os.path.join(b.key, "lib.so")))
        self.assertTrue(os.path.exists(lib))
        self.assertFalse(b.cached)
        self.assertEqual(self.calls(), ["my_kernel_.cu"])
        # No temporary directories left behind.
        self.assertEqual(sorted(os.listdir(self.tc.cache)), [b.key])
        again = build.Build(self.tc, "__global__ void k() {}", "other", self.tc.flags, timeout=30)
        self.assertTrue(again.cached)
        self.assertEqual(again.wait(), lib)
        self.assertEqual(len(self.calls()), 1)

    def test_failure_keeps_log_and_leaves_nothing(self):
        b = build.Build(self.tc, "FAIL", "bad", self.tc.flags, timeout=30)
        with self.assertRaises(build.BuildError) as cm:
            b.wait()
        self.assertIn("FAIL is not defined", cm.exception.log)
        self.assertIn("bad.cu", str(cm.exception))
        self.assertEqual(os.listdir(self.tc.cache), [])

    def test_registry_shares_inflight_builds(self):
        a = build.start(self.tc, "__global__ void k() {}", name="a")
        b = build.start(self.tc, "__global__ void k() {}", name="b")
        self.assertIs(a, b)
        a.wait()
        self.assertEqual(len(self.calls()), 1)

    def test_race_loser_uses_winner(self):
        # Two builds of one key in flight (two processes): both succeed, one directory remains.
        a = build.Build(self.tc, "__global__ void r() {}", "a", self.tc.flags, timeout=30)
        b = build.Build(self.tc, "__global__ void r() {}", "b", self.tc.flags, timeout=30)
        la, lb = a.wait(), b.wait()
        self.assertEqual(la, lb)
        self.assertEqual(os.listdir(self.tc.cache), [a.key])

    def test_argv(self):
        argv = build.nvcc_argv("nvcc", "sm_90a", ["-O3"], "k.cu", "lib.so", includes=["/inc"])
        self.assertEqual(argv, ["nvcc", "-shared", "-Xcompiler", "-fPIC", "-gencode=arch=compute_90a,code=sm_90a",
                                "-O3", "-I/inc", "-o", "lib.so", "k.cu"])

    def test_nvcc_target(self):
        # The same cases as tests/unit/t_eval_verdict.c (kp_nvcc_target).
        for arch, opt in (("sm_90a", "-gencode=arch=compute_90a,code=sm_90a"),
                          ("sm_86", "-gencode=arch=compute_86,code=sm_86"),
                          ("sm_100a", "-gencode=arch=compute_100a,code=sm_100a"),
                          ("compute_90", "-arch=compute_90")):
            self.assertEqual(build.nvcc_target(arch), opt)


if __name__ == "__main__":
    unittest.main()
