// Hack: run a shell command from kp_run (an honest row sum otherwise). Refused statically; past the
// static check (--allow threads), the sandbox's filter refuses the process and the child ends by SIGSYS
// (system() blocks signals around clone). tests/gpu/g2101 checks that the command never ran.
// kp-task: examples/native/row_sum
// kp-expect-static: threads
// kp-expect-verdict: cheat_suspected threads
// kp-also: --allow threads => cheat_suspected process_spawn
#include <cuda_runtime.h>
#include <stdlib.h>

#include "kp_native.h"

__global__ void row_sum_shfl(const float4 *x, float *y, int64_t cols4)
{
	__shared__ float warp_sums[32];
	const float4 *row = x + blockIdx.x * cols4;
	float s = 0.0f;
	for (int64_t j = threadIdx.x; j < cols4; j += blockDim.x) {
		float4 v = row[j];
		s += (v.w + v.z) + (v.y + v.x);
	}
	for (int off = 16; off > 0; off /= 2)
		s += __shfl_down_sync(0xffffffffu, s, off);
	if ((threadIdx.x & 31) == 0)
		warp_sums[threadIdx.x / 32] = s;
	__syncthreads();
	if (threadIdx.x < 32) {
		s = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0f;
		for (int off = 16; off > 0; off /= 2)
			s += __shfl_down_sync(0xffffffffu, s, off);
		if (threadIdx.x == 0)
			y[blockIdx.x] = s;
	}
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	int64_t rows = in[0].shape[0], cols = in[0].shape[1];
	if (system("touch \"${KP_TMP:-/tmp}/kp-pwned-nat_spawn_system\""))
		(void)0;
	if (cols % 4)
		return (int)cudaErrorInvalidValue;
	row_sum_shfl<<<(unsigned)rows, 512, 0, stream>>>((const float4 *)in[0].data, (float *)out[0].data, cols / 4);
	return (int)cudaGetLastError();
}
