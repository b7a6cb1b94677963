PRAGMA application_id = 0;
PRAGMA user_version = 4;
BEGIN TRANSACTION;
CREATE TABLE candidates (
  node_id INTEGER PRIMARY KEY REFERENCES nodes(id), lang TEXT NOT NULL,
  sha256 TEXT NOT NULL, source TEXT NOT NULL, format TEXT);
INSERT INTO "candidates" VALUES(1,'python','8f6faf3ecd9bb13585552f4c8954eb67fc417321d534f67c81b7020cdc138b1c','# A KernelBench-format task written for kernelpro''s examples (not taken from KernelBench): RMSNorm
# over the last dimension with a learned scale. PyTorch eager runs it as several kernels, each a
# pass over the 128 MiB activation; one fused kernel needs one read and one write.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    RMSNorm: y = x / sqrt(mean(x^2, last dim) + eps) * weight.
    """

    def __init__(self, dim: int, eps: float):
        super(Model, self).__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


batch_size = 8192
dim = 4096
eps = 1e-6


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [dim, eps]
',NULL);
INSERT INTO "candidates" VALUES(2,'python','d1cb952562d43f9d591bc228947f5a5c661fd7f3eacb32795b2d3b14b011a49b','import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)

// Sum over the block: warp shuffles, then the warps'' partials through shared memory.
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

// One block per row: the sum of squares, then the scaled row.
__global__ void __launch_bounds__(THREADS) rmsnorm_block(const float *__restrict__ x, const float *__restrict__ w,
                                                         float *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (long j = threadIdx.x; j < cols; j += THREADS)
        ss += in[j] * in[j];
    float r = rsqrtf(block_sum(ss, scratch)  + eps);
    for (long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = in[j] * r * w[j];
}

extern "C" int rmsnorm(const float *x, const float *w, float *y, long rows, long cols, float eps, cudaStream_t s)
{
    rmsnorm_block<<<(unsigned)rows, THREADS, 0, s>>>(x, w, y, cols, eps);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="rmsnorm",
                functions={"rmsnorm": ["ptr", "ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))  # created exactly as Model creates it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.rmsnorm(x, self.weight, y, x.shape[0], x.shape[1], self.eps)
        return y
','torch');
INSERT INTO "candidates" VALUES(3,'python','016ea887f3bbe999ac84dcb8bc70fdcd42b4c924326ad9255717dba4d9b12057','import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)

// Sum over the block: warp shuffles, then the warps'' partials through shared memory.
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

// One block per row: the sum of squares, then the scaled row.
__global__ void __launch_bounds__(THREADS) rmsnorm_block(const float *__restrict__ x, const float *__restrict__ w,
                                                         float *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (long j = threadIdx.x; j < cols; j += THREADS)
        ss += in[j] * in[j];
    float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
    for (long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = in[j] * r * w[j];
}

extern "C" int rmsnorm(const float *x, const float *w, float *y, long rows, long cols, float eps, cudaStream_t s)
{
    rmsnorm_block<<<(unsigned)rows, THREADS, 0, s>>>(x, w, y, cols, eps);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="rmsnorm",
                functions={"rmsnorm": ["ptr", "ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))  # created exactly as Model creates it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.rmsnorm(x, self.weight, y, x.shape[0], x.shape[1], self.eps)
        return y
','torch');
INSERT INTO "candidates" VALUES(4,'python','68c8150722843a21e5fd4570ba74301f1cf17db195d4761615ef04a83ee0e4f4','import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)

// Sum over the block: warp shuffles, then the warps'' partials through shared memory.
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

// One block per row: the sum of squares, then the scaled row.
__global__ void __launch_bounds__(THREADS) rmsnorm_block(const float *__restrict__ x, const float *__restrict__ w,
                                                         float *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (long j = threadIdx.x; j < cols; j += THREADS)
        ss += in[j] * in[j];
    float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
    for (long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = in[j] * r * w[j];
}

// The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.
template <int VEC>
__global__ void __launch_bounds__(THREADS) rmsnorm_regs(const float4 *__restrict__ x, const float4 *__restrict__ w,
                                                        float4 *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float4 *in = x + (size_t)blockIdx.x * (cols / 4);
    float4 *out = y + (size_t)blockIdx.x * (cols / 4);
    float4 v[VEC];
    float ss = 0.0f;
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        v[k] = *(&in[threadIdx.x + k * THREADS]);
        ss += (v[k].x * v[k].x + v[k].y * v[k].y) + (v[k].z * v[k].z + v[k].w * v[k].w);
    }
    float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        float4 g = __ldg(&w[threadIdx.x + k * THREADS]);
        out[threadIdx.x + k * THREADS] = make_float4(v[k].x * r * g.x, v[k].y * r * g.y, v[k].z * r * g.z, v[k].w * r * g.w);
    }
}

extern "C" int rmsnorm(const float *x, const float *w, float *y, long rows, long cols, float eps, cudaStream_t s)
{
    // Tensors from PyTorch''s allocator are 256-byte aligned and rows are 16 KiB: float4 access is legal.
    if (cols == 4 * THREADS * 4)
        rmsnorm_regs<4><<<(unsigned)rows, THREADS, 0, s>>>((const float4 *)x, (const float4 *)w, (float4 *)y, cols, eps);
    else
        rmsnorm_block<<<(unsigned)rows, THREADS, 0, s>>>(x, w, y, cols, eps);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="rmsnorm",
                functions={"rmsnorm": ["ptr", "ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))  # created exactly as Model creates it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.rmsnorm(x, self.weight, y, x.shape[0], x.shape[1], self.eps)
        return y
','torch');
INSERT INTO "candidates" VALUES(5,'python','1e3002277493a5982aa63a89f0899de56ee0c84c9f91a17f951ffccfe79b967c','import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)

// Sum over the block: warp shuffles, then the warps'' partials through shared memory.
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

// One block per row: the sum of squares, then the scaled row.
__global__ void __launch_bounds__(THREADS) rmsnorm_block(const float *__restrict__ x, const float *__restrict__ w,
                                                         float *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (long j = threadIdx.x; j < cols; j += THREADS)
        ss += in[j] * in[j];
    float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
    for (long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = in[j] * r * w[j];
}

// The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.
template <int VEC>
__global__ void __launch_bounds__(THREADS) rmsnorm_regs(const float4 *__restrict__ x, const float4 *__restrict__ w,
                                                        float4 *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float4 *in = x + (size_t)blockIdx.x * (cols / 4);
    float4 *out = y + (size_t)blockIdx.x * (cols / 4);
    float4 v[VEC];
    float ss = 0.0f;
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        v[k] = __ldcs(&in[threadIdx.x + k * THREADS]);
        ss += (v[k].x * v[k].x + v[k].y * v[k].y) + (v[k].z * v[k].z + v[k].w * v[k].w);
    }
    float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        float4 g = __ldg(&w[threadIdx.x + k * THREADS]);
        __stcs(&out[threadIdx.x + k * THREADS], make_float4(v[k].x * r * g.x, v[k].y * r * g.y, v[k].z * r * g.z, v[k].w * r * g.w));
    }
}

extern "C" int rmsnorm(const float *x, const float *w, float *y, long rows, long cols, float eps, cudaStream_t s)
{
    // Tensors from PyTorch''s allocator are 256-byte aligned and rows are 16 KiB: float4 access is legal.
    if (cols == 4 * THREADS * 4)
        rmsnorm_regs<4><<<(unsigned)rows, THREADS, 0, s>>>((const float4 *)x, (const float4 *)w, (float4 *)y, cols, eps);
    else
        rmsnorm_block<<<(unsigned)rows, THREADS, 0, s>>>(x, w, y, cols, eps);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="rmsnorm",
                functions={"rmsnorm": ["ptr", "ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))  # created exactly as Model creates it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.rmsnorm(x, self.weight, y, x.shape[0], x.shape[1], self.eps)
        return y
','torch');
CREATE TABLE counters (name TEXT PRIMARY KEY, value REAL NOT NULL);
INSERT INTO "counters" VALUES('gpu_busy_s',3.94515767829999788e+01);
INSERT INTO "counters" VALUES('tokens_in',11445.0);
INSERT INTO "counters" VALUES('tokens_out',3192.0);
INSERT INTO "counters" VALUES('cost_usd',0.0);
INSERT INTO "counters" VALUES('generations',4.0);
INSERT INTO "counters" VALUES('evaluations',4.0);
INSERT INTO "counters" VALUES('profiles_on_demand',1.0);
CREATE TABLE evaluations (
  id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL REFERENCES nodes(id),
  session INTEGER, outcome INTEGER NOT NULL,
  time_ms REAL, time_std_ms REAL, ref_time_ms REAL, speedup REAL, energy_j REAL,
  wall_s REAL, log TEXT, verdict_json TEXT, created REAL NOT NULL);
INSERT INTO "evaluations" VALUES(1,1,1,0,3.05503994226455688e-01,7.45676958173845517e-04,3.05503994226455688e-01,1.0,NULL,2.46741805750000082e+01,NULL,'{"compile_error":null,"eager":{"host_median_ms":0.33524800847078495,"max_ms":0.30764800310134888,"mean_ms":0.30552704036235812,"median_ms":0.30550399422645569,"min_ms":0.3036159873008728,"std_ms":0.00074567695817384552,"trials":100},"flops":0.0,"gpu":{"index":0,"name":"NVIDIA H200"},"io_bytes":268435456.0,"log":null,"precision":"f32","schema":"kernelpro.baseline/1","tf32":false,"torch_compile":null}',1.79616878536008143e+09);
INSERT INTO "evaluations" VALUES(2,2,1,4,NULL,NULL,NULL,NULL,NULL,2.27234075999999163e+00,'trial 1 of 5 (seed 734796314): output: 33534664 of 33554432 elements differ (atol 0.0001, rtol 0.0001)
correctness trial 1 of 5, inputs from seed 734796314:
output: 33534664 of 33554432 elements differ (atol 0.0001, rtol 0.0001); max |diff| 14.4971, mean |diff| 0.626514; first at [0, 0]: got 0.04384753480553627, expected 2.806241273880005','{"artifact":"/root/.cache/kernelpro/builds/a8ea2ed14304208e9ea4a0802b3cf7ceaf83a346ff829ca3fb30ab50e3ce808d/lib.so","build_cached":false,"claim":null,"compiled":true,"compiled_ref_runtime":null,"conditions":{"atol":0.0001,"candidate_precision":"f32","precision":"f32","reference":"eager PyTorch","reference_precision":"f32","rtol":0.0001,"tf32":{"candidate":null,"reference":false},"tolerance":"default"},"correct":false,"correctness":{"atol":0.0001,"max_abs_diff":14.497103691101074,"mean_abs_diff":0.62651357670294772,"rtol":0.0001,"trials_passed":0,"trials_run":1},"flags":[],"floor":{"bytes":268435456.0,"compute_peak":494700000000000.0,"dram_bw":4800000000000.0,"dram_bytes":216006656.0,"flop_time_s":null,"flops":null,"flops_counted":false,"gpu":"h200-sxm","in_bytes":134217728.0,"out_bytes":134217728.0,"source":"measured","time_s":4.5001386666666667e-5},"flops":0.0,"gpu":{"index":0,"name":"NVIDIA H200"},"io_bytes":268435456.0,"log":"correctness trial 1 of 5, inputs from seed 734796314:\noutput: 33534664 of 33554432 elements differ (atol 0.0001, rtol 0.0001); max |diff| 14.4971, mean |diff| 0.626514; first at [0, 0]: got 0.04384753480553627, expected 2.806241273880005","loop":null,"message":"trial 1 of 5 (seed 734796314): output: 33534664 of 33554432 elements differ (atol 0.0001, rtol 0.0001)","phase":"correctness","ref_loop":null,"ref_runtime":null,"runtime":null,"runtime_evidence":null,"sandbox":{"applied":true,"attempts":{"before_candidate":0,"candidate":0,"reference_compile":0},"ignored":{},"limits":{"core_bytes":0,"cpu_s":1680,"data_bytes":102912574464,"data_growth_bytes":101346653184,"file_bytes":8589934592,"open_files":4096},"network":{"how":"a network namespace of its own (no interface but a loopback that is down)","isolated":true},"not_limited":{"address_space":"not limited: CUDA reserves virtual address ranges as large as host and device memory together, so RLIMIT_AS stops it from starting; private writable memory (RLIMIT_DATA) is limited instead","processes":"not limited: RLIMIT_NPROC counts every thread of the user on the machine (CUDA and PyTorch start dozens) and does not bind root; the filter refuses new processes instead"},"processes":{"blocked":true,"main_thread_since":"before the candidate is imported (its import and ModelNew''s constructor may build with nvcc through a spawner thread)","refuses":"execve, execveat, fork, vfork and clone without CLONE_THREAD fail with EPERM (clone3 answers ENOSYS, so threads fall back to clone); so do setns, unshare, ptrace, process_vm_readv/writev, pidfd_open, signals to other processes. A call that would replace the SIGSYS handler (the one that answers refused calls) succeeds without effect and is counted in ignored, not refused: LLVM installs a handler for every fatal signal the first time Triton compiles","since":"before the first call of ModelNew","threads":"every thread"},"python":{"audit_hook":true,"audit_hook_why":null,"build_spawns":["/usr/local/cuda/bin/nvcc"],"refused":[]},"refused":{},"refused_calls":[],"switched_off":null},"scaled_trial":null,"schema":"kernelpro.verdict/1","seconds":{"build":1.2804729140000006,"correctness_parts":{"candidate":{"calls":1,"longest":0.0013245060000031117,"seconds":0.0013245060000031117},"compare":{"calls":1,"longest":0.29153529900000308,"seconds":0.29153529900000308},"flops":{"calls":1,"longest":0.0027576720000013211,"seconds":0.0027576720000013211},"input_checks":{"calls":7,"longest":0.043226119999985713,"seconds":0.043995418999969615},"inputs":{"calls":2,"longest":0.00064927899998679095,"seconds":0.00077771899998424487},"other":{"calls":0,"longest":0.0,"seconds":0.0039971340000590772},"poison":{"calls":1,"longest":0.00094692899997994573,"seconds":0.00094692899997994573},"reference":{"calls":1,"longest":0.0028724670000030983,"seconds":0.0028724670000030983},"triton":{"calls":1,"longest":0.0004195470000070145,"seconds":0.0004195470000070145}},"run":2.1591243560000066,"total":2.2716432910000037},"source_sha256":"d1cb952562d43f9d591bc228947f5a5c661fd7f3eacb32795b2d3b14b011a49b","speedup":null,"speedup_compile":null,"status":"wrong_output","timeline":"start 0.01, build 1.69, load 0.00, correctness 0.35","work_dir":null}',1.79616878763480806e+09);
INSERT INTO "evaluations" VALUES(3,3,1,0,7.38560035824775695e-02,1.72790358842480132e-02,3.06544005870819091e-01,4.15056313639406049e+00,NULL,2.22376330599999505e+00,'correct on 5 of 5 trials; 0.07386 ms median','{"artifact":"/root/.cache/kernelpro/builds/f0f89be771842afc4ef9f464f55c09f6a04db2717c9451e6e53322b8173856ec/lib.so","build_cached":false,"claim":"4.15x over eager PyTorch (0.07386 ms vs 0.3065 ms, medians of 100 trials), torch.compile not measured; both sides in f32, TF32 off on both; outputs within atol=0.0001, rtol=0.0001 (default for f32) on 5 of 5 trials and with inputs scaled x64 (atol there widened to the outputs'' rounding error)","compiled":true,"compiled_ref_runtime":null,"conditions":{"atol":0.0001,"candidate_precision":"f32","precision":"f32","reference":"eager PyTorch","reference_precision":"f32","rtol":0.0001,"tf32":{"candidate":false,"reference":false},"tolerance":"default"},"correct":true,"correctness":{"atol":0.0001,"max_abs_diff":2.86102294921875e-6,"mean_abs_diff":1.0246446822471375e-8,"rtol":0.0001,"trials_passed":5,"trials_run":5},"flags":[],"floor":{"bytes":268435456.0,"compute_peak":494700000000000.0,"dram_bw":4800000000000.0,"dram_bytes":216006656.0,"flop_time_s":null,"flops":null,"flops_counted":false,"gpu":"h200-sxm","in_bytes":134217728.0,"out_bytes":134217728.0,"source":"measured","time_s":4.5001386666666667e-5},"flops":0.0,"gpu":{"index":0,"name":"NVIDIA H200"},"io_bytes":268435456.0,"log":null,"loop":null,"message":"correct on 5 of 5 trials; 0.07386 ms median","phase":"done","ref_loop":null,"ref_runtime":{"host_median_ms":0.32399150451431069,"max_ms":0.32848000526428223,"mean_ms":0.30716384053230283,"median_ms":0.30654400587081909,"min_ms":0.30300799012184143,"std_ms":0.0036613813074679582,"trials":100},"runtime":{"host_median_ms":0.088805003435481922,"max_ms":0.14534400403499603,"mean_ms":0.085100480467081074,"median_ms":0.07385600358247757,"min_ms":0.071744002401828766,"std_ms":0.017279035884248013,"trials":100},"runtime_evidence":{"aten_ops":{},"kernels":null,"own_kernels":null,"recorded":true,"reference_aten_ops":{"add":1,"mean":1,"mul":2,"pow":1,"rsqrt":1},"reference_kernels":null,"timing_inputs":{"checked":[15,74,94],"mode":"fresh","sets":null},"why":"kernels not recorded (KERNELPRO_EVIDENCE=kernels records them: ~5 s more per evaluation)"},"sandbox":{"applied":true,"attempts":{"before_candidate":0,"candidate":0,"reference_compile":0},"ignored":{},"limits":{"core_bytes":0,"cpu_s":1680,"data_bytes":102912533504,"data_growth_bytes":101346653184,"file_bytes":8589934592,"open_files":4096},"network":{"how":"a network namespace of its own (no interface but a loopback that is down)","isolated":true},"not_limited":{"address_space":"not limited: CUDA reserves virtual address ranges as large as host and device memory together, so RLIMIT_AS stops it from starting; private writable memory (RLIMIT_DATA) is limited instead","processes":"not limited: RLIMIT_NPROC counts every thread of the user on the machine (CUDA and PyTorch start dozens) and does not bind root; the filter refuses new processes instead"},"processes":{"blocked":true,"main_thread_since":"before the candidate is imported (its import and ModelNew''s constructor may build with nvcc through a spawner thread)","refuses":"execve, execveat, fork, vfork and clone without CLONE_THREAD fail with EPERM (clone3 answers ENOSYS, so threads fall back to clone); so do setns, unshare, ptrace, process_vm_readv/writev, pidfd_open, signals to other processes. A call that would replace the SIGSYS handler (the one that answers refused calls) succeeds without effect and is counted in ignored, not refused: LLVM installs a handler for every fatal signal the first time Triton compiles","since":"before the first call of ModelNew","threads":"every thread"},"python":{"audit_hook":true,"audit_hook_why":null,"build_spawns":["/usr/local/cuda/bin/nvcc"],"refused":[]},"refused":{},"refused_calls":[],"switched_off":null},"scaled_trial":{"reason":null,"scale":64.0,"status":"passed"},"schema":"kernelpro.verdict/1","seconds":{"build":1.0677278349999995,"correctness_parts":{"candidate":{"calls":10,"longest":0.0010803499999951782,"seconds":0.0028858429999445434},"compare":{"calls":9,"longest":0.10583188300000756,"seconds":0.12223710600000004},"degenerate":{"calls":6,"longest":0.028227063000002772,"seconds":0.063005778000018609},"flops":{"calls":1,"longest":0.0023952450000024328,"seconds":0.0023952450000024328},"input_checks":{"calls":44,"longest":0.037220810000007987,"seconds":0.039876016000164327},"inputs":{"calls":13,"longest":0.000715971000005311,"seconds":0.0040451969999537596},"intact":{"calls":5,"longest":0.00010946900002295479,"seconds":0.00038597800002548865},"other":{"calls":0,"longest":0.0,"seconds":0.010326551999895628},"poison":{"calls":9,"longest":0.0008312899999793899,"seconds":0.0064315529999987575},"reference":{"calls":7,"longest":0.0023000830000228234,"seconds":0.0044490970000197194},"triton":{"calls":1,"longest":0.00026931599998647471,"seconds":0.00026931599998647471}},"run":2.1324501429999998,"total":2.2229712909999932},"source_sha256":"016ea887f3bbe999ac84dcb8bc70fdcd42b4c924326ad9255717dba4d9b12057","speedup":4.1505631363940605,"speedup_compile":null,"status":"correct","timeline":"start 0.02, build 1.63, load 0.00, correctness 0.26, timing 0.14, loop 0.00","work_dir":null}',1.79616878986222052e+09);
INSERT INTO "evaluations" VALUES(4,4,1,0,9.15200002491474151e-02,2.49965292301033668e-02,3.06064009666442871e-01,3.34423086574777528e+00,NULL,2.26764270600000372e+00,'correct on 5 of 5 trials; 0.09152 ms median','{"artifact":"/root/.cache/kernelpro/builds/98f5711f8e6ed5078587b7340d9d7d212c8f316da736ebea60e4ec1b815781bb/lib.so","build_cached":false,"claim":"3.34x over eager PyTorch (0.09152 ms vs 0.3061 ms, medians of 100 trials), torch.compile not measured; both sides in f32, TF32 off on both; outputs within atol=0.0001, rtol=0.0001 (default for f32) on 5 of 5 trials and with inputs scaled x64 (atol there widened to the outputs'' rounding error)","compiled":true,"compiled_ref_runtime":null,"conditions":{"atol":0.0001,"candidate_precision":"f32","precision":"f32","reference":"eager PyTorch","reference_precision":"f32","rtol":0.0001,"tf32":{"candidate":false,"reference":false},"tolerance":"default"},"correct":true,"correctness":{"atol":0.0001,"max_abs_diff":2.86102294921875e-6,"mean_abs_diff":1.0508958204948897e-8,"rtol":0.0001,"trials_passed":5,"trials_run":5},"flags":[],"floor":{"bytes":268435456.0,"compute_peak":494700000000000.0,"dram_bw":4800000000000.0,"dram_bytes":216006656.0,"flop_time_s":null,"flops":null,"flops_counted":false,"gpu":"h200-sxm","in_bytes":134217728.0,"out_bytes":134217728.0,"source":"measured","time_s":4.5001386666666667e-5},"flops":0.0,"gpu":{"index":0,"name":"NVIDIA H200"},"io_bytes":268435456.0,"log":null,"loop":null,"message":"correct on 5 of 5 trials; 0.09152 ms median","phase":"done","ref_loop":null,"ref_runtime":{"host_median_ms":0.32978301060609283,"max_ms":0.32636800408363342,"mean_ms":0.30636800169944761,"median_ms":0.30606400966644287,"min_ms":0.30326399207115173,"std_ms":0.0025619638322652702,"trials":100},"runtime":{"host_median_ms":0.11186750344324992,"max_ms":0.24102400243282318,"mean_ms":0.10074111968278884,"median_ms":0.091520000249147415,"min_ms":0.06857600063085556,"std_ms":0.024996529230103367,"trials":100},"runtime_evidence":{"aten_ops":{},"kernels":null,"own_kernels":null,"recorded":true,"reference_aten_ops":{"add":1,"mean":1,"mul":2,"pow":1,"rsqrt":1},"reference_kernels":null,"timing_inputs":{"checked":[15,74,94],"mode":"fresh","sets":null},"why":"kernels not recorded (KERNELPRO_EVIDENCE=kernels records them: ~5 s more per evaluation)"},"sandbox":{"applied":true,"attempts":{"before_candidate":0,"candidate":0,"reference_compile":0},"ignored":{},"limits":{"core_bytes":0,"cpu_s":1680,"data_bytes":102920926208,"data_growth_bytes":101346653184,"file_bytes":8589934592,"open_files":4096},"network":{"how":"a network namespace of its own (no interface but a loopback that is down)","isolated":true},"not_limited":{"address_space":"not limited: CUDA reserves virtual address ranges as large as host and device memory together, so RLIMIT_AS stops it from starting; private writable memory (RLIMIT_DATA) is limited instead","processes":"not limited: RLIMIT_NPROC counts every thread of the user on the machine (CUDA and PyTorch start dozens) and does not bind root; the filter refuses new processes instead"},"processes":{"blocked":true,"main_thread_since":"before the candidate is imported (its import and ModelNew''s constructor may build with nvcc through a spawner thread)","refuses":"execve, execveat, fork, vfork and clone without CLONE_THREAD fail with EPERM (clone3 answers ENOSYS, so threads fall back to clone); so do setns, unshare, ptrace, process_vm_readv/writev, pidfd_open, signals to other processes. A call that would replace the SIGSYS handler (the one that answers refused calls) succeeds without effect and is counted in ignored, not refused: LLVM installs a handler for every fatal signal the first time Triton compiles","since":"before the first call of ModelNew","threads":"every thread"},"python":{"audit_hook":true,"audit_hook_why":null,"build_spawns":["/usr/local/cuda/bin/nvcc"],"refused":[]},"refused":{},"refused_calls":[],"switched_off":null},"scaled_trial":{"reason":null,"scale":64.0,"status":"passed"},"schema":"kernelpro.verdict/1","seconds":{"build":1.1760623950000024,"correctness_parts":{"candidate":{"calls":10,"longest":0.0012652609999861397,"seconds":0.0031544940000003407},"compare":{"calls":9,"longest":0.13663119800000345,"seconds":0.15330105900002877},"degenerate":{"calls":6,"longest":0.037694490999996333,"seconds":0.073038500999956568},"flops":{"calls":1,"longest":0.0023749729999735791,"seconds":0.0023749729999735791},"input_checks":{"calls":44,"longest":0.037565646999979663,"seconds":0.0406534669999985},"inputs":{"calls":13,"longest":0.00071263300000623531,"seconds":0.0046675720000735055},"intact":{"calls":5,"longest":0.00016163500001198372,"seconds":0.00048537500001089029},"other":{"calls":0,"longest":0.0,"seconds":0.012560783999987279},"poison":{"calls":9,"longest":0.00097240599998826838,"seconds":0.0075963209999656556},"reference":{"calls":7,"longest":0.0024611960000129329,"seconds":0.0046929280000256313},"triton":{"calls":1,"longest":0.00026972399999181107,"seconds":0.00026972399999181107}},"run":2.1529603300000133,"total":2.2670038920000195},"source_sha256":"68c8150722843a21e5fd4570ba74301f1cf17db195d4761615ef04a83ee0e4f4","speedup":3.3442308657477753,"speedup_compile":null,"status":"correct","timeline":"start 0.02, build 1.55, load 0.00, correctness 0.30, timing 0.16, loop 0.00","work_dir":null}',1.79616879834662795e+09);
INSERT INTO "evaluations" VALUES(5,5,1,0,0.0761599987745285,1.5507786087382595e-02,3.06432008743286132e-01,4.0235295913078648e+00,NULL,2.22030999899999415e+00,'correct on 5 of 5 trials; 0.07616 ms median','{"artifact":"/root/.cache/kernelpro/builds/fd10ebf7ac59ba5c3e3f9ba1d2b3581059c23e56224041a7a0f9e5ba4ce5ba9a/lib.so","build_cached":false,"claim":"4.02x over eager PyTorch (0.07616 ms vs 0.3064 ms, medians of 100 trials), torch.compile not measured; both sides in f32, TF32 off on both; outputs within atol=0.0001, rtol=0.0001 (default for f32) on 5 of 5 trials and with inputs scaled x64 (atol there widened to the outputs'' rounding error)","compiled":true,"compiled_ref_runtime":null,"conditions":{"atol":0.0001,"candidate_precision":"f32","precision":"f32","reference":"eager PyTorch","reference_precision":"f32","rtol":0.0001,"tf32":{"candidate":false,"reference":false},"tolerance":"default"},"correct":true,"correctness":{"atol":0.0001,"max_abs_diff":2.86102294921875e-6,"mean_abs_diff":1.0508958204948897e-8,"rtol":0.0001,"trials_passed":5,"trials_run":5},"flags":[],"floor":{"bytes":268435456.0,"compute_peak":494700000000000.0,"dram_bw":4800000000000.0,"dram_bytes":216006656.0,"flop_time_s":null,"flops":null,"flops_counted":false,"gpu":"h200-sxm","in_bytes":134217728.0,"out_bytes":134217728.0,"source":"measured","time_s":4.5001386666666667e-5},"flops":0.0,"gpu":{"index":0,"name":"NVIDIA H200"},"io_bytes":268435456.0,"log":null,"loop":null,"message":"correct on 5 of 5 trials; 0.07616 ms median","phase":"done","ref_loop":null,"ref_runtime":{"host_median_ms":0.32547751551874171,"max_ms":0.35980799794197083,"mean_ms":0.3094025608897209,"median_ms":0.30643200874328613,"min_ms":0.30371201038360596,"std_ms":0.0098849825630979334,"trials":100},"runtime":{"host_median_ms":0.091443996656494164,"max_ms":0.16463999450206757,"mean_ms":0.083420799970626833,"median_ms":0.076159998774528503,"min_ms":0.073728002607822418,"std_ms":0.015507786087382595,"trials":100},"runtime_evidence":{"aten_ops":{},"kernels":null,"own_kernels":null,"recorded":true,"reference_aten_ops":{"add":1,"mean":1,"mul":2,"pow":1,"rsqrt":1},"reference_kernels":null,"timing_inputs":{"checked":[15,74,94],"mode":"fresh","sets":null},"why":"kernels not recorded (KERNELPRO_EVIDENCE=kernels records them: ~5 s more per evaluation)"},"sandbox":{"applied":true,"attempts":{"before_candidate":0,"candidate":0,"reference_compile":0},"ignored":{},"limits":{"core_bytes":0,"cpu_s":1680,"data_bytes":102912537600,"data_growth_bytes":101346653184,"file_bytes":8589934592,"open_files":4096},"network":{"how":"a network namespace of its own (no interface but a loopback that is down)","isolated":true},"not_limited":{"address_space":"not limited: CUDA reserves virtual address ranges as large as host and device memory together, so RLIMIT_AS stops it from starting; private writable memory (RLIMIT_DATA) is limited instead","processes":"not limited: RLIMIT_NPROC counts every thread of the user on the machine (CUDA and PyTorch start dozens) and does not bind root; the filter refuses new processes instead"},"processes":{"blocked":true,"main_thread_since":"before the candidate is imported (its import and ModelNew''s constructor may build with nvcc through a spawner thread)","refuses":"execve, execveat, fork, vfork and clone without CLONE_THREAD fail with EPERM (clone3 answers ENOSYS, so threads fall back to clone); so do setns, unshare, ptrace, process_vm_readv/writev, pidfd_open, signals to other processes. A call that would replace the SIGSYS handler (the one that answers refused calls) succeeds without effect and is counted in ignored, not refused: LLVM installs a handler for every fatal signal the first time Triton compiles","since":"before the first call of ModelNew","threads":"every thread"},"python":{"audit_hook":true,"audit_hook_why":null,"build_spawns":["/usr/local/cuda/bin/nvcc"],"refused":[]},"refused":{},"refused_calls":[],"switched_off":null},"scaled_trial":{"reason":null,"scale":64.0,"status":"passed"},"schema":"kernelpro.verdict/1","seconds":{"build":1.16947116999998,"correctness_parts":{"candidate":{"calls":10,"longest":0.0011573809999845253,"seconds":0.0030673389999833489},"compare":{"calls":9,"longest":0.12544131699999639,"seconds":0.1421848019999743},"degenerate":{"calls":6,"longest":0.033354991999999584,"seconds":0.069459629000050427},"flops":{"calls":1,"longest":0.0020807739999781916,"seconds":0.0020807739999781916},"input_checks":{"calls":44,"longest":0.037746663999996599,"seconds":0.040558081999989781},"inputs":{"calls":13,"longest":0.00074725799998986986,"seconds":0.0046765410000091379},"intact":{"calls":5,"longest":0.00010363299998061848,"seconds":0.0003769289999695502},"other":{"calls":0,"longest":0.0,"seconds":0.011901414000135446},"poison":{"calls":9,"longest":0.00098741299999005605,"seconds":0.0074743839999200645},"reference":{"calls":7,"longest":0.0025198259999967831,"seconds":0.0047398019999889129},"triton":{"calls":1,"longest":0.00033952699999417746,"seconds":0.00033952699999417746}},"run":2.1107707019999964,"total":2.2191703690000111},"source_sha256":"1e3002277493a5982aa63a89f0899de56ee0c84c9f91a17f951ffccfe79b967c","speedup":4.0235295913078648,"speedup_compile":null,"status":"correct","timeline":"start 0.02, build 1.56, load 0.00, correctness 0.29, timing 0.14, loop 0.00","work_dir":null}',1.79616880057256197e+09);
CREATE TABLE feedback (node_id INTEGER PRIMARY KEY REFERENCES nodes(id), text TEXT NOT NULL);
INSERT INTO "feedback" VALUES(1,'# The whole task
Whole task: 5 kernels in 6 launches, 296 us on the GPU; AI 0.463 FLOP/B (ridge 20.9), 1% of the compute roof, 62% of DRAM bandwidth.
The same kernels at their roofs: 204 us. Time that could be saved, by kernel (largest first):
1. elementwise_kernel: 65% of the time (192 us, 2 launches), memory-bound; could save 76.8 us (26% of the task)
2. (not diagnosed) std::array>: 21% of the time (62.3 us, 1 launch), memory-bound; could save 5.85 us (2% of the task)
3. (not diagnosed) reduce_kernel: 12% of the time (36.7 us, 1 launch), memory-bound; could save 5.05 us (2% of the task)
4. (not diagnosed) vectorized_elementwise_kernel: 1% of the time (2.18 us, 1 launch), latency-bound; could save 2.17 us (1% of the task)
5. (not diagnosed) vectorized_elementwise_kernel: 1% of the time (2.11 us, 1 launch), latency-bound; could save 2.1 us (1% of the task)
The findings below are for the 1 kernel that could save the most; attack the first first.

# Kernel 1: elementwise_kernel (65% of the task''s time, could save 26%)
# Feedback for elementwise_kernel
Bottleneck: memory-bound. DRAM 2.57 TB/s of 4.8 TB/s datasheet peak (54%); compute 1.73 TFLOP/s of 112 TFLOP/s fp16 peak (1.5%). Speed of light: SM 57%, memory 53%. Time 97.1 us.
Why: arithmetic intensity 0.673 FLOP/B is below the ridge (23.2) and the memory side is the busy one: L2 67% of peak, 54% of the DRAM roof, against ALU pipe 41% on the SM side

## What to try first
1. Issue independent loads early and use the values late: unroll loops so several loads are in flight, or give each thread several elements (warp_stalls)

## Findings (most important first)

### 1. [medium] Warps stall on global or local memory data (long scoreboard): 74% of the cycles between instructions
Tool: warp_stalls; estimated gain up to 30% of the kernel time (this stall''s share of the headroom to the busiest unit)
Cause: Loads from global or local memory are outstanding and the next instruction needs their data; there is not enough independent work in flight to cover DRAM latency.
Evidence:
- smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio: 17.1 cycles
- share of warp cycles per issued instruction: 74.4% (threshold 30.0%)
- smsp__average_warp_latency_per_inst_issued.ratio: 23 cycles
- smsp__issue_active.avg.per_cycle_active: 0.58 (threshold 0.8)
- sm__throughput.avg.pct_of_peak_sustained_elapsed: 56.7%
- gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed: 53.4%
Do:
- Issue independent loads early and use the values late: unroll loops so several loads are in flight, or give each thread several elements
- Cut the bytes behind each stall: coalesced and vectorized accesses, data reused from shared memory
Also seen by: sol_gap

(1 folded into the findings that explain them; 0 estimated to gain too little)

No data for: vector_width, launch_overhead.
');
INSERT INTO "feedback" VALUES(3,'# Feedback for rmsnorm_block
Bottleneck: memory-bound. DRAM 3.78 TB/s of 4.8 TB/s datasheet peak (79%); compute 2.65 TFLOP/s of 68.5 TFLOP/s fp32 peak (3.9%). Speed of light: SM 29%, memory 79%. Time 67.0 us.
Why: arithmetic intensity 0.701 FLOP/B is below the ridge (14.3) and the memory side is the busy one: L2 89% of peak, 79% of the DRAM roof, against ALU pipe 17% on the SM side

## What to try first
1. Load and store 16 bytes per thread: 116 of this kernel''s 116 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 70% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop (vector_width)
2. Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip (sol_gap)

## Findings (most important first)

### 1. [low] Global memory accessed 32 bits at a time (116 of 116 load/store instructions are scalar)
Tool: vector_width; estimated gain up to 9% of the kernel time (the memory-wait share of the headroom to the busiest unit''s practical peak)
Cause: Each thread moves 4 bytes per instruction, so a warp keeps few bytes in flight and the load/store unit issues up to 4x the instructions a 128-bit access needs; warps wait on global memory 70% of their cycles.
Evidence:
- scalar global load/store instructions (SASS): 100.0% (threshold 50.0%)
- average global access width (SASS): 32 bit (threshold 128 bit)
- warp cycles waiting on global memory: 70.4% (threshold 30.0%)
- LDG.E (32-bit) instructions (SASS): 87
- smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio: 28.6 cycles
- share of warp cycles per issued instruction: 61.2% (threshold 30.0%)
Do:
- Load and store 16 bytes per thread: 116 of this kernel''s 116 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 70% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop
- Give each thread several independent elements (a grid-stride loop unrolled 4x, or 4 consecutive elements per thread) so more loads are in flight before the first one returns
- Declare read-only inputs const float* __restrict__ so the compiler may emit LDG.E.128.CONSTANT (the read-only path)
Also seen by: warp_stalls

### 2. [low] At the memory roof: the busiest unit runs at 87% of its practical peak
Tool: sol_gap
Cause: The kernel moves its bytes about as fast as the memory system allows; reordering the same accesses cannot gain much more.
Evidence:
- busiest unit''s share of its practical peak: 87.4% (threshold 80.0%)
- sm__throughput.avg.pct_of_peak_sustained_elapsed: 29.1%
- gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed: 78.6%
- gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed: 78.6%
- achieved DRAM bandwidth: 3.78 TB/s (threshold 4.8 TB/s)
- achieved FLOP rate: 2.65 TFLOP/s (threshold 68.5 TFLOP/s)
Do:
- Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip
- Store inputs/outputs in a narrower type (bf16/fp16, or fp8 with a scale) if the task''s tolerance allows: half the bytes, half the time

(1 folded into the findings that explain them; 0 estimated to gain too little)

No data for: launch_overhead.
');
CREATE TABLE findings (
  id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL REFERENCES nodes(id), seq INTEGER NOT NULL,
  tool TEXT, severity TEXT, title TEXT, json TEXT NOT NULL);
INSERT INTO "findings" VALUES(1,1,0,'warp_stalls','medium','Warps stall on global or local memory data (long scoreboard): 74% of the cycles between instructions','{"also":["sol_gap"],"cause":"Loads from global or local memory are outstanding and the next instruction needs their data; there is not enough independent work in flight to cover DRAM latency.","evidence":[{"metric":"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","threshold":null,"unit":"cycles","value":17.120000000000001},{"metric":"share of warp cycles per issued instruction","threshold":30.0,"unit":"%","value":74.402433724467613},{"metric":"smsp__average_warp_latency_per_inst_issued.ratio","threshold":null,"unit":"cycles","value":23.010000000000002},{"metric":"smsp__issue_active.avg.per_cycle_active","threshold":0.80000000000000004,"unit":"","value":0.57999999999999996},{"metric":"sm__throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":56.729999999999997},{"metric":"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":53.399999999999999},{"metric":"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":53.399999999999999}],"gain":0.30256989714616828,"gain_basis":"this stall''s share of the headroom to the busiest unit","recommendations":["Issue independent loads early and use the values late: unroll loops so several loads are in flight, or give each thread several elements","Cut the bytes behind each stall: coalesced and vectorized accesses, data reused from shared memory"],"severity":"medium","title":"Warps stall on global or local memory data (long scoreboard): 74% of the cycles between instructions","tool":"warp_stalls"}');
INSERT INTO "findings" VALUES(2,3,0,'vector_width','low','Global memory accessed 32 bits at a time (116 of 116 load/store instructions are scalar)','{"also":["warp_stalls"],"cause":"Each thread moves 4 bytes per instruction, so a warp keeps few bytes in flight and the load/store unit issues up to 4x the instructions a 128-bit access needs; warps wait on global memory 70% of their cycles.","evidence":[{"metric":"scalar global load/store instructions (SASS)","threshold":50.0,"unit":"%","value":100.0},{"metric":"average global access width (SASS)","threshold":128.0,"unit":"bit","value":32.0},{"metric":"warp cycles waiting on global memory","threshold":30.0,"unit":"%","value":70.402914702100304},{"metric":"LDG.E (32-bit) instructions (SASS)","threshold":null,"unit":"","value":87.0},{"metric":"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","threshold":null,"unit":"cycles","value":28.57},{"metric":"share of warp cycles per issued instruction","threshold":30.0,"unit":"%","value":61.230175739391349},{"metric":"smsp__average_warp_latency_per_inst_issued.ratio","threshold":null,"unit":"cycles","value":46.659999999999997}],"gain":0.08902057436776685,"gain_basis":"the memory-wait share of the headroom to the busiest unit''s practical peak","recommendations":["Load and store 16 bytes per thread: 116 of this kernel''s 116 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 70% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop","Give each thread several independent elements (a grid-stride loop unrolled 4x, or 4 consecutive elements per thread) so more loads are in flight before the first one returns","Declare read-only inputs const float* __restrict__ so the compiler may emit LDG.E.128.CONSTANT (the read-only path)"],"severity":"low","title":"Global memory accessed 32 bits at a time (116 of 116 load/store instructions are scalar)","tool":"vector_width"}');
INSERT INTO "findings" VALUES(3,3,1,'sol_gap','low','At the memory roof: the busiest unit runs at 87% of its practical peak','{"also":[],"cause":"The kernel moves its bytes about as fast as the memory system allows; reordering the same accesses cannot gain much more.","evidence":[{"metric":"busiest unit''s share of its practical peak","threshold":80.0,"unit":"%","value":87.355555555555554},{"metric":"sm__throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":29.140000000000001},{"metric":"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":78.620000000000005},{"metric":"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed","threshold":null,"unit":"%","value":78.620000000000005},{"metric":"achieved DRAM bandwidth","threshold":4800000000000.0,"unit":"B/s","value":3780049665711.5566},{"metric":"achieved FLOP rate","threshold":68519364599092.297,"unit":"FLOP/s","value":2648511938872.9702}],"gain":null,"gain_basis":null,"recommendations":["Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip","Store inputs/outputs in a narrower type (bf16/fp16, or fp8 with a scale) if the task''s tolerance allows: half the bytes, half the time"],"severity":"low","title":"At the memory roof: the busiest unit runs at 87% of its practical peak","tool":"sol_gap"}');
CREATE TABLE memory (
  id INTEGER PRIMARY KEY, family TEXT, kind INTEGER NOT NULL, key TEXT NOT NULL,
  text TEXT NOT NULL, outcome INTEGER NOT NULL DEFAULT 0, gain REAL, node_id INTEGER,
  run TEXT, created REAL NOT NULL, tries INTEGER NOT NULL DEFAULT 1,
  wins INTEGER NOT NULL DEFAULT 0);
INSERT INTO "memory" VALUES(1,'4_RMSNorm',3,'warp_stalls: Warps stall on global or local memory data (long scoreboard): 74% of the cycles between instructions','Issue independent loads early and use the values late: unroll loops so several loads are in flight, or give each thread several elements',2,NULL,2,'rmsnorm',1.7961687876350131e+09,1,0);
INSERT INTO "memory" VALUES(2,'4_RMSNorm',1,'__ldg','compiled and correct (3.34x): float4 g = __ldg(&w[threadIdx.x + k * THREADS]);',1,-2.1600728891388532e-01,4,'rmsnorm',1.79616879834679794e+09,1,1);
INSERT INTO "memory" VALUES(3,'4_RMSNorm',1,'float4','compiled and correct (3.34x): // The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.',1,-2.1600728891388532e-01,4,'rmsnorm',1.79616879834690833e+09,1,1);
INSERT INTO "memory" VALUES(4,'4_RMSNorm',1,'#pragma unroll','compiled and correct (3.34x): #pragma unroll',1,-2.1600728891388532e-01,4,'rmsnorm',1.79616879834695768e+09,1,1);
INSERT INTO "memory" VALUES(5,'4_RMSNorm',3,'vector_width: Global memory accessed 32 bits at a time (116 of 116 load/store instructions are scalar)','Load and store 16 bytes per thread: 116 of this kernel''s 116 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 70% of their cycles; use reinterpret_cast<const flo',2,-3.1084495357856845e-02,4,'rmsnorm',1.79616879834713864e+09,2,0);
INSERT INTO "memory" VALUES(6,'4_RMSNorm',3,'sol_gap: At the memory roof: the busiest unit runs at 87% of its practical peak','Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip',2,-3.1084495357856845e-02,4,'rmsnorm',1.79616879834717845e+09,2,0);
INSERT INTO "memory" VALUES(7,'4_RMSNorm',1,'__ldg','compiled and correct (4.02x): float4 g = __ldg(&w[threadIdx.x + k * THREADS]);',1,-3.1084495357856845e-02,5,'rmsnorm',1.79616880057273507e+09,1,1);
INSERT INTO "memory" VALUES(8,'4_RMSNorm',1,'float4','compiled and correct (4.02x): // The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.',1,-3.1084495357856845e-02,5,'rmsnorm',1.79616880057285404e+09,1,1);
INSERT INTO "memory" VALUES(9,'4_RMSNorm',1,'#pragma unroll','compiled and correct (4.02x): #pragma unroll',1,-3.1084495357856845e-02,5,'rmsnorm',1.79616880057290411e+09,1,1);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO "meta" VALUES('run_name','rmsnorm');
INSERT INTO "meta" VALUES('kernelpro','0.1.0 (da932db)');
INSERT INTO "meta" VALUES('created','20261201-234600');
INSERT INTO "meta" VALUES('family','4_RMSNorm');
INSERT INTO "meta" VALUES('llm','replay:/work/main/examples/optimize/rmsnorm/replies');
INSERT INTO "meta" VALUES('evaluator','harness');
INSERT INTO "meta" VALUES('orchestration','{"mode":"proactive","tool_rounds":3}');
INSERT INTO "meta" VALUES('task','{"atol":0.0001,"description":"RMSNorm: y = x / sqrt(mean(x^2, last dim) + eps) * weight.","flops":null,"kind":"kernelbench","min_bytes":null,"name":"4_RMSNorm","path":"/tmp/kp-gpu-QjFQEy/KernelBench/level1/4_RMSNorm.py","precision":"f32","reference":"/tmp/kp-gpu-QjFQEy/KernelBench/level1/4_RMSNorm.py","rtol":0.0001,"scaled_trial":true}');
INSERT INTO "meta" VALUES('task_sha256','bcaaf75a03382eb80efd0f33d9a838e3c60f197e6667d31265d6b50ef773f981');
INSERT INTO "meta" VALUES('params','{"backup":"max","beam_width":3,"leader_widen":1,"max_gen_failures":3,"max_repairs":2,"memory_bytes":1500,"noise_band":0.02,"objective":"speed","parallel":1,"prune_delta":0.02,"prune_m":6,"refine_alpha":0.29999999999999999,"refine_cap":8,"refine_k":1.0,"repair_alpha":0.29999999999999999,"repair_cap":2,"repair_fpu":0.29999999999999999,"repair_k":1.0,"reward_fail":-1.0,"reward_max":4.5999999999999996,"reward_min":-2.0,"search":"mcts","tune":"declared","tune_budget":16,"tune_children":1,"tune_share":0.25,"tune_strategy":"auto","uct_c":0.10000000000000001}');
INSERT INTO "meta" VALUES('budget','{"cost_usd":null,"evals":4,"tokens":null,"wall_s":null}');
INSERT INTO "meta" VALUES('status','finished');
INSERT INTO "meta" VALUES('stage1','Whole task: 5 kernels in 6 launches, 296 us on the GPU; AI 0.463 FLOP/B (ridge 20.9), 1% of the compute roof, 62% of DRAM bandwidth.
The same kernels at their roofs: 204 us. Time that could be saved, by kernel (largest first):
1. elementwise_kernel: 65% of the time (192 us, 2 launches), memory-bound; could save 76.8 us (26% of the task)
2. (not diagnosed) std::array>: 21% of the time (62.3 us, 1 launch), memory-bound; could save 5.85 us (2% of the task)
3. (not diagnosed) reduce_kernel: 12% of the time (36.7 us, 1 launch), memory-bound; could save 5.05 us (2% of the task)
4. (not diagnosed) vectorized_elementwise_kernel: 1% of the time (2.18 us, 1 launch), latency-bound; could save 2.17 us (1% of the task)
5. (not diagnosed) vectorized_elementwise_kernel: 1% of the time (2.11 us, 1 launch), latency-bound; could save 2.1 us (1% of the task)
  memory: arithmetic intensity 0.673 FLOP/B is below the ridge (23.2) and the memory side is the busy one: L2 67% of peak, 54% of the DRAM roof, against ALU pipe 41% on the SM side
  FLOPs 168 M (fp16, sass counters), DRAM 249 MB, AI 0.673 FLOP/B, ridge 23.2
  2.57 TB/s = 54% of DRAM roof; 1.73 TFLOP/s = 1.5% of fp16 roof; ncu SM 57%, memory 53%
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
INSERT INTO "nodes" VALUES(1,NULL,0,0,1,0,1.0,3.05503994226455688e-01,NULL,0.0,5,3.02264027738859031e+00,1.42324402055344423e+00,0,1,0,1.79616876068257498e+09,'the reference');
INSERT INTO "nodes" VALUES(2,1,1,1,1,4,NULL,NULL,NULL,-1.0,4,3.02264027738859031e+00,1.42324402055344423e+00,1,1,0,1.79616878536124944e+09,'PyTorch runs this as several kernels (square, mean, add, rsqrt, two multiplies), each a pass over the 128 MiB activation.');
INSERT INTO "nodes" VALUES(3,2,3,2,1,0,4.15056313639406049e+00,7.38560035824775695e-02,NULL,1.42324402055344423e+00,3,4.0226402773885912e+00,1.42324402055344423e+00,0,2,0,1.7961687876373589e+09,'The outputs were 64 times too small because the kernel used the sum of squares where RMSNorm needs their mean: the fix divides the block''s sum by the number of columns before adding eps.');
INSERT INTO "nodes" VALUES(4,3,2,3,1,0,3.34423086574777528e+00,9.15200002491474151e-02,NULL,1.20723673163955891e+00,1,1.20723673163955891e+00,1.20723673163955891e+00,0,0,0,1.7961687960772202e+09,'The fused kernel still reads each row twice (once for the sum of squares, once to scale it).');
INSERT INTO "nodes" VALUES(5,3,2,3,1,0,4.0235295913078648e+00,0.0761599987745285,NULL,1.39215952519558738e+00,1,1.39215952519558738e+00,1.39215952519558738e+00,0,0,0,1.79616879835045981e+09,'Each activation byte is now read once and written once; the activation and the output are never reused, so streaming loads and stores (`__ldcs`, `__stcs`) keep them from pushing the weight and other u');
CREATE TABLE profiles (node_id INTEGER PRIMARY KEY REFERENCES nodes(id), json TEXT NOT NULL);
INSERT INTO "profiles" VALUES(1,'{"dir":"runs/rmsnorm/profiles/reference","floor_time_s":null,"held":false,"launch":{"block":[128,1,1],"cc":"9.0","findings":[],"function":"elementwise_kernel","grid":[131072,1,1],"incomplete":false,"kernel":"void elementwise_kernel<128, 2, void gpu_kernel_impl_nocast<BinaryFunctor<float, float, float, binary_internal::MulFunctor<float>>>(TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)","launch_id":4,"sources":{"ptxas":null,"sass":null,"trace":false},"stage1":{"achieved_bw":2568379571663.9209,"achieved_flops":1727472817133.4431,"ai":0.67259249224377782,"ai_min":null,"attainable_flops":3228443962770.1333,"class":"memory","compute_busy":0.56729999999999992,"compute_frac":0.01549302975007572,"compute_peak":111500000000000.02,"dram_bytes":249441024.0,"evidence":{"latency_stalls":0.96920115495668913,"memory":{"busy":0.66590000000000005,"side":"memory","unit":"L2"},"occupancy_pct":83.769999999999996,"rule":"intensity","sm":{"busy":0.40570000000000001,"side":"sm","unit":"ALU pipe"},"stall":"long_scoreboard","stall_share":0.7440243372446762,"units":[{"busy":0.13519999999999999,"side":"sm","unit":"FMA pipe"},{"busy":0.40570000000000001,"side":"sm","unit":"ALU pipe"},{"busy":0.0,"side":"sm","unit":"XU (special-function) pipe"},{"busy":0.0,"side":"sm","unit":"FP64 pipe"},{"busy":0.020799999999999999,"side":"sm","unit":"tensor pipe"},{"busy":0.56729999999999992,"side":"sm","unit":"issue slots"},{"busy":0.020799999999999999,"side":"sm","unit":"shared memory"},{"busy":0.01549302975007572,"side":"sm","unit":"FLOP roof"},{"busy":0.53507907742998351,"side":"memory","unit":"DRAM"},{"busy":0.66590000000000005,"side":"memory","unit":"L2"},{"busy":0.18520000000000003,"side":"memory","unit":"L1 (global and local accesses)"}]},"floor_time_s":null,"flops":167772160.0,"flops_fp16":134217728.0,"flops_fp32":33554432.0,"flops_fp64":0.0,"flops_source":"sass counters","flops_tensor":0.0,"incomplete":false,"mem_sol_pct":53.399999999999999,"memory_busy":0.53507907742998351,"memory_frac":0.53507907742998351,"memory_peak":4800000000000.0,"min_bytes":null,"missing_metrics":"","precision":"fp16","reason":"arithmetic intensity 0.673 FLOP/B is below the ridge (23.2) and the memory side is the busy one: L2 67% of peak, 54% of the DRAM roof, against ALU pipe 41% on the SM side","ridge_ai":23.229166666666671,"sm_sol_pct":56.729999999999997,"time_s":9.7120000000000005e-5}},"ncu_s":11.260113386,"profile_s":13.403776265999994,"task":{"ai":0.46266377853070112,"compute_frac":0.013738078069474755,"compute_peak":100217834414115.55,"cutoff":{"max_kernels":5,"min_saving":0.01,"share":0.80000000000000004},"dram_bytes":879411968.0,"floor_s":null,"flops":406872064.0,"kernels":[{"ai":0.67281345380515967,"class":"memory","compute_frac":0.015655516994000272,"dram_bytes":498718208.0,"flops":335544320.0,"function":"elementwise_kernel","kernel":"void elementwise_kernel<128, 2, void gpu_kernel_impl_nocast<BinaryFunctor<float, float, float, binary_internal::MulFunctor<float>>>(TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)","launches":2,"longest_launch_id":4,"memory_frac":0.54051329005049664,"rank":1,"roofline_s":0.00011544402962962963,"rule":"intensity","saving_s":7.6779970370370379e-5,"saving_share":0.2598131103491147,"share":0.65046020573903629,"time_s":0.00019222400000000001,"tools":true},{"ai":0.13765825942204787,"class":"memory","compute_frac":0.0080543585631174738,"dram_bytes":243751680.0,"flops":33554432.0,"function":"std::array>","kernel":"void vectorized_elementwise_kernel<4, void unnamed>::pow_tensor_scalar_kernel_impl<float, float>(TensorIteratorBase &, T2)::[lambda(float) (instance 1)], std::array<char *, 2>>(int, T2, T3)","launches":1,"longest_launch_id":0,"memory_frac":0.81548047276464541,"rank":2,"roofline_s":5.6424000000000001e-5,"rule":"intensity","saving_s":5.8480000000000023e-6,"saving_share":0.019788846778559833,"share":0.21072008662696265,"time_s":6.2272000000000003e-5,"tools":false},{"ai":0.27586929278192396,"class":"memory","compute_frac":0.014936433284896588,"dram_bytes":136865280.0,"flops":37756928.0,"function":"reduce_kernel","kernel":"void reduce_kernel<512, 1, ReduceOp<float, MeanOps<float, float, float, float>, unsigned int, float, 4, 4>>(T3)","launches":1,"longest_launch_id":1,"memory_frac":0.77617595818815333,"rank":3,"roofline_s":3.1681777777777781e-5,"rule":"intensity","saving_s":5.054222222222221e-6,"saving_share":0.017102809360524569,"share":0.12430969139144558,"time_s":3.6736000000000002e-5,"tools":false},{"ai":0.0,"class":"latency","compute_frac":0.0,"dram_bytes":38912.0,"flops":0.0,"function":"vectorized_elementwise_kernel","kernel":"void vectorized_elementwise_kernel<4, rsqrt_kernel_cuda(TensorIteratorBase &)::[lambda() (instance 2)]::operator ()() const::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, 2>>(int, T2, T3)","launches":1,"longest_launch_id":3,"memory_frac":0.0037254901960784314,"rank":4,"roofline_s":9.0074074074074074e-9,"rule":"idle","saving_s":2.1669925925925927e-6,"saving_share":0.0073328119673544689,"share":0.0073632918245804006,"time_s":2.176e-6,"tools":false},{"ai":0.43243243243243246,"class":"latency","compute_frac":0.00011595778411921907,"dram_bytes":37888.0,"flops":16384.0,"function":"vectorized_elementwise_kernel","kernel":"void vectorized_elementwise_kernel<4, CUDAFunctorOnSelf_add<float>, std::array<char *, 2>>(int, T2, T3)","launches":1,"longest_launch_id":2,"memory_frac":0.0037373737373737367,"rank":5,"roofline_s":8.7703703703703697e-9,"rule":"idle","saving_s":2.1032296296296299e-6,"saving_share":0.0071170466622551094,"share":0.0071467244179750956,"time_s":2.1120000000000003e-6,"tools":false}],"launches":6,"memory_frac":0.61996083739397212,"memory_peak":4800000000000.0,"min_bytes":null,"ridge_ai":20.878715502940739,"roofline_s":0.00020356758518518518,"saving_s":9.1952414814814825e-5,"selected_saving_s":7.6779970370370379e-5,"time_s":0.00029552000000000002},"triton_kernels":0}');
INSERT INTO "profiles" VALUES(3,'{"dir":"runs/rmsnorm/profiles/3","held":true,"launch":{"block":[256,1,1],"cc":"9.0","findings":[],"function":"rmsnorm_block","grid":[8192,1,1],"incomplete":false,"kernel":"rmsnorm_block(const float *, const float *, float *, long, float)","launch_id":0,"sources":{"ptxas":null,"sass":"rmsnorm_block(const float *, const float *, float *, long, float)","trace":false},"stage1":{"achieved_bw":3780049665711.5566,"achieved_flops":2648511938872.9702,"ai":0.70065532812897957,"ai_min":null,"attainable_flops":3363145575019.1021,"class":"memory","compute_busy":0.29139999999999999,"compute_frac":0.038653480725769254,"compute_peak":68519364599092.297,"dram_bytes":253293568.0,"evidence":{"latency_stalls":0.84422110552763818,"memory":{"busy":0.89040000000000008,"side":"memory","unit":"L2"},"occupancy_pct":89.159999999999997,"rule":"intensity","sm":{"busy":0.17019999999999999,"side":"sm","unit":"ALU pipe"},"stall":"long_scoreboard","stall_share":0.61230175739391346,"units":[{"busy":0.082799999999999999,"side":"sm","unit":"FMA pipe"},{"busy":0.17019999999999999,"side":"sm","unit":"ALU pipe"},{"busy":0.030600000000000002,"side":"sm","unit":"XU (special-function) pipe"},{"busy":0.0,"side":"sm","unit":"FP64 pipe"},{"busy":0.0019,"side":"sm","unit":"tensor pipe"},{"busy":0.29139999999999999,"side":"sm","unit":"issue slots"},{"busy":0.040591038680744922,"side":"sm","unit":"shared memory"},{"busy":0.038653480725769254,"side":"sm","unit":"FLOP roof"},{"busy":0.78751034702324096,"side":"memory","unit":"DRAM"},{"busy":0.89040000000000008,"side":"memory","unit":"L2"},{"busy":0.29049999999999998,"side":"memory","unit":"L1 (global and local accesses)"}]},"floor_time_s":null,"flops":177471488.0,"flops_fp16":8388608.0,"flops_fp32":169082880.0,"flops_fp64":0.0,"flops_source":"sass counters","flops_tensor":0.0,"incomplete":false,"mem_sol_pct":78.620000000000005,"memory_busy":0.78751034702324096,"memory_frac":0.78751034702324096,"memory_peak":4800000000000.0,"min_bytes":null,"missing_metrics":"","precision":"fp32","reason":"arithmetic intensity 0.701 FLOP/B is below the ridge (14.3) and the memory side is the busy one: L2 89% of peak, 79% of the DRAM roof, against ALU pipe 17% on the SM side","ridge_ai":14.274867624810895,"sm_sol_pct":29.140000000000001,"time_s":6.7008000000000006e-5}},"ncu_s":4.8688846000000012,"profile_s":6.2087742390000074,"triton_kernels":0}');
CREATE TABLE prompts (
  id INTEGER PRIMARY KEY, parent_id INTEGER, node_id INTEGER, mode TEXT NOT NULL,
  round INTEGER NOT NULL DEFAULT 0, sha256 TEXT NOT NULL, text TEXT NOT NULL, created REAL NOT NULL);
INSERT INTO "prompts" VALUES(1,1,2,'initial',0,'189a82c8f59bdc4a45824cf41cd62cdf9356daf5d1343ba601841470cd8eb004','[system]
You are an expert GPU performance engineer. You write CUDA kernels for NVIDIA GPUs that are correct first and then as fast as the hardware allows. You reason from measurements: the roofline position, the bottleneck class and the profiler''s diagnosis you are given, not from habit.

Rules for every answer:
- Reply with one complete Python file in a single ```python code block. Write every line of it: no "..." placeholders, no "rest unchanged" comments.
- Follow the candidate format exactly; the file must define ModelNew.
- Compute the whole result on every call, for any inputs of the given shapes. Do not special-case the test data, cache results between calls, skip work, or call the reference implementation (or the library operation you are replacing) to do the work.
- Keep the reference''s numerical precision unless you are told otherwise.
- Keep prose short: a few sentences before the code block at most.

[user]
# Task: 4_RMSNorm

RMSNorm: y = x / sqrt(mean(x^2, last dim) + eps) * weight.
tolerance: atol 0.0001, rtol 0.0001

## Reference implementation

This is the code to replace. Your version must compute the same outputs, within the tolerance, for the same inputs.

```python
# A KernelBench-format task written for kernelpro''s examples (not taken from KernelBench): RMSNorm
# over the last dimension with a learned scale. PyTorch eager runs it as several kernels, each a
# pass over the 128 MiB activation; one fused kernel needs one read and one write.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    RMSNorm: y = x / sqrt(mean(x^2, last dim) + eps) * weight.
    """

    def __init__(self, dim: int, eps: float):
        super(Model, self).__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


batch_size = 8192
dim = 4096
eps = 1e-6


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [dim, eps]
```

It takes 0.3055 ms per call.

## Where the reference stands (roofline analysis)

Whole task: 5 kernels in 6 launches, 296 us on the GPU; AI 0.463 FLOP/B (ridge 20.9), 1% of the compute roof, 62% of DRAM bandwidth.
The same kernels at their roofs: 204 us. Time that could be saved, by kernel (largest first):
1. elementwise_kernel: 65% of the time (192 us, 2 launches), memory-bound; could save 76.8 us (26% of the task)
2. (not diagnosed) std::array>: 21% of the time (62.3 us, 1 launch), memory-bound; could save 5.85 us (2% of the task)
3. (not diagnosed) reduce_kernel: 12% of the time (36.7 us, 1 launch), memory-bound; could save 5.05 us (2% of the task)
4. (not diagnosed) vectorized_elementwise_kernel: 1% of the time (2.18 us, 1 launch), latency-bound; could save 2.17 us (1% of the task)
5. (not diagnosed) vectorized_elementwise_kernel: 1% of the time (2.11 us, 1 launch), latency-bound; could save 2.1 us (1% of the task)
  memory: arithmetic intensity 0.673 FLOP/B is below the ridge (23.2) and the memory side is the busy one: L2 67% of peak, 54% of the DRAM roof, against ALU pipe 41% on the SM side
  FLOPs 168 M (fp16, sass counters), DRAM 249 MB, AI 0.673 FLOP/B, ridge 23.2
  2.57 TB/s = 54% of DRAM roof; 1.73 TFLOP/s = 1.5% of fp16 roof; ncu SM 57%, memory 53%

## Hardware

NVIDIA H200 SXM 141GB (datasheet): 132 SMs, DRAM 4.8 TB/s, FP32 66.9 TFLOP/s, BF16 tensor 989 TFLOP/s, TF32 tensor 495 TFLOP/s, L2 52 MB, 233 KB shared memory per SM

## Candidate format

The candidate is one Python file defining `class ModelNew(nn.Module)`, a drop-in replacement for `Model`: the same constructor arguments and the same `forward()` arguments and outputs. The harness builds `Model` and `ModelNew` each right after seeding the random generators with 42, so `ModelNew` must create its parameters and submodules (nn.Linear, nn.Conv2d, nn.Parameter ...) in the same order and with the same shapes as `Model` to receive the same weights. Inputs come from `get_inputs()`, already on the GPU.

Write the kernels in CUDA inside the file and build them with kernelpro''s fast path, `kernelpro.fast.load_cuda` (about 1 s to build, cached by content): the source exports `extern "C"` functions that return 0 or a cudaError_t, and `functions` declares each one''s argument kinds: "ptr" (a contiguous CUDA tensor), "i32", "i64", "u64", "f32", "f64", "stream" (left out of the call: PyTorch''s current stream is passed). A nonzero return raises an error naming the function. (`torch.utils.cpp_extension.load_inline` also works, but takes ~27 s to build.)

`forward()` must do the work in your kernels: calling the PyTorch operation you are replacing, or the reference model, is not allowed. Allocate outputs with torch (`torch.empty`, `torch.empty_like`) and pass contiguous tensors.

A worked example for a different task (ReLU over one float32 tensor):

```python
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

RELU_SRC = r"""
#include <cuda_runtime.h>

__global__ void relu4(const float4 *__restrict__ x, float4 *__restrict__ y, long n4)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}

__global__ void relu_tail(const float *__restrict__ x, float *__restrict__ y, long from, long n)
{
    long i = from + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.f);
}

extern "C" int relu(const float *x, float *y, long n, cudaStream_t stream)
{
    long n4 = n / 4;  // torch allocations are 256-byte aligned, so float4 access is legal
    if (n4)
        relu4<<<132 * 8, 256, 0, stream>>>((const float4 *)x, (float4 *)y, n4);
    if (n4 * 4 < n)
        relu_tail<<<1, 4, 0, stream>>>(x, y, n4 * 4, n);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(RELU_SRC, name="relu", functions={"relu": ["ptr", "ptr", "i64", "stream"]})

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.relu(x, y, x.numel())
        return y
```

## Your answer

Write the first optimized version. Let the bottleneck class decide the approach: for a memory-bound task, move the minimum bytes with wide, coalesced accesses and fuse everything into as few passes as possible; for a compute-bound one, use the fastest units for the precision (tensor cores for matrix products) and keep data in registers and shared memory; for a latency-bound one, expose more parallelism and cut launches and synchronizations. Correctness comes first: a fast wrong kernel is worth nothing.

Give the complete file in one ```python block.',1.79616878536129593e+09);
INSERT INTO "prompts" VALUES(2,2,3,'debug',0,'583aadccdcb9eef94b05f88ac9ecec15b489f3f8a84a5202ff340281fc89141e','[system]
You are an expert GPU performance engineer. You write CUDA kernels for NVIDIA GPUs that are correct first and then as fast as the hardware allows. You reason from measurements: the roofline position, the bottleneck class and the profiler''s diagnosis you are given, not from habit.

Rules for every answer:
- Reply with one complete Python file in a single ```python code block. Write every line of it: no "..." placeholders, no "rest unchanged" comments.
- Follow the candidate format exactly; the file must define ModelNew.
- Compute the whole result on every call, for any inputs of the given shapes. Do not special-case the test data, cache results between calls, skip work, or call the reference implementation (or the library operation you are replacing) to do the work.
- Keep the reference''s numerical precision unless you are told otherwise.
- Keep prose short: a few sentences before the code block at most.

[user]
# Repair: 4_RMSNorm

A candidate for this task failed. It runs, but computes the wrong result.

## The failing candidate

```python
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)

// Sum over the block: warp shuffles, then the warps'' partials through shared memory.
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

// One block per row: the sum of squares, then the scaled row.
__global__ void __launch_bounds__(THREADS) rmsnorm_block(const float *__restrict__ x, const float *__restrict__ w,
                                                         float *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (long j = threadIdx.x; j < cols; j += THREADS)
        ss += in[j] * in[j];
    float r = rsqrtf(block_sum(ss, scratch)  + eps);
    for (long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = in[j] * r * w[j];
}

extern "C" int rmsnorm(const float *x, const float *w, float *y, long rows, long cols, float eps, cudaStream_t s)
{
    rmsnorm_block<<<(unsigned)rows, THREADS, 0, s>>>(x, w, y, cols, eps);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="rmsnorm",
                functions={"rmsnorm": ["ptr", "ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))  # created exactly as Model creates it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.rmsnorm(x, self.weight, y, x.shape[0], x.shape[1], self.eps)
        return y
```

## How the output is wrong

Where: trial 1 of 5 (seed 734796314): output: 33534664 of 33554432 elements differ (atol 0.0001, rtol 0.0001)
correctness trial 1 of 5, inputs from seed 734796314:
output: 33534664 of 33554432 elements differ (atol 0.0001, rtol 0.0001); max |diff| 14.4971, mean |diff| 0.626514; first at [0, 0]: got 0.04384753480553627, expected 2.806241273880005

## Task

RMSNorm: y = x / sqrt(mean(x^2, last dim) + eps) * weight.
tolerance: atol 0.0001, rtol 0.0001

## Reference implementation (the behaviour to match)

```python
# A KernelBench-format task written for kernelpro''s examples (not taken from KernelBench): RMSNorm
# over the last dimension with a learned scale. PyTorch eager runs it as several kernels, each a
# pass over the 128 MiB activation; one fused kernel needs one read and one write.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    RMSNorm: y = x / sqrt(mean(x^2, last dim) + eps) * weight.
    """

    def __init__(self, dim: int, eps: float):
        super(Model, self).__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


batch_size = 8192
dim = 4096
eps = 1e-6


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [dim, eps]
```

## Candidate format

The candidate is one Python file defining `class ModelNew(nn.Module)`, a drop-in replacement for `Model`: the same constructor arguments and the same `forward()` arguments and outputs. The harness builds `Model` and `ModelNew` each right after seeding the random generators with 42, so `ModelNew` must create its parameters and submodules (nn.Linear, nn.Conv2d, nn.Parameter ...) in the same order and with the same shapes as `Model` to receive the same weights. Inputs come from `get_inputs()`, already on the GPU.

Write the kernels in CUDA inside the file and build them with kernelpro''s fast path, `kernelpro.fast.load_cuda` (about 1 s to build, cached by content): the source exports `extern "C"` functions that return 0 or a cudaError_t, and `functions` declares each one''s argument kinds: "ptr" (a contiguous CUDA tensor), "i32", "i64", "u64", "f32", "f64", "stream" (left out of the call: PyTorch''s current stream is passed). A nonzero return raises an error naming the function. (`torch.utils.cpp_extension.load_inline` also works, but takes ~27 s to build.)

`forward()` must do the work in your kernels: calling the PyTorch operation you are replacing, or the reference model, is not allowed. Allocate outputs with torch (`torch.empty`, `torch.empty_like`) and pass contiguous tensors.

A worked example for a different task (ReLU over one float32 tensor):

```python
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

RELU_SRC = r"""
#include <cuda_runtime.h>

__global__ void relu4(const float4 *__restrict__ x, float4 *__restrict__ y, long n4)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}

__global__ void relu_tail(const float *__restrict__ x, float *__restrict__ y, long from, long n)
{
    long i = from + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.f);
}

extern "C" int relu(const float *x, float *y, long n, cudaStream_t stream)
{
    long n4 = n / 4;  // torch allocations are 256-byte aligned, so float4 access is legal
    if (n4)
        relu4<<<132 * 8, 256, 0, stream>>>((const float4 *)x, (float4 *)y, n4);
    if (n4 * 4 < n)
        relu_tail<<<1, 4, 0, stream>>>(x, y, n4 * 4, n);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(RELU_SRC, name="relu", functions={"relu": ["ptr", "ptr", "i64", "stream"]})

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.relu(x, y, x.numel())
        return y
```

## Notes from earlier attempts (fixes that worked, mistakes not to repeat)

This version''s line (oldest first):
- #2 initial, wrong_output: PyTorch runs this as several kernels (square, mean, add, rsqrt, two multiplies), each a pass over the 128 MiB activation.
- tried "Issue independent loads early and use the values late: unroll loops so several loads are i" (warp_stalls: Warps stall on global or local memory data (long scoreboard): 74% of the cycles between instructions): helped 0 of 1 times, failed last time

## Your answer

Find the root cause in the evidence above and fix it. Keep the rest of the design, and its speed, unless the design itself is the cause. Say what the cause was in one or two sentences, then give the complete fixed file in one ```python block.',1.79616878763740777e+09);
INSERT INTO "prompts" VALUES(3,3,4,'optimize',0,'61ad167a0a18d3cbcc80391645c7537d8a256ace79129f69429011f87ecb5d6d','[system]
You are an expert GPU performance engineer. You write CUDA kernels for NVIDIA GPUs that are correct first and then as fast as the hardware allows. You reason from measurements: the roofline position, the bottleneck class and the profiler''s diagnosis you are given, not from habit.

Rules for every answer:
- Reply with one complete Python file in a single ```python code block. Write every line of it: no "..." placeholders, no "rest unchanged" comments.
- Follow the candidate format exactly; the file must define ModelNew.
- Compute the whole result on every call, for any inputs of the given shapes. Do not special-case the test data, cache results between calls, skip work, or call the reference implementation (or the library operation you are replacing) to do the work.
- Keep the reference''s numerical precision unless you are told otherwise.
- Keep prose short: a few sentences before the code block at most.

[user]
# Optimize: 4_RMSNorm

This version is correct. Make it faster without changing what it computes.

## Current version

```python
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)

// Sum over the block: warp shuffles, then the warps'' partials through shared memory.
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

// One block per row: the sum of squares, then the scaled row.
__global__ void __launch_bounds__(THREADS) rmsnorm_block(const float *__restrict__ x, const float *__restrict__ w,
                                                         float *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (long j = threadIdx.x; j < cols; j += THREADS)
        ss += in[j] * in[j];
    float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
    for (long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = in[j] * r * w[j];
}

extern "C" int rmsnorm(const float *x, const float *w, float *y, long rows, long cols, float eps, cudaStream_t s)
{
    rmsnorm_block<<<(unsigned)rows, THREADS, 0, s>>>(x, w, y, cols, eps);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="rmsnorm",
                functions={"rmsnorm": ["ptr", "ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))  # created exactly as Model creates it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.rmsnorm(x, self.weight, y, x.shape[0], x.shape[1], self.eps)
        return y
```

## Speed

- this version: 0.07386 ms per call (4.14x the reference''s speed)
- reference: 0.3055 ms
- best version so far: 0.07386 ms (4.14x)

## Roofline position of the task

Whole task: 5 kernels in 6 launches, 296 us on the GPU; AI 0.463 FLOP/B (ridge 20.9), 1% of the compute roof, 62% of DRAM bandwidth.
The same kernels at their roofs: 204 us. Time that could be saved, by kernel (largest first):
1. elementwise_kernel: 65% of the time (192 us, 2 launches), memory-bound; could save 76.8 us (26% of the task)
2. (not diagnosed) std::array>: 21% of the time (62.3 us, 1 launch), memory-bound; could save 5.85 us (2% of the task)
3. (not diagnosed) reduce_kernel: 12% of the time (36.7 us, 1 launch), memory-bound; could save 5.05 us (2% of the task)
4. (not diagnosed) vectorized_elementwise_kernel: 1% of the time (2.18 us, 1 launch), latency-bound; could save 2.17 us (1% of the task)
5. (not diagnosed) vectorized_elementwise_kernel: 1% of the time (2.11 us, 1 launch), latency-bound; could save 2.1 us (1% of the task)
  memory: arithmetic intensity 0.673 FLOP/B is below the ridge (23.2) and the memory side is the busy one: L2 67% of peak, 54% of the DRAM roof, against ALU pipe 41% on the SM side
  FLOPs 168 M (fp16, sass counters), DRAM 249 MB, AI 0.673 FLOP/B, ridge 23.2
  2.57 TB/s = 54% of DRAM roof; 1.73 TFLOP/s = 1.5% of fp16 roof; ncu SM 57%, memory 53%

## Profiling diagnosis of this version

# Feedback for rmsnorm_block
Bottleneck: memory-bound. DRAM 3.78 TB/s of 4.8 TB/s datasheet peak (79%); compute 2.65 TFLOP/s of 68.5 TFLOP/s fp32 peak (3.9%). Speed of light: SM 29%, memory 79%. Time 67.0 us.
Why: arithmetic intensity 0.701 FLOP/B is below the ridge (14.3) and the memory side is the busy one: L2 89% of peak, 79% of the DRAM roof, against ALU pipe 17% on the SM side

## What to try first
1. Load and store 16 bytes per thread: 116 of this kernel''s 116 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 70% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop (vector_width)
2. Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip (sol_gap)

## Findings (most important first)

### 1. [low] Global memory accessed 32 bits at a time (116 of 116 load/store instructions are scalar)
Tool: vector_width; estimated gain up to 9% of the kernel time (the memory-wait share of the headroom to the busiest unit''s practical peak)
Cause: Each thread moves 4 bytes per instruction, so a warp keeps few bytes in flight and the load/store unit issues up to 4x the instructions a 128-bit access needs; warps wait on global memory 70% of their cycles.
Evidence:
- scalar global load/store instructions (SASS): 100.0% (threshold 50.0%)
- average global access width (SASS): 32 bit (threshold 128 bit)
- warp cycles waiting on global memory: 70.4% (threshold 30.0%)
- LDG.E (32-bit) instructions (SASS): 87
- smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio: 28.6 cycles
- share of warp cycles per issued instruction: 61.2% (threshold 30.0%)
Do:
- Load and store 16 bytes per thread: 116 of this kernel''s 116 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 70% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop
- Give each thread several independent elements (a grid-stride loop unrolled 4x, or 4 consecutive elements per thread) so more loads are in flight before the first one returns
- Declare read-only inputs const float* __restrict__ so the compiler may emit LDG.E.128.CONSTANT (the read-only path)
Also seen by: warp_stalls

### 2. [low] At the memory roof: the busiest unit runs at 87% of its practical peak
Tool: sol_gap
Cause: The kernel moves its bytes about as fast as the memory system allows; reordering the same accesses cannot gain much more.
Evidence:
- busiest unit''s share of its practical peak: 87.4% (threshold 80.0%)
- sm__throughput.avg.pct_of_peak_sustained_elapsed: 29.1%
- gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed: 78.6%
- gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed: 78.6%
- achieved DRAM bandwidth: 3.78 TB/s (threshold 4.8 TB/s)
- achieved FLOP rate: 2.65 TFLOP/s (threshold 68.5 TFLOP/s)
Do:
- Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip
- Store inputs/outputs in a narrower type (bf16/fp16, or fp8 with a scale) if the task''s tolerance allows: half the bytes, half the time

(1 folded into the findings that explain them; 0 estimated to gain too little)

No data for: launch_overhead.

## What earlier attempts found

Do not repeat a change that failed or gave no gain.

This version''s line (oldest first):
- #2 initial, wrong_output: PyTorch runs this as several kernels (square, mean, add, rsqrt, two multiplies), each a pass over the 128 MiB activation.
- #3 repair, 4.15x: The outputs were 64 times too small because the kernel used the sum of squares where RMSNorm needs their mean: the fix divides the block''s sum by the number of columns before adding eps.
- tried "Issue independent loads early and use the values late: unroll loops so several loads are i" (warp_stalls: Warps stall on global or local memory data (long scoreboard): 74% of the cycles between instructions): helped 0 of 1 times, failed last time

## Hardware

NVIDIA H200 SXM 141GB (datasheet): 132 SMs, DRAM 4.8 TB/s, FP32 66.9 TFLOP/s, BF16 tensor 989 TFLOP/s, TF32 tensor 495 TFLOP/s, L2 52 MB, 233 KB shared memory per SM

## Task

RMSNorm: y = x / sqrt(mean(x^2, last dim) + eps) * weight.
tolerance: atol 0.0001, rtol 0.0001

## Reference implementation

```python
# A KernelBench-format task written for kernelpro''s examples (not taken from KernelBench): RMSNorm
# over the last dimension with a learned scale. PyTorch eager runs it as several kernels, each a
# pass over the 128 MiB activation; one fused kernel needs one read and one write.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    RMSNorm: y = x / sqrt(mean(x^2, last dim) + eps) * weight.
    """

    def __init__(self, dim: int, eps: float):
        super(Model, self).__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


batch_size = 8192
dim = 4096
eps = 1e-6


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [dim, eps]
```

## Candidate format

The candidate is one Python file defining `class ModelNew(nn.Module)`, a drop-in replacement for `Model`: the same constructor arguments and the same `forward()` arguments and outputs. The harness builds `Model` and `ModelNew` each right after seeding the random generators with 42, so `ModelNew` must create its parameters and submodules (nn.Linear, nn.Conv2d, nn.Parameter ...) in the same order and with the same shapes as `Model` to receive the same weights. Inputs come from `get_inputs()`, already on the GPU.

Write the kernels in CUDA inside the file and build them with kernelpro''s fast path, `kernelpro.fast.load_cuda` (about 1 s to build, cached by content): the source exports `extern "C"` functions that return 0 or a cudaError_t, and `functions` declares each one''s argument kinds: "ptr" (a contiguous CUDA tensor), "i32", "i64", "u64", "f32", "f64", "stream" (left out of the call: PyTorch''s current stream is passed). A nonzero return raises an error naming the function. (`torch.utils.cpp_extension.load_inline` also works, but takes ~27 s to build.)

`forward()` must do the work in your kernels: calling the PyTorch operation you are replacing, or the reference model, is not allowed. Allocate outputs with torch (`torch.empty`, `torch.empty_like`) and pass contiguous tensors.

A worked example for a different task (ReLU over one float32 tensor):

```python
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

RELU_SRC = r"""
#include <cuda_runtime.h>

__global__ void relu4(const float4 *__restrict__ x, float4 *__restrict__ y, long n4)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}

__global__ void relu_tail(const float *__restrict__ x, float *__restrict__ y, long from, long n)
{
    long i = from + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.f);
}

extern "C" int relu(const float *x, float *y, long n, cudaStream_t stream)
{
    long n4 = n / 4;  // torch allocations are 256-byte aligned, so float4 access is legal
    if (n4)
        relu4<<<132 * 8, 256, 0, stream>>>((const float4 *)x, (float4 *)y, n4);
    if (n4 * 4 < n)
        relu_tail<<<1, 4, 0, stream>>>(x, y, n4 * 4, n);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(RELU_SRC, name="relu", functions={"relu": ["ptr", "ptr", "i64", "stream"]})

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.relu(x, y, x.numel())
        return y
```

## Numbers to leave to the tuner

Where the best value of a number can only be found by measuring (threads per block, tile sizes, items per thread, unroll counts), do not settle on one: list the values worth trying. The version builds and runs with the first value of each list, and kernelpro''s tuner then builds, checks and times the other combinations on the GPU, with no further request to you.

```python
KP_TUNE = {"BLOCK": [256, 128, 512], "ITEMS": [4, 2, 8]}   # the first value is the one used untuned
KP_TUNE_CONSTRAINTS = ["BLOCK * ITEMS <= 4096"]            # rules between knobs
BLOCK, ITEMS = KP_TUNE["BLOCK"][0], KP_TUNE["ITEMS"][0]

lib = load_cuda(SRC, name="scale", functions={"scale": ["ptr", "ptr", "i64", "stream"]},
                extra_flags=["-DBLOCK=%d" % BLOCK, "-DITEMS=%d" % ITEMS])   # SRC uses BLOCK and ITEMS as macros
```

- Both assignments are at module level, with literal values: a dict from upper-case names to lists of integers, and a list of strings. Read a value only as `KP_TUNE[name][0]`.
- Every value listed must give a correct kernel. Say what the values must satisfy in `KP_TUNE_CONSTRAINTS`: integer arithmetic and comparisons over knob names and the GPU''s limits (`WARP_SIZE`, `MAX_THREADS_PER_BLOCK`, `SMEM_STATIC_PER_BLOCK`, `SMEM_PER_BLOCK`, `SM_COUNT`), e.g. `"(BM + BN) * BK * 4 <= SMEM_STATIC_PER_BLOCK"`.
- Keep to a few knobs with two to four values each: every combination costs a build and a timing.

## Your answer

Pick the change with the largest expected gain: the diagnosis''s first recommendation unless the notes say it was tried. Make that change, and only what it needs, and keep the result exactly as correct. Say in one or two sentences what you changed and why it will be faster, then give the complete file in one ```python block.',1.79616879607731103e+09);
INSERT INTO "prompts" VALUES(4,3,5,'optimize',0,'676ef6253532e1d484a660dc840d2478d9abcf0091b5686f05ead34db6426785','[system]
You are an expert GPU performance engineer. You write CUDA kernels for NVIDIA GPUs that are correct first and then as fast as the hardware allows. You reason from measurements: the roofline position, the bottleneck class and the profiler''s diagnosis you are given, not from habit.

Rules for every answer:
- Reply with one complete Python file in a single ```python code block. Write every line of it: no "..." placeholders, no "rest unchanged" comments.
- Follow the candidate format exactly; the file must define ModelNew.
- Compute the whole result on every call, for any inputs of the given shapes. Do not special-case the test data, cache results between calls, skip work, or call the reference implementation (or the library operation you are replacing) to do the work.
- Keep the reference''s numerical precision unless you are told otherwise.
- Keep prose short: a few sentences before the code block at most.

[user]
# Optimize: 4_RMSNorm

This version is correct. Make it faster without changing what it computes.

## Current version

```python
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)

// Sum over the block: warp shuffles, then the warps'' partials through shared memory.
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

// One block per row: the sum of squares, then the scaled row.
__global__ void __launch_bounds__(THREADS) rmsnorm_block(const float *__restrict__ x, const float *__restrict__ w,
                                                         float *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (long j = threadIdx.x; j < cols; j += THREADS)
        ss += in[j] * in[j];
    float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
    for (long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = in[j] * r * w[j];
}

extern "C" int rmsnorm(const float *x, const float *w, float *y, long rows, long cols, float eps, cudaStream_t s)
{
    rmsnorm_block<<<(unsigned)rows, THREADS, 0, s>>>(x, w, y, cols, eps);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="rmsnorm",
                functions={"rmsnorm": ["ptr", "ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))  # created exactly as Model creates it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.rmsnorm(x, self.weight, y, x.shape[0], x.shape[1], self.eps)
        return y
```

## Speed

- this version: 0.07386 ms per call (4.14x the reference''s speed)
- reference: 0.3055 ms
- best version so far: 0.07386 ms (4.14x)

## Roofline position of the task

Whole task: 5 kernels in 6 launches, 296 us on the GPU; AI 0.463 FLOP/B (ridge 20.9), 1% of the compute roof, 62% of DRAM bandwidth.
The same kernels at their roofs: 204 us. Time that could be saved, by kernel (largest first):
1. elementwise_kernel: 65% of the time (192 us, 2 launches), memory-bound; could save 76.8 us (26% of the task)
2. (not diagnosed) std::array>: 21% of the time (62.3 us, 1 launch), memory-bound; could save 5.85 us (2% of the task)
3. (not diagnosed) reduce_kernel: 12% of the time (36.7 us, 1 launch), memory-bound; could save 5.05 us (2% of the task)
4. (not diagnosed) vectorized_elementwise_kernel: 1% of the time (2.18 us, 1 launch), latency-bound; could save 2.17 us (1% of the task)
5. (not diagnosed) vectorized_elementwise_kernel: 1% of the time (2.11 us, 1 launch), latency-bound; could save 2.1 us (1% of the task)
  memory: arithmetic intensity 0.673 FLOP/B is below the ridge (23.2) and the memory side is the busy one: L2 67% of peak, 54% of the DRAM roof, against ALU pipe 41% on the SM side
  FLOPs 168 M (fp16, sass counters), DRAM 249 MB, AI 0.673 FLOP/B, ridge 23.2
  2.57 TB/s = 54% of DRAM roof; 1.73 TFLOP/s = 1.5% of fp16 roof; ncu SM 57%, memory 53%

## Profiling diagnosis of this version

# Feedback for rmsnorm_block
Bottleneck: memory-bound. DRAM 3.78 TB/s of 4.8 TB/s datasheet peak (79%); compute 2.65 TFLOP/s of 68.5 TFLOP/s fp32 peak (3.9%). Speed of light: SM 29%, memory 79%. Time 67.0 us.
Why: arithmetic intensity 0.701 FLOP/B is below the ridge (14.3) and the memory side is the busy one: L2 89% of peak, 79% of the DRAM roof, against ALU pipe 17% on the SM side

## What to try first
1. Load and store 16 bytes per thread: 116 of this kernel''s 116 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 70% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop (vector_width)
2. Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip (sol_gap)

## Findings (most important first)

### 1. [low] Global memory accessed 32 bits at a time (116 of 116 load/store instructions are scalar)
Tool: vector_width; estimated gain up to 9% of the kernel time (the memory-wait share of the headroom to the busiest unit''s practical peak)
Cause: Each thread moves 4 bytes per instruction, so a warp keeps few bytes in flight and the load/store unit issues up to 4x the instructions a 128-bit access needs; warps wait on global memory 70% of their cycles.
Evidence:
- scalar global load/store instructions (SASS): 100.0% (threshold 50.0%)
- average global access width (SASS): 32 bit (threshold 128 bit)
- warp cycles waiting on global memory: 70.4% (threshold 30.0%)
- LDG.E (32-bit) instructions (SASS): 87
- smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio: 28.6 cycles
- share of warp cycles per issued instruction: 61.2% (threshold 30.0%)
Do:
- Load and store 16 bytes per thread: 116 of this kernel''s 116 global load/store instructions move 4 bytes (one element per thread per access) while warps wait on memory 70% of their cycles; use reinterpret_cast<const float4*>(in)[i] and reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers are 16-byte aligned, and finish the last n % 4 elements with a scalar loop
- Give each thread several independent elements (a grid-stride loop unrolled 4x, or 4 consecutive elements per thread) so more loads are in flight before the first one returns
- Declare read-only inputs const float* __restrict__ so the compiler may emit LDG.E.128.CONSTANT (the read-only path)
Also seen by: warp_stalls

### 2. [low] At the memory roof: the busiest unit runs at 87% of its practical peak
Tool: sol_gap
Cause: The kernel moves its bytes about as fast as the memory system allows; reordering the same accesses cannot gain much more.
Evidence:
- busiest unit''s share of its practical peak: 87.4% (threshold 80.0%)
- sm__throughput.avg.pct_of_peak_sustained_elapsed: 29.1%
- gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed: 78.6%
- gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed: 78.6%
- achieved DRAM bandwidth: 3.78 TB/s (threshold 4.8 TB/s)
- achieved FLOP rate: 2.65 TFLOP/s (threshold 68.5 TFLOP/s)
Do:
- Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in registers or shared memory instead of a DRAM round trip
- Store inputs/outputs in a narrower type (bf16/fp16, or fp8 with a scale) if the task''s tolerance allows: half the bytes, half the time

(1 folded into the findings that explain them; 0 estimated to gain too little)

No data for: launch_overhead.

## What earlier attempts found

Do not repeat a change that failed or gave no gain.

This version''s line (oldest first):
- #2 initial, wrong_output: PyTorch runs this as several kernels (square, mean, add, rsqrt, two multiplies), each a pass over the 128 MiB activation.
- #3 repair, 4.15x: The outputs were 64 times too small because the kernel used the sum of squares where RMSNorm needs their mean: the fix divides the block''s sum by the number of columns before adding eps.
- tried "Issue independent loads early and use the values late: unroll loops so several loads are i" (warp_stalls: Warps stall on global or local memory data (long scoreboard): 74% of the cycles between instructions): helped 0 of 1 times, failed last time
- tried "Load and store 16 bytes per thread: 116 of this kernel''s 116 global load/store instruction" (vector_width: Global memory accessed 32 bits at a time (116 of 116 load/store instructions are scalar)): helped 0 of 1 times, best -19%
- tried "Move fewer bytes: fuse this kernel with its producer or consumer so intermediates stay in " (sol_gap: At the memory roof: the busiest unit runs at 87% of its practical peak): helped 0 of 1 times, best -19%
- __ldg worked: compiled and correct (3.34x): float4 g = __ldg(&w[threadIdx.x + k * THREADS]);
- float4 worked: compiled and correct (3.34x): // The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.
- #pragma unroll worked: compiled and correct (3.34x): #pragma unroll

## Hardware

NVIDIA H200 SXM 141GB (datasheet): 132 SMs, DRAM 4.8 TB/s, FP32 66.9 TFLOP/s, BF16 tensor 989 TFLOP/s, TF32 tensor 495 TFLOP/s, L2 52 MB, 233 KB shared memory per SM

## Task

RMSNorm: y = x / sqrt(mean(x^2, last dim) + eps) * weight.
tolerance: atol 0.0001, rtol 0.0001

## Reference implementation

```python
# A KernelBench-format task written for kernelpro''s examples (not taken from KernelBench): RMSNorm
# over the last dimension with a learned scale. PyTorch eager runs it as several kernels, each a
# pass over the 128 MiB activation; one fused kernel needs one read and one write.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    RMSNorm: y = x / sqrt(mean(x^2, last dim) + eps) * weight.
    """

    def __init__(self, dim: int, eps: float):
        super(Model, self).__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


batch_size = 8192
dim = 4096
eps = 1e-6


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [dim, eps]
```

## Candidate format

The candidate is one Python file defining `class ModelNew(nn.Module)`, a drop-in replacement for `Model`: the same constructor arguments and the same `forward()` arguments and outputs. The harness builds `Model` and `ModelNew` each right after seeding the random generators with 42, so `ModelNew` must create its parameters and submodules (nn.Linear, nn.Conv2d, nn.Parameter ...) in the same order and with the same shapes as `Model` to receive the same weights. Inputs come from `get_inputs()`, already on the GPU.

Write the kernels in CUDA inside the file and build them with kernelpro''s fast path, `kernelpro.fast.load_cuda` (about 1 s to build, cached by content): the source exports `extern "C"` functions that return 0 or a cudaError_t, and `functions` declares each one''s argument kinds: "ptr" (a contiguous CUDA tensor), "i32", "i64", "u64", "f32", "f64", "stream" (left out of the call: PyTorch''s current stream is passed). A nonzero return raises an error naming the function. (`torch.utils.cpp_extension.load_inline` also works, but takes ~27 s to build.)

`forward()` must do the work in your kernels: calling the PyTorch operation you are replacing, or the reference model, is not allowed. Allocate outputs with torch (`torch.empty`, `torch.empty_like`) and pass contiguous tensors.

A worked example for a different task (ReLU over one float32 tensor):

```python
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

RELU_SRC = r"""
#include <cuda_runtime.h>

__global__ void relu4(const float4 *__restrict__ x, float4 *__restrict__ y, long n4)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}

__global__ void relu_tail(const float *__restrict__ x, float *__restrict__ y, long from, long n)
{
    long i = from + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.f);
}

extern "C" int relu(const float *x, float *y, long n, cudaStream_t stream)
{
    long n4 = n / 4;  // torch allocations are 256-byte aligned, so float4 access is legal
    if (n4)
        relu4<<<132 * 8, 256, 0, stream>>>((const float4 *)x, (float4 *)y, n4);
    if (n4 * 4 < n)
        relu_tail<<<1, 4, 0, stream>>>(x, y, n4 * 4, n);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(RELU_SRC, name="relu", functions={"relu": ["ptr", "ptr", "i64", "stream"]})

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.relu(x, y, x.numel())
        return y
```

## Numbers to leave to the tuner

Where the best value of a number can only be found by measuring (threads per block, tile sizes, items per thread, unroll counts), do not settle on one: list the values worth trying. The version builds and runs with the first value of each list, and kernelpro''s tuner then builds, checks and times the other combinations on the GPU, with no further request to you.

```python
KP_TUNE = {"BLOCK": [256, 128, 512], "ITEMS": [4, 2, 8]}   # the first value is the one used untuned
KP_TUNE_CONSTRAINTS = ["BLOCK * ITEMS <= 4096"]            # rules between knobs
BLOCK, ITEMS = KP_TUNE["BLOCK"][0], KP_TUNE["ITEMS"][0]

lib = load_cuda(SRC, name="scale", functions={"scale": ["ptr", "ptr", "i64", "stream"]},
                extra_flags=["-DBLOCK=%d" % BLOCK, "-DITEMS=%d" % ITEMS])   # SRC uses BLOCK and ITEMS as macros
```

- Both assignments are at module level, with literal values: a dict from upper-case names to lists of integers, and a list of strings. Read a value only as `KP_TUNE[name][0]`.
- Every value listed must give a correct kernel. Say what the values must satisfy in `KP_TUNE_CONSTRAINTS`: integer arithmetic and comparisons over knob names and the GPU''s limits (`WARP_SIZE`, `MAX_THREADS_PER_BLOCK`, `SMEM_STATIC_PER_BLOCK`, `SMEM_PER_BLOCK`, `SM_COUNT`), e.g. `"(BM + BN) * BK * 4 <= SMEM_STATIC_PER_BLOCK"`.
- Keep to a few knobs with two to four values each: every combination costs a build and a timing.

## Your answer

Pick the change with the largest expected gain: the diagnosis''s first recommendation unless the notes say it was tried. Make that change, and only what it needs, and keep the result exactly as correct. Say in one or two sentences what you changed and why it will be faster, then give the complete file in one ```python block.',1.79616879835051798e+09);
CREATE TABLE responses (
  id INTEGER PRIMARY KEY, prompt_id INTEGER NOT NULL REFERENCES prompts(id), text TEXT,
  error TEXT, tokens_in INTEGER NOT NULL DEFAULT 0, tokens_out INTEGER NOT NULL DEFAULT 0,
  cost REAL NOT NULL DEFAULT 0, latency_s REAL, created REAL NOT NULL);
INSERT INTO "responses" VALUES(1,1,'PyTorch runs this as several kernels (square, mean, add, rsqrt, two multiplies), each a pass over the 128 MiB activation. This version fuses them: one block per row computes the sum of squares with a shuffle reduction and writes the scaled row.

```python
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)

// Sum over the block: warp shuffles, then the warps'' partials through shared memory.
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

// One block per row: the sum of squares, then the scaled row.
__global__ void __launch_bounds__(THREADS) rmsnorm_block(const float *__restrict__ x, const float *__restrict__ w,
                                                         float *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (long j = threadIdx.x; j < cols; j += THREADS)
        ss += in[j] * in[j];
    float r = rsqrtf(block_sum(ss, scratch)  + eps);
    for (long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = in[j] * r * w[j];
}

extern "C" int rmsnorm(const float *x, const float *w, float *y, long rows, long cols, float eps, cudaStream_t s)
{
    rmsnorm_block<<<(unsigned)rows, THREADS, 0, s>>>(x, w, y, cols, eps);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="rmsnorm",
                functions={"rmsnorm": ["ptr", "ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))  # created exactly as Model creates it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.rmsnorm(x, self.weight, y, x.shape[0], x.shape[1], self.eps)
        return y
```
',NULL,1722,631,0.0,0.0,1.79616878536129593e+09);
INSERT INTO "responses" VALUES(2,2,'The outputs were 64 times too small because the kernel used the sum of squares where RMSNorm needs their mean: the fix divides the block''s sum by the number of columns before adding eps.

```python
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)

// Sum over the block: warp shuffles, then the warps'' partials through shared memory.
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

// One block per row: the sum of squares, then the scaled row.
__global__ void __launch_bounds__(THREADS) rmsnorm_block(const float *__restrict__ x, const float *__restrict__ w,
                                                         float *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (long j = threadIdx.x; j < cols; j += THREADS)
        ss += in[j] * in[j];
    float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
    for (long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = in[j] * r * w[j];
}

extern "C" int rmsnorm(const float *x, const float *w, float *y, long rows, long cols, float eps, cudaStream_t s)
{
    rmsnorm_block<<<(unsigned)rows, THREADS, 0, s>>>(x, w, y, cols, eps);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="rmsnorm",
                functions={"rmsnorm": ["ptr", "ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))  # created exactly as Model creates it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.rmsnorm(x, self.weight, y, x.shape[0], x.shape[1], self.eps)
        return y
```
',NULL,2076,620,0.0,0.0,1.79616878763740777e+09);
INSERT INTO "responses" VALUES(3,3,'The fused kernel still reads each row twice (once for the sum of squares, once to scale it). With 4096 columns and 256 threads each thread can hold its 16 values in registers, loaded as four float4, so each row is read once and written once; the weight comes through the read-only cache. Other widths keep the two-pass kernel.

```python
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)

// Sum over the block: warp shuffles, then the warps'' partials through shared memory.
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

// One block per row: the sum of squares, then the scaled row.
__global__ void __launch_bounds__(THREADS) rmsnorm_block(const float *__restrict__ x, const float *__restrict__ w,
                                                         float *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (long j = threadIdx.x; j < cols; j += THREADS)
        ss += in[j] * in[j];
    float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
    for (long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = in[j] * r * w[j];
}

// The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.
template <int VEC>
__global__ void __launch_bounds__(THREADS) rmsnorm_regs(const float4 *__restrict__ x, const float4 *__restrict__ w,
                                                        float4 *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float4 *in = x + (size_t)blockIdx.x * (cols / 4);
    float4 *out = y + (size_t)blockIdx.x * (cols / 4);
    float4 v[VEC];
    float ss = 0.0f;
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        v[k] = *(&in[threadIdx.x + k * THREADS]);
        ss += (v[k].x * v[k].x + v[k].y * v[k].y) + (v[k].z * v[k].z + v[k].w * v[k].w);
    }
    float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        float4 g = __ldg(&w[threadIdx.x + k * THREADS]);
        out[threadIdx.x + k * THREADS] = make_float4(v[k].x * r * g.x, v[k].y * r * g.y, v[k].z * r * g.z, v[k].w * r * g.w);
    }
}

extern "C" int rmsnorm(const float *x, const float *w, float *y, long rows, long cols, float eps, cudaStream_t s)
{
    // Tensors from PyTorch''s allocator are 256-byte aligned and rows are 16 KiB: float4 access is legal.
    if (cols == 4 * THREADS * 4)
        rmsnorm_regs<4><<<(unsigned)rows, THREADS, 0, s>>>((const float4 *)x, (const float4 *)w, (float4 *)y, cols, eps);
    else
        rmsnorm_block<<<(unsigned)rows, THREADS, 0, s>>>(x, w, y, cols, eps);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="rmsnorm",
                functions={"rmsnorm": ["ptr", "ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))  # created exactly as Model creates it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.rmsnorm(x, self.weight, y, x.shape[0], x.shape[1], self.eps)
        return y
```
',NULL,3728,982,0.0,0.0,1.79616879607731103e+09);
INSERT INTO "responses" VALUES(4,4,'Each activation byte is now read once and written once; the activation and the output are never reused, so streaming loads and stores (`__ldcs`, `__stcs`) keep them from pushing the weight and other useful lines out of L2.

```python
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)

// Sum over the block: warp shuffles, then the warps'' partials through shared memory.
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

// One block per row: the sum of squares, then the scaled row.
__global__ void __launch_bounds__(THREADS) rmsnorm_block(const float *__restrict__ x, const float *__restrict__ w,
                                                         float *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (long j = threadIdx.x; j < cols; j += THREADS)
        ss += in[j] * in[j];
    float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
    for (long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = in[j] * r * w[j];
}

// The whole row in registers: VEC float4 per thread, read once with 128-bit loads, written once.
template <int VEC>
__global__ void __launch_bounds__(THREADS) rmsnorm_regs(const float4 *__restrict__ x, const float4 *__restrict__ w,
                                                        float4 *__restrict__ y, long cols, float eps)
{
    __shared__ float scratch[WARPS];
    const float4 *in = x + (size_t)blockIdx.x * (cols / 4);
    float4 *out = y + (size_t)blockIdx.x * (cols / 4);
    float4 v[VEC];
    float ss = 0.0f;
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        v[k] = __ldcs(&in[threadIdx.x + k * THREADS]);
        ss += (v[k].x * v[k].x + v[k].y * v[k].y) + (v[k].z * v[k].z + v[k].w * v[k].w);
    }
    float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        float4 g = __ldg(&w[threadIdx.x + k * THREADS]);
        __stcs(&out[threadIdx.x + k * THREADS], make_float4(v[k].x * r * g.x, v[k].y * r * g.y, v[k].z * r * g.z, v[k].w * r * g.w));
    }
}

extern "C" int rmsnorm(const float *x, const float *w, float *y, long rows, long cols, float eps, cudaStream_t s)
{
    // Tensors from PyTorch''s allocator are 256-byte aligned and rows are 16 KiB: float4 access is legal.
    if (cols == 4 * THREADS * 4)
        rmsnorm_regs<4><<<(unsigned)rows, THREADS, 0, s>>>((const float4 *)x, (const float4 *)w, (float4 *)y, cols, eps);
    else
        rmsnorm_block<<<(unsigned)rows, THREADS, 0, s>>>(x, w, y, cols, eps);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="rmsnorm",
                functions={"rmsnorm": ["ptr", "ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))  # created exactly as Model creates it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.rmsnorm(x, self.weight, y, x.shape[0], x.shape[1], self.eps)
        return y
```
',NULL,3919,959,0.0,0.0,1.79616879835051798e+09);
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY, started REAL NOT NULL, updated REAL NOT NULL,
  elapsed_s REAL NOT NULL DEFAULT 0, pid INTEGER, argv TEXT,
  ended INTEGER NOT NULL DEFAULT 0, end_reason TEXT);
INSERT INTO "sessions" VALUES(1,1.79616876068019795e+09,1.79616880057589173e+09,39.895737435,3511,'optimize KernelBench/level1/4_RMSNorm.py',1,'budget: evaluations');
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
