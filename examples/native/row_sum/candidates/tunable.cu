// A row_sum candidate whose shape is left to tuning (docs/tune.md, `kernelpro tune`): one block per
// row, THREADS threads reading VEC floats at a time, the strided loop unrolled UNROLL times, then warp
// shuffles. The first value of each marker is the untuned choice: a block of 1024 threads and scalar
// loads, the kind of numbers a first version tends to have.
#include <cuda_runtime.h>

#include "kp_native.h"
#include "kp_tune.h"

constexpr int kThreads = KP_TUNE(THREADS, 1024, 128, 256, 512);
constexpr int kVec = KP_TUNE(VEC, 1, 2, 4);
KP_TUNE_CONSTRAINT(x_1 % VEC == 0);

template <int V> struct vec;
template <> struct vec<1> {
	typedef float type;
	__device__ static float sum(float v) { return v; }
};
template <> struct vec<2> {
	typedef float2 type;
	__device__ static float sum(float2 v) { return v.x + v.y; }
};
template <> struct vec<4> {
	typedef float4 type;
	__device__ static float sum(float4 v) { return (v.x + v.y) + (v.z + v.w); }
};

__global__ void __launch_bounds__(kThreads) row_sum_tuned(const float *x, float *y, int64_t cols)
{
	typedef typename vec<kVec>::type T;
	__shared__ float warp_sums[kThreads / 32];
	const T *row = (const T *)(x + blockIdx.x * cols);
	const int64_t n = cols / kVec;
	float s = 0.0f;
	KP_UNROLL(UNROLL, 1, 2, 4, 8)
	for (int64_t j = threadIdx.x; j < n; j += kThreads)
		s += vec<kVec>::sum(row[j]);
	for (int off = 16; off > 0; off /= 2)
		s += __shfl_down_sync(0xffffffffu, s, off);
	if ((threadIdx.x & 31) == 0)
		warp_sums[threadIdx.x / 32] = s;
	__syncthreads();
	if (threadIdx.x < 32) {
		s = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : 0.0f;
		for (int off = 16; off > 0; off /= 2)
			s += __shfl_down_sync(0xffffffffu, s, off);
		if (threadIdx.x == 0)
			y[blockIdx.x] = s;
	}
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	int64_t rows = in[0].shape[0], cols = in[0].shape[1];
	if (cols % kVec)
		return (int)cudaErrorInvalidValue; // whole vectors per row (the constraint says so)
	row_sum_tuned<<<(unsigned)rows, kThreads, 0, (cudaStream_t)stream>>>((const float *)in[0].data,
									      (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
