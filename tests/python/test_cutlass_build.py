"""kernelpro.build for CUTLASS/CuTe sources (the fast path): the same flags, arch and cache key as the
C side (lib/hw/cutlass.c kp_cutlass_build_flags + lib/eval kp_build_key, checked in
tests/unit/t_codesearch.c), and a clear error when no CUTLASS was found."""

import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))

from kernelpro import build  # noqa: E402

CUTE = '#include "kp_native.h"\n  #  include <cute/tensor.hpp>\nusing Op = SM90_64x128x16_F32BF16BF16_SS<K, K>;\n'
PLAIN = "// #include <cute/tensor.hpp> in a comment\n__global__ void k() {}\n"


def toolchain(cutlass):
    return build.Toolchain(nvcc="/bin/true", nvcc_version="V13.0.88", arch="sm_90", cache="/nonexistent",
                           flags=["-O3", "-lineinfo"], cutlass=cutlass)


class CutlassBuildTest(unittest.TestCase):
    def test_plain_source_unchanged(self):
        tc = toolchain({"include": ["/c/include"], "version": "4.2.0"})
        self.assertEqual(build.source_build(tc, PLAIN, tc.flags), (["-O3", "-lineinfo"], "sm_90", ()))

    def test_cute_source_flags_arch_key(self):
        tc = toolchain({"include": ["/c/include", "/c/tools/util/include"], "version": "4.2.0"})
        flags, arch, extras = build.source_build(tc, CUTE, tc.flags)
        self.assertEqual(flags, ["-O3", "-lineinfo", "-std=c++17", "--expt-relaxed-constexpr", "-I/c/include",
                                 "-I/c/tools/util/include"])
        self.assertEqual(arch, "sm_90a")
        self.assertEqual(extras, ("cutlass 4.2.0\n",))

    def test_key_matches_c(self):
        self.assertEqual(build.cache_key("#include <cute/tensor.hpp>\n",
                                         ["-O3", "-lineinfo", "-std=c++17", "--expt-relaxed-constexpr",
                                          "-I/c/include"], "V13.0.88", "sm_90a", ("cutlass 4.2.0\n",)),
                         "cad9c7ad52ec23b42b6386fbb8af2c719fcb2b344f5b262000f74ee193a957b5")

    def test_raw_wgmma_gets_sm90a_only(self):
        tc = toolchain(None)
        src = 'asm volatile("wgmma.fence.sync.aligned;");\n'
        self.assertEqual(build.source_build(tc, src, tc.flags), (["-O3", "-lineinfo"], "sm_90a", ()))

    def test_no_cutlass_says_how_to_install(self):
        with self.assertRaises(build.BuildError) as e:
            build.source_build(toolchain(None), CUTE, ["-O3"])
        self.assertIn("tools/install-cutlass.sh", str(e.exception))

    def test_env_round_trip(self):
        tc = toolchain({"include": ["/a", "/b"], "version": "4.2.0"})
        env = tc.to_env()
        self.assertEqual(env["KP_CUTLASS_INCLUDES"], "/a\x1f/b")
        old = dict(os.environ)
        try:
            os.environ.update(env)
            again = build.Toolchain()
            self.assertEqual(again.cutlass, {"include": ["/a", "/b"], "version": "4.2.0"})
        finally:
            os.environ.clear()
            os.environ.update(old)


if __name__ == "__main__":
    unittest.main()
