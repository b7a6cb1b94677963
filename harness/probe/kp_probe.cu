// kp-probe: the smallest real CUDA program, used by `kernelpro doctor` to check
// that kernels run and that ncu can read hardware counters on this machine.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void kp_probe_kernel(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * 2.0f + 1.0f;
}

int main()
{
	const int n = 1 << 20;
	float *x = nullptr;
	cudaError_t e = cudaMalloc(&x, n * sizeof(float));
	if (e != cudaSuccess) {
		fprintf(stderr, "kp-probe: cudaMalloc: %s\n", cudaGetErrorString(e));
		return 1;
	}
	cudaMemset(x, 0, n * sizeof(float));
	kp_probe_kernel<<<(n + 255) / 256, 256>>>(x, n);
	e = cudaDeviceSynchronize();
	if (e == cudaSuccess)
		e = cudaGetLastError();
	float h = 0;
	if (e == cudaSuccess)
		e = cudaMemcpy(&h, x, sizeof(float), cudaMemcpyDeviceToHost);
	cudaFree(x);
	if (e != cudaSuccess) {
		fprintf(stderr, "kp-probe: %s\n", cudaGetErrorString(e));
		return 1;
	}
	if (h != 1.0f) {
		fprintf(stderr, "kp-probe: wrong result %f\n", h);
		return 1;
	}
	printf("kp-probe: ok\n");
	return 0;
}
