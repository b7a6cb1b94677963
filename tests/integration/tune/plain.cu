// A candidate without knobs for the tune tests (t1801, t1802): its block size is computed at run time,
// so kernelpro derives none and nothing declares one.
#include "kp_native.h"
__global__ void k(const float *x, float *y, long n) { long i = blockIdx.x * (long)blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }
KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t s)
{
	long n = (long)in[0].numel;
	int t = n > 4096 ? 1024 : 128;
	k<<<(unsigned)((n + t - 1) / t), t, 0, s>>>((const float *)in[0].data, (float *)out[0].data, n);
	return 0;
}
