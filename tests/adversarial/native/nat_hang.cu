// Hang: a kernel that never ends. Must become a timeout.
// kp-task: examples/native/row_sum
// kp-expect-static: none
// kp-expect-verdict: timeout
// kp-eval-args: --check-timeout 20
#include <cuda_runtime.h>

#include "kp_native.h"

__global__ void spin(volatile int *flag)
{
	while (*flag == 0)
		;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	static int *flag;
	if (!flag) {
		cudaMalloc(&flag, sizeof(int));
		cudaMemset(flag, 0, sizeof(int));
	}
	spin<<<1, 1, 0, stream>>>(flag);
	return (int)cudaGetLastError();
}
