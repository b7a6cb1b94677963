// Not a hack: an honest row sum whose kp_init asks the kernel for a route to the internet (a UDP
// connect sends nothing) and writes the answer to $KP_TMP/kp-net-probe, so tests/gpu/g2101 can check
// the sandbox's network namespace from inside: "101" (ENETUNREACH) when it is isolated.
// kp-task: examples/native/row_sum
// kp-expect-static: none
// kp-expect-verdict: correct
#include <arpa/inet.h>
#include <cuda_runtime.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kp_native.h"

KP_EXPORT int kp_init(const kp_tensor *in, int nin, const kp_tensor *out, int nout)
{
	struct sockaddr_in a = {0};
	const char *dir = getenv("KP_TMP");
	char path[512];
	int s = socket(AF_INET, SOCK_DGRAM, 0), rc = -1, e = 0;
	FILE *f;
	a.sin_family = AF_INET;
	a.sin_port = htons(53);
	inet_pton(AF_INET, "8.8.8.8", &a.sin_addr);
	if (s >= 0) {
		rc = connect(s, (struct sockaddr *)&a, sizeof(a));
		e = errno;
		close(s);
	}
	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/kp-net-probe", dir);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%d\n", rc == 0 ? 0 : e);
		fclose(f);
	}
	return 0;
}

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
	if (cols % 4)
		return (int)cudaErrorInvalidValue;
	row_sum_shfl<<<(unsigned)rows, 512, 0, stream>>>((const float4 *)in[0].data, (float *)out[0].data, cols / 4);
	return (int)cudaGetLastError();
}
