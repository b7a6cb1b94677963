#!/bin/sh
# On the GPU: the cost of kernelpro's targeted ncu collection (only the metrics Stage 1 needs, plus
# $KP_BENCH_METRICS) against `ncu --set full`, on the 17 probe kernels, as a ratio in one run.
# Target: targeted <= 25% of --set full. Writes $OUT/collection_cost.txt (OUT defaults to ./bench-out).
# Usage (repo root, after make gpu-bundle): sh bench/gpu_collection_cost.sh [path/to/kernelpro]
# (or through tools/gpu-run.sh bench/gpu_collection_cost.sh, which sets KP and OUT)
set -eu
KP=${1:-${KP:-$PWD/dist/gpu/bin/kernelpro}}
case "$KP" in /*) ;; *) KP="$PWD/$KP" ;; esac
OUT=${OUT:-$PWD/bench-out}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$OUT"
cd "$OUT"
"$NVCC" -O3 -arch=sm_90 -lineinfo -o kernels "$OLDPWD/tests/golden/h200-probe/kernels.cu" -lcublas
./kernels all >/dev/null   # warm caches, JIT, driver
now() { date +%s.%N; }
extra=""
[ -n "${KP_BENCH_METRICS:-}" ] && extra="--metrics $KP_BENCH_METRICS"
{
echo "collection cost on the probe kernels ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)), $(date -u +%FT%TZ)"
for round in $(seq 1 "${KP_ROUNDS:-3}"); do
	t0=$(now)
	# shellcheck disable=SC2086
	"$KP" profile -q --out targeted $extra ./kernels all >/dev/null
	t1=$(now)
	LC_ALL=C "$NCU" --clock-control none --set full -f -o full ./kernels all >/dev/null 2>&1
	t2=$(now)
	python3 -c "
t=$t1-$t0; f=$t2-$t1
print('round $round: targeted %.1f s, --set full %.1f s, ratio %.1f%%' % (t, f, 100*t/f))"
done
echo "targeted = kernelpro profile (ncu run + CSV + Stage 1); full = ncu --set full -o (collection only)"
} 2>&1 | tee collection_cost.txt
