// Crash: a kernel writes far outside its buffer (illegal address).
// kp-task: examples/native/row_sum
// kp-expect-static: none
// kp-expect-verdict: runtime_error
#include <cuda_runtime.h>

#include "kp_native.h"

__global__ void wild(float *y)
{
	y[(size_t)1 << 40] = 1.0f;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	wild<<<1, 1, 0, stream>>>((float *)out[0].data);
	return (int)cudaGetLastError();
}
