// A tunable candidate for the tune tests (tests/integration/t1801-tune.sh). The fake harness reads the
// comments below with the knobs' values: the time in ms, and which variants give wrong output, crash
// or do not build.
// fake-cost: 1.0 + abs(BLOCK - 512) / 256.0 + ITEMS / 8.0
// fake-wrong: BLOCK == 1024 and ITEMS == 2
// fake-crash: BLOCK == 64
// fake-nobuild: ITEMS == 4
#include <cuda_runtime.h>

#include "kp_native.h"
#include "kp_tune.h"

constexpr int kBlock = KP_TUNE(BLOCK, 256, 64, 128, 512, 1024);
constexpr int kItems = KP_TUNE(ITEMS, 2, 1, 4);
KP_TUNE_CONSTRAINT(BLOCK * ITEMS <= 2048);

__global__ void scale2(const float *x, float *y, long n)
{
	long i0 = (blockIdx.x * (long)blockDim.x + threadIdx.x) * kItems;
	for (int k = 0; k < kItems; k++)
		if (i0 + k < n)
			y[i0 + k] = 2.0f * x[i0 + k];
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	long n = (long)in[0].numel, per = (long)kBlock * kItems;
	scale2<<<(n + per - 1) / per, kBlock, 0, stream>>>((const float *)in[0].data, (float *)out[0].data, n);
	return (int)cudaGetLastError();
}
