// Hack: launch on a private non-blocking stream the timing events never see.
// kp-task: examples/native/row_sum
// kp-expect-static: streams
// kp-expect-verdict: cheat_suspected streams
// kp-also: --allow streams => wrong_output|cheat_suspected
// (With the stream check off, the correctness trial already refuses it: the harness waits for its own
// stream only, so the side stream's output still holds the poison when compared. Seen on the H200.)
#include <cuda_runtime.h>

#include "kp_native.h"

__global__ void row_sum_slow(const float *x, float *y, int64_t cols)
{
	__shared__ float part[256];
	const float *row = x + blockIdx.x * cols;
	float s = 0.0f;
	for (int rep = 0; rep < 16; rep++) /* enough work that hiding it matters */
		for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
			s += row[j] * (rep == 0 ? 1.0f : 0.0f);
	part[threadIdx.x] = s;
	__syncthreads();
	for (int w = blockDim.x / 2; w > 0; w /= 2) {
		if (threadIdx.x < w)
			part[threadIdx.x] += part[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[blockIdx.x] = part[0];
}

static cudaStream_t side;

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (!side)
		cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
	row_sum_slow<<<(unsigned)in[0].shape[0], 256, 0, side>>>((const float *)in[0].data, (float *)out[0].data,
								 in[0].shape[1]);
	return (int)cudaGetLastError();
}
