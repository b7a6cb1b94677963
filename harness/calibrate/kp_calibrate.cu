// kp-calibrate: measures the ceilings a roofline needs on one GPU and prints them as JSON
// (read by `kernelpro hw calibrate`, which stores them for Stage 1).
//   dram_bw   device-to-device copy, bytes read + bytes written per second (best of 20)
//   fp32/fp64 independent FFMA/DFMA chains on every SM, 2 FLOP per FMA (best of 10)
//   tf32_tc, bf16_tc, fp16_tc  cuBLAS GEMM 8192^3 (FP32 accumulate), 2*M*N*K per GEMM (best of 10)
// Usage: kp-calibrate [DEVICE_INDEX]
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CK(x)                                                                                      \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "kp-calibrate: %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)
#define CB(x)                                                                                      \
	do {                                                                                       \
		cublasStatus_t s_ = (x);                                                           \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
			fprintf(stderr, "kp-calibrate: %s:%d: cuBLAS status %d\n", __FILE__, __LINE__, (int)s_); \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

__global__ void copy_f4(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		b[i] = a[i];
}

// 8 independent chains per thread keep the FMA pipe full; the store under an impossible
// condition keeps the compiler from removing the work.
template <typename T>
__global__ void fma_chains(T *out, int iters, T a, T b)
{
	T x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
	for (int i = 0; i < iters; i++) {
		x0 = x0 * a + b; x1 = x1 * a + b; x2 = x2 * a + b; x3 = x3 * a + b;
		x4 = x4 * a + b; x5 = x5 * a + b; x6 = x6 * a + b; x7 = x7 * a + b;
	}
	T s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
	if (s == (T)-12345.678)
		out[threadIdx.x] = s;
}

static float time_ms(cudaEvent_t a, cudaEvent_t b)
{
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, a, b));
	return ms;
}

static double copy_bw(int sms)
{
	size_t bytes = (size_t)1 << 30, n = bytes / sizeof(float4);
	float4 *a, *b;
	cudaEvent_t e0, e1;
	double best = 0;
	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&b, bytes));
	CK(cudaMemset(a, 1, bytes));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	for (int i = 0; i < 22; i++) {
		CK(cudaEventRecord(e0));
		copy_f4<<<sms * 16, 512>>>(a, b, n);
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaGetLastError());
		double bw = 2.0 * bytes / (time_ms(e0, e1) * 1e-3);
		if (i >= 2 && bw > best)
			best = bw;
	}
	CK(cudaFree(a));
	CK(cudaFree(b));
	return best;
}

template <typename T>
static double fma_rate(int sms, int iters)
{
	T *out;
	cudaEvent_t e0, e1;
	double best = 0;
	int blocks = sms * 8, threads = 256;
	CK(cudaMalloc(&out, 1024 * sizeof(T)));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	for (int i = 0; i < 12; i++) {
		CK(cudaEventRecord(e0));
		fma_chains<T><<<blocks, threads>>>(out, iters, (T)0.9999, (T)0.0001);
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaGetLastError());
		double flops = 2.0 * 8 * iters * (double)blocks * threads;
		double r = flops / (time_ms(e0, e1) * 1e-3);
		if (i >= 2 && r > best)
			best = r;
	}
	CK(cudaFree(out));
	return best;
}

static double gemm_rate(cublasHandle_t h, cudaDataType t, cublasComputeType_t ct, size_t elem)
{
	const int n = 8192;
	void *a, *b, *c;
	float alpha = 1, beta = 0;
	cudaEvent_t e0, e1;
	double best = 0;
	CK(cudaMalloc(&a, (size_t)n * n * elem));
	CK(cudaMalloc(&b, (size_t)n * n * elem));
	CK(cudaMalloc(&c, (size_t)n * n * sizeof(float)));
	CK(cudaMemset(a, 0, (size_t)n * n * elem));
	CK(cudaMemset(b, 0, (size_t)n * n * elem));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	for (int i = 0; i < 12; i++) {
		CK(cudaEventRecord(e0));
		CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, t, n, b, t, n, &beta, c, CUDA_R_32F, n, ct,
				CUBLAS_GEMM_DEFAULT));
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		double r = 2.0 * n * (double)n * n / (time_ms(e0, e1) * 1e-3);
		if (i >= 2 && r > best)
			best = r;
	}
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaFree(c));
	return best;
}

int main(int argc, char **argv)
{
	int dev = argc > 1 ? atoi(argv[1]) : 0;
	cudaDeviceProp p;
	cublasHandle_t h;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	CK(cudaSetDevice(dev));
	CK(cudaGetDeviceProperties(&p, dev));
	double bw = copy_bw(p.multiProcessorCount);
	double f32 = fma_rate<float>(p.multiProcessorCount, 1 << 16);
	double f64 = fma_rate<double>(p.multiProcessorCount, 1 << 14);
	CB(cublasCreate(&h));
	CB(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
	double tf32 = gemm_rate(h, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4);
	CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
	double bf16 = gemm_rate(h, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2);
	double fp16 = gemm_rate(h, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2);
	CB(cublasDestroy(h));
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	printf("{\"schema\": 1, \"device\": \"%s\", \"measured_at\": \"%s\", \"dram_bw\": %.6g, \"fp32\": %.6g, "
	       "\"fp64\": %.6g, \"tf32_tc\": %.6g, \"bf16_tc\": %.6g, \"fp16_tc\": %.6g, \"sm_clock_hz\": 0}\n",
	       p.name, when, bw, f32, f64, tf32, bf16, fp16);
	return 0;
}
