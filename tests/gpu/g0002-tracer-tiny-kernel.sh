#!/bin/sh
# On the GPU: the CUPTI tracer records the 200 launches of tiny_kernel (kernels tiny_kernel), with their gaps and the sync.
. "$KP_ROOT/tests/integration/lib.sh"
G="$KP_ROOT/tests/golden/h200-probe"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || skip "no nvcc to build kernels.cu"
"$NVCC" -O3 -arch=sm_90 -o kernels "$G/kernels.cu" -lcublas || fail "nvcc kernels.cu"
expect_exit 0 "$KP" profile --no-ncu --json --out t ./kernels tiny_kernel
cat out
python3 - <<'PY' || fail "tracer counts"
import json
o = json.load(open("out"))
k = [x for x in o["kernels"] if "tiny_kernel" in x["name"]]
assert len(k) == 1 and k[0]["launches"] == 200, o["kernels"]
assert o["timeline"] and o["span_ns"] > 0 and o["syncs"] >= 1 and o["memcpys"] >= 2, o
t = json.load(open("t/trace.json"))
assert t["complete"] is True and t["dropped"] == 0
assert sum(1 for e in t["events"] if e["kind"] == "api" and "LaunchKernel" in e["name"]) >= 200
print("tracer saw", k[0]["launches"], "launches of tiny_kernel")
PY
echo ok
