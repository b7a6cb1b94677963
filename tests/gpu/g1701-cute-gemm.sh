#!/bin/sh
# CuTe on the GPU (issue 17): the bf16 GEMM of examples/native/bf16_gemm written with CuTe (WGMMA +
# TMA, sm_90a) is correct and timed against the task's reference, cuBLAS; a KernelBench fast-path
# candidate that includes <cute/tensor.hpp> builds and is correct; code search answers there too.
# The GPU machine has no CUTLASS: the device call carries .cutlass/include and .cutlass/tools
# (tools/install-cutlass.sh puts them there; docs/internals/codesearch.md).
. "$KP_ROOT/tests/integration/lib.sh"
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
export KERNELPRO_HOME XDG_CACHE_HOME="$KP_TMP/xdg"
if [ -z "${CUTLASS_PATH:-}" ]; then
	[ -f "$KP_ROOT/.cutlass/include/cute/tensor.hpp" ] ||
		skip "no CUTLASS: run tools/install-cutlass.sh and carry .cutlass/include and .cutlass/tools"
fi
ex="$KP_ROOT/examples"
cache="$KP_TMP/cache"

expect_exit 0 "$KP" doctor --no-counters --no-python
contains out "cutlass"
grep cutlass out

# 1. The CuTe WGMMA+TMA GEMM against cuBLAS (4096^3 bf16, fp32 accumulation).
expect_exit 0 "$KP" eval --json --cache "$cache" "$ex/native/bf16_gemm" "$ex/native/bf16_gemm/candidates/cute_wgmma_tma.cu"
cp out v-gemm.json
python3 - v-gemm.json <<'PY' || { cat v-gemm.json; fail "the CuTe GEMM is not correct"; }
import json, sys
v = json.load(open(sys.argv[1]))
assert v["status"] == "correct" and v["correct"], (v["status"], v.get("message"), v.get("log"))
assert v["correctness"]["trials_passed"] == 5 == v["correctness"]["trials_run"], v["correctness"]
rt, ref = v["runtime"], v["ref_runtime"]
flops = 2.0 * 4096 ** 3
print("cute_wgmma_tma: %.4f ms = %.0f TFLOP/s; cuBLAS: %.4f ms = %.0f TFLOP/s; speedup vs cuBLAS %.3fx;"
      " max abs diff %s" % (rt["median_ms"], flops / rt["median_ms"] / 1e9, ref["median_ms"],
                            flops / ref["median_ms"] / 1e9, v["speedup"], v["correctness"]["max_abs_diff"]))
PY

# 2. The reference alone (cuBLAS, loaded at kp_init), timed with the same protocol.
expect_exit 0 "$KP" baseline --json --cache "$cache" "$ex/native/bf16_gemm"
contains out '"eager": {'

# 3. The fast path with a CuTe source.
expect_exit 0 "$KP" eval --json --cache "$cache" "$ex/kernelbench/swish_scale.py" "$ex/kernelbench/swish_scale_cute.py"
cp out v-fast.json
python3 - v-fast.json <<'PY' || { cat v-fast.json; fail "the CuTe fast-path candidate is not correct"; }
import json, sys
v = json.load(open(sys.argv[1]))
assert v["status"] == "correct" and v["correct"], (v["status"], v.get("message"), v.get("log"))
print("swish_scale_cute: %.4f ms, %.2fx vs eager" % (v["runtime"]["median_ms"], v["speedup"]))
PY

# 4. Code search over the carried headers (the index is built on first use).
expect_exit 0 "$KP" codesearch --lines 3 make_tma_atom
contains out "cute::make_tma_atom  (function)"
