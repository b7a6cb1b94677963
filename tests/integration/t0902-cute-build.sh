#!/bin/sh
# CuTe candidates build (compile only, no GPU) with the real CUTLASS headers that 'make deps' puts in
# .cutlass (or $CUTLASS_PATH): the native WGMMA+TMA GEMM of examples/native/bf16_gemm through
# `kernelpro eval --build-only`, and a fast-path CuTe source through the Python adapter's builder,
# both getting C++17, the CUTLASS include path and sm_90a.
. "$KP_ROOT/tests/integration/lib.sh"
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
export KERNELPRO_HOME
[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || command -v nvcc >/dev/null || skip "no nvcc"
if [ -z "${CUTLASS_PATH:-}" ]; then
	[ -f "$KP_ROOT/.cutlass/include/cute/tensor.hpp" ] ||
		skip "no CUTLASS: 'make deps' (tools/install-cutlass.sh) installs it into .cutlass"
	CUTLASS_PATH="$KP_ROOT/.cutlass"
fi
export CUTLASS_PATH
task="$KP_ROOT/examples/native/bf16_gemm"

expect_exit 0 "$KP" eval --build-only --arch sm_90 --cache "$KP_TMP/cache" --json "$task" "$task/candidates/cute_wgmma_tma.cu"
python3 - <<'PY' || fail "the CuTe GEMM did not build"
import json, os
d = json.load(open("out"))
assert d["status"] == "compiled" and d["compiled"], d
assert os.path.exists(d["artifact"]), d
PY

# The fast path: kernelpro.build with the CUTLASS kernelpro passes it (sm_90 becomes sm_90a for GMMA).
cat >fast.cu <<'CU'
#include <cute/tensor.hpp>
using namespace cute;
// One GMMA atom's layouts, touched so the sm_90a-only headers are instantiated.
extern "C" int kp_fast_probe(void)
{
	using Atom = MMA_Atom<SM90_64x64x16_F32BF16BF16_SS<GMMA::Major::K, GMMA::Major::K>>;
	auto tiled = make_tiled_mma(Atom{});
	return int(size(tiled));
}
CU
python3 - "$KP_ROOT" "$CUTLASS_PATH" "$KP_TMP/pycache" <<'PY' || fail "fast-path CuTe build"
import os, shutil, sys
root, cutlass, cache = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "harness"))
from kernelpro import build
nvcc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
if not os.access(nvcc, os.X_OK):
    nvcc = shutil.which("nvcc")
tc = build.Toolchain(nvcc=nvcc, arch="sm_90", cache=cache,
                     cutlass={"include": [os.path.join(cutlass, "include")], "version": "test"})
b = build.start(tc, open("fast.cu").read(), name="fast", timeout=600)
try:
    lib = b.wait()
except build.BuildError as e:
    print(e.log[-3000:])
    raise
assert b.arch == "sm_90a" and "-std=c++17" in b.flags, (b.arch, b.flags)
assert os.path.exists(lib), lib
PY
