#!/bin/sh
# Everything the team runs on the GPU machine in one device call: doctor, the GPU tests, and the
# benchmarks named as arguments (paths of bench scripts). Logs go to $OUT/logs and come back as
# $OUT/logs.tgz plus $OUT/summary.txt (the device returns at most 8 files).
# Usage there:  sh tools/gpu-run.sh [bench/xxx.sh ...]
set -u
OUT=${OUT:-/tmp/kp-out}
root=$(pwd)
export KERNELPRO_HOME="$root"
export KERNELPRO_LIBEXEC="$root/dist/gpu/libexec/kernelpro"
export KP_GPU_LOGS="$OUT/logs/gpu-tests"
mkdir -p "$OUT/logs/gpu-tests" "$OUT/logs/bench"
KP="$root/dist/gpu/bin/kernelpro"
summary="$OUT/summary.txt"
: >"$summary"
start=$(date +%s)
"$KP" doctor >"$OUT/logs/doctor.txt" 2>&1
echo "doctor: exit $?" >>"$summary"
if [ "${KP_SKIP_GPU_TESTS:-0}" != 1 ]; then
	make -s gpu-test GPU_BUILD=dist/gpu >"$OUT/logs/gpu-test.txt" 2>&1
	echo "gpu-test: exit $?" >>"$summary"
	grep -E '^  (ok|FAIL|skip)|^gpu:' "$OUT/logs/gpu-test.txt" >>"$summary"
fi
for b in "$@"; do
	name=$(basename "$b" | sed 's/\.[a-z]*$//')
	bdir="$OUT/logs/bench/$name"
	blog="$OUT/logs/bench/$name.txt"
	mkdir -p "$bdir"
	t0=$(date +%s)
	env OUT="$bdir" KP="$KP" sh "$b" >"$blog" 2>&1
	rc=$?
	echo "bench $name: exit $rc ($(( $(date +%s) - t0 )) s)" >>"$summary"
	tail -25 "$blog" | sed 's/^/    /' >>"$summary"
done
echo "total: $(( $(date +%s) - start )) s" >>"$summary"
tar czf "$OUT/logs.tgz" -C "$OUT" logs
rm -rf "$OUT/logs"
cat "$summary"
