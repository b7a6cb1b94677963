// Text that must not become knobs: comments, strings, raw strings, function-like macros, a pasted copy
// of kp_tune.h, digit separators, runtime block sizes. One real launch at the end.
#include <cuda_runtime.h>

#include "kp_native.h"

#define KP_TUNE(NAME, ...) 0 /* a pasted definition is not a use */
#define LAUNCH(k, n) k<<<(n + 63) / 64, 64>>>(n)

// relu<<<(n + 255) / 256, 256>>>(x, y, n);   (a comment)
/* swish<<<132 * 8, 512>>>(x, y, n);
   #pragma unroll 4 */
static const char *doc = "kern<<<1, 256>>> KP_TUNE(BLOCK, 1, 2)";
static const char *raw = R"x(kern<<<(n + 127) / 128, 128>>>(n); )" still raw )x";

__global__ void kern(long n)
{
	long big = 1'000'000;
	if (threadIdx.x == 0 && blockIdx.x == 0 && n > big)
		asm volatile("");
}

__global__ void single(long n) {}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	long n = in[0].numel;
	int bs = (int)(n > 4096 ? 256 : 64);
	kern<<<(n + bs - 1) / bs, bs, 0, stream>>>(n);
	single<<<1, 1, 0, stream>>>(n);
	kern<<<(n >> 10) + 1, 0x100, 0, stream>>>(n);
	kern<<<(n + 511) / 512, 512u, 0, stream>>>(n);
	return (int)cudaGetLastError();
}
