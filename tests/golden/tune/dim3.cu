// Derived knobs of 2-D blocks: a #define'd tile in dim3 declarations, literal dim3 components tied to a
// dim3 grid, a dim3 literal in the launch, and a block dimension of 1 that is structure, not a knob.
#include <cuda_runtime.h>

#include "kp_native.h"

#define TILE 16

__global__ void transpose(const float *a, float *b, int rows, int cols)
{
	__shared__ float t[TILE][TILE + 1];
	int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
	if (x < cols && y < rows)
		t[threadIdx.y][threadIdx.x] = a[(long)y * cols + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	if (x < rows && y < cols)
		b[(long)y * rows + x] = t[threadIdx.x][threadIdx.y];
}

__global__ void add2d(const float *a, float *b, int rows, int cols)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < cols && y < rows)
		b[(long)y * cols + x] += a[(long)y * cols + x];
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
	dim3 block(TILE, TILE), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	transpose<<<grid, block, 0, stream>>>((const float *)in[0].data, (float *)out[0].data, rows, cols);
	dim3 threads(32, 8);
	dim3 blocks((cols + 31) / 32, (rows + 7) / 8);
	add2d<<<blocks, threads, 0, stream>>>((const float *)in[0].data, (float *)out[1].data, rows, cols);
	add2d<<<dim3((cols + 63) / 64, rows), dim3(64, 1), 0, stream>>>((const float *)in[0].data,
								     (float *)out[1].data, rows, cols);
	return (int)cudaGetLastError();
}
