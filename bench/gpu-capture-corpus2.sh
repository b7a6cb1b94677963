#!/bin/sh
# On the H200 machine, from the repository root: builds and profiles both labelled corpora of issue 19
# (the held-out bench/corpus2 and the development bench/corpus-dev: CUDA kernels batched into one
# binary per set, plus each set's PyTorch modules as whole tasks) in one call, and keeps everything a
# classifier might need so that scoring can be redone offline, without a GPU.
#
#   make gpu-bundle                                  # here; the device call carries dist/gpu
#   sh bench/gpu-capture-corpus2.sh                  # there; writes under $OUT (three files)
#
# $OUT/corpus2-capture.tgz unpacks to corpus2-capture/ with one profile directory per set and module
# (heldout, dev, heldout-NAME, dev-NAME), each readable by `kernelpro analyze DIR`:
#   ncu_raw.csv          --set full + bench/corpus2/metrics.txt + `kernelpro tools metrics`, raw page
#   ncu_raw_instances.csv the same with instanced metrics' per-instance values (per-opcode counts, ...)
#   ncu_details.csv      details page: sections and Nsight Compute's own rule results
#   ncu_source_sass.csv  source page, SASS with executed counts (the only SASS of library kernels)
#   sass.txt, ptxas.txt  cuobjdump -sass and nvcc -Xptxas -v (CUDA sets)
#   trace.json           CUPTI launch trace of the whole task (modules: 2 warm-up + 3 forwards)
#   program.log, ncu.log what the program and ncu printed
# plus env.txt (GPU, driver, clocks, tool and library versions), log.txt (every step, its time) and
# score.txt (bench/diagnosis.py --all over this capture, when a kernelpro build is present).
# With KP_CORPUS_REPORTS=1, $OUT/corpus2-reports.tgz holds the .ncu-rep reports (any page can be re-exported from them with
# ncu --import); $OUT/corpus2-summary.txt is the log and the score's summary.
#
# Time (estimated from bench/results/h200-2026-11-29/collection-cost.txt: --set full took 49 s for
# the 17 probe kernels, ~3 s a kernel): builds ~15 s (in parallel), 27 CUDA kernels ~90 s, four
# modules ~4 x 25 s under ncu plus ~4 x 8 s traced, exports overlapped with collection, scoring
# ~15 s: about 4-5 minutes. Every step runs under a deadline (KP_CAPTURE_DEADLINE_S, default 330 s
# for the collection, then at most 90 s more for the page exports and 90 s for the scoring, so the
# whole script ends within ~9 minutes at worst); what does not fit is skipped, said so in the log,
# and the files are written.
set -u
ROOT=$(pwd)
OUT=${OUT:-$ROOT/out}
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$(command -v nvcc 2>/dev/null || echo "$CUDA/bin/nvcc")}
NCU=${NCU:-$(command -v ncu 2>/dev/null || echo "$CUDA/bin/ncu")}
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump 2>/dev/null || echo "$CUDA/bin/cuobjdump")}
KP=${KP:-$ROOT/dist/gpu/bin/kernelpro}
case "$KP" in /*) ;; *) KP="$ROOT/$KP" ;; esac
TORCHPY=${TORCHPY:-/opt/torch/.venv/bin/python3}
[ -x "$TORCHPY" ] || TORCHPY=$(command -v python3)
export KERNELPRO_HOME="${KERNELPRO_HOME:-$ROOT}"
export KERNELPRO_LIBEXEC="${KERNELPRO_LIBEXEC:-$(dirname "$(dirname "$KP")")/libexec/kernelpro}"
NAME=corpus2-capture
C="$OUT/$NAME"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
start=$(date +%s)
deadline=$((start + ${KP_CAPTURE_DEADLINE_S:-330}))
mkdir -p "$C" "$TMP/rep"
LOG="$C/log.txt"
: >"$LOG"
left() { echo $((deadline - $(date +%s))); }
say() { echo "gpu-capture-corpus2: [$(($(date +%s) - start)) s] $*" | tee -a "$LOG" >&2; }
# runs "$@" with the time left; logs the outcome and the step's wall time
timed() {
	what=$1
	shift
	if [ "$(left)" -le 5 ]; then
		say "SKIPPED (deadline): $what"
		return 124
	fi
	t0=$(date +%s)
	timeout "$(left)" "$@"
	rc=$?
	say "$what: exit $rc in $(($(date +%s) - t0)) s"
	return $rc
}

[ -x "$NCU" ] || { say "FAILED: no ncu at $NCU"; exit 3; }
[ -x "$NVCC" ] || { say "FAILED: no nvcc at $NVCC"; exit 3; }
# The explicit metrics: the corpus's list and, when a kernelpro build is here, what its tools read
# today (source-level ones come with --set full's SourceCounters section).
METRICS=$(grep -v '^#' bench/corpus2/metrics.txt | awk 'NF { print $1 }')
if [ -x "$KP" ]; then
	METRICS="$METRICS
$("$KP" tools metrics 2>>"$LOG" | awk 'NF && !/source-level/ { print $1 }')"
fi
METRICS=$(printf '%s\n' "$METRICS" | awk 'NF && !seen[$0]++' | paste -sd, -)

{
	echo "date: $(date -u +%FT%TZ)"
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv
	"$NCU" --version
	"$NVCC" --version | tail -2
	"$TORCHPY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), torch.cuda.get_device_name(0))'
	[ -x "$KP" ] && "$KP" version
	git rev-parse HEAD 2>/dev/null || true
	echo "metrics requested explicitly: $(printf '%s' "$METRICS" | tr ',' '\n' | wc -l)"
} >"$C/env.txt" 2>&1

# ncu_collect DIR REPORT ARGS...: one --set full collection (the explicit metrics too; without them
# if ncu refuses one), then the pages exported in the background while the GPU moves on.
ncu_collect() {
	dir=$1 rep=$2
	shift 2
	timed "ncu $(basename "$dir")" env LC_ALL=C "$NCU" --clock-control none --set full --metrics "$METRICS" \
		--log-file "$dir/ncu.log" --force-overwrite --export "$rep" "$@" >"$dir/program.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -qi 'metric' "$dir/ncu.log"; then
		say "ncu refused the explicit metrics (see $(basename "$dir")/ncu.log.metrics); again with --set full alone"
		mv "$dir/ncu.log" "$dir/ncu.log.metrics"
		timed "ncu $(basename "$dir") (set full only)" env LC_ALL=C "$NCU" --clock-control none --set full \
			--log-file "$dir/ncu.log" --force-overwrite --export "$rep" "$@" >"$dir/program.log" 2>&1
		rc=$?
	fi
	[ -f "$rep.ncu-rep" ] || return 1
	(
		# every export ends by the collection deadline + 90 s, whatever the queue
		imp() {
			t=$((deadline + 90 - $(date +%s)))
			[ $t -gt 0 ] || { echo "export skipped (deadline): $*" >&2; return 124; }
			LC_ALL=C timeout $t "$NCU" --import "$rep.ncu-rep" --csv "$@"
		}
		{
			imp --page raw --print-units base >"$dir/ncu_raw.csv"
			imp --page raw --print-units base --print-metric-instances values >"$dir/ncu_raw_instances.csv"
			imp --page details >"$dir/ncu_details.csv"
			imp --page source --print-source sass >"$dir/ncu_source_sass.csv"
			echo "exports done"
		} 2>>"$dir/export.log" >>"$dir/export.log"
	) &
	return $rc
}

# 1. Build both CUDA sets at once (ptxas -v into each set's ptxas.txt), disassemble.
mkdir -p "$C/heldout" "$C/dev"
say "nvcc bench/corpus2/kernels.cu and bench/corpus-dev/kernels.cu"
"$NVCC" -O3 -arch=sm_90 -lineinfo -Xptxas -v -o "$TMP/heldout" bench/corpus2/kernels.cu 2>"$C/heldout/ptxas.txt" &
p1=$!
"$NVCC" -O3 -arch=sm_90 -lineinfo -Xptxas -v -o "$TMP/dev" bench/corpus-dev/kernels.cu 2>"$C/dev/ptxas.txt" &
p2=$!
wait $p1 || say "FAILED: nvcc heldout (see heldout/ptxas.txt)"
wait $p2 || say "FAILED: nvcc dev (see dev/ptxas.txt)"
say "built"

# 2. Each CUDA set: a plain run first (the kernels work before ncu replays them), then ncu.
for set in heldout dev; do
	[ -x "$TMP/$set" ] || continue
	"$CUOBJDUMP" -sass "$TMP/$set" >"$C/$set/sass.txt" 2>>"$LOG" || say "FAILED: cuobjdump $set"
	timed "plain run $set" "$TMP/$set" all >"$C/$set/plain-run.log" 2>&1 || continue
	ncu_collect "$C/$set" "$TMP/rep/$set" --launch-count 64 "$TMP/$set" all || say "FAILED: ncu $set (see $set/ncu.log)"
done

# 3. The modules, whole tasks: ncu on one forward after two warm-ups (profiler range), then the
#    CUPTI tracer on 2 warm-up + 3 forwards.
TRACER="$KERNELPRO_LIBEXEC/libkp_tracer.so"
[ -f "$TRACER" ] || say "no tracer library at $TRACER (make gpu-bundle): modules get no trace.json"
for pair in heldout:bench/corpus2/modules.py dev:bench/corpus-dev/modules.py; do
	set=${pair%%:*} mods=${pair#*:}
	for m in $("$TORCHPY" bench/corpus2/run_module.py "$mods" --list); do
		d="$C/$set-$m"
		mkdir -p "$d"
		ncu_collect "$d" "$TMP/rep/$set-$m" --profile-from-start off \
			"$TORCHPY" bench/corpus2/run_module.py "$mods" "$m" --warmup 2 --iters 1 --range ||
			say "FAILED: ncu $set-$m (see $set-$m/ncu.log, program.log)"
		[ -f "$TRACER" ] || continue
		timed "trace $set-$m" env CUDA_INJECTION64_PATH="$TRACER" KP_TRACE_OUT="$d/trace.json" \
			"$TORCHPY" bench/corpus2/run_module.py "$mods" "$m" --warmup 2 --iters 3 >"$d/tracer.log" 2>&1 ||
			say "FAILED: trace $set-$m (see $set-$m/tracer.log)"
	done
done

say "waiting for the page exports"
wait
say "collection and exports done"

# 4. Score right away (the labels were committed before this run; scoring is redone offline too).
if [ -x "$KP" ]; then
	t0=$(date +%s)
	timeout 90 "$TORCHPY" bench/diagnosis.py --kp "$KP" --all --capture-root "$C" >"$C/score.txt" 2>&1 ||
		say "FAILED: diagnosis.py (see score.txt)"
	say "scored in $(($(date +%s) - t0)) s"
else
	say "no kernelpro at $KP (make gpu-bundle here first): not scored here; score offline"
fi

# 5. Pack: at most three files come back.
ls -lR "$C" >>"$LOG" 2>&1
say "total $(($(date +%s) - start)) s"
{
	cat "$LOG"
	echo
	sed -n '/^== side by side/,$p' "$C/score.txt" 2>/dev/null
} >"$OUT/corpus2-summary.txt"
tar czf "$OUT/corpus2-capture.tgz" -C "$OUT" "$NAME" && rm -rf "$C"
# The reports are 17 MB: over what one file of a device call may bring back inside a log archive.
[ "${KP_CORPUS_REPORTS:-0}" = 1 ] && tar czf "$OUT/corpus2-reports.tgz" -C "$TMP" rep
ls -l "$OUT"
