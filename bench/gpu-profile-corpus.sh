#!/bin/sh
# On the H200 machine, from the repository root: builds our labelled corpus (bench/corpus/kernels.cu),
# profiles it with `ncu --set full --clock-control none`, and writes what the diagnosis benchmark
# reads to $OUT/corpus/ (8 files): ncu_raw.csv, ncu_details.csv, sass.txt, ptxas.txt and, when a
# kernelpro build is present (make gpu-bundle), tiny_trace.json (the CUPTI tracer on the probe's 200
# tiny_kernel launches), diagnosis.txt (bench/diagnosis.py over the new capture), targeted.txt (the
# probe kernels profiled with only the metrics the tools declare: `kernelpro profile --tools all`,
# which proves ncu accepts every name, and the findings from that collection) and log.txt.
#
#   OUT=/tmp/out sh bench/gpu-profile-corpus.sh          # KP=dist/gpu/bin/kernelpro by default
#   sh tools/gpu-run.sh bench/gpu-profile-corpus.sh      # the same, inside the team's one device call
#
# Expected time: two to three minutes (nvcc 2 x 10 s, ncu --set full over 5 kernels ~30 s, the
# targeted collection over the 17 probe kernels ~1 min).
set -u
OUT=${OUT:-$(pwd)/out}
D="$OUT/corpus"
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA/bin/nvcc}
NCU=${NCU:-$(command -v ncu 2>/dev/null || echo "$CUDA/bin/ncu")}
CUOBJDUMP=${CUOBJDUMP:-$CUDA/bin/cuobjdump}
KP=${KP:-dist/gpu/bin/kernelpro}
PY=${PYTHON:-$(command -v python3 2>/dev/null || echo /opt/torch/.venv/bin/python3)}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$D"
LOG="$D/log.txt"
: >"$LOG"
say() { echo "gpu-profile-corpus: $*" | tee -a "$LOG" >&2; }
step() { say "$*"; "$@" >>"$LOG" 2>&1 || { say "FAILED: $*"; return 1; }; }

start=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >>"$LOG" 2>&1
# 1. Build (ptxas -v goes to ptxas.txt) and disassemble.
say "nvcc bench/corpus/kernels.cu"
"$NVCC" -O3 -arch=sm_90 -lineinfo -Xptxas -v -o "$TMP/corpus" bench/corpus/kernels.cu 2>"$D/ptxas.txt" ||
	{ say "FAILED: nvcc (see ptxas.txt)"; exit 1; }
"$CUOBJDUMP" -sass "$TMP/corpus" >"$D/sass.txt" || say "FAILED: cuobjdump"
# 2. A plain run first: the kernels work before ncu replays them.
step "$TMP/corpus" all || exit 1
# 3. ncu --set full, then the raw page (metrics) and the details page (Nsight Compute's rules).
step env LC_ALL=C "$NCU" --clock-control none --set full -f -o "$TMP/full" "$TMP/corpus" all || exit 1
LC_ALL=C "$NCU" --import "$TMP/full.ncu-rep" --csv --page raw --print-units base >"$D/ncu_raw.csv" 2>>"$LOG" ||
	say "FAILED: ncu raw export"
LC_ALL=C "$NCU" --import "$TMP/full.ncu-rep" --csv --page details >"$D/ncu_details.csv" 2>>"$LOG" ||
	say "FAILED: ncu details export"
# 4. The launch-overhead case of the shared probe corpus: tiny_kernel's 200 launches under the tracer.
if [ -x "$KP" ]; then
	built=0
	"$NVCC" -O3 -arch=sm_90 -o "$TMP/kernels" tests/golden/h200-probe/kernels.cu -lcublas >>"$LOG" 2>&1 && built=1
	if [ $built = 1 ] && step "$KP" profile --no-ncu --out "$TMP/tiny" "$TMP/kernels" tiny_kernel; then
		cp "$TMP/tiny/trace.json" "$D/tiny_trace.json" || say "FAILED: no trace.json"
	fi
	# 5. Score the new capture right away (the labels were committed before this run).
	if [ -f "$D/ncu_raw.csv" ]; then
		say "diagnosis benchmark"
		trace=""
		[ -f "$D/tiny_trace.json" ] && trace="--trace $D/tiny_trace.json"
		# shellcheck disable=SC2086
		"$PY" bench/diagnosis.py --kp "$KP" --corpus bench/corpus --capture "$D" $trace \
			>"$D/diagnosis.txt" 2>>"$LOG" || say "FAILED: diagnosis.py"
	fi
	# 6. Targeted collection: only Stage 1's and the tools' metrics, on the labelled probe kernels.
	if [ $built = 1 ]; then
		say "targeted collection (kernelpro profile --tools all)"
		t0=$(date +%s)
		"$KP" profile --tools all --out "$TMP/targeted" "$TMP/kernels" all >"$D/targeted.txt" 2>&1 ||
			say "FAILED: kernelpro profile --tools all (see targeted.txt)"
		echo "wall time: $(( $(date +%s) - t0 )) s" >>"$D/targeted.txt"
		cat "$TMP/targeted/profile.json" >>"$D/targeted.txt" 2>/dev/null
	fi
else
	say "no kernelpro at $KP (make gpu-bundle here first): skipped the tracer run and the scoring"
fi
say "done in $(( $(date +%s) - start )) s; files in $D"
ls -l "$D" >>"$LOG"
