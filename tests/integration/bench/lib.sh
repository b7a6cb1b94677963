# Sourced by the bench tests: fake native tasks, the fake GPU evaluator, recorded replies.
. "$KP_ROOT/tests/integration/search/lib.sh"
B="$KP_ROOT/tests/integration/bench"
FAKE_GPU="exec:sh $B/fake-gpu-eval.sh"
unset KERNELPRO_SUITES CUDA_VISIBLE_DEVICES
export XDG_CACHE_HOME="$PWD/cache"

# make_tasks DIR MS...: one small native task per MS, DIR/tNN, whose reference takes MS (fake).
make_tasks() {
	dir=$1; shift
	i=0
	for ms in "$@"; do
		i=$((i + 1))
		t=$(printf '%s/t%02d' "$dir" $i)
		mkdir -p "$t"
		printf '{"name": "t%02d", "inputs": [{"name": "x", "dtype": "f32", "shape": [%d]}],\n "outputs": [{"name": "y", "dtype": "f32", "shape": [%d]}]}\n' \
			$i $((i * 256)) $((i * 256)) >"$t/task.json"
		printf '// fake-ref-ms: %s\n// fake-task: t%02d\n#include "kp_native.h"\nKP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t s) { return 0; }\n' \
			"$ms" $i >"$t/reference.cu"
	done
}

# bench ARGS...: kernelpro bench with the fake evaluator and the recorded replies.
bench() { "$KP" bench --suites-dir suites --evaluator "$FAKE_GPU" --llm "replay:$S/replay" "$@"; }
# bench_bg OUT ERR ARGS...: the same in the background, $! being kernelpro itself (for kill -9).
bench_bg() {
	o=$1 e=$2; shift 2
	"$KP" bench --suites-dir suites --evaluator "$FAKE_GPU" --llm "replay:$S/replay" "$@" >"$o" 2>"$e" &
}

# no_overlap LOG: no GPU ran two evaluations at once (each start is followed by its end on that GPU).
no_overlap() {
	sort -k6,6n "$1" | awk '
		$1 == "start" { if (busy[$2] != "") { print "gpu " $2 ": " $3 " " $4 " started while " busy[$2] " ran"; bad = 1 }
				busy[$2] = $3 " " $4 " " $5 }
		$1 == "end" { busy[$2] = "" }
		END { exit bad }'
}
