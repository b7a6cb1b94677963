#!/bin/sh
# A stand-in GPU evaluator for the bench tests (no GPU): it records when each evaluation starts and
# ends on which GPU (KP_GPU) in $KP_BENCH_LOG, sleeps $KP_FAKE_SLEEP, and answers like
# tests/integration/search/fake-harness.sh. The reference's time is the "// fake-ref-ms: MS" line of
# the task's reference; a candidate's is that over the "// fake-verdict: STATUS SPEEDUP" line's
# speedup (the run's baseline.json gives the reference's time to candidates).
# KP_FAKE_CRASH=NAME: every evaluation of the task whose reference says "// fake-task: NAME" dies.
# KP_BENCH_ENV=PREFIX: the environment it was given goes to PREFIX.ROLE (the last one of each role).
f=$1
log=${KP_BENCH_LOG:-/dev/null}
now() { date +%s.%N; }
case $KP_EVAL_ROLE in
baseline|reference) ref_file=$f ;;
*) ref_file= ;;
esac
if [ -n "$ref_file" ]; then
	ref=$(sed -n 's|.*fake-ref-ms: *\([0-9.]*\).*|\1|p' "$ref_file" | head -1)
	task=$(sed -n 's|.*fake-task: *\([A-Za-z0-9_-]*\).*|\1|p' "$ref_file" | head -1)
else
	run=$(dirname "$(dirname "$f")")
	ref=$(grep -o '"eager":{"median_ms":[0-9.e+-]*' "$run/baseline.json" 2>/dev/null | sed 's/.*://')
	task=$(basename "$run")
fi
[ -n "$ref" ] || ref=2.0
[ -n "${KP_BENCH_ENV:-}" ] && env >"$KP_BENCH_ENV.$KP_EVAL_ROLE"
echo "start $KP_GPU $task $KP_EVAL_ROLE ${KP_NODE_ID:-0} $(now)" >>"$log"
[ -n "${KP_FAKE_SLEEP:-}" ] && sleep "$KP_FAKE_SLEEP"
echo "end $KP_GPU $task $KP_EVAL_ROLE ${KP_NODE_ID:-0} $(now)" >>"$log"
if [ -n "${KP_FAKE_CRASH:-}" ] && [ "$task" = "$KP_FAKE_CRASH" ]; then
	kill -SEGV $$
fi
case $KP_EVAL_ROLE in
baseline)
	printf '{"eager":{"median_ms":%s},"torch_compile":{"median_ms":%s}}\n' "$ref" \
		"$(awk -v r="$ref" 'BEGIN { printf "%.6f", r * 0.8 }')"
	exit 0 ;;
reference)
	printf '{"status":"correct","runtime":{"median_ms":%s},"ref_runtime":{"median_ms":%s},"speedup":1.0}\n' "$ref" "$ref"
	exit 0 ;;
esac
line=$(grep -m1 'fake-verdict:' "$f")
status=$(echo "$line" | sed 's/.*fake-verdict: *\([a-z_]*\).*/\1/')
speed=$(echo "$line" | sed 's/.*fake-verdict: *[a-z_]* *\([0-9.]*\).*/\1/')
case $status in
correct)
	ms=$(awk -v s="$speed" -v r="$ref" 'BEGIN { printf "%.6f", r / s }')
	printf '{"status":"correct","speedup":%s,"runtime":{"median_ms":%s},"ref_runtime":{"median_ms":%s}}\n' \
		"$speed" "$ms" "$ref" ;;
compile_error)
	printf '{"status":"compile_error","log":"cand.cu(7): error: identifier \\"vec4\\" is undefined"}\n' ;;
*)
	printf '{"status":"%s","message":"3 of 5 trials differ"}\n' "$status" ;;
esac
