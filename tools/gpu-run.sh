#!/bin/sh
# Everything the team runs on the GPU machine in one device call: doctor, the GPU tests, and the
# benchmarks named as arguments. Every step runs under the time left before a deadline, so the logs
# are always packed and returned: $OUT/logs.tgz and $OUT/summary.txt (the device returns <= 8 files).
#
# Usage there:  [KP_GPU_TESTS="g0001 g0501"] [KP_DEADLINE_S=540] sh tools/gpu-run.sh [bench/x.sh ...]
#   KP_GPU_TESTS   which tests/gpu tests to run (prefixes); empty: all; "none": skip the tests
#   KP_DEADLINE_AT the deadline as seconds since the epoch (instead of KP_DEADLINE_S from now)
set -u
OUT=${OUT:-/tmp/kp-out}
root=$(pwd)
deadline=${KP_DEADLINE_AT:-$(( $(date +%s) + ${KP_DEADLINE_S:-540} ))}
export KERNELPRO_HOME="$root"
export KERNELPRO_LIBEXEC="$root/dist/gpu/libexec/kernelpro"
export KP_GPU_LOGS="$OUT/logs/gpu-tests"
mkdir -p "$OUT/logs/gpu-tests" "$OUT/logs/bench"
KP="$root/dist/gpu/bin/kernelpro"
summary="$OUT/summary.txt"
: >"$summary"
start=$(date +%s)
left() { echo $(( deadline - $(date +%s) )); }

"$KP" doctor >"$OUT/logs/doctor.txt" 2>&1
echo "doctor: exit $?" >>"$summary"
if [ "${KP_GPU_TESTS:-}" != none ]; then
	timeout "$(left)" make -s gpu-test GPU_BUILD=dist/gpu >"$OUT/logs/gpu-test.txt" 2>&1
	echo "gpu-test: exit $?" >>"$summary"
	grep -E '^  (ok|FAIL|skip)|^gpu:' "$OUT/logs/gpu-test.txt" >>"$summary"
fi
for b in "$@"; do
	name=$(basename "$b" | sed 's/\.[a-z]*$//')
	bdir="$OUT/logs/bench/$name"
	blog="$OUT/logs/bench/$name.txt"
	mkdir -p "$bdir"
	if [ "$(left)" -le 10 ]; then
		echo "bench $name: not run (deadline)" >>"$summary"
		continue
	fi
	t0=$(date +%s)
	timeout "$(left)" env OUT="$bdir" KP="$KP" KP_ROOT="$root" sh "$b" >"$blog" 2>&1
	rc=$?
	echo "bench $name: exit $rc ($(( $(date +%s) - t0 )) s)" >>"$summary"
	tail -25 "$blog" | sed 's/^/    /' >>"$summary"
done
echo "total: $(( $(date +%s) - start )) s" >>"$summary"
tar czf "$OUT/logs.tgz" -C "$OUT" logs
rm -rf "$OUT/logs"
cat "$summary"
