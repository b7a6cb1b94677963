#!/bin/sh
# Several tools/gpu-run.sh streams in one device call. Stream i runs on GPU (i mod the GPU count);
# streams of one GPU run one after another, streams of different GPUs at once, so no GPU ever runs
# two streams together and timings stay quiet-machine timings. All streams share one deadline. Each
# stream's logs come back as $OUT/sI-logs.tgz and $OUT/sI-summary.txt (the device returns <= 8 files).
#
# Usage there:  [KP_DEADLINE_S=560] sh tools/gpu-par.sh "TESTS[;BENCH ...]" ["TESTS[;BENCH ...]" ...]
#   TESTS   tests/gpu prefixes for KP_GPU_TESTS ("none": no tests); BENCH: scripts for gpu-run.sh
set -u
OUT=${OUT:-/tmp/kp-out}
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$ngpu" -ge 1 ] || ngpu=1
export KP_DEADLINE_AT=$(( $(date +%s) + ${KP_DEADLINE_S:-540} ))
root=$OUT

stream() { # INDEX SPEC
	tests=${2%%;*}
	benches=
	case "$2" in *\;*) benches=$(echo "${2#*;}" | tr ';' ' ') ;; esac
	(
		export CUDA_VISIBLE_DEVICES=$(($1 % ngpu)) OUT="$root/s$1" KP_GPU_TESTS="$tests"
		mkdir -p "$OUT"
		# shellcheck disable=SC2086
		sh tools/gpu-run.sh $benches >/dev/null 2>&1
		mv "$OUT/logs.tgz" "$root/s$1-logs.tgz" 2>/dev/null
		mv "$OUT/summary.txt" "$root/s$1-summary.txt" 2>/dev/null
		rm -rf "$OUT"
	)
}

g=0
while [ $g -lt "$ngpu" ]; do
	(
		i=0
		for spec in "$@"; do
			[ $((i % ngpu)) -eq $g ] && stream $i "$spec"
			i=$((i + 1))
		done
	) &
	g=$((g + 1))
done
wait
for f in "$root"/s*-summary.txt; do
	[ -e "$f" ] || continue
	echo "== $(basename "$f")"
	cat "$f"
done
