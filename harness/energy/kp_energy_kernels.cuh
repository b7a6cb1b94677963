// Kernels shared by the kp-energy driver's built-ins and the energy corpus (bench/energy/corpus.cu):
// the Swish pair of the H200 probe (fixtures/h200-probe/energy.cu), a float4 copy, an FFMA chain.
#ifndef KP_ENERGY_KERNELS_CUH
#define KP_ENERGY_KERNELS_CUH

__global__ void swish_ieee(const float *a, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float x = a[i];
		c[i] = x / (1.0f + expf(-x));
	}
}

__global__ void swish_fast(const float *a, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float x = a[i];
		c[i] = __fdividef(x, 1.0f + __expf(-x));
	}
}

__global__ void copy_f4(const float4 *a, float4 *c, size_t n4)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
		c[i] = a[i];
}

// Compute-bound: four dependent FFMA chains per thread, no memory traffic to speak of.
__global__ void fma_chain_fp32(float *out, int iters)
{
	float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 0.9999f, d = 0.5f;
	for (int i = 0; i < iters; i++) {
		a = fmaf(a, b, c);
		d = fmaf(d, c, b);
		b = fmaf(b, c, a * 1e-7f);
		c = fmaf(c, d, -1e-7f);
	}
	if (a + b + c + d == 12345.0f) // never true; keeps the chains alive
		out[threadIdx.x] = a;
}

#endif
