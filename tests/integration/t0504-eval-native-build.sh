#!/bin/sh
# Native candidates build with nvcc (no GPU needed): a compile error is a verdict with nvcc's
# message (an empty candidate, or one without kp_run, too); a FIFO as candidate or task fails at once;
# a good candidate is cached by content (--build-only), and a second build is a cache hit.
. "$KP_ROOT/tests/integration/lib.sh"
# The harness files come from the source tree whatever build directory $KP is in.
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
export KERNELPRO_HOME
[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || command -v nvcc >/dev/null || skip "no nvcc"
cache="$KP_TMP/cache"
task="$KP_ROOT/examples/native/row_sum"

cat >bad.cu <<'CU'
#include "kp_native.h"
KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t s)
{
	return not_declared;
}
CU
expect_exit 1 "$KP" eval --cache "$cache" --json "$task" bad.cu
python3 - <<'PY' || fail "compile error verdict"
import json
v = json.load(open("out"))
assert v["status"] == "compile_error" and not v["compiled"] and v["phase"] == "build", v
assert "bad.cu(4): error" in v["log"] and "not_declared" in v["log"], v["log"]
PY

# An empty candidate, or one without kp_run, is a compile error even with --build-only (nvcc would
# build either into a library).
: >empty.cu
expect_exit 1 "$KP" eval --cache "$cache" --build-only --json "$task" empty.cu
contains out '"status": "compile_error"'
contains out '"message": "the candidate is empty"'
printf '__global__ void k(float *y) { y[0] = 1; }\n' >noentry.cu
expect_exit 1 "$KP" eval --cache "$cache" --build-only --json "$task" noentry.cu
contains out '"message": "the candidate does not define kp_run'
# A FIFO as the candidate or the task fails at once instead of waiting for a writer.
mkfifo fifo.cu fifo.py
expect_exit 1 timeout 20 "$KP" eval --cache "$cache" --build-only --json "$task" fifo.cu
contains err "is not a regular file"
expect_exit 1 timeout 20 "$KP" eval --cache "$cache" --build-only --json fifo.py "$KP_ROOT/examples/kernelbench/swish_scale_fast.py"
contains err "is not a regular file"

expect_exit 0 "$KP" eval --cache "$cache" --build-only --json "$task" "$KP_ROOT/examples/native/row_sum/candidates/warp_shuffle.cu"
python3 - <<'PY' || fail "first build"
import json, os
v = json.load(open("out"))
assert v["status"] == "compiled" and v["compiled"] and not v["build_cached"], v
assert v["artifact"].endswith("/lib.so") and os.path.exists(v["artifact"]), v
open("artifact", "w").write(v["artifact"])
PY
expect_exit 0 "$KP" eval --cache "$cache" --build-only --json "$task" "$KP_ROOT/examples/native/row_sum/candidates/warp_shuffle.cu"
python3 - <<'PY' || fail "cached build"
import json
v = json.load(open("out"))
assert v["build_cached"] and v["artifact"] == open("artifact").read(), v
PY
# One directory per key and no temporary directories left behind.
n=$(ls "$cache" | grep -c -v '^tmp-')
t=$(ls "$cache" | grep -c '^tmp-')
[ "$n" -eq 2 ] && [ "$t" -eq 0 ] || { ls -la "$cache"; fail "cache holds $n builds and $t temporaries"; }
# A changed flag is a different key.
expect_exit 0 "$KP" eval --cache "$cache" --build-only --nvcc-flag=-DKP_TEST=1 --json "$task" \
	"$KP_ROOT/examples/native/row_sum/candidates/warp_shuffle.cu"
contains out '"build_cached": false'
# The native harness reads only the spec kernelpro writes; anything else is a harness_error, never
# a guess (no GPU is needed to see that).
h="$KP_BUILD/libexec/kernelpro/kp-native-harness"
if [ -x "$h" ]; then
	printf 'kp-native-spec 1\nbogus line\nend\n' | "$h" >spec.out 2>spec.err
	contains spec.out '"status":"harness_error","message":"malformed spec on stdin: native spec line 2: unknown key"'
	printf 'kp-native-spec 1\nref /r.so\ntrials -3\nout y 0 1 4 0 0\nend\n' | "$h" >spec.out 2>spec.err
	contains spec.out 'native spec line 3: expected an integer in range'
	long=$(python3 -c 'print("x" * 5000)')
	printf 'kp-native-spec 1\nref /%s\nend\n' "$long" | "$h" >spec.out 2>spec.err
	contains spec.out '"malformed spec on stdin: native spec line 2: the value is empty or too long"'
	printf 'kp-native-spec 1\nin x 0 9 1 1 1 1 1 1 1 1 1 0 0 1\nend\n' | "$h" >spec.out 2>spec.err
	contains spec.out '"malformed spec on stdin: native spec line 2: a tensor is NAME DTYPE NDIM'
fi
echo ok
