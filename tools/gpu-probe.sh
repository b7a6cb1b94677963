#!/bin/sh
# One-off look at the GPU machine: what the image has, whether the carried bundle runs, where ncu keeps its rules.
# Usage there: sh tools/gpu-probe.sh   (writes under $OUT)
set -u
OUT=${OUT:-/tmp/kp-probe}
mkdir -p "$OUT"
{
echo "== os"; cat /etc/os-release | head -3; ldd --version | head -1; uname -r; nproc
echo "== libs"; ldconfig -p | grep -E "libcurl|libjansson|libsqlite3|libcrypto|libssl|liblua|libnvidia-ml|libcuda.so|libcupti" 
echo "== tools"; for t in nvcc ncu cuobjdump nvdisasm compute-sanitizer python3 gcc g++ make pkg-config clang; do printf '%s: ' $t; command -v $t || echo missing; done
echo "== bundle doctor"; KERNELPRO_HOME=$PWD dist/gpu/bin/kernelpro doctor; echo "rc=$?"
echo "== bundle doctor json"; KERNELPRO_HOME=$PWD dist/gpu/bin/kernelpro doctor --json --no-counters
echo "== ncu dirs"; ls /opt/nvidia/nsight-compute/*/ ; ls /opt/nvidia/nsight-compute/*/sections | head -80
echo "== python"; python3 -c "import torch, sys; print(sys.version); print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0)); import importlib.util as u; print('cutlass_library', u.find_spec('cutlass_library')); print('cuda.bindings', u.find_spec('cuda'))"
python3 -m pip list 2>/dev/null | grep -i -E "cutlass|nvidia|torch|triton|numpy" 
echo "== nvidia-smi"; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv
echo "== headers"; ls /usr/include/curl /usr/include/jansson.h /usr/include/sqlite3.h /usr/include/lua5.4 2>&1 | head
echo "== cuda"; ls /usr/local/cuda/; ls /usr/local/cuda/lib64 | grep -i -E "cupti|nvperf" ; ls /usr/local/cuda/extras 2>&1
} > "$OUT/probe.txt" 2>&1
tar czf "$OUT/ncu-sections.tgz" -C /opt/nvidia/nsight-compute/2025.3.1 sections 2>/dev/null
tail -60 "$OUT/probe.txt"
