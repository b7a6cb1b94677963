#!/bin/sh
# Several tools/gpu-run.sh streams at once, one GPU each (stream i gets GPU i mod the GPU count), so
# correctness tests and captures that need no quiet machine share one device call. Each stream's
# logs come back as $OUT/sI-logs.tgz and $OUT/sI-summary.txt (the device returns at most 8 files).
#
# Usage there:  [KP_DEADLINE_S=560] sh tools/gpu-par.sh "TESTS[;BENCH ...]" ["TESTS[;BENCH ...]" ...]
#   TESTS   tests/gpu prefixes for KP_GPU_TESTS ("none": no tests); BENCH: scripts for gpu-run.sh
# Timings taken in one stream are not quiet-machine timings: keep timing benchmarks in a call of their own.
set -u
OUT=${OUT:-/tmp/kp-out}
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$ngpu" -ge 1 ] || ngpu=1
i=0
for spec in "$@"; do
	tests=${spec%%;*}
	benches=
	case "$spec" in *\;*) benches=$(echo "${spec#*;}" | tr ';' ' ') ;; esac
	(
		export CUDA_VISIBLE_DEVICES=$((i % ngpu)) OUT="$OUT/s$i" KP_GPU_TESTS="$tests"
		mkdir -p "$OUT"
		# shellcheck disable=SC2086
		sh tools/gpu-run.sh $benches >/dev/null 2>&1
		mv "$OUT/logs.tgz" "$OUT/../s$i-logs.tgz" 2>/dev/null
		mv "$OUT/summary.txt" "$OUT/../s$i-summary.txt" 2>/dev/null
		rmdir "$OUT" 2>/dev/null
	) &
	i=$((i + 1))
done
wait
for f in "$OUT"/s*-summary.txt; do
	echo "== $f (GPU $(( $(basename "$f" | sed 's/^s\([0-9]*\)-.*/\1/') % ngpu )))"
	cat "$f"
done
