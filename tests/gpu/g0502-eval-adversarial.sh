#!/bin/sh
# The adversarial corpus on a real GPU: every hack gets the verdict its header names, every crash,
# hang, illegal address and out-of-memory is a verdict, and the evaluation after each still works.
. "$KP_ROOT/tests/integration/lib.sh"
# The harness files come from the source tree whatever build directory $KP is in.
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
export KERNELPRO_HOME
cache="$KP_TMP/cache"
. "$KP_ROOT/tests/gpu/corpus.sh"

for f in "$KP_ROOT"/tests/adversarial/kernelbench/*.py "$KP_ROOT"/tests/adversarial/native/*.cu; do
	corpus_file "$f"
	case "$want" in
	runtime_error* | timeout*)
		# The next evaluation starts clean.
		"$KP" eval --json --cache "$cache" "$KP_ROOT/examples/native/row_sum" \
			"$KP_ROOT/examples/native/row_sum/candidates/warp_shuffle.cu" >after.json 2>&1
		grep -q '"status": "correct"' after.json || { echo "    evaluation after $name failed:"; cat after.json; bad=$((bad + 1)); }
		;;
	esac
	case "$name" in
	nat_illegal_address.cu)
		grep -q "compute-sanitizer" "$name.json" || { echo "    no compute-sanitizer report in the log"; bad=$((bad + 1)); }
		;;
	esac
done
# KernelBench crashes in the Python adapter: a hang and an illegal address from a fast-path kernel,
# an out-of-memory from PyTorch, a segfault through ctypes.
mk() { # NAME BODY_OF_FORWARD KERNEL_BODY
	cat >"$1.py" <<PY
import ctypes
import torch
import torch.nn as nn
from kernelpro.fast import load_cuda
SRC = r"""
#include <cuda_runtime.h>
__global__ void k(float *y, long n) { $3 }
extern "C" int run(float *y, long n, cudaStream_t s) { k<<<1, 1, 0, s>>>(y, n); return (int)cudaGetLastError(); }
"""
lib = load_cuda(SRC, name="$1", functions={"run": ["ptr", "i64", "stream"]})
class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
    def forward(self, x):
        y = torch.empty_like(x)
        $2
        return y
PY
}
# (A loop on a volatile local is deleted by nvcc -O3: the SASS is LDC; EXIT. clock64() cannot be.)
mk kb_hang "lib.run(y, y.numel())" "while (clock64() >= 0) { }"
mk kb_illegal "lib.run(y, y.numel())" "y[n * 4096] = 1.0f;"
mk kb_oom "z = torch.empty(1 << 50, device=x.device); lib.run(y, y.numel())" ""
# (string_at(0, n) does not fault: CPython treats a NULL source as "allocate n bytes". Address 8 faults.)
mk kb_segv "ctypes.string_at(8, 8); lib.run(y, y.numel())" ""
for c in kb_hang:timeout kb_illegal:runtime_error kb_oom:runtime_error kb_segv:runtime_error; do
	name=${c%%:*}
	want=${c#*:}
	n=$((n + 1))
	# (No compute-sanitizer rerun here: PyTorch's start-up under memcheck takes minutes; the native
	# illegal-address case above covers the rerun.)
	"$KP" eval --json --cache "$cache" --check-timeout 30 --no-sanitize "$KP_ROOT/examples/kernelbench/swish_scale.py" \
		"$name.py" >"$name.json" 2>&1
	got=$(sed -n 's/^  "status": "\(.*\)",$/\1/p' "$name.json")
	printf '%-34s %-16s\n' "$name" "$got"
	[ "$got" = "$want" ] || { echo "    expected $want:"; cat "$name.json"; bad=$((bad + 1)); }
	"$KP" eval --json --cache "$cache" "$KP_ROOT/examples/kernelbench/swish_scale.py" \
		"$KP_ROOT/examples/kernelbench/swish_scale_fast.py" >after.json 2>&1
	grep -q '"status": "correct"' after.json || { echo "    evaluation after $name failed:"; cat after.json; bad=$((bad + 1)); }
done
# message FILE: the verdict's status, message and the log's last lines, for a failed expectation.
message() { python3 -c 'import json, sys; v = json.load(open(sys.argv[1])); print("    %s: %s\n    log: %s" % (v.get("status"), v.get("message"), (v.get("log") or "")[-600:]))' "$1" 2>&1 || cat "$1"; }
grep -q "out of memory" kb_oom.json || { echo "kb_oom: no 'out of memory' in the verdict"; message kb_oom.json; bad=$((bad + 1)); }
grep -q "illegal memory access" kb_illegal.json || { echo "kb_illegal: no 'illegal memory access'"; message kb_illegal.json; bad=$((bad + 1)); }
echo "$n cases, $bad wrong"
[ "$bad" -eq 0 ]
