#!/bin/sh
# A stand-in harness for the optimize tests (no GPU): the verdict comes from a marker line in the
# candidate, "// fake-verdict: STATUS SPEEDUP", and is printed in the 'kernelpro eval --json' schema.
# The reference is 2 ms. KP_FAKE_SLEEP=SECONDS slows each evaluation (for the kill test).
# KP_FAKE_PROFILE=DIR: every correct verdict says its profile was saved in DIR (reactive tools read it).
f=$1
[ -n "${KP_FAKE_SLEEP:-}" ] && sleep "$KP_FAKE_SLEEP"
if [ "$KP_EVAL_ROLE" = reference ]; then
	printf '{"status":"correct","runtime":{"median_ms":2.0},"ref_runtime":{"median_ms":2.0},"speedup":1.0,'
	printf '"stage1":"memory-bound: 1.21 TB/s of 4.2 TB/s (29%%)","hardware":"NVIDIA H200 (fake harness)",'
	printf '"feedback":"coalescing: each warp reads 32 strided floats","findings":[{"tool":"coalescing",'
	printf '"severity":"high","title":"uncoalesced loads","recommendations":["index with threadIdx.x fastest"]}]}\n'
	exit 0
fi
line=$(grep -m1 'fake-verdict:' "$f")
status=$(echo "$line" | sed 's/.*fake-verdict: *\([a-z_]*\).*/\1/')
speed=$(echo "$line" | sed 's/.*fake-verdict: *[a-z_]* *\([0-9.]*\).*/\1/')
[ -n "$status" ] || { echo "no fake-verdict line in $f" >&2; exit 2; }
case $status in
correct)
	ms=$(awk -v s="$speed" 'BEGIN { printf "%.6f", 2.0 / s }')
	printf '{"status":"correct","speedup":%s,"runtime":{"median_ms":%s},"ref_runtime":{"median_ms":2.0},' "$speed" "$ms"
	printf '"feedback":"after #%s: occupancy 50%%, limited by registers","findings":[{"tool":"occupancy",' "$KP_NODE_ID"
	printf '"severity":"medium","title":"register-limited occupancy","recommendations":["__launch_bounds__(256, 4)"]}]'
	[ -n "${KP_FAKE_PROFILE:-}" ] && printf ',"profile":{"dir":"%s"}' "$KP_FAKE_PROFILE"
	printf '}\n'
	;;
compile_error)
	printf '{"status":"compile_error","log":"cand.cu(7): error: identifier \\"vec4\\" is undefined"}\n'
	exit 1
	;;
*)
	printf '{"status":"%s","message":"3 of 5 trials differ: max |diff| 0.5 at y[17]"}\n' "$status"
	exit 1
	;;
esac
