#!/bin/sh
# What a cut of the fast path's build would take (issue 29): the fast path builds a candidate's CUDA
# source into a shared library (nvcc -shared: the device code, then the host code of its extern "C"
# launchers against cuda_runtime.h, then a link); a cubin holds the device code alone, which the driver
# API loads without a host compiler (cuModuleLoadData, cuLaunchKernel), as Kernel Tuner's NVRTC path
# does. Times both on the example's source, REPS times each, alternating, and prints the medians.
#   bench/fastpath-build-cut.sh [REPS]   (default 5; ARCH=sm_90a; NVCC=...)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
reps=${1:-5}
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
arch=${ARCH:-sm_90a}
w=$(mktemp -d "${TMPDIR:-/tmp}/kp-cut-XXXXXX")
trap 'rm -rf "$w"' EXIT
PYTHONPATH="$root/harness" python3 - "$root/examples/kernelbench/swish_scale_fast.py" "$w/fast.cu" <<'PY'
import sys
from kernelpro import util
src = open(sys.argv[1]).read()
(_, cuda), = util.fast_sources(src)
open(sys.argv[2], "w").write(cuda)
PY
target="-gencode=arch=compute_${arch#sm_},code=$arch"
t() { python3 -c 'import subprocess, sys, time; t = time.monotonic(); subprocess.run(sys.argv[1:], check=True); print("%.3f" % (time.monotonic() - t))' "$@"; }
i=0
: >"$w/shared" && : >"$w/cubin"
while [ $i -lt "$reps" ]; do
	t "$NVCC" -shared -Xcompiler -fPIC "$target" -O3 -o "$w/lib.so" "$w/fast.cu" >>"$w/shared"
	t "$NVCC" -cubin "$target" -O3 -o "$w/k.cubin" "$w/fast.cu" >>"$w/cubin"
	i=$((i + 1))
done
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "machine: $(uname -n), $(nproc) cores; $("$NVCC" --version | tail -1); $arch; $reps runs each"
echo "nvcc -shared (the fast path today): median $(med "$w/shared") s  ($(paste -sd' ' "$w/shared"))"
echo "nvcc -cubin (device code alone):    median $(med "$w/cubin") s  ($(paste -sd' ' "$w/cubin"))"
