#!/bin/sh
# On the H200 machine, from the repository root: builds, checks and profiles the real-kernel corpus of
# issue 31 (model-written KernelBench kernels that bench/corpus-real/prepare.py exported into .real/)
# in one call, keeping what a classifier needs so that labelling and scoring happen offline.
#
#   python3 bench/corpus-real/prepare.py KERNEL_CODER_GIT KERNELBENCH_GIT    # here; carry .real
#   sh bench/gpu-capture-real.sh                                            # there; writes under $OUT
#
# $OUT/real-capture.tgz unpacks to real-capture/ with
#   builds/ID/{build.json,build.log,sass.txt,ptxas.txt}  each kernel's build (ptxas -v lines), its
#                        check against the task's Model, and cuobjdump -sass of the built extension
#   gN/{ncu_raw.csv,ncu_raw_instances.csv,ncu_details.csv,ncu_source_sass.csv,ncu_source_cuda_sass.csv,
#       program.log}     one ncu --set full
#                        collection per group of kernels (program.log has the KPREAL-BEGIN/END markers
#                        and ncu's "==PROF==" lines in order: bench/corpus-real/split.py makes one
#                        profile directory per kernel from them)
#   env.txt, log.txt     the GPU, versions, every step and its time
# $OUT/real-summary.txt is the log. Every step runs under a deadline (KP_REAL_DEADLINE_S, default 380 s
# in all: builds at most KP_REAL_BUILD_S, default 165 s, collection until 330 s, exports until 370 s);
# what does not fit is skipped, said so in the log, and the files are still written.
#   KP_REAL_IDS="l1p54 l1p62"   only these kernels of the selection (default: all, in selection order)
#   KP_REAL_DEV31=0             skip bench/corpus-dev31 (already captured)
# On the H200 (2026-12-01) 16 parallel load_inline builds took ~100 s each: 165 s fits one round of 16.
set -u
ROOT=$(pwd)
OUT=${OUT:-$ROOT/out}
CUDA=${CUDA_HOME:-/usr/local/cuda}
NCU=${NCU:-$(command -v ncu 2>/dev/null || echo "$CUDA/bin/ncu")}
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump 2>/dev/null || echo "$CUDA/bin/cuobjdump")}
TORCHPY=${TORCHPY:-/opt/torch/.venv/bin/python3}
[ -x "$TORCHPY" ] || TORCHPY=$(command -v python3)
NAME=real-capture
C="$OUT/$NAME"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
start=$(date +%s)
total=${KP_REAL_DEADLINE_S:-380}
collect_end=$((start + total - 50))
export_end=$((start + total - 10))
mkdir -p "$C/builds"
LOG="$C/log.txt"
: >"$LOG"
say() { echo "gpu-capture-real: [$(($(date +%s) - start)) s] $*" | tee -a "$LOG" >&2; }
left() { echo $(($1 - $(date +%s))); }

[ -d .real/kernels ] || { say "FAILED: no .real/kernels (run bench/corpus-real/prepare.py here and carry .real)"; exit 3; }
[ -x "$NCU" ] || { say "FAILED: no ncu at $NCU"; exit 3; }
METRICS=$(cat bench/corpus2/metrics.txt bench/corpus-real/tools-metrics.txt 2>/dev/null | grep -v '^#' |
	awk 'NF && $1 !~ /^memory_/ && !seen[$1]++ { print $1 }' | paste -sd, -)
{
	echo "date: $(date -u +%FT%TZ)"
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv
	"$NCU" --version
	nvcc --version 2>/dev/null | tail -2
	"$TORCHPY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
	cat .real/COMMITS
	git rev-parse HEAD 2>/dev/null || true
	echo "metrics requested explicitly: $(printf '%s' "$METRICS" | tr ',' '\n' | wc -l)"
} >"$C/env.txt" 2>&1

# 0. The issue-31 development corpus (our own kernels, bench/corpus-dev31), compiled while the
#    model-written kernels build; profiled after them, alone on the GPU.
NVCC=${NVCC:-$(command -v nvcc 2>/dev/null || echo "$CUDA/bin/nvcc")}
dev31_pid=
if [ "${KP_REAL_DEV31:-1}" != 0 ]; then
	mkdir -p "$C/dev31"
	"$NVCC" -O3 -arch=sm_90 -lineinfo -Xptxas -v -o "$TMP/dev31" bench/corpus-dev31/kernels.cu 2>"$C/dev31/ptxas.txt" &
	dev31_pid=$!
fi

# 1. Builds and checks, in parallel (16 cores; each load_inline runs two compilers, so the CPU is the limit).
build_s=${KP_REAL_BUILD_S:-$((total * 165 / 380))}
ids=${KP_REAL_IDS:-}
say "building and checking ${ids:-all $(ls .real/kernels | wc -l)} kernels (at most $build_s s)"
# shellcheck disable=SC2086
"$TORCHPY" bench/corpus-real/capture.py build-all "$C/builds" $ids --jobs 16 --deadline "$build_s" >>"$LOG" 2>&1
say "builds done: $(wc -l <"$C/builds/ok.txt" 2>/dev/null || echo 0) kernels build and match their task's Model"
for d in "$C"/builds/*/; do
	[ -d "$d" ] || continue
	so=$(ls "$d"ext/*.so 2>/dev/null | head -1)
	[ -n "$so" ] && "$CUOBJDUMP" -sass "$so" >"$d/sass.txt" 2>>"$LOG"
	grep -E '^ptxas (info|warning)|bytes stack frame' "$d/build.log" >"$d/ptxas.txt" 2>/dev/null
	rm -rf "$d/ext"/*.o "$d/ext"/*.ninja "$d/ext"/.ninja_*
done

# exports REPORT DIR: the pages, in the background while the GPU moves on (each ends by export_end)
exports() {
	(
		imp() {
			t=$(left $export_end)
			[ "$t" -gt 0 ] || { echo "export skipped (deadline): $*"; return 124; }
			LC_ALL=C timeout "$t" "$NCU" --import "$rep" --csv "$@"
		}
		rep=$1 d=$2
		imp --page raw --print-units base >"$d/ncu_raw.csv" 2>>"$d/export.log"
		imp --page details >"$d/ncu_details.csv" 2>>"$d/export.log"
		imp --page raw --print-units base --print-metric-instances values >"$d/ncu_raw_instances.csv" 2>>"$d/export.log"
		imp --page source --print-source sass >"$d/ncu_source_sass.csv" 2>>"$d/export.log"
		imp --page source --print-source cuda,sass >"$d/ncu_source_cuda_sass.csv" 2>>"$d/export.log"
		echo "exports done" >>"$d/export.log"
	) &
}

if [ -n "$dev31_pid" ]; then
	wait $dev31_pid && [ -x "$TMP/dev31" ] || say "FAILED: nvcc bench/corpus-dev31/kernels.cu (see dev31/ptxas.txt)"
fi
if [ -n "$dev31_pid" ] && [ -x "$TMP/dev31" ]; then
	"$CUOBJDUMP" -sass "$TMP/dev31" >"$C/dev31/sass.txt" 2>>"$LOG"
	t0=$(date +%s)
	timeout 30 "$TMP/dev31" all >"$C/dev31/plain-run.log" 2>&1
	say "plain run dev31: exit $? in $(($(date +%s) - t0)) s"
	t0=$(date +%s)
	env LC_ALL=C timeout 90 "$NCU" --clock-control none --set full --metrics "$METRICS" --import-source yes \
		--force-overwrite --export "$TMP/dev31" "$TMP/dev31" all >"$C/dev31/program.log" 2>&1
	say "ncu dev31: exit $? in $(($(date +%s) - t0)) s"
	[ -f "$TMP/dev31.ncu-rep" ] && exports "$TMP/dev31.ncu-rep" "$C/dev31"
fi

# 2. ncu, one collection per group of kernels (a timeout loses one group, not all).
ok=$(cat "$C/builds/ok.txt" 2>/dev/null || true)
n=$(printf '%s\n' "$ok" | awk 'NF' | wc -l)
per=$(((n + 2) / 3))
[ "$per" -ge 1 ] || per=1
g=0
printf '%s\n' "$ok" | awk 'NF' | split -l "$per" - "$TMP/group."
for f in "$TMP"/group.*; do
	[ -s "$f" ] || continue
	g=$((g + 1))
	d="$C/g$g"
	mkdir -p "$d"
	cp "$f" "$d/ids.txt"
	t=$(left $collect_end)
	if [ "$t" -le 15 ]; then
		say "SKIPPED (deadline): group $g: $(tr '\n' ' ' <"$f")"
		continue
	fi
	t0=$(date +%s)
	# shellcheck disable=SC2046
	env LC_ALL=C timeout "$t" "$NCU" --clock-control none --set full --metrics "$METRICS" --nvtx \
		--profile-from-start off --import-source yes --force-overwrite --export "$TMP/g$g" \
		"$TORCHPY" bench/corpus-real/capture.py profile "$C/builds" $(cat "$f") >"$d/program.log" 2>&1
	rc=$?
	say "ncu group $g ($(tr '\n' ' ' <"$f")): exit $rc in $(($(date +%s) - t0)) s"
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -qi 'metric' "$d/program.log" && [ "$(left $collect_end)" -gt 30 ]; then
		say "ncu refused the explicit metrics (program.log.metrics); group $g again with --set full alone"
		mv "$d/program.log" "$d/program.log.metrics"
		env LC_ALL=C timeout "$(left $collect_end)" "$NCU" --clock-control none --set full --nvtx \
			--profile-from-start off --import-source yes --force-overwrite --export "$TMP/g$g" \
			"$TORCHPY" bench/corpus-real/capture.py profile "$C/builds" $(cat "$f") >"$d/program.log" 2>&1
		say "ncu group $g (set full only): exit $?"
	fi
	[ -f "$TMP/g$g.ncu-rep" ] || { say "FAILED: no report for group $g"; continue; }
	exports "$TMP/g$g.ncu-rep" "$d"
done
say "waiting for the page exports"
wait
say "total $(($(date +%s) - start)) s"
rm -rf "$C"/builds/*/ext # the built extensions: megabytes each, and the kernels' code
ls -lR "$C" >>"$LOG" 2>&1
cp "$LOG" "$OUT/real-summary.txt"
tar czf "$OUT/real-capture.tgz" -C "$OUT" "$NAME" && rm -rf "$C"
ls -l "$OUT"
