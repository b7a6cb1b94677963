# A model's whole reply given as the candidate (`eval TASK reply.md`) is read as the search reads
# replies: the code block the programmer's extractor picks is evaluated, or the reason the reply
# holds none is said (exit 1), instead of nvcc's errors on the prose. A source file stays a source.
. "$KP_ROOT/tests/integration/lib.sh"
export KERNELPRO_HOME="$KP_ROOT"
TASK="$KP_ROOT/examples/native/gelu"

# Replies without usable code: what the file is and why, before anything is built.
printf 'I am sorry, I cannot write that kernel.\n' >prose.md
expect_exit 1 "$KP" eval "$TASK" prose.md
contains err "'prose.md' is a model's reply, not a .cu source"
contains err "no code block"
lacks out "compile_error"
printf 'Here is the kernel:\n\n```cuda\n__global__ void k(float *y) {\n' >cut.cu
expect_exit 1 "$KP" eval "$TASK" cut.cu
contains err "'cut.cu' is a model's reply"
contains err "unclosed code block that starts on line 3"
# Told from a source without blocking: a FIFO named like a reply is refused at once.
mkfifo fifo.md
expect_exit 1 timeout 20 "$KP" eval "$TASK" fifo.md
contains err "is not a regular file"
# --profile-run builds a file: a reply is refused with what to do.
printf 'Done.\n\n```cuda\n#include "kp_native.h"\nKP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t s) { return 0; }\n```\n' >short.md
expect_exit 2 "$KP" eval "$TASK" short.md --profile-run 2
contains err "save the reply's code first"

[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || command -v nvcc >/dev/null || skip "no nvcc"
cache="$KP_TMP/cache"
# A reply with prose around two blocks: the one defining kp_run is built (compiled, exit 0).
{
	echo "First a helper, then the kernel. It uses one thread per element."
	echo
	echo '```cuda'
	echo '__device__ float twice(float x) { return 2 * x; }'
	echo '```'
	echo
	echo 'The whole file:'
	echo
	echo '```cuda'
	echo '#include <cuda_runtime.h>'
	echo '#include "kp_native.h"'
	echo '__global__ void k(const float *x, float *y, long n) { long i = blockIdx.x * 256L + threadIdx.x; if (i < n) y[i] = x[i]; }'
	echo 'KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)'
	echo '{'
	echo '    k<<<(unsigned)((in[0].numel + 255) / 256), 256, 0, (cudaStream_t)stream>>>((const float *)in[0].data, (float *)out[0].data, in[0].numel);'
	echo '    return (int)cudaGetLastError();'
	echo '}'
	echo '```'
	echo 'This should be faster.'
} >reply.md
expect_exit 0 "$KP" eval --cache "$cache" --build-only "$TASK" reply.md
contains err "'reply.md' is a model's reply: evaluating the code"
contains err "(8 lines of cuda)"
contains out "compiled"
# -q: the note is not said; a plain source file gets no note at all.
expect_exit 0 "$KP" -q eval --cache "$cache" --build-only "$TASK" reply.md
[ ! -s err ] || fail "-q still said: $(cat err)"
sed -n '/^#include <cuda_runtime.h>/,/^}/p' reply.md >cand.cu
expect_exit 0 "$KP" eval --cache "$cache" --build-only "$TASK" cand.cu
lacks err "reply"
exit 0
