#!/bin/sh
# Several tools/gpu-run.sh streams in one device call, in phases. Streams of one phase run at once
# (stream i of a phase on GPU i mod the GPU count, so on one GPU they share it: put only correctness
# tests together, never timings); a stream whose spec starts with '|' starts a new phase, after every
# stream before it has ended. All streams share one deadline. Everything comes back as two files:
# $OUT/logs.tgz (s<N>/ per stream) and $OUT/summary.txt (the device returns at most 8 files).
#
# Usage there:  [KP_DEADLINE_S=560] sh tools/gpu-par.sh "[|]TESTS[;BENCH ...]" ...
#   TESTS   tests/gpu prefixes for KP_GPU_TESTS ("none": no tests); BENCH: scripts for gpu-run.sh
# Example: a capture alone, then three test streams together:
#   sh tools/gpu-par.sh "none;bench/gpu-capture-corpus2.sh" "|g1301" "g0502" "g0501 g1201"
set -u
OUT=${OUT:-/tmp/kp-out}
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$ngpu" -ge 1 ] || ngpu=1
export KP_DEADLINE_AT=$(( $(date +%s) + ${KP_DEADLINE_S:-540} ))
root=$OUT
mkdir -p "$root"
work=$(mktemp -d "${TMPDIR:-/tmp}/kp-par-XXXXXX")

stream() { # INDEX GPU SPEC
	tests=${3%%;*}
	benches=
	case "$3" in *\;*) benches=$(echo "${3#*;}" | tr ';' ' ') ;; esac
	d="$work/s$1"
	mkdir -p "$d"
	# shellcheck disable=SC2086
	CUDA_VISIBLE_DEVICES=$2 OUT="$d" KP_GPU_TESTS="$tests" sh tools/gpu-run.sh $benches >/dev/null 2>&1
	{ echo "== stream $1 (GPU $2, ended $(( KP_DEADLINE_AT - $(date +%s) )) s before the deadline): $3"; cat "$d/summary.txt" 2>/dev/null; } >"$work/s$1.txt"
	mkdir -p "$d/x" && tar xzf "$d/logs.tgz" -C "$d/x" 2>/dev/null && rm -f "$d/logs.tgz"
}

i=0
slot=0
for spec in "$@"; do
	case "$spec" in
	\|*) wait; slot=0; spec=${spec#|} ;;
	esac
	stream $i $((slot % ngpu)) "$spec" &
	i=$((i + 1))
	slot=$((slot + 1))
done
wait
cat "$work"/s*.txt >"$root/summary.txt"
tar czf "$root/logs.tgz" -C "$work" .
rm -rf "$work"
cat "$root/summary.txt"
