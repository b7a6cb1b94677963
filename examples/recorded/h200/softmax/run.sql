PRAGMA application_id = 0;
PRAGMA user_version = 4;
BEGIN TRANSACTION;
CREATE TABLE candidates (
  node_id INTEGER PRIMARY KEY REFERENCES nodes(id), lang TEXT NOT NULL,
  sha256 TEXT NOT NULL, source TEXT NOT NULL, format TEXT);
INSERT INTO "candidates" VALUES(1,'cuda','de1cdf5cbbb5a74a334cb8bd37656ab6c741437e03ce1addef44f3980f56f2e1','// Reference for the softmax example, written the way a first version often is: one thread per
// row, three passes over the row (max, sum of exponentials, output). Correct, and slow: 8192
// threads leave most of the H200 idle and every warp load touches 32 different rows.
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

__global__ void softmax_rows(const float *x, float *y, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *in = x + (size_t)r * cols;
	float *out = y + (size_t)r * cols;
	float m = -INFINITY;
	for (int j = 0; j < cols; j++)
		m = fmaxf(m, in[j]);
	float sum = 0.0f;
	for (int j = 0; j < cols; j++)
		sum += expf(in[j] - m);
	for (int j = 0; j < cols; j++)
		out[j] = expf(in[j] - m) / sum;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_rows<<<(rows + 127) / 128, 128, 0, (cudaStream_t)stream>>>((const float *)in[0].data,
									    (float *)out[0].data, rows, cols);
	return (int)cudaGetLastError();
}
',NULL);
INSERT INTO "candidates" VALUES(2,'cuda','ac88f94da30c2677a4a6531f1992da7355e79627aa9c5f9547b0eb8dde660a52','#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down(v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down(v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down(v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down(v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	float m = -INFINITY;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		m = fmaxf(m, in[j]);
	m = block_max(m, scratch);
	float s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		s += expf(in[j] - m);
	s = block_sum(s, scratch);
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_block<<<rows, THREADS, 0, (cudaStream_t)stream>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
','cuda');
INSERT INTO "candidates" VALUES(3,'cuda','1071925e93c761452dcc7193ea0cc67e24b2d2d124fdca6548c250643c8bbb92','#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffffu, v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	float m = -INFINITY;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		m = fmaxf(m, in[j]);
	m = block_max(m, scratch);
	float s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		s += expf(in[j] - m);
	s = block_sum(s, scratch);
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_block<<<rows, THREADS, 0, (cudaStream_t)stream>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
','cuda');
INSERT INTO "candidates" VALUES(4,'cuda','ec6a99fcdcf9a2ada658e983fa71543c6b87c2af845a87bc77c2dc568d8547ea','#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffffu, v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	// One pass: a running maximum m and the sum s of exp(x - m), rescaled when m grows.
	float m = -INFINITY, s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS) {
		float v = in[j];
		if (v > m) {
			s = s * expf(m - v) + 1.0f;
			m = v;
		} else {
			s += expf(v - m);
		}
	}
	float M = block_max(m, scratch);
	s = block_sum(m == -INFINITY ? 0.0f : s * expf(m - M), scratch);
	m = M;
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_block<<<rows, THREADS, 0, (cudaStream_t)stream>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
','cuda');
INSERT INTO "candidates" VALUES(5,'cuda','ee7a11a9d929298966fbd6886a85f6d89c7d8097500d421afae593c1d7305f4c','#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffffu, v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	// One pass: a running maximum m and the sum s of exp(x - m), rescaled when m grows.
	float m = -INFINITY, s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS) {
		float v = in[j];
		if (v > m) {
			s = s * expf(m - v) + 1.0f;
			m = v;
		} else {
			s += expf(v - m);
		}
	}
	float M = block_max(m, scratch);
	s = block_sum(m == -INFINITY ? 0.0f : s * expf(m - M), scratch);
	m = M;
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

// The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.
template <int VEC>
__global__ void __launch_bounds__(THREADS) softmax_regs(const float4 *__restrict__ x, float4 *__restrict__ y, int cols4)
{
	__shared__ float scratch[WARPS];
	const float4 *in = x + (size_t)blockIdx.x * cols4;
	float4 *out = y + (size_t)blockIdx.x * cols4;
	float4 v[VEC];
	float m = -INFINITY;
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		v[k] = in[threadIdx.x + k * THREADS];
		m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
	}
	m = block_max(m, scratch);
	float s = 0.0f;
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		v[k].x = expf(v[k].x - m);
		v[k].y = expf(v[k].y - m);
		v[k].z = expf(v[k].z - m);
		v[k].w = expf(v[k].w - m);
		s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
	}
	float inv = 1.0f / block_sum(s, scratch);
#pragma unroll
	for (int k = 0; k < VEC; k++)
		out[threadIdx.x + k * THREADS] = make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv);
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	cudaStream_t s = (cudaStream_t)stream;
	if (cols == 4 * THREADS * 4) /* tensors are 256-byte aligned and rows are 16 KiB: float4 access is legal */
		softmax_regs<4><<<rows, THREADS, 0, s>>>((const float4 *)in[0].data, (float4 *)out[0].data, cols / 4);
	else
		softmax_block<<<rows, THREADS, 0, s>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
','cuda');
INSERT INTO "candidates" VALUES(6,'cuda','16ba8c160377379fb2f33b2f4fe5e9f32222ee61320b08814ada7a325da98045','#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffffu, v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	// One pass: a running maximum m and the sum s of exp(x - m), rescaled when m grows.
	float m = -INFINITY, s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS) {
		float v = in[j];
		if (v > m) {
			s = s * expf(m - v) + 1.0f;
			m = v;
		} else {
			s += expf(v - m);
		}
	}
	float M = block_max(m, scratch);
	s = block_sum(m == -INFINITY ? 0.0f : s * expf(m - M), scratch);
	m = M;
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

// The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.
template <int VEC>
__global__ void __launch_bounds__(THREADS) softmax_regs(const float4 *__restrict__ x, float4 *__restrict__ y, int cols4)
{
	__shared__ float scratch[WARPS];
	const float4 *in = x + (size_t)blockIdx.x * cols4;
	float4 *out = y + (size_t)blockIdx.x * cols4;
	float4 v[VEC];
	float m = -INFINITY;
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		v[k] = __ldcs(&in[threadIdx.x + k * THREADS]);
		m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
	}
	m = block_max(m, scratch);
	const float L2E = 1.4426950408889634f; /* log2(e): exp(a - m) = exp2(a * L2E - m * L2E) */
	float ml = m * L2E, s = 0.0f;
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		v[k].x = exp2f(fmaf(v[k].x, L2E, -ml));
		v[k].y = exp2f(fmaf(v[k].y, L2E, -ml));
		v[k].z = exp2f(fmaf(v[k].z, L2E, -ml));
		v[k].w = exp2f(fmaf(v[k].w, L2E, -ml));
		s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
	}
	float inv = 1.0f / block_sum(s, scratch);
#pragma unroll
	for (int k = 0; k < VEC; k++)
		__stcs(&out[threadIdx.x + k * THREADS], make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv));
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	cudaStream_t s = (cudaStream_t)stream;
	if (cols == 4 * THREADS * 4) /* tensors are 256-byte aligned and rows are 16 KiB: float4 access is legal */
		softmax_regs<4><<<rows, THREADS, 0, s>>>((const float4 *)in[0].data, (float4 *)out[0].data, cols / 4);
	else
		softmax_block<<<rows, THREADS, 0, s>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
','cuda');
CREATE TABLE counters (name TEXT PRIMARY KEY, value REAL NOT NULL);
INSERT INTO "counters" VALUES('gpu_busy_s',1.67871314479999966e+01);
INSERT INTO "counters" VALUES('tokens_in',15952.0);
INSERT INTO "counters" VALUES('tokens_out',3914.0);
INSERT INTO "counters" VALUES('cost_usd',0.0);
INSERT INTO "counters" VALUES('generations',5.0);
INSERT INTO "counters" VALUES('evaluations',5.0);
INSERT INTO "counters" VALUES('profiles_on_demand',2.0);
CREATE TABLE evaluations (
  id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL REFERENCES nodes(id),
  session INTEGER, outcome INTEGER NOT NULL,
  time_ms REAL, time_std_ms REAL, ref_time_ms REAL, speedup REAL, energy_j REAL,
  wall_s REAL, log TEXT, verdict_json TEXT, created REAL NOT NULL);
INSERT INTO "evaluations" VALUES(1,1,1,0,1.46529603,0.00826484151,1.46529603,1.0,NULL,5.99980381000000306e+00,NULL,'{"compile_error":null,"eager":{"host_median_ms":1.4730135499999999,"max_ms":1.54576004,"mean_ms":1.4661929600000001,"median_ms":1.46529603,"min_ms":1.4606080100000001,"std_ms":0.0082648415100000008,"trials":100},"flops":167772160.0,"gpu":{"index":0,"name":"NVIDIA H200"},"io_bytes":268435456.0,"log":null,"precision":"f32","schema":"kernelpro.baseline/1","tf32":false,"torch_compile":null}',1.79616874290124416e+09);
INSERT INTO "evaluations" VALUES(2,2,1,1,NULL,NULL,NULL,NULL,NULL,7.05660760000000664e-01,'nvcc failed
cand.cu(13): error: identifier "__shfl_down" is undefined
    v = fmaxf(v, __shfl_down(v, off));
                 ^

cand.cu(20): error: identifier "__shfl_down" is undefined
     v = fmaxf(v, __shfl_down(v, off));
                  ^

cand.cu(32): error: identifier "__shfl_down" is undefined
    v += __shfl_down(v, off);
         ^

cand.cu(39): error: identifier "__shfl_down" is undefined
     v += __shfl_down(v, off);
          ^

4 errors detected in the compilation of "cand.cu".
nvcc exited with status 1','{"artifact":null,"build_cached":false,"claim":null,"compiled":false,"compiled_ref_runtime":null,"conditions":{"atol":0.0001,"candidate_precision":null,"precision":"f32","reference":null,"reference_precision":null,"rtol":0.0001,"tf32":{"candidate":null,"reference":null},"tolerance":"default"},"correct":false,"correctness":{"atol":0.0001,"max_abs_diff":null,"mean_abs_diff":null,"rtol":0.0001,"trials_passed":0,"trials_run":0},"flags":[],"floor":{"bytes":null,"compute_peak":null,"dram_bw":null,"dram_bytes":null,"flop_time_s":null,"flops":null,"flops_counted":false,"gpu":null,"in_bytes":null,"out_bytes":null,"source":null,"time_s":null},"flops":null,"gpu":{"index":0,"name":null},"io_bytes":null,"log":"cand.cu(13): error: identifier \"__shfl_down\" is undefined\n    v = fmaxf(v, __shfl_down(v, off));\n                 ^\n\ncand.cu(20): error: identifier \"__shfl_down\" is undefined\n     v = fmaxf(v, __shfl_down(v, off));\n                  ^\n\ncand.cu(32): error: identifier \"__shfl_down\" is undefined\n    v += __shfl_down(v, off);\n         ^\n\ncand.cu(39): error: identifier \"__shfl_down\" is undefined\n     v += __shfl_down(v, off);\n          ^\n\n4 errors detected in the compilation of \"cand.cu\".\nnvcc exited with status 1","loop":null,"message":"nvcc failed","phase":"build","ref_loop":null,"ref_runtime":null,"runtime":null,"runtime_evidence":null,"sandbox":null,"scaled_trial":null,"schema":"kernelpro.verdict/1","seconds":{"build":0.69937946100000659,"correctness_parts":null,"run":null,"total":0.70491612900002565},"source_sha256":"ac88f94da30c2677a4a6531f1992da7355e79627aa9c5f9547b0eb8dde660a52","speedup":null,"speedup_compile":null,"status":"compile_error","timeline":null,"work_dir":null}',1.79616874361052536e+09);
INSERT INTO "evaluations" VALUES(3,3,1,0,0.0775840022,0.000729095475,1.46577597,1.88927604716942525e+01,NULL,1.84696561000001224e+00,'correct on 5 of 5 trials; 0.07758 ms median','{"artifact":"/root/.cache/kernelpro/builds/76690d5f3bf980e0fcce1a4c4dd0749ff179f5a8980ebf4fe55567741714b7d8/lib.so","build_cached":false,"claim":"18.9x over reference.cu (0.07758 ms vs 1.466 ms, medians of 100 trials), torch.compile not measured; both sides in f32, TF32 off on both; outputs within atol=0.0001, rtol=0.0001 (default for f32) on 5 of 5 trials and with inputs scaled x64 (atol there widened to the outputs'' rounding error)","compiled":true,"compiled_ref_runtime":null,"conditions":{"atol":0.0001,"candidate_precision":"f32","precision":"f32","reference":"reference.cu","reference_precision":"f32","rtol":0.0001,"tf32":{"candidate":false,"reference":false},"tolerance":"default"},"correct":true,"correctness":{"atol":0.0001,"max_abs_diff":1.1920929000000001e-6,"mean_abs_diff":1.85060867e-10,"rtol":0.0001,"trials_passed":5,"trials_run":5},"flags":[{"check":"excessive_speedup","message":"18.9x over the reference (threshold 10x): read the kernel before trusting it","severity":"warn"}],"floor":{"bytes":268435456.0,"compute_peak":494700000000000.0,"dram_bw":4800000000000.0,"dram_bytes":216006656.0,"flop_time_s":3.3913919547200323e-7,"flops":167772160.0,"flops_counted":false,"gpu":"h200-sxm","in_bytes":134217728.0,"out_bytes":134217728.0,"source":"given","time_s":5.592405333333333e-5},"flops":null,"gpu":{"index":0,"name":"NVIDIA H200"},"io_bytes":268435456.0,"log":null,"loop":null,"message":"correct on 5 of 5 trials; 0.07758 ms median","phase":"done","ref_loop":null,"ref_runtime":{"host_median_ms":1.74903998,"max_ms":1.47606397,"mean_ms":1.4661024,"median_ms":1.4657759699999999,"min_ms":1.46163201,"std_ms":0.0023376443099999999,"trials":100},"runtime":{"host_median_ms":0.085046501199999999,"max_ms":0.078400000900000003,"mean_ms":0.077277120099999999,"median_ms":0.077584002200000002,"min_ms":0.075744003099999999,"std_ms":0.00072909547499999997,"trials":100},"runtime_evidence":null,"sandbox":{"applied":true,"ignored":{},"limits":{"core_bytes":0,"cpu_s":1020,"data_bytes":101388604416,"data_growth_bytes":101346653184,"file_bytes":8589934592,"open_files":4096},"network":{"how":"a network namespace of its own (no interface but a loopback that is down)","isolated":true},"not_limited":{"address_space":"not limited: CUDA reserves virtual address ranges as large as host and device memory together, so RLIMIT_AS stops it from starting; private writable memory (RLIMIT_DATA) is limited instead","processes":"not limited: RLIMIT_NPROC counts every thread of the user on the machine (CUDA and PyTorch start dozens) and does not bind root; the filter refuses new processes instead"},"processes":{"blocked":true,"refuses":"execve, execveat, fork, vfork and clone without CLONE_THREAD fail with EPERM (clone3 answers ENOSYS, so threads fall back to clone); so do setns, unshare, ptrace, process_vm_readv/writev, pidfd_open, signals to other processes. A call that would replace the SIGSYS handler (the one that answers refused calls) succeeds without effect and is counted in ignored, not refused: LLVM installs a handler for every fatal signal the first time Triton compiles","since":"before the candidate''s library was loaded","threads":"every thread"},"refused":{},"refused_calls":[],"switched_off":null},"scaled_trial":{"reason":null,"scale":64.0,"status":"passed"},"schema":"kernelpro.verdict/1","seconds":{"build":1.2205267340000034,"correctness_parts":null,"run":0.62332205900000304,"total":1.8461742240000092},"source_sha256":"1071925e93c761452dcc7193ea0cc67e24b2d2d124fdca6548c250643c8bbb92","speedup":18.892760471694253,"speedup_compile":null,"status":"correct","timeline":"start 0.00, load 0.25, correctness 0.03, timing 0.24","work_dir":null}',1.79616874546025562e+09);
INSERT INTO "evaluations" VALUES(4,4,1,0,0.0802880004,0.000659464733,1.46598399,1.82590671419934871e+01,NULL,2.04161174500001152e+00,'correct on 5 of 5 trials; 0.08029 ms median','{"artifact":"/root/.cache/kernelpro/builds/931533e2a4bbc2839086776d353934084e693cc8a5cefb7e8df1d69d7564dc85/lib.so","build_cached":false,"claim":"18.3x over reference.cu (0.08029 ms vs 1.466 ms, medians of 100 trials), torch.compile not measured; both sides in f32, TF32 off on both; outputs within atol=0.0001, rtol=0.0001 (default for f32) on 5 of 5 trials and with inputs scaled x64 (atol there widened to the outputs'' rounding error)","compiled":true,"compiled_ref_runtime":null,"conditions":{"atol":0.0001,"candidate_precision":"f32","precision":"f32","reference":"reference.cu","reference_precision":"f32","rtol":0.0001,"tf32":{"candidate":false,"reference":false},"tolerance":"default"},"correct":true,"correctness":{"atol":0.0001,"max_abs_diff":1.1920929000000001e-6,"mean_abs_diff":1.85365538e-10,"rtol":0.0001,"trials_passed":5,"trials_run":5},"flags":[{"check":"excessive_speedup","message":"18.3x over the reference (threshold 10x): read the kernel before trusting it","severity":"warn"}],"floor":{"bytes":268435456.0,"compute_peak":494700000000000.0,"dram_bw":4800000000000.0,"dram_bytes":216006656.0,"flop_time_s":3.3913919547200323e-7,"flops":167772160.0,"flops_counted":false,"gpu":"h200-sxm","in_bytes":134217728.0,"out_bytes":134217728.0,"source":"given","time_s":5.592405333333333e-5},"flops":null,"gpu":{"index":0,"name":"NVIDIA H200"},"io_bytes":268435456.0,"log":null,"loop":null,"message":"correct on 5 of 5 trials; 0.08029 ms median","phase":"done","ref_loop":null,"ref_runtime":{"host_median_ms":1.4735719899999999,"max_ms":1.47436798,"mean_ms":1.46611808,"median_ms":1.46598399,"min_ms":1.4616960299999999,"std_ms":0.0024090879899999998,"trials":100},"runtime":{"host_median_ms":0.087598500499999996,"max_ms":0.080991998300000007,"mean_ms":0.080038399999999996,"median_ms":0.080288000400000004,"min_ms":0.078656002899999994,"std_ms":0.00065946473300000001,"trials":100},"runtime_evidence":null,"sandbox":{"applied":true,"ignored":{},"limits":{"core_bytes":0,"cpu_s":1020,"data_bytes":101388604416,"data_growth_bytes":101346653184,"file_bytes":8589934592,"open_files":4096},"network":{"how":"a network namespace of its own (no interface but a loopback that is down)","isolated":true},"not_limited":{"address_space":"not limited: CUDA reserves virtual address ranges as large as host and device memory together, so RLIMIT_AS stops it from starting; private writable memory (RLIMIT_DATA) is limited instead","processes":"not limited: RLIMIT_NPROC counts every thread of the user on the machine (CUDA and PyTorch start dozens) and does not bind root; the filter refuses new processes instead"},"processes":{"blocked":true,"refuses":"execve, execveat, fork, vfork and clone without CLONE_THREAD fail with EPERM (clone3 answers ENOSYS, so threads fall back to clone); so do setns, unshare, ptrace, process_vm_readv/writev, pidfd_open, signals to other processes. A call that would replace the SIGSYS handler (the one that answers refused calls) succeeds without effect and is counted in ignored, not refused: LLVM installs a handler for every fatal signal the first time Triton compiles","since":"before the candidate''s library was loaded","threads":"every thread"},"refused":{},"refused_calls":[],"switched_off":null},"scaled_trial":{"reason":null,"scale":64.0,"status":"passed"},"schema":"kernelpro.verdict/1","seconds":{"build":1.4948920330000135,"correctness_parts":null,"run":0.54293156600002135,"total":2.0408143200000097},"source_sha256":"ec6a99fcdcf9a2ada658e983fa71543c6b87c2af845a87bc77c2dc568d8547ea","speedup":18.259067141993487,"speedup_compile":null,"status":"correct","timeline":"start 0.00, load 0.21, correctness 0.03, timing 0.21","work_dir":null}',1.7961687517162652e+09);
INSERT INTO "evaluations" VALUES(5,5,1,0,0.0689280033,0.000776939377,1.46513599,21.2560341204603,NULL,2.22664174299998762e+00,'correct on 5 of 5 trials; 0.06893 ms median','{"artifact":"/root/.cache/kernelpro/builds/d6a484a90c119b33774a9885222367e8b83eb7e9af022e498a72f6e52d52f692/lib.so","build_cached":false,"claim":"21.3x over reference.cu (0.06893 ms vs 1.465 ms, medians of 100 trials), torch.compile not measured; both sides in f32, TF32 off on both; outputs within atol=0.0001, rtol=0.0001 (default for f32) on 5 of 5 trials and with inputs scaled x64 (atol there widened to the outputs'' rounding error)","compiled":true,"compiled_ref_runtime":null,"conditions":{"atol":0.0001,"candidate_precision":"f32","precision":"f32","reference":"reference.cu","reference_precision":"f32","rtol":0.0001,"tf32":{"candidate":false,"reference":false},"tolerance":"default"},"correct":true,"correctness":{"atol":0.0001,"max_abs_diff":1.2218952199999999e-6,"mean_abs_diff":1.8509267900000001e-10,"rtol":0.0001,"trials_passed":5,"trials_run":5},"flags":[{"check":"excessive_speedup","message":"21.3x over the reference (threshold 10x): read the kernel before trusting it","severity":"warn"}],"floor":{"bytes":268435456.0,"compute_peak":494700000000000.0,"dram_bw":4800000000000.0,"dram_bytes":216006656.0,"flop_time_s":3.3913919547200323e-7,"flops":167772160.0,"flops_counted":false,"gpu":"h200-sxm","in_bytes":134217728.0,"out_bytes":134217728.0,"source":"given","time_s":5.592405333333333e-5},"flops":null,"gpu":{"index":0,"name":"NVIDIA H200"},"io_bytes":268435456.0,"log":null,"loop":null,"message":"correct on 5 of 5 trials; 0.06893 ms median","phase":"done","ref_loop":null,"ref_runtime":{"host_median_ms":1.47678402,"max_ms":1.47257602,"mean_ms":1.4655094399999999,"median_ms":1.4651359900000001,"min_ms":1.4611840199999999,"std_ms":0.0021960948500000001,"trials":100},"runtime":{"host_median_ms":0.076312001199999993,"max_ms":0.070047996900000006,"mean_ms":0.068645759599999995,"median_ms":0.068928003299999999,"min_ms":0.067008003600000005,"std_ms":0.00077693937700000005,"trials":100},"runtime_evidence":null,"sandbox":{"applied":true,"ignored":{},"limits":{"core_bytes":0,"cpu_s":1020,"data_bytes":101388604416,"data_growth_bytes":101346653184,"file_bytes":8589934592,"open_files":4096},"network":{"how":"a network namespace of its own (no interface but a loopback that is down)","isolated":true},"not_limited":{"address_space":"not limited: CUDA reserves virtual address ranges as large as host and device memory together, so RLIMIT_AS stops it from starting; private writable memory (RLIMIT_DATA) is limited instead","processes":"not limited: RLIMIT_NPROC counts every thread of the user on the machine (CUDA and PyTorch start dozens) and does not bind root; the filter refuses new processes instead"},"processes":{"blocked":true,"refuses":"execve, execveat, fork, vfork and clone without CLONE_THREAD fail with EPERM (clone3 answers ENOSYS, so threads fall back to clone); so do setns, unshare, ptrace, process_vm_readv/writev, pidfd_open, signals to other processes. A call that would replace the SIGSYS handler (the one that answers refused calls) succeeds without effect and is counted in ignored, not refused: LLVM installs a handler for every fatal signal the first time Triton compiles","since":"before the candidate''s library was loaded","threads":"every thread"},"refused":{},"refused_calls":[],"switched_off":null},"scaled_trial":{"reason":null,"scale":64.0,"status":"passed"},"schema":"kernelpro.verdict/1","seconds":{"build":1.6807421529999829,"correctness_parts":null,"run":0.54079580999999166,"total":2.2259679420000111},"source_sha256":"ee7a11a9d929298966fbd6886a85f6d89c7d8097500d421afae593c1d7305f4c","speedup":21.256034120460299,"speedup_compile":null,"status":"correct","timeline":"start 0.00, load 0.22, correctness 0.03, timing 0.21","work_dir":null}',1.79616875394951629e+09);
INSERT INTO "evaluations" VALUES(6,6,1,0,0.0741759986,0.000771307812,1.46617603,1.97661785169414621e+01,NULL,2.19531274100000928e+00,'correct on 5 of 5 trials; 0.07418 ms median','{"artifact":"/root/.cache/kernelpro/builds/aaf72fd7351ef27e6dc365476306d5e0e4699f6d45dff99973076bece7ff658d/lib.so","build_cached":false,"claim":"19.8x over reference.cu (0.07418 ms vs 1.466 ms, medians of 100 trials), torch.compile not measured; both sides in f32, TF32 off on both; outputs within atol=0.0001, rtol=0.0001 (default for f32) on 5 of 5 trials and with inputs scaled x64 (atol there widened to the outputs'' rounding error)","compiled":true,"compiled_ref_runtime":null,"conditions":{"atol":0.0001,"candidate_precision":"f32","precision":"f32","reference":"reference.cu","reference_precision":"f32","rtol":0.0001,"tf32":{"candidate":false,"reference":false},"tolerance":"default"},"correct":true,"correctness":{"atol":0.0001,"max_abs_diff":1.2814998600000001e-6,"mean_abs_diff":1.8708939200000001e-10,"rtol":0.0001,"trials_passed":5,"trials_run":5},"flags":[{"check":"excessive_speedup","message":"19.8x over the reference (threshold 10x): read the kernel before trusting it","severity":"warn"}],"floor":{"bytes":268435456.0,"compute_peak":494700000000000.0,"dram_bw":4800000000000.0,"dram_bytes":216006656.0,"flop_time_s":3.3913919547200323e-7,"flops":167772160.0,"flops_counted":false,"gpu":"h200-sxm","in_bytes":134217728.0,"out_bytes":134217728.0,"source":"given","time_s":5.592405333333333e-5},"flops":null,"gpu":{"index":0,"name":"NVIDIA H200"},"io_bytes":268435456.0,"log":null,"loop":null,"message":"correct on 5 of 5 trials; 0.07418 ms median","phase":"done","ref_loop":null,"ref_runtime":{"host_median_ms":1.47450356,"max_ms":1.4765119600000001,"mean_ms":1.4669209599999999,"median_ms":1.46617603,"min_ms":1.4602880499999999,"std_ms":0.0032080356500000001,"trials":100},"runtime":{"host_median_ms":0.081415495399999996,"max_ms":0.075616002099999996,"mean_ms":0.074103679699999994,"median_ms":0.074175998600000001,"min_ms":0.072448000299999996,"std_ms":0.00077130781199999995,"trials":100},"runtime_evidence":null,"sandbox":{"applied":true,"ignored":{},"limits":{"core_bytes":0,"cpu_s":1020,"data_bytes":101388604416,"data_growth_bytes":101346653184,"file_bytes":8589934592,"open_files":4096},"network":{"how":"a network namespace of its own (no interface but a loopback that is down)","isolated":true},"not_limited":{"address_space":"not limited: CUDA reserves virtual address ranges as large as host and device memory together, so RLIMIT_AS stops it from starting; private writable memory (RLIMIT_DATA) is limited instead","processes":"not limited: RLIMIT_NPROC counts every thread of the user on the machine (CUDA and PyTorch start dozens) and does not bind root; the filter refuses new processes instead"},"processes":{"blocked":true,"refuses":"execve, execveat, fork, vfork and clone without CLONE_THREAD fail with EPERM (clone3 answers ENOSYS, so threads fall back to clone); so do setns, unshare, ptrace, process_vm_readv/writev, pidfd_open, signals to other processes. A call that would replace the SIGSYS handler (the one that answers refused calls) succeeds without effect and is counted in ignored, not refused: LLVM installs a handler for every fatal signal the first time Triton compiles","since":"before the candidate''s library was loaded","threads":"every thread"},"refused":{},"refused_calls":[],"switched_off":null},"scaled_trial":{"reason":null,"scale":64.0,"status":"passed"},"schema":"kernelpro.verdict/1","seconds":{"build":1.6387926870000058,"correctness_parts":null,"run":0.55134012900001039,"total":2.1940073179999899},"source_sha256":"16ba8c160377379fb2f33b2f4fe5e9f32222ee61320b08814ada7a325da98045","speedup":19.766178516941462,"speedup_compile":null,"status":"correct","timeline":"start 0.00, load 0.18, correctness 0.03, timing 0.21","work_dir":null}',1.7961687604716444e+09);
CREATE TABLE feedback (node_id INTEGER PRIMARY KEY REFERENCES nodes(id), text TEXT NOT NULL);
INSERT INTO "feedback" VALUES(1,'# Feedback for softmax_rows
Bottleneck: latency-bound. DRAM 360 GB/s of 4.8 TB/s datasheet peak (7%); compute 852 GFLOP/s of 70.7 TFLOP/s fp32 peak (1.2%). Speed of light: SM 3%, memory 35%. Time 1.46 ms, roofline floor 55.9 us.
Why: too few warps in flight to saturate anything (achieved occupancy 6%, below 25%); the busiest unit (L1 (global and local accesses)) reaches 35% of its peak; stalls mostly long_scoreboard (79% of warp cycles)

## What to try first
1. Launch at least 264 blocks (2-4 per SM): size the grid from the data, gridDim.x = min((n + blockDim.x - 1) / blockDim.x, 528), and walk the data with a grid-stride loop: for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) (grid_waves)

## Findings (most important first)

### 1. [high] Grid too small: 64 block(s) for 132 SMs leave 68 SMs idle
Tool: grid_waves; estimated gain up to 52% of the kernel time (if every SM had work until the end)
Cause: The kernel launches fewer blocks than the GPU has SMs, so most of the GPU does nothing while the few blocks loop over all the work.
Evidence:
- blocks in the grid: 64 (threshold 132)
- launch__waves_per_multiprocessor: 0.0303
- SM time idle because of the grid shape: 51.5% (threshold 10.0%)
- sm__warps_active.avg.pct_of_peak_sustained_active: 6.2% (threshold 80.0%)
- warp cycles stalled on latency more warps could hide: 91.8%
- sm__throughput.avg.pct_of_peak_sustained_elapsed: 2.8%
Do:
- Launch at least 264 blocks (2-4 per SM): size the grid from the data, gridDim.x = min((n + blockDim.x - 1) / blockDim.x, 528), and walk the data with a grid-stride loop: for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
- For a reduction or scan done by one block, split it in two passes (per-block partial results, then one small block combines them); for GEMM-like work, split K (split-K) or use smaller tiles so there are more blocks
Also seen by: occupancy, sol_gap, warp_stalls

(3 folded into the findings that explain them; 0 estimated to gain too little)

No data for: launch_overhead.
');
INSERT INTO "feedback" VALUES(3,'# Feedback for softmax_block
Bottleneck: memory-bound. DRAM 3.39 TB/s of 4.8 TB/s datasheet peak (71%); compute 11.8 TFLOP/s of 68.2 TFLOP/s fp32 peak (17.3%). Speed of light: SM 57%, memory 70%. Time 73.1 us, roofline floor 55.9 us.
Why: arithmetic intensity 3.48 FLOP/B is below the ridge (14.2) and the memory side is the busy one: L2 84% of peak, 71% of the DRAM roof, against FMA pipe 29% on the SM side

## What to try first
1. Keep more bytes in flight per thread (vector loads, unrolled independent loads) and make every 32-byte sector fully used (sol_gap)
2. Load and store 16 bytes per thread: 44 of this kernel''s 44 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 46% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop (vector_width)

## Findings (most important first)

### 1. [medium] Memory throughput at 70% of peak (L2 busiest at 84%)
Tool: sol_gap; estimated gain up to 22% of the kernel time (headroom to the busiest unit''s practical peak)
Cause: The memory system is the busiest part of the GPU but not saturated: access patterns or too few bytes in flight keep it from its peak.
Evidence:
- sm__throughput.avg.pct_of_peak_sustained_elapsed: 56.9%
- gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed: 70.5%
- gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed: 70.5%
- achieved DRAM bandwidth: 3.39 TB/s (threshold 4.8 TB/s)
- achieved FLOP rate: 11.8 TFLOP/s (threshold 68.2 TFLOP/s)
Do:
- Keep more bytes in flight per thread (vector loads, unrolled independent loads) and make every 32-byte sector fully used

### 2. [low] Global memory accessed 32 bits at a time (44 of 44 load/store instructions are scalar)
Tool: vector_width; estimated gain up to 10% of the kernel time (the memory-wait share of the headroom to the busiest unit''s practical peak)
Cause: Each thread moves 4 bytes per instruction, so a warp keeps few bytes in flight and the load/store unit issues up to 4x the instructions a 128-bit access needs; warps wait on global memory 46% of their cycles.
Evidence:
- scalar global load/store instructions (SASS): 100.0% (threshold 50.0%)
- average global access width (SASS): 32 bit (threshold 128 bit)
- warp cycles waiting on global memory: 45.7% (threshold 30.0%)
- LDG.E (32-bit) instructions (SASS): 39
- smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio: 10.2 cycles
- share of warp cycles per issued instruction: 41.7% (threshold 30.0%)
Do:
- Load and store 16 bytes per thread: 44 of this kernel''s 44 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 46% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop
- Give each thread several independent elements (a grid-stride loop unrolled 4x, or 4 consecutive elements per thread) so more loads are in flight before the first one returns
- Declare read-only inputs const float* __restrict__ so the compiler may emit LDG.E.128.CONSTANT (the read-only path)
Also seen by: warp_stalls

(1 folded into the findings that explain them; 0 estimated to gain too little)

No data for: launch_overhead.
');
INSERT INTO "feedback" VALUES(5,'# Feedback for softmax_regs
Bottleneck: memory-bound. DRAM 3.84 TB/s of 4.8 TB/s datasheet peak (80%); compute 7.39 TFLOP/s of 67.5 TFLOP/s fp32 peak (10.9%). Speed of light: SM 29%, memory 80%. Time 63.2 us, roofline floor 55.9 us.
Why: arithmetic intensity 1.92 FLOP/B is below the ridge (14.1) and the memory side is the busy one: L2 89% of peak, 80% of the DRAM roof, against FMA pipe 16% on the SM side

## What to try first
1. Issue independent loads early and use the values late: unroll loops so several loads are in flight, or give each thread several elements (warp_stalls)
2. Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip (sol_gap)

## Findings (most important first)

### 1. [low] Warps stall on global or local memory data (long scoreboard): 38% of the cycles between instructions
Tool: warp_stalls; estimated gain up to 4% of the kernel time (this stall''s share of the headroom to the busiest unit)
Cause: Loads from global or local memory are outstanding and the next instruction needs their data; there is not enough independent work in flight to cover DRAM latency.
Evidence:
- smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio: 18.9 cycles
- share of warp cycles per issued instruction: 38.1% (threshold 30.0%)
- smsp__average_warp_latency_per_inst_issued.ratio: 49.5 cycles
- smsp__issue_active.avg.per_cycle_active: 0.3 (threshold 0.8)
Do:
- Issue independent loads early and use the values late: unroll loops so several loads are in flight, or give each thread several elements
- Cut the bytes behind each stall: coalesced and vectorized accesses, data reused from shared memory

### 2. [low] At the memory roof: the busiest unit runs at 89% of its practical peak
Tool: sol_gap
Cause: The kernel moves its bytes about as fast as the memory system allows; reordering the same accesses cannot gain much more.
Evidence:
- busiest unit''s share of its practical peak: 88.8% (threshold 80.0%)
- sm__throughput.avg.pct_of_peak_sustained_elapsed: 29.3%
- gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed: 79.9%
- gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed: 79.9%
- achieved DRAM bandwidth: 3.84 TB/s (threshold 4.8 TB/s)
- achieved FLOP rate: 7.39 TFLOP/s (threshold 67.5 TFLOP/s)
Do:
- Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip
- Store inputs/outputs in a narrower type (bf16/fp16, or fp8 with a scale) if the task''s tolerance allows: half the bytes, half the time

No data for: launch_overhead.
');
CREATE TABLE findings (
  id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL REFERENCES nodes(id), seq INTEGER NOT NULL,
  tool TEXT, severity TEXT, title TEXT, json TEXT NOT NULL);
INSERT INTO "findings" VALUES(1,1,0,'grid_waves','high','Grid too small: 64 block(s) for 132 SMs leave 68 SMs idle','{"also":["occupancy","sol_gap","warp_stalls"],"cause":"The kernel launches fewer blocks than the GPU has SMs, so most of the GPU does nothing while the few blocks loop over all the work.","evidence":[{"metric":"blocks in the grid","threshold":132.0,"unit":"","value":64.0},{"metric":"launch__waves_per_multiprocessor","threshold":null,"unit":"","value":0.030303030303030304},{"metric":"SM time idle because of the grid shape","threshold":10.0,"unit":"%","value":51.515151515151516},{"metric":"sm__warps_active.avg.pct_of_peak_sustained_active","threshold":80.0,"unit":"%","value":6.2300000000000004},{"metric":"warp cycles stalled on latency more warps could hide","threshold":null,"unit":"%","value":91.77764910248986},{"metric":"sm__throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":2.77},{"metric":"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","threshold":null,"unit":"cycles","value":13.57},{"metric":"share of warp cycles per issued instruction","threshold":30.0,"unit":"%","value":78.575564562825718},{"metric":"smsp__average_warp_latency_per_inst_issued.ratio","threshold":null,"unit":"cycles","value":17.27}],"gain":0.51515151515151514,"gain_basis":"if every SM had work until the end","recommendations":["Launch at least 264 blocks (2-4 per SM): size the grid from the data, gridDim.x = min((n + blockDim.x - 1) / blockDim.x, 528), and walk the data with a grid-stride loop: for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)","For a reduction or scan done by one block, split it in two passes (per-block partial results, then one small block combines them); for GEMM-like work, split K (split-K) or use smaller tiles so there are more blocks"],"severity":"high","title":"Grid too small: 64 block(s) for 132 SMs leave 68 SMs idle","tool":"grid_waves"}');
INSERT INTO "findings" VALUES(2,3,0,'sol_gap','medium','Memory throughput at 70% of peak (L2 busiest at 84%)','{"also":[],"cause":"The memory system is the busiest part of the GPU but not saturated: access patterns or too few bytes in flight keep it from its peak.","evidence":[{"metric":"sm__throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":56.939999999999998},{"metric":"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":70.489999999999995},{"metric":"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":70.489999999999995},{"metric":"achieved DRAM bandwidth","threshold":4800000000000.0,"unit":"B/s","value":3391295663600.5254},{"metric":"achieved FLOP rate","threshold":68229276622167.039,"unit":"FLOP/s","value":11787437582128.777}],"gain":0.21677777777777785,"gain_basis":"headroom to the busiest unit''s practical peak","recommendations":["Keep more bytes in flight per thread (vector loads, unrolled independent loads) and make every 32-byte sector fully used"],"severity":"medium","title":"Memory throughput at 70% of peak (L2 busiest at 84%)","tool":"sol_gap"}');
INSERT INTO "findings" VALUES(3,3,1,'vector_width','low','Global memory accessed 32 bits at a time (44 of 44 load/store instructions are scalar)','{"also":["warp_stalls"],"cause":"Each thread moves 4 bytes per instruction, so a warp keeps few bytes in flight and the load/store unit issues up to 4x the instructions a 128-bit access needs; warps wait on global memory 46% of their cycles.","evidence":[{"metric":"scalar global load/store instructions (SASS)","threshold":50.0,"unit":"%","value":100.0},{"metric":"average global access width (SASS)","threshold":128.0,"unit":"bit","value":32.0},{"metric":"warp cycles waiting on global memory","threshold":30.0,"unit":"%","value":45.669934640522868},{"metric":"LDG.E (32-bit) instructions (SASS)","threshold":null,"unit":"","value":39.0},{"metric":"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","threshold":null,"unit":"cycles","value":10.199999999999999},{"metric":"share of warp cycles per issued instruction","threshold":30.0,"unit":"%","value":41.666666666666664},{"metric":"smsp__average_warp_latency_per_inst_issued.ratio","threshold":null,"unit":"cycles","value":24.48}],"gain":0.09900226942628905,"gain_basis":"the memory-wait share of the headroom to the busiest unit''s practical peak","recommendations":["Load and store 16 bytes per thread: 44 of this kernel''s 44 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 46% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop","Give each thread several independent elements (a grid-stride loop unrolled 4x, or 4 consecutive elements per thread) so more loads are in flight before the first one returns","Declare read-only inputs const float* __restrict__ so the compiler may emit LDG.E.128.CONSTANT (the read-only path)"],"severity":"low","title":"Global memory accessed 32 bits at a time (44 of 44 load/store instructions are scalar)","tool":"vector_width"}');
INSERT INTO "findings" VALUES(4,5,0,'warp_stalls','low','Warps stall on global or local memory data (long scoreboard): 38% of the cycles between instructions','{"also":[],"cause":"Loads from global or local memory are outstanding and the next instruction needs their data; there is not enough independent work in flight to cover DRAM latency.","evidence":[{"metric":"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","threshold":null,"unit":"cycles","value":18.870000000000001},{"metric":"share of warp cycles per issued instruction","threshold":30.0,"unit":"%","value":38.13662085691189},{"metric":"smsp__average_warp_latency_per_inst_issued.ratio","threshold":null,"unit":"cycles","value":49.479999999999997},{"metric":"smsp__issue_active.avg.per_cycle_active","threshold":0.80000000000000004,"unit":"","value":0.29999999999999999}],"gain":0.04284013742926434,"gain_basis":"this stall''s share of the headroom to the busiest unit","recommendations":["Issue independent loads early and use the values late: unroll loops so several loads are in flight, or give each thread several elements","Cut the bytes behind each stall: coalesced and vectorized accesses, data reused from shared memory"],"severity":"low","title":"Warps stall on global or local memory data (long scoreboard): 38% of the cycles between instructions","tool":"warp_stalls"}');
INSERT INTO "findings" VALUES(5,5,1,'sol_gap','low','At the memory roof: the busiest unit runs at 89% of its practical peak','{"also":[],"cause":"The kernel moves its bytes about as fast as the memory system allows; reordering the same accesses cannot gain much more.","evidence":[{"metric":"busiest unit''s share of its practical peak","threshold":80.0,"unit":"%","value":88.766666666666666},{"metric":"sm__throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":29.289999999999999},{"metric":"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":79.890000000000001},{"metric":"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":79.890000000000001},{"metric":"achieved DRAM bandwidth","threshold":4800000000000.0,"unit":"B/s","value":3843092198581.5601},{"metric":"achieved FLOP rate","threshold":67506458923512.758,"unit":"FLOP/s","value":7391059777102.3301}],"gain":null,"gain_basis":null,"recommendations":["Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip","Store inputs/outputs in a narrower type (bf16/fp16, or fp8 with a scale) if the task''s tolerance allows: half the bytes, half the time"],"severity":"low","title":"At the memory roof: the busiest unit runs at 89% of its practical peak","tool":"sol_gap"}');
CREATE TABLE memory (
  id INTEGER PRIMARY KEY, family TEXT, kind INTEGER NOT NULL, key TEXT NOT NULL,
  text TEXT NOT NULL, outcome INTEGER NOT NULL DEFAULT 0, gain REAL, node_id INTEGER,
  run TEXT, created REAL NOT NULL, tries INTEGER NOT NULL DEFAULT 1,
  wins INTEGER NOT NULL DEFAULT 0);
INSERT INTO "memory" VALUES(1,'softmax',3,'grid_waves: Grid too small: 64 block(s) for 132 SMs leave 68 SMs idle','Launch at least 264 blocks (2-4 per SM): size the grid from the data, gridDim.x = min((n + blockDim.x - 1) / blockDim.x, 528), and walk the data with a grid-stride loop: for (i = blockIdx.x * blockDim.x + threadIdx.x; i',2,NULL,2,'softmax',1.79616874361075234e+09,1,0);
INSERT INTO "memory" VALUES(2,'softmax',0,'error: identifier "__shfl_down" is undefined','fixed by: v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off)); | v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off)); | v += __shfl_down_sync(0xffffffffu, v, off); | v += __shfl_down_sync(0xffffffffu, v, off);',1,NULL,3,'softmax',1.79616874546045565e+09,1,1);
INSERT INTO "memory" VALUES(3,'softmax',1,'__shfl_down_sync','compiled and correct (18.89x): v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));',1,3.93877880485987041e+00,3,'softmax',1.79616874546061635e+09,1,1);
INSERT INTO "memory" VALUES(4,'softmax',3,'sol_gap: Memory throughput at 70% of peak (L2 busiest at 84%)','Keep more bytes in flight per thread (vector loads, unrolled independent loads) and make every 32-byte sector fully used',1,1.17862008811836282e-01,4,'softmax',1.79616875171661138e+09,2,1);
INSERT INTO "memory" VALUES(5,'softmax',3,'vector_width: Global memory accessed 32 bits at a time (44 of 44 load/store instructions are scalar)','Load and store 16 bytes per thread: 44 of this kernel''s 44 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 46% of their cycles; use reinterpret_cast<const float',1,1.17862008811836282e-01,4,'softmax',1.79616875171674633e+09,2,1);
INSERT INTO "memory" VALUES(6,'softmax',1,'float4','compiled and correct (21.26x): // The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.',1,1.17862008811836282e-01,5,'softmax',1.79616875394969105e+09,1,1);
INSERT INTO "memory" VALUES(7,'softmax',1,'#pragma unroll','compiled and correct (21.26x): #pragma unroll',1,1.17862008811836282e-01,5,'softmax',1.7961687539498105e+09,1,1);
INSERT INTO "memory" VALUES(8,'softmax',3,'warp_stalls: Warps stall on global or local memory data (long scoreboard): 38% of the cycles between instructions','Issue independent loads early and use the values late: unroll loops so several loads are in flight, or give each thread several elements',2,-7.26684922426903412e-02,6,'softmax',1.79616876047192096e+09,1,0);
INSERT INTO "memory" VALUES(9,'softmax',3,'sol_gap: At the memory roof: the busiest unit runs at 89% of its practical peak','Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip',2,-7.26684922426903412e-02,6,'softmax',1.79616876047205066e+09,1,0);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO "meta" VALUES('run_name','softmax');
INSERT INTO "meta" VALUES('kernelpro','0.1.0 (da932db)');
INSERT INTO "meta" VALUES('created','20261201-234536');
INSERT INTO "meta" VALUES('family','softmax');
INSERT INTO "meta" VALUES('llm','replay:/work/main/examples/optimize/softmax/replies');
INSERT INTO "meta" VALUES('evaluator','harness');
INSERT INTO "meta" VALUES('orchestration','{"mode":"proactive","tool_rounds":3}');
INSERT INTO "meta" VALUES('task','{"atol":0.0001,"description":"Row-wise softmax of a fp32 matrix: y[i][j] = exp(x[i][j] - max_k x[i][k]) / sum_k exp(x[i][k] - max_k x[i][k]); x is 8192 x 4096.","flops":167772160.0,"inputs":[{"bytes":134217728,"dtype":"f32","fill":{"a":0.0,"b":2.0,"kind":"normal"},"name":"x","shape":[8192,4096]}],"kind":"native","min_bytes":268435456.0,"name":"softmax","outputs":[{"bytes":134217728,"dtype":"f32","name":"y","shape":[8192,4096]}],"path":"/work/main/examples/optimize/softmax","precision":"f32","reference":"/work/main/examples/optimize/softmax/reference.cu","rtol":0.0001,"scaled_trial":true}');
INSERT INTO "meta" VALUES('task_sha256','14837da63f297718867c3bb756927a64202fdf89cc8b3cb7177420802e51f150');
INSERT INTO "meta" VALUES('params','{"backup":"max","beam_width":3,"leader_widen":1,"max_gen_failures":3,"max_repairs":2,"memory_bytes":1500,"noise_band":0.02,"objective":"speed","parallel":1,"prune_delta":0.02,"prune_m":6,"refine_alpha":0.29999999999999999,"refine_cap":8,"refine_k":1.0,"repair_alpha":0.29999999999999999,"repair_cap":2,"repair_fpu":0.29999999999999999,"repair_k":1.0,"reward_fail":-1.0,"reward_max":4.5999999999999996,"reward_min":-2.0,"search":"mcts","tune":"declared","tune_budget":16,"tune_children":1,"tune_share":0.25,"tune_strategy":"auto","uct_c":0.10000000000000001}');
INSERT INTO "meta" VALUES('budget','{"cost_usd":null,"evals":5,"tokens":null,"wall_s":null}');
INSERT INTO "meta" VALUES('status','finished');
INSERT INTO "meta" VALUES('stage1','  latency: too few warps in flight to saturate anything (achieved occupancy 6%, below 25%); the busiest unit (L1 (global and local accesses)) reaches 35% of its peak; stalls mostly long_scoreboard (79% of warp cycles)
  FLOPs 1.24 G (fp32, sass counters), DRAM 524 MB, AI 2.37 FLOP/B, ridge 14.7
  360 GB/s = 7% of DRAM roof; 852 GFLOP/s = 1.2% of fp32 roof; ncu SM 3%, memory 35%
  minimum traffic 2.68e+08 B: AI 4.63, no version can run faster than 0.0559 ms
');
INSERT INTO "meta" VALUES('hardware','NVIDIA H200 SXM 141GB (datasheet): 132 SMs, DRAM 4.8 TB/s, FP32 66.9 TFLOP/s, BF16 tensor 989 TFLOP/s, TF32 tensor 495 TFLOP/s, L2 52 MB, 233 KB shared memory per SM');
INSERT INTO "meta" VALUES('end_reason','budget: evaluations');
CREATE TABLE nodes (
  id INTEGER PRIMARY KEY, parent INTEGER REFERENCES nodes(id),
  kind INTEGER NOT NULL, depth INTEGER NOT NULL,
  evaluated INTEGER NOT NULL DEFAULT 0, outcome INTEGER NOT NULL DEFAULT -1,
  speedup REAL, time_ms REAL, energy_j REAL, reward REAL,
  visits INTEGER NOT NULL DEFAULT 0, sum_r REAL NOT NULL DEFAULT 0, max_r REAL,
  fail_depth INTEGER NOT NULL DEFAULT 0, expansions INTEGER NOT NULL DEFAULT 0,
  dead INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL, summary TEXT);
INSERT INTO "nodes" VALUES(1,NULL,0,0,1,0,1.0,1.46529603,NULL,0.0,6,1.08840537263083554e+01,3.0566408136717067e+00,0,1,0,1.79616873689862942e+09,'the reference');
INSERT INTO "nodes" VALUES(2,1,1,1,1,1,NULL,NULL,NULL,-1.0,5,1.08840537263083554e+01,3.0566408136717067e+00,1,1,0,1.79616874290246725e+09,'The reference runs one thread per row, so only 8192 threads work and each warp load touches 32 rows.');
INSERT INTO "nodes" VALUES(3,2,3,2,1,0,1.88927604716942525e+01,0.0775840022,NULL,2.93877880485987041e+00,4,1.18840537263083572e+01,3.0566408136717067e+00,0,2,0,1.79616874361238908e+09,'The compiler is right: CUDA 9 removed the unsynchronized `__shfl_down`.');
INSERT INTO "nodes" VALUES(4,3,2,3,1,0,1.82590671419934871e+01,0.0802880004,NULL,2.90466178634776328e+00,1,2.90466178634776328e+00,2.90466178634776328e+00,0,0,0,1.79616874967349815e+09,'The rows now read three times (max, sum, output).');
INSERT INTO "nodes" VALUES(5,3,2,3,1,0,21.2560341204603,0.0689280033,NULL,3.0566408136717067e+00,2,6.04061313510072306e+00,3.0566408136717067e+00,0,1,0,1.79616875172037649e+09,'The kernel is memory-bound and still reads each row twice.');
INSERT INTO "nodes" VALUES(6,5,2,4,1,0,1.97661785169414621e+01,0.0741759986,NULL,2.98397232142901636e+00,1,2.98397232142901636e+00,2.98397232142901636e+00,0,0,0,1.79616875827492117e+09,'Every byte is now read once and written once, so what is left is how the bytes move.');
CREATE TABLE profiles (node_id INTEGER PRIMARY KEY REFERENCES nodes(id), json TEXT NOT NULL);
INSERT INTO "profiles" VALUES(1,'{"dir":"runs/softmax/profiles/reference","floor_time_s":5.592405333333333e-5,"held":false,"launch":{"block":[128,1,1],"cc":"9.0","findings":[],"function":"softmax_rows","grid":[64,1,1],"incomplete":false,"kernel":"softmax_rows(const float *, float *, int, int)","launch_id":0,"sources":{"ptxas":null,"sass":"softmax_rows(const float *, float *, int, int)","trace":false},"stage1":{"achieved_bw":359789492180.63605,"achieved_flops":852186259005.44714,"ai":2.3685690592030912,"ai_min":4.6251220703125,"attainable_flops":11369131484174.838,"class":"latency","compute_busy":0.027699999999999999,"compute_frac":0.012049508323398414,"compute_peak":70723737113042.516,"dram_bytes":524175872.0,"evidence":{"latency_stalls":0.99877074370006147,"memory":{"busy":0.35189999999999999,"side":"memory","unit":"L1 (global and local accesses)"},"occupancy_pct":6.2300000000000004,"rule":"starved","sm":{"busy":0.022000000000000002,"side":"sm","unit":"XU (special-function) pipe"},"stall":"long_scoreboard","stall_share":0.78575564562825717,"units":[{"busy":0.015700000000000002,"side":"sm","unit":"FMA pipe"},{"busy":0.0060999999999999995,"side":"sm","unit":"ALU pipe"},{"busy":0.022000000000000002,"side":"sm","unit":"XU (special-function) pipe"},{"busy":0.0,"side":"sm","unit":"FP64 pipe"},{"busy":0.0014000000000000002,"side":"sm","unit":"tensor pipe"},{"busy":0.027699999999999999,"side":"sm","unit":"issue slots"},{"busy":0.0,"side":"sm","unit":"shared memory"},{"busy":0.012049508323398414,"side":"sm","unit":"FLOP roof"},{"busy":0.074956144204299177,"side":"memory","unit":"DRAM"},{"busy":0.34039999999999998,"side":"memory","unit":"L2"},{"busy":0.35189999999999999,"side":"memory","unit":"L1 (global and local accesses)"}]},"floor_time_s":5.592405333333333e-5,"flops":1241546752.0,"flops_fp16":134250496.0,"flops_fp32":1107296256.0,"flops_fp64":0.0,"flops_source":"sass counters","flops_tensor":0.0,"incomplete":false,"mem_sol_pct":35.189999999999998,"memory_busy":0.35189999999999999,"memory_frac":0.074956144204299177,"memory_peak":4800000000000.0,"min_bytes":268435456.0,"missing_metrics":"","precision":"fp32","reason":"too few warps in flight to saturate anything (achieved occupancy 6%, below 25%); the busiest unit (L1 (global and local accesses)) reaches 35% of its peak; stalls mostly long_scoreboard (79% of warp cycles)","ridge_ai":14.734111898550523,"sm_sol_pct":2.77,"time_s":0.0014568960000000001}},"ncu_s":3.025196563999998,"profile_s":4.3861350560000005}');
INSERT INTO "profiles" VALUES(3,'{"dir":"runs/softmax/profiles/3","held":true,"launch":{"block":[256,1,1],"cc":"9.0","findings":[],"function":"softmax_block","grid":[8192,1,1],"incomplete":false,"kernel":"softmax_block(const float *, float *, int)","launch_id":0,"sources":{"ptxas":null,"sass":"softmax_block(const float *, float *, int)","trace":false},"stage1":{"achieved_bw":3391295663600.5254,"achieved_flops":11787437582128.777,"ai":3.4757917773568878,"ai_min":3.2080078125,"attainable_flops":16683800531313.062,"class":"memory","compute_busy":0.56940000000000002,"compute_frac":0.17276216553495088,"compute_peak":68229276622167.039,"dram_bytes":247754496.0,"evidence":{"latency_stalls":0.84596456692913391,"memory":{"busy":0.83760000000000001,"side":"memory","unit":"L2"},"occupancy_pct":91.349999999999994,"rule":"intensity","sm":{"busy":0.2893,"side":"sm","unit":"FMA pipe"},"stall":"long_scoreboard","stall_share":0.41666666666666663,"units":[{"busy":0.2893,"side":"sm","unit":"FMA pipe"},{"busy":0.21829999999999999,"side":"sm","unit":"ALU pipe"},{"busy":0.2389,"side":"sm","unit":"XU (special-function) pipe"},{"busy":0.0,"side":"sm","unit":"FP64 pipe"},{"busy":0.0071999999999999998,"side":"sm","unit":"tensor pipe"},{"busy":0.56940000000000002,"side":"sm","unit":"issue slots"},{"busy":0.073521281073345712,"side":"sm","unit":"shared memory"},{"busy":0.17276216553495088,"side":"sm","unit":"FLOP roof"},{"busy":0.70651992991677615,"side":"memory","unit":"DRAM"},{"busy":0.83760000000000001,"side":"memory","unit":"L2"},{"busy":0.26979999999999998,"side":"memory","unit":"L1 (global and local accesses)"}]},"floor_time_s":5.592405333333333e-5,"flops":861143040.0,"flops_fp16":33554432.0,"flops_fp32":827588608.0,"flops_fp64":0.0,"flops_source":"sass counters","flops_tensor":0.0,"incomplete":false,"mem_sol_pct":70.489999999999995,"memory_busy":0.70651992991677615,"memory_frac":0.70651992991677615,"memory_peak":4800000000000.0,"min_bytes":268435456.0,"missing_metrics":"","precision":"fp32","reason":"arithmetic intensity 3.48 FLOP/B is below the ridge (14.2) and the memory side is the busy one: L2 84% of peak, 71% of the DRAM roof, against FMA pipe 29% on the SM side","ridge_ai":14.214432629618132,"sm_sol_pct":56.939999999999998,"time_s":7.3056e-5}},"ncu_s":2.6016778309999893,"profile_s":4.2058366210000031}');
INSERT INTO "profiles" VALUES(5,'{"dir":"runs/softmax/profiles/5","held":true,"launch":{"block":[256,1,1],"cc":"9.0","findings":[],"function":"softmax_regs","grid":[8192,1,1],"incomplete":false,"kernel":"void softmax_regs<4>(const float4 *, float4 *, int)","launch_id":0,"sources":{"ptxas":null,"sass":"void softmax_regs<(int)4>(const float4 *, float4 *, int)","trace":false},"stage1":{"achieved_bw":3843092198581.5601,"achieved_flops":7391059777102.3301,"ai":1.9232064689549428,"ai_min":1.7392578125,"attainable_flops":9231391050983.7266,"class":"memory","compute_busy":0.29289999999999999,"compute_frac":0.10948670534587907,"compute_peak":67506458923512.758,"dram_bytes":242760448.0,"evidence":{"latency_stalls":0.93918025561921559,"memory":{"busy":0.89219999999999999,"side":"memory","unit":"L2"},"occupancy_pct":92.719999999999999,"rule":"intensity","sm":{"busy":0.1605,"side":"sm","unit":"FMA pipe"},"stall":"long_scoreboard","stall_share":0.3813662085691189,"units":[{"busy":0.1605,"side":"sm","unit":"FMA pipe"},{"busy":0.12300000000000001,"side":"sm","unit":"ALU pipe"},{"busy":0.14019999999999999,"side":"sm","unit":"XU (special-function) pipe"},{"busy":0.0,"side":"sm","unit":"FP64 pipe"},{"busy":0.0020999999999999999,"side":"sm","unit":"tensor pipe"},{"busy":0.29289999999999999,"side":"sm","unit":"issue slots"},{"busy":0.08571043564892096,"side":"sm","unit":"shared memory"},{"busy":0.10948670534587907,"side":"sm","unit":"FLOP roof"},{"busy":0.80064420803782499,"side":"memory","unit":"DRAM"},{"busy":0.89219999999999999,"side":"memory","unit":"L2"},{"busy":0.20979999999999999,"side":"memory","unit":"L1 (global and local accesses)"}]},"floor_time_s":5.592405333333333e-5,"flops":466878464.0,"flops_fp16":8388608.0,"flops_fp32":458489856.0,"flops_fp64":0.0,"flops_source":"sass counters","flops_tensor":0.0,"incomplete":false,"mem_sol_pct":79.890000000000001,"memory_busy":0.80064420803782499,"memory_frac":0.80064420803782499,"memory_peak":4800000000000.0,"min_bytes":268435456.0,"missing_metrics":"","precision":"fp32","reason":"arithmetic intensity 1.92 FLOP/B is below the ridge (14.1) and the memory side is the busy one: L2 89% of peak, 80% of the DRAM roof, against FMA pipe 16% on the SM side","ridge_ai":14.063845609065158,"sm_sol_pct":29.289999999999999,"time_s":6.3168000000000002e-5}},"ncu_s":2.8510672799999952,"profile_s":4.3150098540000101}');
CREATE TABLE prompts (
  id INTEGER PRIMARY KEY, parent_id INTEGER, node_id INTEGER, mode TEXT NOT NULL,
  round INTEGER NOT NULL DEFAULT 0, sha256 TEXT NOT NULL, text TEXT NOT NULL, created REAL NOT NULL);
INSERT INTO "prompts" VALUES(1,1,2,'initial',0,'81f6dc024837ae1d42563a739c5b27b2153f5d7c2b26d7c9da65f77d38de1c1a','[system]
You are an expert GPU performance engineer. You write CUDA kernels for NVIDIA GPUs that are correct first and then as fast as the hardware allows. You reason from measurements: the roofline position, the bottleneck class and the profiler''s diagnosis you are given, not from habit.

Rules for every answer:
- Reply with one complete CUDA C++ file in a single ```cuda code block. Write every line of it: no "..." placeholders, no "rest unchanged" comments.
- Follow the candidate format exactly; the file must define kp_run.
- Compute the whole result on every call, for any inputs of the given shapes. Do not special-case the test data, cache results between calls, skip work, or call the reference implementation (or the library operation you are replacing) to do the work.
- Keep the reference''s numerical precision unless you are told otherwise.
- Keep prose short: a few sentences before the code block at most.

[user]
# Task: softmax

Row-wise softmax of a fp32 matrix: y[i][j] = exp(x[i][j] - max_k x[i][k]) / sum_k exp(x[i][k] - max_k x[i][k]); x is 8192 x 4096.
input x: f32 [8192, 4096]
output y: f32 [8192, 4096]
tolerance: atol 0.0001, rtol 0.0001

## Reference implementation

This is the code to replace. Your version must compute the same outputs, within the tolerance, for the same inputs.

```cuda
// Reference for the softmax example, written the way a first version often is: one thread per
// row, three passes over the row (max, sum of exponentials, output). Correct, and slow: 8192
// threads leave most of the H200 idle and every warp load touches 32 different rows.
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

__global__ void softmax_rows(const float *x, float *y, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *in = x + (size_t)r * cols;
	float *out = y + (size_t)r * cols;
	float m = -INFINITY;
	for (int j = 0; j < cols; j++)
		m = fmaxf(m, in[j]);
	float sum = 0.0f;
	for (int j = 0; j < cols; j++)
		sum += expf(in[j] - m);
	for (int j = 0; j < cols; j++)
		out[j] = expf(in[j] - m) / sum;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_rows<<<(rows + 127) / 128, 128, 0, (cudaStream_t)stream>>>((const float *)in[0].data,
									    (float *)out[0].data, rows, cols);
	return (int)cudaGetLastError();
}
```

It takes 1.465 ms per call.

## Where the reference stands (roofline analysis)

  latency: too few warps in flight to saturate anything (achieved occupancy 6%, below 25%); the busiest unit (L1 (global and local accesses)) reaches 35% of its peak; stalls mostly long_scoreboard (79% of warp cycles)
  FLOPs 1.24 G (fp32, sass counters), DRAM 524 MB, AI 2.37 FLOP/B, ridge 14.7
  360 GB/s = 7% of DRAM roof; 852 GFLOP/s = 1.2% of fp32 roof; ncu SM 3%, memory 35%
  minimum traffic 2.68e+08 B: AI 4.63, no version can run faster than 0.0559 ms

## Hardware

NVIDIA H200 SXM 141GB (datasheet): 132 SMs, DRAM 4.8 TB/s, FP32 66.9 TFLOP/s, BF16 tensor 989 TFLOP/s, TF32 tensor 495 TFLOP/s, L2 52 MB, 233 KB shared memory per SM

## Candidate format

The candidate is one `.cu` file that kernelpro builds with `nvcc -shared` and calls through the C ABI of `kp_native.h` (it is on the include path). The harness hands it device tensors in the order task.json lists them:

```cuda
typedef struct kp_tensor {
    void *data;            // device pointer: contiguous, row-major, 256-byte aligned
    int32_t dtype;         // KP_ABI_F32, KP_ABI_F16, KP_ABI_BF16, KP_ABI_F64, KP_ABI_I32, KP_ABI_I64, KP_ABI_I8, KP_ABI_U8
    int32_t ndim;          // 0..8 (0: a scalar)
    int64_t shape[8];      // shape[ndim..7] are 1
    int64_t numel;
    const char *name;      // the tensor''s name in task.json
} kp_tensor;

// Required: compute out[] from in[]; returns 0, or a cudaError_t on failure.
KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream);
// Optional: called once before the first kp_run (allocate workspace, check shapes); nonzero fails.
KP_EXPORT int kp_init(const kp_tensor *in, int nin, const kp_tensor *out, int nout);
// Optional: called once after the last kp_run (free workspace).
KP_EXPORT void kp_fini(void);
```

Rules of the harness:
- Enqueue all work on `stream` (`kernel<<<grid, block, smem, (cudaStream_t)stream>>>`). Never synchronize the device, create streams or start threads.
- kp_run is called many times and must compute the whole result every time, writing every element of every output: outputs are filled with a poison pattern before each call and checked afterwards.
- Outputs must not alias inputs; allocate any workspace in kp_init, not in kp_run.

A worked example for a different task (y = max(x, 0) for one f32 input and one f32 output of any shape):

```cuda
#include <cuda_runtime.h>
#include "kp_native.h"

// Four elements per thread with 128-bit loads: the data is 256-byte aligned, so float4 access is legal.
__global__ void relu4(const float4 *__restrict__ x, float4 *__restrict__ y, int64_t n4)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}

// The last numel % 4 elements.
__global__ void relu_tail(const float *__restrict__ x, float *__restrict__ y, int64_t from, int64_t n)
{
    int64_t i = from + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.f);
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
    if (nin != 1 || nout != 1 || in[0].dtype != KP_ABI_F32 || out[0].numel != in[0].numel)
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    const float *x = (const float *)in[0].data;
    float *y = (float *)out[0].data;
    int64_t n = in[0].numel, n4 = n / 4;
    if (n4 > 0) {
        int threads = 256;
        int64_t blocks = (n4 + threads - 1) / threads;
        if (blocks > 132 * 16)  // a few waves over the SMs; the grid-stride loop covers the rest
            blocks = 132 * 16;
        relu4<<<(unsigned)blocks, threads, 0, s>>>((const float4 *)x, (float4 *)y, n4);
    }
    if (n % 4)
        relu_tail<<<1, 4, 0, s>>>(x, y, n4 * 4, n);
    return (int)cudaGetLastError();
}
```

## Your answer

Write the first optimized version. Let the bottleneck class decide the approach: for a memory-bound task, move the minimum bytes with wide, coalesced accesses and fuse everything into as few passes as possible; for a compute-bound one, use the fastest units for the precision (tensor cores for matrix products) and keep data in registers and shared memory; for a latency-bound one, expose more parallelism and cut launches and synchronizations. Correctness comes first: a fast wrong kernel is worth nothing.

Give the complete file in one ```cuda block.',1.7961687429025197e+09);
INSERT INTO "prompts" VALUES(2,2,3,'debug',0,'3a29124e4fb6006a3f59cf94240d60831b754ab1147e1871459161afa87850ed','[system]
You are an expert GPU performance engineer. You write CUDA kernels for NVIDIA GPUs that are correct first and then as fast as the hardware allows. You reason from measurements: the roofline position, the bottleneck class and the profiler''s diagnosis you are given, not from habit.

Rules for every answer:
- Reply with one complete CUDA C++ file in a single ```cuda code block. Write every line of it: no "..." placeholders, no "rest unchanged" comments.
- Follow the candidate format exactly; the file must define kp_run.
- Compute the whole result on every call, for any inputs of the given shapes. Do not special-case the test data, cache results between calls, skip work, or call the reference implementation (or the library operation you are replacing) to do the work.
- Keep the reference''s numerical precision unless you are told otherwise.
- Keep prose short: a few sentences before the code block at most.

[user]
# Repair: softmax

A candidate for this task failed. It does not compile.

## The failing candidate

```cuda
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down(v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down(v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down(v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down(v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	float m = -INFINITY;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		m = fmaxf(m, in[j]);
	m = block_max(m, scratch);
	float s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		s += expf(in[j] - m);
	s = block_sum(s, scratch);
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_block<<<rows, THREADS, 0, (cudaStream_t)stream>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
```

## Compiler output

```text
nvcc failed
cand.cu(13): error: identifier "__shfl_down" is undefined
    v = fmaxf(v, __shfl_down(v, off));
                 ^

cand.cu(20): error: identifier "__shfl_down" is undefined
     v = fmaxf(v, __shfl_down(v, off));
                  ^

cand.cu(32): error: identifier "__shfl_down" is undefined
    v += __shfl_down(v, off);
         ^

cand.cu(39): error: identifier "__shfl_down" is undefined
     v += __shfl_down(v, off);
          ^

4 errors detected in the compilation of "cand.cu".
nvcc exited with status 1
```

## Task

Row-wise softmax of a fp32 matrix: y[i][j] = exp(x[i][j] - max_k x[i][k]) / sum_k exp(x[i][k] - max_k x[i][k]); x is 8192 x 4096.
input x: f32 [8192, 4096]
output y: f32 [8192, 4096]
tolerance: atol 0.0001, rtol 0.0001

## Reference implementation (the behaviour to match)

```cuda
// Reference for the softmax example, written the way a first version often is: one thread per
// row, three passes over the row (max, sum of exponentials, output). Correct, and slow: 8192
// threads leave most of the H200 idle and every warp load touches 32 different rows.
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

__global__ void softmax_rows(const float *x, float *y, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *in = x + (size_t)r * cols;
	float *out = y + (size_t)r * cols;
	float m = -INFINITY;
	for (int j = 0; j < cols; j++)
		m = fmaxf(m, in[j]);
	float sum = 0.0f;
	for (int j = 0; j < cols; j++)
		sum += expf(in[j] - m);
	for (int j = 0; j < cols; j++)
		out[j] = expf(in[j] - m) / sum;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_rows<<<(rows + 127) / 128, 128, 0, (cudaStream_t)stream>>>((const float *)in[0].data,
									    (float *)out[0].data, rows, cols);
	return (int)cudaGetLastError();
}
```

## Candidate format

The candidate is one `.cu` file that kernelpro builds with `nvcc -shared` and calls through the C ABI of `kp_native.h` (it is on the include path). The harness hands it device tensors in the order task.json lists them:

```cuda
typedef struct kp_tensor {
    void *data;            // device pointer: contiguous, row-major, 256-byte aligned
    int32_t dtype;         // KP_ABI_F32, KP_ABI_F16, KP_ABI_BF16, KP_ABI_F64, KP_ABI_I32, KP_ABI_I64, KP_ABI_I8, KP_ABI_U8
    int32_t ndim;          // 0..8 (0: a scalar)
    int64_t shape[8];      // shape[ndim..7] are 1
    int64_t numel;
    const char *name;      // the tensor''s name in task.json
} kp_tensor;

// Required: compute out[] from in[]; returns 0, or a cudaError_t on failure.
KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream);
// Optional: called once before the first kp_run (allocate workspace, check shapes); nonzero fails.
KP_EXPORT int kp_init(const kp_tensor *in, int nin, const kp_tensor *out, int nout);
// Optional: called once after the last kp_run (free workspace).
KP_EXPORT void kp_fini(void);
```

Rules of the harness:
- Enqueue all work on `stream` (`kernel<<<grid, block, smem, (cudaStream_t)stream>>>`). Never synchronize the device, create streams or start threads.
- kp_run is called many times and must compute the whole result every time, writing every element of every output: outputs are filled with a poison pattern before each call and checked afterwards.
- Outputs must not alias inputs; allocate any workspace in kp_init, not in kp_run.

A worked example for a different task (y = max(x, 0) for one f32 input and one f32 output of any shape):

```cuda
#include <cuda_runtime.h>
#include "kp_native.h"

// Four elements per thread with 128-bit loads: the data is 256-byte aligned, so float4 access is legal.
__global__ void relu4(const float4 *__restrict__ x, float4 *__restrict__ y, int64_t n4)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}

// The last numel % 4 elements.
__global__ void relu_tail(const float *__restrict__ x, float *__restrict__ y, int64_t from, int64_t n)
{
    int64_t i = from + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.f);
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
    if (nin != 1 || nout != 1 || in[0].dtype != KP_ABI_F32 || out[0].numel != in[0].numel)
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    const float *x = (const float *)in[0].data;
    float *y = (float *)out[0].data;
    int64_t n = in[0].numel, n4 = n / 4;
    if (n4 > 0) {
        int threads = 256;
        int64_t blocks = (n4 + threads - 1) / threads;
        if (blocks > 132 * 16)  // a few waves over the SMs; the grid-stride loop covers the rest
            blocks = 132 * 16;
        relu4<<<(unsigned)blocks, threads, 0, s>>>((const float4 *)x, (float4 *)y, n4);
    }
    if (n % 4)
        relu_tail<<<1, 4, 0, s>>>(x, y, n4 * 4, n);
    return (int)cudaGetLastError();
}
```

## Notes from earlier attempts (fixes that worked, mistakes not to repeat)

This version''s line (oldest first):
- #2 initial, compile_error: The reference runs one thread per row, so only 8192 threads work and each warp load touches 32 rows.
- tried "Launch at least 264 blocks (2-4 per SM): size the grid from the data, gridDim.x = min((n +" (grid_waves: Grid too small: 64 block(s) for 132 SMs leave 68 SMs idle): helped 0 of 1 times, failed last time

## Your answer

Find the root cause in the evidence above and fix it. Keep the rest of the design, and its speed, unless the design itself is the cause. Say what the cause was in one or two sentences, then give the complete fixed file in one ```cuda block.',1.7961687436124258e+09);
INSERT INTO "prompts" VALUES(3,3,4,'optimize',0,'89b58223e5ffe41f74a44d0fb39068c8bca2c821ae36540564b40ba160212750','[system]
You are an expert GPU performance engineer. You write CUDA kernels for NVIDIA GPUs that are correct first and then as fast as the hardware allows. You reason from measurements: the roofline position, the bottleneck class and the profiler''s diagnosis you are given, not from habit.

Rules for every answer:
- Reply with one complete CUDA C++ file in a single ```cuda code block. Write every line of it: no "..." placeholders, no "rest unchanged" comments.
- Follow the candidate format exactly; the file must define kp_run.
- Compute the whole result on every call, for any inputs of the given shapes. Do not special-case the test data, cache results between calls, skip work, or call the reference implementation (or the library operation you are replacing) to do the work.
- Keep the reference''s numerical precision unless you are told otherwise.
- Keep prose short: a few sentences before the code block at most.

[user]
# Optimize: softmax

This version is correct. Make it faster without changing what it computes.

## Current version

```cuda
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffffu, v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	float m = -INFINITY;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		m = fmaxf(m, in[j]);
	m = block_max(m, scratch);
	float s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		s += expf(in[j] - m);
	s = block_sum(s, scratch);
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_block<<<rows, THREADS, 0, (cudaStream_t)stream>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
```

## Speed

- this version: 0.07758 ms per call (18.89x the reference''s speed)
- reference: 1.465 ms
- best version so far: 0.07758 ms (18.89x)

## Roofline position of the task

  latency: too few warps in flight to saturate anything (achieved occupancy 6%, below 25%); the busiest unit (L1 (global and local accesses)) reaches 35% of its peak; stalls mostly long_scoreboard (79% of warp cycles)
  FLOPs 1.24 G (fp32, sass counters), DRAM 524 MB, AI 2.37 FLOP/B, ridge 14.7
  360 GB/s = 7% of DRAM roof; 852 GFLOP/s = 1.2% of fp32 roof; ncu SM 3%, memory 35%
  minimum traffic 2.68e+08 B: AI 4.63, no version can run faster than 0.0559 ms

## Profiling diagnosis of this version

# Feedback for softmax_block
Bottleneck: memory-bound. DRAM 3.39 TB/s of 4.8 TB/s datasheet peak (71%); compute 11.8 TFLOP/s of 68.2 TFLOP/s fp32 peak (17.3%). Speed of light: SM 57%, memory 70%. Time 73.1 us, roofline floor 55.9 us.
Why: arithmetic intensity 3.48 FLOP/B is below the ridge (14.2) and the memory side is the busy one: L2 84% of peak, 71% of the DRAM roof, against FMA pipe 29% on the SM side

## What to try first
1. Keep more bytes in flight per thread (vector loads, unrolled independent loads) and make every 32-byte sector fully used (sol_gap)
2. Load and store 16 bytes per thread: 44 of this kernel''s 44 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 46% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop (vector_width)

## Findings (most important first)

### 1. [medium] Memory throughput at 70% of peak (L2 busiest at 84%)
Tool: sol_gap; estimated gain up to 22% of the kernel time (headroom to the busiest unit''s practical peak)
Cause: The memory system is the busiest part of the GPU but not saturated: access patterns or too few bytes in flight keep it from its peak.
Evidence:
- sm__throughput.avg.pct_of_peak_sustained_elapsed: 56.9%
- gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed: 70.5%
- gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed: 70.5%
- achieved DRAM bandwidth: 3.39 TB/s (threshold 4.8 TB/s)
- achieved FLOP rate: 11.8 TFLOP/s (threshold 68.2 TFLOP/s)
Do:
- Keep more bytes in flight per thread (vector loads, unrolled independent loads) and make every 32-byte sector fully used

### 2. [low] Global memory accessed 32 bits at a time (44 of 44 load/store instructions are scalar)
Tool: vector_width; estimated gain up to 10% of the kernel time (the memory-wait share of the headroom to the busiest unit''s practical peak)
Cause: Each thread moves 4 bytes per instruction, so a warp keeps few bytes in flight and the load/store unit issues up to 4x the instructions a 128-bit access needs; warps wait on global memory 46% of their cycles.
Evidence:
- scalar global load/store instructions (SASS): 100.0% (threshold 50.0%)
- average global access width (SASS): 32 bit (threshold 128 bit)
- warp cycles waiting on global memory: 45.7% (threshold 30.0%)
- LDG.E (32-bit) instructions (SASS): 39
- smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio: 10.2 cycles
- share of warp cycles per issued instruction: 41.7% (threshold 30.0%)
Do:
- Load and store 16 bytes per thread: 44 of this kernel''s 44 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 46% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop
- Give each thread several independent elements (a grid-stride loop unrolled 4x, or 4 consecutive elements per thread) so more loads are in flight before the first one returns
- Declare read-only inputs const float* __restrict__ so the compiler may emit LDG.E.128.CONSTANT (the read-only path)
Also seen by: warp_stalls

(1 folded into the findings that explain them; 0 estimated to gain too little)

No data for: launch_overhead.

## What earlier attempts found

Do not repeat a change that failed or gave no gain.

This version''s line (oldest first):
- #2 initial, compile_error: The reference runs one thread per row, so only 8192 threads work and each warp load touches 32 rows.
- #3 repair, 18.89x: The compiler is right: CUDA 9 removed the unsynchronized `__shfl_down`.
- tried "Launch at least 264 blocks (2-4 per SM): size the grid from the data, gridDim.x = min((n +" (grid_waves: Grid too small: 64 block(s) for 132 SMs leave 68 SMs idle): helped 0 of 1 times, failed last time
- __shfl_down_sync worked: compiled and correct (18.89x): v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
- compile error "error: identifier "__shfl_down" is undefined" fixed by: v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off)); | v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off)); | v += __shfl_down_sync(0xffffffffu, v, off); | v += __shfl_down_sync(0xffffffffu, v, off);

## Hardware

NVIDIA H200 SXM 141GB (datasheet): 132 SMs, DRAM 4.8 TB/s, FP32 66.9 TFLOP/s, BF16 tensor 989 TFLOP/s, TF32 tensor 495 TFLOP/s, L2 52 MB, 233 KB shared memory per SM

## Task

Row-wise softmax of a fp32 matrix: y[i][j] = exp(x[i][j] - max_k x[i][k]) / sum_k exp(x[i][k] - max_k x[i][k]); x is 8192 x 4096.
input x: f32 [8192, 4096]
output y: f32 [8192, 4096]
tolerance: atol 0.0001, rtol 0.0001

## Reference implementation

```cuda
// Reference for the softmax example, written the way a first version often is: one thread per
// row, three passes over the row (max, sum of exponentials, output). Correct, and slow: 8192
// threads leave most of the H200 idle and every warp load touches 32 different rows.
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

__global__ void softmax_rows(const float *x, float *y, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *in = x + (size_t)r * cols;
	float *out = y + (size_t)r * cols;
	float m = -INFINITY;
	for (int j = 0; j < cols; j++)
		m = fmaxf(m, in[j]);
	float sum = 0.0f;
	for (int j = 0; j < cols; j++)
		sum += expf(in[j] - m);
	for (int j = 0; j < cols; j++)
		out[j] = expf(in[j] - m) / sum;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_rows<<<(rows + 127) / 128, 128, 0, (cudaStream_t)stream>>>((const float *)in[0].data,
									    (float *)out[0].data, rows, cols);
	return (int)cudaGetLastError();
}
```

## Candidate format

The candidate is one `.cu` file that kernelpro builds with `nvcc -shared` and calls through the C ABI of `kp_native.h` (it is on the include path). The harness hands it device tensors in the order task.json lists them:

```cuda
typedef struct kp_tensor {
    void *data;            // device pointer: contiguous, row-major, 256-byte aligned
    int32_t dtype;         // KP_ABI_F32, KP_ABI_F16, KP_ABI_BF16, KP_ABI_F64, KP_ABI_I32, KP_ABI_I64, KP_ABI_I8, KP_ABI_U8
    int32_t ndim;          // 0..8 (0: a scalar)
    int64_t shape[8];      // shape[ndim..7] are 1
    int64_t numel;
    const char *name;      // the tensor''s name in task.json
} kp_tensor;

// Required: compute out[] from in[]; returns 0, or a cudaError_t on failure.
KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream);
// Optional: called once before the first kp_run (allocate workspace, check shapes); nonzero fails.
KP_EXPORT int kp_init(const kp_tensor *in, int nin, const kp_tensor *out, int nout);
// Optional: called once after the last kp_run (free workspace).
KP_EXPORT void kp_fini(void);
```

Rules of the harness:
- Enqueue all work on `stream` (`kernel<<<grid, block, smem, (cudaStream_t)stream>>>`). Never synchronize the device, create streams or start threads.
- kp_run is called many times and must compute the whole result every time, writing every element of every output: outputs are filled with a poison pattern before each call and checked afterwards.
- Outputs must not alias inputs; allocate any workspace in kp_init, not in kp_run.

A worked example for a different task (y = max(x, 0) for one f32 input and one f32 output of any shape):

```cuda
#include <cuda_runtime.h>
#include "kp_native.h"

// Four elements per thread with 128-bit loads: the data is 256-byte aligned, so float4 access is legal.
__global__ void relu4(const float4 *__restrict__ x, float4 *__restrict__ y, int64_t n4)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}

// The last numel % 4 elements.
__global__ void relu_tail(const float *__restrict__ x, float *__restrict__ y, int64_t from, int64_t n)
{
    int64_t i = from + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.f);
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
    if (nin != 1 || nout != 1 || in[0].dtype != KP_ABI_F32 || out[0].numel != in[0].numel)
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    const float *x = (const float *)in[0].data;
    float *y = (float *)out[0].data;
    int64_t n = in[0].numel, n4 = n / 4;
    if (n4 > 0) {
        int threads = 256;
        int64_t blocks = (n4 + threads - 1) / threads;
        if (blocks > 132 * 16)  // a few waves over the SMs; the grid-stride loop covers the rest
            blocks = 132 * 16;
        relu4<<<(unsigned)blocks, threads, 0, s>>>((const float4 *)x, (float4 *)y, n4);
    }
    if (n % 4)
        relu_tail<<<1, 4, 0, s>>>(x, y, n4 * 4, n);
    return (int)cudaGetLastError();
}
```

## Numbers to leave to the tuner

Where the best value of a number can only be found by measuring (threads per block, tile sizes, items per thread, unroll counts, `__launch_bounds__`), do not settle on one: list the values worth trying. The version builds and runs with the first value of each list, and kernelpro''s tuner then builds, checks and times the other combinations on the GPU, with no further request to you.

```cuda
#include "kp_tune.h"   // on the include path, like kp_native.h

constexpr int kBlock = KP_TUNE(BLOCK, 256, 128, 512);   // the first value is the one used untuned
constexpr int kItems = KP_TUNE(ITEMS, 4, 2, 8);
KP_TUNE_CONSTRAINT(BLOCK * ITEMS <= 4096);               // a rule between knobs; compiles to nothing

template <int B, int I>
__global__ void __launch_bounds__(B) scale(const float *x, float *y, long n)
{
    KP_UNROLL(UNROLL, 4, 1, 8)                           // #pragma unroll with a tuned count
    for (int i = 0; i < I; i++) ...
}
```

- A knob''s name is upper case (`BLOCK`) and appears only inside the markers; the code uses the constant (`kBlock`).
- Every value listed must give a correct kernel. Say what the values must satisfy with `KP_TUNE_CONSTRAINT(...)`: integer arithmetic and comparisons over knob names, the task''s shapes (`x_0`, `x_1` are the sizes of input `x`) and the GPU''s limits (`WARP_SIZE`, `MAX_THREADS_PER_BLOCK`, `SMEM_STATIC_PER_BLOCK`, `SMEM_PER_BLOCK`, `SM_COUNT`), e.g. `KP_TUNE_CONSTRAINT(x_1 % (BM * BK) == 0 && (BM + BN) * BK * 4 <= SMEM_STATIC_PER_BLOCK);`.
- Keep to a few knobs with two to four values each: every combination costs a build and a timing.

## Your answer

Pick the change with the largest expected gain: the diagnosis''s first recommendation unless the notes say it was tried. Make that change, and only what it needs, and keep the result exactly as correct. Say in one or two sentences what you changed and why it will be faster, then give the complete file in one ```cuda block.',1.79616874967354369e+09);
INSERT INTO "prompts" VALUES(4,3,5,'optimize',0,'0c39ac2f3d86fe763c8233e8bff553b8512fb115059475785c919375516b7842','[system]
You are an expert GPU performance engineer. You write CUDA kernels for NVIDIA GPUs that are correct first and then as fast as the hardware allows. You reason from measurements: the roofline position, the bottleneck class and the profiler''s diagnosis you are given, not from habit.

Rules for every answer:
- Reply with one complete CUDA C++ file in a single ```cuda code block. Write every line of it: no "..." placeholders, no "rest unchanged" comments.
- Follow the candidate format exactly; the file must define kp_run.
- Compute the whole result on every call, for any inputs of the given shapes. Do not special-case the test data, cache results between calls, skip work, or call the reference implementation (or the library operation you are replacing) to do the work.
- Keep the reference''s numerical precision unless you are told otherwise.
- Keep prose short: a few sentences before the code block at most.

[user]
# Optimize: softmax

This version is correct. Make it faster without changing what it computes.

## Current version

```cuda
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffffu, v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	float m = -INFINITY;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		m = fmaxf(m, in[j]);
	m = block_max(m, scratch);
	float s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		s += expf(in[j] - m);
	s = block_sum(s, scratch);
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_block<<<rows, THREADS, 0, (cudaStream_t)stream>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
```

## Speed

- this version: 0.07758 ms per call (18.89x the reference''s speed)
- reference: 1.465 ms
- best version so far: 0.07758 ms (18.89x)

## Roofline position of the task

  latency: too few warps in flight to saturate anything (achieved occupancy 6%, below 25%); the busiest unit (L1 (global and local accesses)) reaches 35% of its peak; stalls mostly long_scoreboard (79% of warp cycles)
  FLOPs 1.24 G (fp32, sass counters), DRAM 524 MB, AI 2.37 FLOP/B, ridge 14.7
  360 GB/s = 7% of DRAM roof; 852 GFLOP/s = 1.2% of fp32 roof; ncu SM 3%, memory 35%
  minimum traffic 2.68e+08 B: AI 4.63, no version can run faster than 0.0559 ms

## Profiling diagnosis of this version

# Feedback for softmax_block
Bottleneck: memory-bound. DRAM 3.39 TB/s of 4.8 TB/s datasheet peak (71%); compute 11.8 TFLOP/s of 68.2 TFLOP/s fp32 peak (17.3%). Speed of light: SM 57%, memory 70%. Time 73.1 us, roofline floor 55.9 us.
Why: arithmetic intensity 3.48 FLOP/B is below the ridge (14.2) and the memory side is the busy one: L2 84% of peak, 71% of the DRAM roof, against FMA pipe 29% on the SM side

## What to try first
1. Keep more bytes in flight per thread (vector loads, unrolled independent loads) and make every 32-byte sector fully used (sol_gap)
2. Load and store 16 bytes per thread: 44 of this kernel''s 44 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 46% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop (vector_width)

## Findings (most important first)

### 1. [medium] Memory throughput at 70% of peak (L2 busiest at 84%)
Tool: sol_gap; estimated gain up to 22% of the kernel time (headroom to the busiest unit''s practical peak)
Cause: The memory system is the busiest part of the GPU but not saturated: access patterns or too few bytes in flight keep it from its peak.
Evidence:
- sm__throughput.avg.pct_of_peak_sustained_elapsed: 56.9%
- gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed: 70.5%
- gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed: 70.5%
- achieved DRAM bandwidth: 3.39 TB/s (threshold 4.8 TB/s)
- achieved FLOP rate: 11.8 TFLOP/s (threshold 68.2 TFLOP/s)
Do:
- Keep more bytes in flight per thread (vector loads, unrolled independent loads) and make every 32-byte sector fully used

### 2. [low] Global memory accessed 32 bits at a time (44 of 44 load/store instructions are scalar)
Tool: vector_width; estimated gain up to 10% of the kernel time (the memory-wait share of the headroom to the busiest unit''s practical peak)
Cause: Each thread moves 4 bytes per instruction, so a warp keeps few bytes in flight and the load/store unit issues up to 4x the instructions a 128-bit access needs; warps wait on global memory 46% of their cycles.
Evidence:
- scalar global load/store instructions (SASS): 100.0% (threshold 50.0%)
- average global access width (SASS): 32 bit (threshold 128 bit)
- warp cycles waiting on global memory: 45.7% (threshold 30.0%)
- LDG.E (32-bit) instructions (SASS): 39
- smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio: 10.2 cycles
- share of warp cycles per issued instruction: 41.7% (threshold 30.0%)
Do:
- Load and store 16 bytes per thread: 44 of this kernel''s 44 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 46% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop
- Give each thread several independent elements (a grid-stride loop unrolled 4x, or 4 consecutive elements per thread) so more loads are in flight before the first one returns
- Declare read-only inputs const float* __restrict__ so the compiler may emit LDG.E.128.CONSTANT (the read-only path)
Also seen by: warp_stalls

(1 folded into the findings that explain them; 0 estimated to gain too little)

No data for: launch_overhead.

## What earlier attempts found

Do not repeat a change that failed or gave no gain.

This version''s line (oldest first):
- #2 initial, compile_error: The reference runs one thread per row, so only 8192 threads work and each warp load touches 32 rows.
- #3 repair, 18.89x: The compiler is right: CUDA 9 removed the unsynchronized `__shfl_down`.
- tried "Launch at least 264 blocks (2-4 per SM): size the grid from the data, gridDim.x = min((n +" (grid_waves: Grid too small: 64 block(s) for 132 SMs leave 68 SMs idle): helped 0 of 1 times, failed last time
- tried "Keep more bytes in flight per thread (vector loads, unrolled independent loads) and make e" (sol_gap: Memory throughput at 70% of peak (L2 busiest at 84%)): helped 0 of 1 times, best -3%
- tried "Load and store 16 bytes per thread: 44 of this kernel''s 44 global load/store instructions " (vector_width: Global memory accessed 32 bits at a time (44 of 44 load/store instructions are scalar)): helped 0 of 1 times, best -3%
- __shfl_down_sync worked: compiled and correct (18.89x): v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
- compile error "error: identifier "__shfl_down" is undefined" fixed by: v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off)); | v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off)); | v += __shfl_down_sync(0xffffffffu, v, off); | v += __shfl_down_sync(0xffffffffu, v, off);

## Hardware

NVIDIA H200 SXM 141GB (datasheet): 132 SMs, DRAM 4.8 TB/s, FP32 66.9 TFLOP/s, BF16 tensor 989 TFLOP/s, TF32 tensor 495 TFLOP/s, L2 52 MB, 233 KB shared memory per SM

## Task

Row-wise softmax of a fp32 matrix: y[i][j] = exp(x[i][j] - max_k x[i][k]) / sum_k exp(x[i][k] - max_k x[i][k]); x is 8192 x 4096.
input x: f32 [8192, 4096]
output y: f32 [8192, 4096]
tolerance: atol 0.0001, rtol 0.0001

## Reference implementation

```cuda
// Reference for the softmax example, written the way a first version often is: one thread per
// row, three passes over the row (max, sum of exponentials, output). Correct, and slow: 8192
// threads leave most of the H200 idle and every warp load touches 32 different rows.
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

__global__ void softmax_rows(const float *x, float *y, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *in = x + (size_t)r * cols;
	float *out = y + (size_t)r * cols;
	float m = -INFINITY;
	for (int j = 0; j < cols; j++)
		m = fmaxf(m, in[j]);
	float sum = 0.0f;
	for (int j = 0; j < cols; j++)
		sum += expf(in[j] - m);
	for (int j = 0; j < cols; j++)
		out[j] = expf(in[j] - m) / sum;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_rows<<<(rows + 127) / 128, 128, 0, (cudaStream_t)stream>>>((const float *)in[0].data,
									    (float *)out[0].data, rows, cols);
	return (int)cudaGetLastError();
}
```

## Candidate format

The candidate is one `.cu` file that kernelpro builds with `nvcc -shared` and calls through the C ABI of `kp_native.h` (it is on the include path). The harness hands it device tensors in the order task.json lists them:

```cuda
typedef struct kp_tensor {
    void *data;            // device pointer: contiguous, row-major, 256-byte aligned
    int32_t dtype;         // KP_ABI_F32, KP_ABI_F16, KP_ABI_BF16, KP_ABI_F64, KP_ABI_I32, KP_ABI_I64, KP_ABI_I8, KP_ABI_U8
    int32_t ndim;          // 0..8 (0: a scalar)
    int64_t shape[8];      // shape[ndim..7] are 1
    int64_t numel;
    const char *name;      // the tensor''s name in task.json
} kp_tensor;

// Required: compute out[] from in[]; returns 0, or a cudaError_t on failure.
KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream);
// Optional: called once before the first kp_run (allocate workspace, check shapes); nonzero fails.
KP_EXPORT int kp_init(const kp_tensor *in, int nin, const kp_tensor *out, int nout);
// Optional: called once after the last kp_run (free workspace).
KP_EXPORT void kp_fini(void);
```

Rules of the harness:
- Enqueue all work on `stream` (`kernel<<<grid, block, smem, (cudaStream_t)stream>>>`). Never synchronize the device, create streams or start threads.
- kp_run is called many times and must compute the whole result every time, writing every element of every output: outputs are filled with a poison pattern before each call and checked afterwards.
- Outputs must not alias inputs; allocate any workspace in kp_init, not in kp_run.

A worked example for a different task (y = max(x, 0) for one f32 input and one f32 output of any shape):

```cuda
#include <cuda_runtime.h>
#include "kp_native.h"

// Four elements per thread with 128-bit loads: the data is 256-byte aligned, so float4 access is legal.
__global__ void relu4(const float4 *__restrict__ x, float4 *__restrict__ y, int64_t n4)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}

// The last numel % 4 elements.
__global__ void relu_tail(const float *__restrict__ x, float *__restrict__ y, int64_t from, int64_t n)
{
    int64_t i = from + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.f);
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
    if (nin != 1 || nout != 1 || in[0].dtype != KP_ABI_F32 || out[0].numel != in[0].numel)
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    const float *x = (const float *)in[0].data;
    float *y = (float *)out[0].data;
    int64_t n = in[0].numel, n4 = n / 4;
    if (n4 > 0) {
        int threads = 256;
        int64_t blocks = (n4 + threads - 1) / threads;
        if (blocks > 132 * 16)  // a few waves over the SMs; the grid-stride loop covers the rest
            blocks = 132 * 16;
        relu4<<<(unsigned)blocks, threads, 0, s>>>((const float4 *)x, (float4 *)y, n4);
    }
    if (n % 4)
        relu_tail<<<1, 4, 0, s>>>(x, y, n4 * 4, n);
    return (int)cudaGetLastError();
}
```

## Numbers to leave to the tuner

Where the best value of a number can only be found by measuring (threads per block, tile sizes, items per thread, unroll counts, `__launch_bounds__`), do not settle on one: list the values worth trying. The version builds and runs with the first value of each list, and kernelpro''s tuner then builds, checks and times the other combinations on the GPU, with no further request to you.

```cuda
#include "kp_tune.h"   // on the include path, like kp_native.h

constexpr int kBlock = KP_TUNE(BLOCK, 256, 128, 512);   // the first value is the one used untuned
constexpr int kItems = KP_TUNE(ITEMS, 4, 2, 8);
KP_TUNE_CONSTRAINT(BLOCK * ITEMS <= 4096);               // a rule between knobs; compiles to nothing

template <int B, int I>
__global__ void __launch_bounds__(B) scale(const float *x, float *y, long n)
{
    KP_UNROLL(UNROLL, 4, 1, 8)                           // #pragma unroll with a tuned count
    for (int i = 0; i < I; i++) ...
}
```

- A knob''s name is upper case (`BLOCK`) and appears only inside the markers; the code uses the constant (`kBlock`).
- Every value listed must give a correct kernel. Say what the values must satisfy with `KP_TUNE_CONSTRAINT(...)`: integer arithmetic and comparisons over knob names, the task''s shapes (`x_0`, `x_1` are the sizes of input `x`) and the GPU''s limits (`WARP_SIZE`, `MAX_THREADS_PER_BLOCK`, `SMEM_STATIC_PER_BLOCK`, `SMEM_PER_BLOCK`, `SM_COUNT`), e.g. `KP_TUNE_CONSTRAINT(x_1 % (BM * BK) == 0 && (BM + BN) * BK * 4 <= SMEM_STATIC_PER_BLOCK);`.
- Keep to a few knobs with two to four values each: every combination costs a build and a timing.

## Your answer

Pick the change with the largest expected gain: the diagnosis''s first recommendation unless the notes say it was tried. Make that change, and only what it needs, and keep the result exactly as correct. Say in one or two sentences what you changed and why it will be faster, then give the complete file in one ```cuda block.',1.79616875172046709e+09);
INSERT INTO "prompts" VALUES(5,5,6,'optimize',0,'98d32f54f3a2e574a7b6775c37d042e118b83e4feb9888a96f47bb08c0c18042','[system]
You are an expert GPU performance engineer. You write CUDA kernels for NVIDIA GPUs that are correct first and then as fast as the hardware allows. You reason from measurements: the roofline position, the bottleneck class and the profiler''s diagnosis you are given, not from habit.

Rules for every answer:
- Reply with one complete CUDA C++ file in a single ```cuda code block. Write every line of it: no "..." placeholders, no "rest unchanged" comments.
- Follow the candidate format exactly; the file must define kp_run.
- Compute the whole result on every call, for any inputs of the given shapes. Do not special-case the test data, cache results between calls, skip work, or call the reference implementation (or the library operation you are replacing) to do the work.
- Keep the reference''s numerical precision unless you are told otherwise.
- Keep prose short: a few sentences before the code block at most.

[user]
# Optimize: softmax

This version is correct. Make it faster without changing what it computes.

## Current version

```cuda
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffffu, v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	// One pass: a running maximum m and the sum s of exp(x - m), rescaled when m grows.
	float m = -INFINITY, s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS) {
		float v = in[j];
		if (v > m) {
			s = s * expf(m - v) + 1.0f;
			m = v;
		} else {
			s += expf(v - m);
		}
	}
	float M = block_max(m, scratch);
	s = block_sum(m == -INFINITY ? 0.0f : s * expf(m - M), scratch);
	m = M;
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

// The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.
template <int VEC>
__global__ void __launch_bounds__(THREADS) softmax_regs(const float4 *__restrict__ x, float4 *__restrict__ y, int cols4)
{
	__shared__ float scratch[WARPS];
	const float4 *in = x + (size_t)blockIdx.x * cols4;
	float4 *out = y + (size_t)blockIdx.x * cols4;
	float4 v[VEC];
	float m = -INFINITY;
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		v[k] = in[threadIdx.x + k * THREADS];
		m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
	}
	m = block_max(m, scratch);
	float s = 0.0f;
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		v[k].x = expf(v[k].x - m);
		v[k].y = expf(v[k].y - m);
		v[k].z = expf(v[k].z - m);
		v[k].w = expf(v[k].w - m);
		s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
	}
	float inv = 1.0f / block_sum(s, scratch);
#pragma unroll
	for (int k = 0; k < VEC; k++)
		out[threadIdx.x + k * THREADS] = make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv);
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	cudaStream_t s = (cudaStream_t)stream;
	if (cols == 4 * THREADS * 4) /* tensors are 256-byte aligned and rows are 16 KiB: float4 access is legal */
		softmax_regs<4><<<rows, THREADS, 0, s>>>((const float4 *)in[0].data, (float4 *)out[0].data, cols / 4);
	else
		softmax_block<<<rows, THREADS, 0, s>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
```

## Speed

- this version: 0.06893 ms per call (21.26x the reference''s speed)
- reference: 1.465 ms
- best version so far: 0.06893 ms (21.26x)

## Roofline position of the task

  latency: too few warps in flight to saturate anything (achieved occupancy 6%, below 25%); the busiest unit (L1 (global and local accesses)) reaches 35% of its peak; stalls mostly long_scoreboard (79% of warp cycles)
  FLOPs 1.24 G (fp32, sass counters), DRAM 524 MB, AI 2.37 FLOP/B, ridge 14.7
  360 GB/s = 7% of DRAM roof; 852 GFLOP/s = 1.2% of fp32 roof; ncu SM 3%, memory 35%
  minimum traffic 2.68e+08 B: AI 4.63, no version can run faster than 0.0559 ms

## Profiling diagnosis of this version

# Feedback for softmax_regs
Bottleneck: memory-bound. DRAM 3.84 TB/s of 4.8 TB/s datasheet peak (80%); compute 7.39 TFLOP/s of 67.5 TFLOP/s fp32 peak (10.9%). Speed of light: SM 29%, memory 80%. Time 63.2 us, roofline floor 55.9 us.
Why: arithmetic intensity 1.92 FLOP/B is below the ridge (14.1) and the memory side is the busy one: L2 89% of peak, 80% of the DRAM roof, against FMA pipe 16% on the SM side

## What to try first
1. Issue independent loads early and use the values late: unroll loops so several loads are in flight, or give each thread several elements (warp_stalls)
2. Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip (sol_gap)

## Findings (most important first)

### 1. [low] Warps stall on global or local memory data (long scoreboard): 38% of the cycles between instructions
Tool: warp_stalls; estimated gain up to 4% of the kernel time (this stall''s share of the headroom to the busiest unit)
Cause: Loads from global or local memory are outstanding and the next instruction needs their data; there is not enough independent work in flight to cover DRAM latency.
Evidence:
- smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio: 18.9 cycles
- share of warp cycles per issued instruction: 38.1% (threshold 30.0%)
- smsp__average_warp_latency_per_inst_issued.ratio: 49.5 cycles
- smsp__issue_active.avg.per_cycle_active: 0.3 (threshold 0.8)
Do:
- Issue independent loads early and use the values late: unroll loops so several loads are in flight, or give each thread several elements
- Cut the bytes behind each stall: coalesced and vectorized accesses, data reused from shared memory

### 2. [low] At the memory roof: the busiest unit runs at 89% of its practical peak
Tool: sol_gap
Cause: The kernel moves its bytes about as fast as the memory system allows; reordering the same accesses cannot gain much more.
Evidence:
- busiest unit''s share of its practical peak: 88.8% (threshold 80.0%)
- sm__throughput.avg.pct_of_peak_sustained_elapsed: 29.3%
- gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed: 79.9%
- gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed: 79.9%
- achieved DRAM bandwidth: 3.84 TB/s (threshold 4.8 TB/s)
- achieved FLOP rate: 7.39 TFLOP/s (threshold 67.5 TFLOP/s)
Do:
- Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip
- Store inputs/outputs in a narrower type (bf16/fp16, or fp8 with a scale) if the task''s tolerance allows: half the bytes, half the time

No data for: launch_overhead.

## What earlier attempts found

Do not repeat a change that failed or gave no gain.

This version''s line (oldest first):
- #2 initial, compile_error: The reference runs one thread per row, so only 8192 threads work and each warp load touches 32 rows.
- #3 repair, 18.89x: The compiler is right: CUDA 9 removed the unsynchronized `__shfl_down`.
- #5 refine, 21.26x: The kernel is memory-bound and still reads each row twice.
- tried "Keep more bytes in flight per thread (vector loads, unrolled independent loads) and make e" (sol_gap: Memory throughput at 70% of peak (L2 busiest at 84%)): helped 1 of 2 times, best +13%
- tried "Load and store 16 bytes per thread: 44 of this kernel''s 44 global load/store instructions " (vector_width: Global memory accessed 32 bits at a time (44 of 44 load/store instructions are scalar)): helped 1 of 2 times, best +13%
- tried "Launch at least 264 blocks (2-4 per SM): size the grid from the data, gridDim.x = min((n +" (grid_waves: Grid too small: 64 block(s) for 132 SMs leave 68 SMs idle): helped 0 of 1 times, failed last time
- __shfl_down_sync worked: compiled and correct (18.89x): v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
- float4 worked: compiled and correct (21.26x): // The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.
- #pragma unroll worked: compiled and correct (21.26x): #pragma unroll

## Hardware

NVIDIA H200 SXM 141GB (datasheet): 132 SMs, DRAM 4.8 TB/s, FP32 66.9 TFLOP/s, BF16 tensor 989 TFLOP/s, TF32 tensor 495 TFLOP/s, L2 52 MB, 233 KB shared memory per SM

## Task

Row-wise softmax of a fp32 matrix: y[i][j] = exp(x[i][j] - max_k x[i][k]) / sum_k exp(x[i][k] - max_k x[i][k]); x is 8192 x 4096.
input x: f32 [8192, 4096]
output y: f32 [8192, 4096]
tolerance: atol 0.0001, rtol 0.0001

## Reference implementation

```cuda
// Reference for the softmax example, written the way a first version often is: one thread per
// row, three passes over the row (max, sum of exponentials, output). Correct, and slow: 8192
// threads leave most of the H200 idle and every warp load touches 32 different rows.
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

__global__ void softmax_rows(const float *x, float *y, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *in = x + (size_t)r * cols;
	float *out = y + (size_t)r * cols;
	float m = -INFINITY;
	for (int j = 0; j < cols; j++)
		m = fmaxf(m, in[j]);
	float sum = 0.0f;
	for (int j = 0; j < cols; j++)
		sum += expf(in[j] - m);
	for (int j = 0; j < cols; j++)
		out[j] = expf(in[j] - m) / sum;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_rows<<<(rows + 127) / 128, 128, 0, (cudaStream_t)stream>>>((const float *)in[0].data,
									    (float *)out[0].data, rows, cols);
	return (int)cudaGetLastError();
}
```

## Candidate format

The candidate is one `.cu` file that kernelpro builds with `nvcc -shared` and calls through the C ABI of `kp_native.h` (it is on the include path). The harness hands it device tensors in the order task.json lists them:

```cuda
typedef struct kp_tensor {
    void *data;            // device pointer: contiguous, row-major, 256-byte aligned
    int32_t dtype;         // KP_ABI_F32, KP_ABI_F16, KP_ABI_BF16, KP_ABI_F64, KP_ABI_I32, KP_ABI_I64, KP_ABI_I8, KP_ABI_U8
    int32_t ndim;          // 0..8 (0: a scalar)
    int64_t shape[8];      // shape[ndim..7] are 1
    int64_t numel;
    const char *name;      // the tensor''s name in task.json
} kp_tensor;

// Required: compute out[] from in[]; returns 0, or a cudaError_t on failure.
KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream);
// Optional: called once before the first kp_run (allocate workspace, check shapes); nonzero fails.
KP_EXPORT int kp_init(const kp_tensor *in, int nin, const kp_tensor *out, int nout);
// Optional: called once after the last kp_run (free workspace).
KP_EXPORT void kp_fini(void);
```

Rules of the harness:
- Enqueue all work on `stream` (`kernel<<<grid, block, smem, (cudaStream_t)stream>>>`). Never synchronize the device, create streams or start threads.
- kp_run is called many times and must compute the whole result every time, writing every element of every output: outputs are filled with a poison pattern before each call and checked afterwards.
- Outputs must not alias inputs; allocate any workspace in kp_init, not in kp_run.

A worked example for a different task (y = max(x, 0) for one f32 input and one f32 output of any shape):

```cuda
#include <cuda_runtime.h>
#include "kp_native.h"

// Four elements per thread with 128-bit loads: the data is 256-byte aligned, so float4 access is legal.
__global__ void relu4(const float4 *__restrict__ x, float4 *__restrict__ y, int64_t n4)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}

// The last numel % 4 elements.
__global__ void relu_tail(const float *__restrict__ x, float *__restrict__ y, int64_t from, int64_t n)
{
    int64_t i = from + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.f);
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
    if (nin != 1 || nout != 1 || in[0].dtype != KP_ABI_F32 || out[0].numel != in[0].numel)
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    const float *x = (const float *)in[0].data;
    float *y = (float *)out[0].data;
    int64_t n = in[0].numel, n4 = n / 4;
    if (n4 > 0) {
        int threads = 256;
        int64_t blocks = (n4 + threads - 1) / threads;
        if (blocks > 132 * 16)  // a few waves over the SMs; the grid-stride loop covers the rest
            blocks = 132 * 16;
        relu4<<<(unsigned)blocks, threads, 0, s>>>((const float4 *)x, (float4 *)y, n4);
    }
    if (n % 4)
        relu_tail<<<1, 4, 0, s>>>(x, y, n4 * 4, n);
    return (int)cudaGetLastError();
}
```

## Numbers to leave to the tuner

Where the best value of a number can only be found by measuring (threads per block, tile sizes, items per thread, unroll counts, `__launch_bounds__`), do not settle on one: list the values worth trying. The version builds and runs with the first value of each list, and kernelpro''s tuner then builds, checks and times the other combinations on the GPU, with no further request to you.

```cuda
#include "kp_tune.h"   // on the include path, like kp_native.h

constexpr int kBlock = KP_TUNE(BLOCK, 256, 128, 512);   // the first value is the one used untuned
constexpr int kItems = KP_TUNE(ITEMS, 4, 2, 8);
KP_TUNE_CONSTRAINT(BLOCK * ITEMS <= 4096);               // a rule between knobs; compiles to nothing

template <int B, int I>
__global__ void __launch_bounds__(B) scale(const float *x, float *y, long n)
{
    KP_UNROLL(UNROLL, 4, 1, 8)                           // #pragma unroll with a tuned count
    for (int i = 0; i < I; i++) ...
}
```

- A knob''s name is upper case (`BLOCK`) and appears only inside the markers; the code uses the constant (`kBlock`).
- Every value listed must give a correct kernel. Say what the values must satisfy with `KP_TUNE_CONSTRAINT(...)`: integer arithmetic and comparisons over knob names, the task''s shapes (`x_0`, `x_1` are the sizes of input `x`) and the GPU''s limits (`WARP_SIZE`, `MAX_THREADS_PER_BLOCK`, `SMEM_STATIC_PER_BLOCK`, `SMEM_PER_BLOCK`, `SM_COUNT`), e.g. `KP_TUNE_CONSTRAINT(x_1 % (BM * BK) == 0 && (BM + BN) * BK * 4 <= SMEM_STATIC_PER_BLOCK);`.
- Keep to a few knobs with two to four values each: every combination costs a build and a timing.

## Your answer

Pick the change with the largest expected gain: the diagnosis''s first recommendation unless the notes say it was tried. Make that change, and only what it needs, and keep the result exactly as correct. Say in one or two sentences what you changed and why it will be faster, then give the complete file in one ```cuda block.',1.79616875827498602e+09);
CREATE TABLE responses (
  id INTEGER PRIMARY KEY, prompt_id INTEGER NOT NULL REFERENCES prompts(id), text TEXT,
  error TEXT, tokens_in INTEGER NOT NULL DEFAULT 0, tokens_out INTEGER NOT NULL DEFAULT 0,
  cost REAL NOT NULL DEFAULT 0, latency_s REAL, created REAL NOT NULL);
INSERT INTO "responses" VALUES(1,1,'The reference runs one thread per row, so only 8192 threads work and each warp load touches 32 rows. This version gives each row a block of 256 threads that read the row with coalesced loads and reduce the max and the sum with warp shuffles.

```cuda
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down(v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down(v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down(v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down(v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	float m = -INFINITY;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		m = fmaxf(m, in[j]);
	m = block_max(m, scratch);
	float s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		s += expf(in[j] - m);
	s = block_sum(s, scratch);
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_block<<<rows, THREADS, 0, (cudaStream_t)stream>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
```
',NULL,1775,606,0.0,0.0,1.7961687429025197e+09);
INSERT INTO "responses" VALUES(2,2,'The compiler is right: CUDA 9 removed the unsynchronized `__shfl_down`. This version uses `__shfl_down_sync` with the full-warp mask (every lane of each warp takes part in each shuffle); nothing else changes.

```cuda
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffffu, v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	float m = -INFINITY;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		m = fmaxf(m, in[j]);
	m = block_max(m, scratch);
	float s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		s += expf(in[j] - m);
	s = block_sum(s, scratch);
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_block<<<rows, THREADS, 0, (cudaStream_t)stream>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
```
',NULL,2315,615,0.0,0.0,1.7961687436124258e+09);
INSERT INTO "responses" VALUES(3,3,'The rows now read three times (max, sum, output). An online softmax keeps a running maximum and rescales the running sum when the maximum grows, so the max and the sum come from one pass and the row is read twice instead of three times.

```cuda
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffffu, v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	// One pass: a running maximum m and the sum s of exp(x - m), rescaled when m grows.
	float m = -INFINITY, s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS) {
		float v = in[j];
		if (v > m) {
			s = s * expf(m - v) + 1.0f;
			m = v;
		} else {
			s += expf(v - m);
		}
	}
	float M = block_max(m, scratch);
	s = block_sum(m == -INFINITY ? 0.0f : s * expf(m - M), scratch);
	m = M;
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	softmax_block<<<rows, THREADS, 0, (cudaStream_t)stream>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
```
',NULL,3831,660,0.0,0.0,1.79616874967354369e+09);
INSERT INTO "responses" VALUES(4,4,'The kernel is memory-bound and still reads each row twice. With 4096 columns and 256 threads, each thread can keep its 16 values in registers: one 128-bit load per four values, one read of the row from memory, one write. Other row lengths keep the two-pass kernel.

```cuda
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffffu, v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	// One pass: a running maximum m and the sum s of exp(x - m), rescaled when m grows.
	float m = -INFINITY, s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS) {
		float v = in[j];
		if (v > m) {
			s = s * expf(m - v) + 1.0f;
			m = v;
		} else {
			s += expf(v - m);
		}
	}
	float M = block_max(m, scratch);
	s = block_sum(m == -INFINITY ? 0.0f : s * expf(m - M), scratch);
	m = M;
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

// The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.
template <int VEC>
__global__ void __launch_bounds__(THREADS) softmax_regs(const float4 *__restrict__ x, float4 *__restrict__ y, int cols4)
{
	__shared__ float scratch[WARPS];
	const float4 *in = x + (size_t)blockIdx.x * cols4;
	float4 *out = y + (size_t)blockIdx.x * cols4;
	float4 v[VEC];
	float m = -INFINITY;
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		v[k] = in[threadIdx.x + k * THREADS];
		m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
	}
	m = block_max(m, scratch);
	float s = 0.0f;
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		v[k].x = expf(v[k].x - m);
		v[k].y = expf(v[k].y - m);
		v[k].z = expf(v[k].z - m);
		v[k].w = expf(v[k].w - m);
		s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
	}
	float inv = 1.0f / block_sum(s, scratch);
#pragma unroll
	for (int k = 0; k < VEC; k++)
		out[threadIdx.x + k * THREADS] = make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv);
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	cudaStream_t s = (cudaStream_t)stream;
	if (cols == 4 * THREADS * 4) /* tensors are 256-byte aligned and rows are 16 KiB: float4 access is legal */
		softmax_regs<4><<<rows, THREADS, 0, s>>>((const float4 *)in[0].data, (float4 *)out[0].data, cols / 4);
	else
		softmax_block<<<rows, THREADS, 0, s>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
```
',NULL,3939,983,0.0,0.0,1.79616875172046709e+09);
INSERT INTO "responses" VALUES(5,5,'Every byte is now read once and written once, so what is left is how the bytes move. The input and output are touched exactly once, so streaming loads and stores (`__ldcs`, `__stcs`) keep them from evicting useful lines in L2, and `exp2f` on inputs pre-scaled by log2(e) saves the range reduction of `expf` (its error stays far below the 1e-4 tolerance).

```cuda
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

#define THREADS 256
#define WARPS (THREADS / 32)

// Max and sum of the whole block: a warp shuffle reduction, then the warps'' partials through shared memory.
__device__ float block_max(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : -INFINITY;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, off));
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__device__ float block_sum(float v, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	v = threadIdx.x < WARPS ? scratch[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffffu, v, off);
	if (threadIdx.x == 0)
		scratch[0] = v;
	__syncthreads();
	v = scratch[0];
	__syncthreads();
	return v;
}

__global__ void __launch_bounds__(THREADS) softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols)
{
	__shared__ float scratch[WARPS];
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	// One pass: a running maximum m and the sum s of exp(x - m), rescaled when m grows.
	float m = -INFINITY, s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS) {
		float v = in[j];
		if (v > m) {
			s = s * expf(m - v) + 1.0f;
			m = v;
		} else {
			s += expf(v - m);
		}
	}
	float M = block_max(m, scratch);
	s = block_sum(m == -INFINITY ? 0.0f : s * expf(m - M), scratch);
	m = M;
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		out[j] = expf(in[j] - m) * inv;
}

// The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.
template <int VEC>
__global__ void __launch_bounds__(THREADS) softmax_regs(const float4 *__restrict__ x, float4 *__restrict__ y, int cols4)
{
	__shared__ float scratch[WARPS];
	const float4 *in = x + (size_t)blockIdx.x * cols4;
	float4 *out = y + (size_t)blockIdx.x * cols4;
	float4 v[VEC];
	float m = -INFINITY;
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		v[k] = __ldcs(&in[threadIdx.x + k * THREADS]);
		m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
	}
	m = block_max(m, scratch);
	const float L2E = 1.4426950408889634f; /* log2(e): exp(a - m) = exp2(a * L2E - m * L2E) */
	float ml = m * L2E, s = 0.0f;
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		v[k].x = exp2f(fmaf(v[k].x, L2E, -ml));
		v[k].y = exp2f(fmaf(v[k].y, L2E, -ml));
		v[k].z = exp2f(fmaf(v[k].z, L2E, -ml));
		v[k].w = exp2f(fmaf(v[k].w, L2E, -ml));
		s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
	}
	float inv = 1.0f / block_sum(s, scratch);
#pragma unroll
	for (int k = 0; k < VEC; k++)
		__stcs(&out[threadIdx.x + k * THREADS], make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv));
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 1 || nout != 1 || in[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	cudaStream_t s = (cudaStream_t)stream;
	if (cols == 4 * THREADS * 4) /* tensors are 256-byte aligned and rows are 16 KiB: float4 access is legal */
		softmax_regs<4><<<rows, THREADS, 0, s>>>((const float4 *)in[0].data, (float4 *)out[0].data, cols / 4);
	else
		softmax_block<<<rows, THREADS, 0, s>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
```
',NULL,4092,1050,0.0,0.0,1.79616875827498602e+09);
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY, started REAL NOT NULL, updated REAL NOT NULL,
  elapsed_s REAL NOT NULL DEFAULT 0, pid INTEGER, argv TEXT,
  ended INTEGER NOT NULL DEFAULT 0, end_reason TEXT);
INSERT INTO "sessions" VALUES(1,1.79616873689801621e+09,1.79616876047577548e+09,2.35777596169999981e+01,2449,'optimize /work/main/examples/optimize/softmax',1,'budget: evaluations');
CREATE TABLE tune_results (
  space TEXT NOT NULL, point TEXT NOT NULL, gpu TEXT NOT NULL,
  node_id INTEGER REFERENCES nodes(id), status TEXT NOT NULL, seconds REAL,
  created REAL NOT NULL, PRIMARY KEY (space, point, gpu));
CREATE TABLE tunings (
  node_id INTEGER PRIMARY KEY REFERENCES nodes(id), session INTEGER, status TEXT NOT NULL,
  strategy TEXT NOT NULL, budget INTEGER NOT NULL, seed INTEGER NOT NULL, derive TEXT,
  gpu TEXT, space_json TEXT, trials_json TEXT, children_json TEXT,
  untuned_point TEXT, untuned_ms REAL, best_point TEXT, best_ms REAL,
  trials INTEGER NOT NULL DEFAULT 0, evaluated INTEGER NOT NULL DEFAULT 0,
  cache_hits INTEGER NOT NULL DEFAULT 0, wall_s REAL, gpu_s REAL, note TEXT,
  started REAL NOT NULL, ended REAL);
CREATE INDEX nodes_parent ON nodes(parent);
CREATE INDEX evaluations_node ON evaluations(node_id);
CREATE INDEX findings_node ON findings(node_id);
CREATE UNIQUE INDEX memory_unique ON memory(kind, key, text, IFNULL(family, ''));
COMMIT;
