#!/bin/sh
# Where a load_inline build's time goes, step by step, as torch's ninja file runs them (torch 2.15's
# flags): the g++ step on main.cpp plain and with kernelpro's precompiled torch/extension.h (and what
# building that header costs once), and the nvcc step on cuda.cu under `nvcc -time` (each phase).
# Runs wherever g++, nvcc and torch's headers are: TORCH_INCLUDE=.../torch/include (a torch wheel's
# include/ is enough: see docs/rejudge.md, "Measuring builds"); PYTHON_INCLUDE (default: this python's).
# Usage: bench/inline-build-breakdown.sh OUTDIR   (writes OUTDIR/breakdown.txt and nvcc-time.csv; LIGHT=1 also
# times nvcc on the same cuda.cu without its own #include <torch/extension.h>; HALVES=1 times that light file
# by nvcc and by harness/kp_nvcc.py, side by side, and compares the objects; NVCC_ONLY=1 skips the g++ and
# the plain nvcc steps)
set -eu
out=${1:?usage: inline-build-breakdown.sh OUTDIR}
mkdir -p "$out"
TI=${TORCH_INCLUDE:?set TORCH_INCLUDE to torch/include}
PI=${PYTHON_INCLUDE:-$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')}
CUDA_INC=${CUDA_HOME:-/usr/local/cuda}/include
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
ARCH=${ARCH:-90}
w=$(mktemp -d "$out/work.XXXXXX") # inside OUT: a shared /tmp may be cleaned under it
trap 'rm -rf "$w"' EXIT
# A KernelBench-style ReLU candidate, as load_inline writes it out.
cat >"$w/main.cpp" <<'CPP'
#include <torch/extension.h>
torch::Tensor relu_cuda(torch::Tensor x);
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
m.def("relu_cuda", torch::wrap_pybind_function(relu_cuda), "relu_cuda");
}
CPP
cat >"$w/cuda.cu" <<'CU'
#include <torch/types.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <torch/extension.h>
__global__ void relu_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
CU
common="-DTORCH_API_INCLUDE_EXTENSION_H -isystem $TI -isystem $TI/torch/csrc/api/include -isystem $CUDA_INC -isystem $PI"
cflags="$common -fPIC -std=c++20"
# run CMD...: runs it and prints "W s wall, C s CPU" (CPU: user + system of it and its children; on a
# shared machine wall time swells with the other jobs, CPU time much less).
run() {
	python3 -c '
import resource, subprocess, sys, time
t = time.monotonic()
rc = subprocess.run(sys.argv[1:]).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.1f s wall, %.1f s CPU" % (time.monotonic() - t, r.ru_utime + r.ru_stime))
sys.exit(rc)' "$@"
}
{
echo "machine: $(uname -n), $(nproc) cores; $(g++ --version | head -1); $($NVCC --version | tail -1)"
echo "torch headers: $TI"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${NVCC_ONLY:-0}" != 1 ]; then # NVCC_ONLY=1: the nvcc steps alone (with HALVES=1, LIGHT=1)
echo "g++ main.cpp, plain:                        $(run g++ -DTORCH_EXTENSION_NAME=relu_a $cflags -c "$w/main.cpp" -o "$w/main.o")"
mkdir -p "$w/pch"
printf '#include <torch/extension.h>\n' >"$w/pch/kp_torch_extension.h"
t=$(run g++ -x c++-header $cflags "$w/pch/kp_torch_extension.h" -o "$w/pch/kp_torch_extension.h.gch")
echo "the precompiled header, built once:         $t ($(du -m "$w/pch/kp_torch_extension.h.gch" | cut -f1) MB)"
t=$(run g++ -DTORCH_EXTENSION_NAME=relu_a $cflags -include "$w/pch/kp_torch_extension.h" -Winvalid-pch -H \
	-c "$w/main.cpp" -o "$w/main2.o" 2>"$w/pch.err")
used=$(grep -c "^! .*kp_torch_extension.h.gch" "$w/pch.err")
echo "g++ main.cpp with it:                       $t; the .gch used: $([ "$used" -ge 1 ] && echo yes || echo NO)$(grep -m1 -i "warning" "$w/pch.err" | sed 's/^/; /')"
objdump -d --no-show-raw-insn "$w/main.o" | tail -n +4 >"$w/plain.dis"
objdump -d --no-show-raw-insn "$w/main2.o" | tail -n +4 >"$w/pch.dis"
echo "machine code of main.o both ways:           $(cmp -s "$w/plain.dis" "$w/pch.dis" && echo identical || echo DIFFERENT)"
echo "nvcc cuda.cu:                               $(run "$NVCC" -DTORCH_EXTENSION_NAME=relu_a $common -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ \
	-D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr \
	-gencode=arch=compute_$ARCH,code=compute_$ARCH -gencode=arch=compute_$ARCH,code=sm_$ARCH \
	--compiler-options '-fPIC' -std=c++20 -time "$out/nvcc-time.csv" -c "$w/cuda.cu" -o "$w/cuda.o")"
echo "  its phases (nvcc -time, ms of wall time):"
awk -F, 'NR > 1 { gsub(/"/, ""); printf "    %-28s %10.0f\n", $2, $(NF - 1) }' "$out/nvcc-time.csv"
fi
if [ "${LIGHT:-0}" = 1 ]; then
	# The same cuda.cu without its own #include <torch/extension.h> (load_inline's torch/types.h is all
	# this wrapper needs): what lighter headers would save, where a wrapper allows them.
	grep -v '^#include <torch/extension.h>' "$w/cuda.cu" >"$w/cuda_light.cu"
	echo "nvcc cuda.cu with torch/types.h alone:      $(run "$NVCC" -DTORCH_EXTENSION_NAME=relu_a $common -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ \
		-D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr \
		-gencode=arch=compute_$ARCH,code=compute_$ARCH -gencode=arch=compute_$ARCH,code=sm_$ARCH \
		--compiler-options '-fPIC' -std=c++20 -time "$out/nvcc-light-time.csv" -c "$w/cuda_light.cu" -o "$w/cuda_light.o")"
	awk -F, 'NR > 1 { gsub(/"/, ""); printf "    %-28s %10.0f\n", $2, $(NF - 1) }' "$out/nvcc-light-time.csv"
fi
if [ "${HALVES:-0}" = 1 ]; then
	# The light cuda.cu by nvcc, then by harness/kp_nvcc.py (nvcc's own steps, its host and device halves
	# side by side), neither under -time (kp_nvcc leaves -time to nvcc); the two objects compared.
	grep -v '^#include <torch/extension.h>' "$w/cuda.cu" >"$w/cuda_light.cu"
	flags="-DTORCH_EXTENSION_NAME=relu_a $common -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__
		-D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr
		-gencode=arch=compute_$ARCH,code=compute_$ARCH -gencode=arch=compute_$ARCH,code=sm_$ARCH
		--compiler-options -fPIC -std=c++20"
	# shellcheck disable=SC2086
	echo "nvcc, light cuda.cu:                        $(run "$NVCC" -MD -MF "$w/a.d" $flags -c "$w/cuda_light.cu" -o "$w/a.o")"
	# shellcheck disable=SC2086
	echo "kp_nvcc.py (halves side by side), the same: $(KERNELPRO_REAL_NVCC="$NVCC" KERNELPRO_NVCC_NOTES="$w/notes" run python3 -E -s -B \
		"$(dirname "$0")/../harness/kp_nvcc.py" -MD -MF "$w/b.d" $flags -c "$w/cuda_light.cu" -o "$w/b.o")"
	echo "  kp_nvcc's note: $(cat "$w/notes" 2>/dev/null)"
	objdump -d -r --no-show-raw-insn "$w/a.o" | tail -n +4 | sed 's/tmpxft_[0-9a-f_]*/TMP/g' >"$w/a.dis"
	objdump -d -r --no-show-raw-insn "$w/b.o" | tail -n +4 | sed 's/tmpxft_[0-9a-f_]*/TMP/g' >"$w/b.dis"
	objcopy -O binary --only-section=.nv_fatbin "$w/a.o" "$w/a.fatbin"
	objcopy -O binary --only-section=.nv_fatbin "$w/b.o" "$w/b.fatbin"
	echo "host code and fatbinary both ways:          $(cmp -s "$w/a.dis" "$w/b.dis" && cmp -s "$w/a.fatbin" "$w/b.fatbin" && echo identical || echo DIFFERENT)"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/breakdown.txt"
