// Corpus kernels of our own (issue 4): each plants one bottleneck that one micro-profiling tool
// should name. Labelled in labels.json before any GPU run. Built and profiled by
// bench/gpu-profile-corpus.sh on the GPU machine: `./corpus all` runs each kernel once.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

// 1. fp64_promote: float data, double literals: every FMA is promoted to DFMA (F2F.F64 conversions in/out).
__global__ void fp64_promote(const float* a, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float x = a[i];
  for (int j = 0; j < 64; j++) x = x * 0.999 + 0.001;   // 0.999 and 0.001 are doubles
  c[i] = x;
}

// 2. smem_hog: a float4 streaming copy whose blocks reserve 200 KB of dynamic shared memory
//    they barely use: one 128-thread block per SM (4 warps of 64) cannot keep DRAM busy.
__global__ void smem_hog(const float4* a, float4* c, int n4) {
  extern __shared__ float4 stage[];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    stage[threadIdx.x] = a[i];
    c[i] = stage[threadIdx.x];
  }
}

// 3. tail_wave: uniform, compute-only blocks; 1024-thread blocks fit 2 per SM, so one wave is 264
//    blocks; 304 blocks make a second wave with only 40 blocks in it.
__global__ void tail_wave(float* c, int iters) {
  float x = threadIdx.x * 1e-3f, y = 1.0f, z = 2.0f, w = 3.0f;
  for (int j = 0; j < iters; j++) {
    x = x * 1.0001f + 0.5f; y = y * 0.9999f + 0.25f; z = z * 1.0002f - 0.5f; w = w * 0.9998f + 0.125f;
  }
  c[blockIdx.x * blockDim.x + threadIdx.x] = x + y + z + w;
}

// 4. reg_spill: 40 values kept live across a fully unrolled product loop, under a
//    __launch_bounds__ that allows only 32 registers per thread: ptxas spills.
__global__ void __launch_bounds__(256, 8) reg_spill(const float* a, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float r[40];
#pragma unroll
  for (int j = 0; j < 40; j++) r[j] = a[(i + j * 4099) & (n - 1)];
  float s = 0.0f;
#pragma unroll
  for (int k = 1; k < 9; k++)
#pragma unroll
    for (int j = 0; j < 40; j++) s = fmaf(r[j], r[(j + k) % 40], s);
  c[i] = s;
}

// 5. int_div: integer division and modulo by run-time values in the inner loop (no hardware
//    divider: each is an I2F.RP/MUFU.RCP/IMAD sequence); the data traffic is small.
__global__ void int_div(float* c, int n, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  unsigned v = (unsigned)i * 2654435761u;
  float acc = 0.0f;
  for (int j = 0; j < 64; j++) {
    unsigned q = v / (unsigned)w, r = v % (unsigned)h;
    acc += (float)(q ^ r);
    v = v * 1664525u + 1013904223u;
  }
  c[i] = acc;
}

int main(int argc, char** argv) {
  const char* only = argc > 1 ? argv[1] : "all";
  int n = 1 << 24; size_t bytes = (size_t)n * 4;
  float *a, *c;
  CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&c, bytes));
  float* h = (float*)malloc(bytes);
  for (int i = 0; i < n; i++) h[i] = (float)((i * 2654435761u) % 1000) / 1000.f;
  CK(cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice));
  int B = 256, G = (n + B - 1) / B;
#define RUN(name, ...) if (!strcmp(only, "all") || !strcmp(only, name)) { __VA_ARGS__; CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); }
  RUN("fp64_promote", fp64_promote<<<G, B>>>(a, c, n));
  RUN("smem_hog", {
    int smem = 200 * 1024;
    CK(cudaFuncSetAttribute(smem_hog, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    smem_hog<<<132 * 4, 128, smem>>>((const float4*)a, (float4*)c, n / 4);
  });
  RUN("tail_wave", tail_wave<<<264 + 40, 1024>>>(c, 20000));
  RUN("reg_spill", reg_spill<<<G, B>>>(a, c, n));
  RUN("int_div", int_div<<<G, B>>>(c, n, 7, 13));
  printf("ok %s\n", only);
  free(h);
  return 0;
}
