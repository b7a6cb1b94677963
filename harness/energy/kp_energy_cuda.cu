// The CUDA side of energy measurement: launch workloads timed with events, NVML by PCI bus id,
// seeded fills, and the driver's output protocol. See kp_energy_cuda.h.
#include "kp_energy_cuda.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "../include/kp_native.h"

int kp_cuda_error(struct kp_error *err, cudaError_t e, const char *what)
{
	return kp_error_set(err, e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? KP_ENODEV : KP_ECHILD,
			    "%s: %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

static int workload_run(void *ud, long n, double *gpu_seconds, struct kp_error *err)
{
	struct kp_cuda_workload *cw = (struct kp_cuda_workload *)ud;
	cudaError_t e;
	float ms = 0;

	*gpu_seconds = NAN;
	if ((e = cudaEventRecord(cw->e0, cw->stream)) != cudaSuccess)
		return kp_cuda_error(err, e, "cudaEventRecord");
	for (long i = 0; i < n; i++) {
		int r = cw->launch(cw->ud, cw->stream);
		if (r != 0) {
			/* A task's kp_run returns a cudaError_t when it can: name it. */
			const char *name = cudaGetErrorName((cudaError_t)r);
			return kp_error_set(err, KP_ECHILD, "%s: launch %ld of %ld returned %d (%s)", cw->name, i + 1, n, r,
					    name && strcmp(name, "unrecognized error code") ? name : "not a CUDA error");
		}
	}
	if ((e = cudaEventRecord(cw->e1, cw->stream)) != cudaSuccess)
		return kp_cuda_error(err, e, "cudaEventRecord");
	if ((e = cudaEventSynchronize(cw->e1)) != cudaSuccess || (e = cudaGetLastError()) != cudaSuccess)
		return kp_cuda_error(err, e, cw->name);
	if ((e = cudaEventElapsedTime(&ms, cw->e0, cw->e1)) != cudaSuccess)
		return kp_cuda_error(err, e, "cudaEventElapsedTime");
	*gpu_seconds = ms / 1000.0;
	return 0;
}

int kp_cuda_workload_init(struct kp_cuda_workload *cw, const char *name, kp_launch_fn f, void *ud,
			  struct kp_error *err)
{
	cudaError_t e;
	memset(cw, 0, sizeof(*cw));
	cw->name = name;
	cw->launch = f;
	cw->ud = ud;
	if ((e = cudaStreamCreateWithFlags(&cw->stream, cudaStreamNonBlocking)) != cudaSuccess ||
	    (e = cudaEventCreate(&cw->e0)) != cudaSuccess || (e = cudaEventCreate(&cw->e1)) != cudaSuccess)
		return kp_cuda_error(err, e, "creating a stream and events");
	cw->w.name = name;
	cw->w.ud = cw;
	cw->w.run = workload_run;
	return 0;
}

void kp_cuda_workload_release(struct kp_cuda_workload *cw)
{
	if (cw->e0)
		cudaEventDestroy(cw->e0);
	if (cw->e1)
		cudaEventDestroy(cw->e1);
	if (cw->stream)
		cudaStreamDestroy(cw->stream);
	memset(cw, 0, sizeof(*cw));
}

int kp_cuda_open_meter(int device, struct kp_energy_nvml **nvml, struct kp_energy_meter *m, struct kp_error *err)
{
	char pci[64] = "";
	cudaError_t e;
	int rc;

	/* NVML first: on a machine without it, "energy unavailable" is the answer, whatever CUDA says. */
	if ((rc = kp_energy_nvml_open(nvml, NULL, -1, err)))
		return rc;
	if ((e = cudaSetDevice(device)) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess ||
	    (e = cudaDeviceGetPCIBusId(pci, (int)sizeof(pci), device)) != cudaSuccess) {
		rc = kp_cuda_error(err, e, "CUDA device");
		goto fail;
	}
	if ((rc = kp_energy_nvml_select(*nvml, pci, device, err)))
		goto fail;
	kp_energy_nvml_meter(*nvml, m);
	return 0;
fail:
	kp_energy_nvml_close(*nvml);
	*nvml = NULL;
	return rc;
}

/* ---- seeded fills ----------------------------------------------------------------------------- */

/* The generator of harness/native/kp_native_harness.cu, value for value: with the same seed the
 * energy driver sees the very inputs that `kernelpro eval` timed. */
__device__ __host__ static uint64_t splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

__device__ static double u01(uint64_t seed, uint64_t i, uint64_t lane)
{
	return (double)(splitmix64(seed ^ splitmix64(2 * i + lane)) >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t kp_cuda_input_seed(uint64_t seed, int i)
{
	return splitmix64(seed ^ splitmix64(0x1000 + (uint64_t)i));
}

template <typename T> __device__ static T cast(double v)
{
	return (T)v;
}
template <> __device__ __half cast<__half>(double v)
{
	return __float2half((float)v);
}
template <> __device__ __nv_bfloat16 cast<__nv_bfloat16>(double v)
{
	return __float2bfloat16((float)v);
}

template <typename T>
__global__ static void fill_kernel(T *p, size_t n, int kind, double a, double b, uint64_t seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		double v;
		switch (kind) {
		case 1: {
			double u1 = fmax(u01(seed, i, 0), 1e-300), u2 = u01(seed, i, 1);
			v = a + b * sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
			break;
		}
		case 2: v = floor(a + u01(seed, i, 0) * (b - a)); break;
		case 3: v = a; break;
		case 4: v = a + (double)i * b; break;
		default: v = a + u01(seed, i, 0) * (b - a); break;
		}
		p[i] = cast<T>(v);
	}
}

int kp_cuda_fill(void *ptr, int dtype, size_t n, int kind, double a, double b, uint64_t seed, cudaStream_t s,
		 struct kp_error *err)
{
	unsigned grid = 1024, block = 256;
	cudaError_t e;
	switch (dtype) {
	case KP_ABI_F32: fill_kernel<<<grid, block, 0, s>>>((float *)ptr, n, kind, a, b, seed); break;
	case KP_ABI_F16: fill_kernel<<<grid, block, 0, s>>>((__half *)ptr, n, kind, a, b, seed); break;
	case KP_ABI_BF16: fill_kernel<<<grid, block, 0, s>>>((__nv_bfloat16 *)ptr, n, kind, a, b, seed); break;
	case KP_ABI_F64: fill_kernel<<<grid, block, 0, s>>>((double *)ptr, n, kind, a, b, seed); break;
	case KP_ABI_I32: fill_kernel<<<grid, block, 0, s>>>((int32_t *)ptr, n, kind, a, b, seed); break;
	case KP_ABI_I64: fill_kernel<<<grid, block, 0, s>>>((int64_t *)ptr, n, kind, a, b, seed); break;
	case KP_ABI_I8: fill_kernel<<<grid, block, 0, s>>>((int8_t *)ptr, n, kind, a, b, seed); break;
	case KP_ABI_U8: fill_kernel<<<grid, block, 0, s>>>((uint8_t *)ptr, n, kind, a, b, seed); break;
	default: return kp_error_set(err, KP_EINVAL, "fill: unknown dtype %d", dtype);
	}
	if ((e = cudaGetLastError()) != cudaSuccess)
		return kp_cuda_error(err, e, "fill");
	return 0;
}

int kp_cuda_parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(s, &end);
	return (end == s || *end || errno || !(*out >= lo && *out <= hi)) ? -1 : 0;
}

/* ---- output protocol ----------------------------------------------------------------------------- */

int kp_energy_exit_ok(const struct kp_energy_measurement *m, size_t n, const char *workload)
{
	struct kp_buf b = KP_BUF_INIT;
	kp_energy_driver_result(&b, m, n, workload);
	fputs(b.buf, stdout);
	fflush(stdout);
	kp_buf_release(&b);
	return 0;
}

int kp_energy_exit_fail(const struct kp_error *err)
{
	struct kp_buf b = KP_BUF_INIT;
	kp_energy_driver_failure(&b, err);
	fputs(b.buf, stdout);
	fflush(stdout);
	kp_buf_release(&b);
	fprintf(stderr, "kp-energy: %s\n", kp_error_msg(err));
	return err->code == KP_ENOTOOL || err->code == KP_ENODEV ? 3 : 1; /* as kp_exit_for */
}
