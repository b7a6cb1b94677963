// Reference for bf16_gemm: cuBLAS's GEMM (y = x W^T, bf16 in and out, fp32 accumulation), the figure
// a hand-written kernel is measured against. libcublas is opened at run time (kp_init), so this
// library builds with the plain `nvcc -shared` every native task uses.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "kp_native.h"

// cublasGemmEx is overloaded in C++; this is the one with cublasComputeType_t.
typedef cublasStatus_t (*gemm_ex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
				     const void *, const void *, cudaDataType, int, const void *, cudaDataType, int,
				     const void *, void *, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

static struct {
	void *lib;
	cublasHandle_t handle;
	decltype(&cublasCreate_v2) create;
	decltype(&cublasDestroy_v2) destroy;
	decltype(&cublasSetStream_v2) set_stream;
	gemm_ex_fn gemm_ex;
} cb;

// The loader's path first, then the toolkit's own directory (the GPU machine keeps cuBLAS there).
static void *open_cublas(void)
{
	static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
	const char *home = getenv("CUDA_HOME");
	char path[512];
	void *h = NULL;
	for (int i = 0; i < 3 && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	for (int i = 0; i < 2 && !h; i++) {
		snprintf(path, sizeof(path), "%s/lib64/libcublas.so.13", i == 0 && home && *home ? home : "/usr/local/cuda");
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	}
	return h;
}

KP_EXPORT int kp_init(const kp_tensor *in, int nin, const kp_tensor *out, int nout)
{
	if (nin != 2 || nout != 1 || in[0].dtype != KP_ABI_BF16 || in[1].dtype != KP_ABI_BF16 ||
	    out[0].dtype != KP_ABI_BF16)
		return (int)cudaErrorInvalidValue;
	if (!(cb.lib = open_cublas()))
		return (int)cudaErrorSharedObjectInitFailed;
	*(void **)&cb.create = dlsym(cb.lib, "cublasCreate_v2");
	*(void **)&cb.destroy = dlsym(cb.lib, "cublasDestroy_v2");
	*(void **)&cb.set_stream = dlsym(cb.lib, "cublasSetStream_v2");
	*(void **)&cb.gemm_ex = dlsym(cb.lib, "cublasGemmEx");
	if (!cb.create || !cb.destroy || !cb.set_stream || !cb.gemm_ex || cb.create(&cb.handle) != CUBLAS_STATUS_SUCCESS)
		return (int)cudaErrorSharedObjectSymbolNotFound;
	return 0;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	const int M = (int)in[0].shape[0], K = (int)in[0].shape[1], N = (int)in[1].shape[0];
	const float one = 1.0f, zero = 0.0f;
	if (!cb.handle || in[1].shape[1] != K || out[0].shape[0] != M || out[0].shape[1] != N)
		return (int)cudaErrorInvalidValue;
	cb.set_stream(cb.handle, (cudaStream_t)stream);
	// Row-major y (M x N) is column-major y^T (N x M) = W (N x K) * x^T (K x M): W is column-major
	// K x N, so transpose it; x is column-major K x M as it is.
	cublasStatus_t st = cb.gemm_ex(cb.handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, in[1].data, CUDA_R_16BF, K,
				       in[0].data, CUDA_R_16BF, K, &zero, out[0].data, CUDA_R_16BF, N,
				       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
	return st == CUBLAS_STATUS_SUCCESS ? 0 : 1000 + (int)st;
}

KP_EXPORT void kp_fini(void)
{
	if (cb.handle)
		cb.destroy(cb.handle);
	cb.handle = NULL;
	// The library stays loaded: cuBLAS registers process-wide state that outlives the handle.
}
