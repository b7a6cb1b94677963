#!/bin/sh
# Energy-proxy validation on the GPU, in one command: NVML energy per launch of the 34-kernel corpus
# (bench/energy/corpus.cu), ncu counts of the same kernels with exactly the proxy's metrics, then
# 'kernelpro energy validate': per-kernel error, Spearman rank correlation (target >= 0.9) for the
# default coefficients, a calibration on the same kernels and the honest leave-one-out figure.
# Leaves $OUT/corpus.jsonl for 'kernelpro energy calibrate' on any machine.
#
# Usage, from the repository root on the GPU machine (tools/gpu-run.sh sets KP, OUT, KERNELPRO_LIBEXEC):
#   sh bench/energy/run.sh
# About 4 minutes on the H200: ~2.5 min of NVML windows (34 kernels x (0.3 s warm-up + 3 x 1 s) plus
# idle), ~1 min of ncu replay. KP_ENERGY_WINDOWS and KP_ENERGY_WINDOW_S shorten or lengthen it.
set -u
root=$(pwd)
OUT=${OUT:-$root/energy-bench-out}
KP=${KP:-$root/dist/gpu/bin/kernelpro}
LIBEXEC=${KERNELPRO_LIBEXEC:-$(dirname "$KP")/../libexec/kernelpro}
CORPUS=$LIBEXEC/kp-energy-corpus
NCU=${NCU:-ncu}
WINDOWS=${KP_ENERGY_WINDOWS:-3}
WINDOW_S=${KP_ENERGY_WINDOW_S:-1.0}
mkdir -p "$OUT"

[ -x "$KP" ] || { echo "energy bench: no kernelpro at $KP (make gpu-bundle)"; exit 1; }
[ -x "$CORPUS" ] || { echo "energy bench: no kp-energy-corpus in $LIBEXEC (build with nvcc present)"; exit 1; }
command -v "$NCU" >/dev/null 2>&1 || { echo "energy bench: ncu not found (set NCU=/path/to/ncu)"; exit 1; }
t0=$(date +%s)

"$CORPUS" list >"$OUT/kernels.txt"
echo "== 1. NVML: energy per launch of $(grep -c . "$OUT/kernels.txt") kernels ($WINDOWS windows of ${WINDOW_S} s each)"
"$CORPUS" measure --windows "$WINDOWS" --window-s "$WINDOW_S" >"$OUT/measured.jsonl" 2>"$OUT/measure.log"
rc=$?
cat "$OUT/measure.log"
[ $rc -eq 0 ] || { echo "energy bench: measurement failed (exit $rc)"; exit 1; }
t1=$(date +%s)

echo "== 2. ncu: the proxy's counters for the same kernels"
metrics=$("$KP" energy metrics)
"$NCU" --metrics "$metrics" --profile-from-start off --clock-control none --export "$OUT/corpus" --force-overwrite \
	"$CORPUS" profile >"$OUT/ncu.log" 2>&1
rc=$?
tail -3 "$OUT/ncu.log"
[ $rc -eq 0 ] || { echo "energy bench: ncu failed (exit $rc), see ncu.log"; exit 1; }
"$NCU" --import "$OUT/corpus.ncu-rep" --csv --page raw --print-units base >"$OUT/ncu_raw.csv" 2>>"$OUT/ncu.log" ||
	{ echo "energy bench: ncu --import failed"; exit 1; }
t2=$(date +%s)

echo "== 3. proxy vs NVML"
"$KP" energy validate --measured "$OUT/measured.jsonl" --ncu-csv "$OUT/ncu_raw.csv" --out "$OUT/corpus.jsonl" |
	tee "$OUT/validate.txt"
"$KP" energy validate --measured "$OUT/measured.jsonl" --ncu-csv "$OUT/ncu_raw.csv" --json >"$OUT/validate.json" 2>/dev/null
echo "== 4. calibration on these kernels (dry run; the real one: kernelpro energy calibrate corpus.jsonl)"
"$KP" energy calibrate --dry-run "$OUT/corpus.jsonl" | tee "$OUT/calibrate.txt"
"$KP" energy proxy --ncu-csv "$OUT/ncu_raw.csv" >"$OUT/proxy.txt"
echo "times: NVML $((t1 - t0)) s, ncu $((t2 - t1)) s, total $(( $(date +%s) - t0 )) s"
