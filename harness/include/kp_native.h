/*
 * kp_native.h: the C ABI of a native kernelpro task (version 1). reference.cu and every candidate
 * .cu export kp_run(); the harness hands them device tensors described by task.json.
 * docs/native-tasks.md is the full contract. This header needs nothing but <stdint.h>.
 */
#ifndef KP_NATIVE_H
#define KP_NATIVE_H

#include <stdint.h>

#define KP_ABI_VERSION 1

/* Element types (task.json "dtype"). The numbers never change. */
enum {
	KP_ABI_F32 = 0,  /* "f32"  float */
	KP_ABI_F16 = 1,  /* "f16"  __half */
	KP_ABI_BF16 = 2, /* "bf16" __nv_bfloat16 */
	KP_ABI_F64 = 3,  /* "f64"  double */
	KP_ABI_I32 = 4,  /* "i32"  int32_t */
	KP_ABI_I64 = 5,  /* "i64"  int64_t */
	KP_ABI_I8 = 6,   /* "i8"   int8_t */
	KP_ABI_U8 = 7,   /* "u8"   uint8_t (also booleans) */
};

#define KP_ABI_MAX_DIMS 8

/* One tensor: contiguous, row-major device memory, 256-byte aligned. */
typedef struct kp_tensor {
	void *data;                       /* device pointer */
	int32_t dtype;                    /* KP_ABI_* */
	int32_t ndim;                     /* 0 .. 8; 0 is a scalar (one element) */
	int64_t shape[KP_ABI_MAX_DIMS];   /* shape[ndim..7] are 1 */
	int64_t numel;                    /* product of the shape */
	const char *name;                 /* the name from task.json */
} kp_tensor;

/* The same type as cudaStream_t, without needing the CUDA headers. */
struct CUstream_st;
typedef struct CUstream_st *kp_stream_t;

#ifdef __cplusplus
#define KP_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define KP_EXPORT __attribute__((visibility("default")))
#endif

/*
 * Required. Computes out[] from in[] with work enqueued on `stream` (launch
 * with <<<grid, block, smem, stream>>>; do not synchronize the device, do not
 * create streams or threads). Tensors come in task.json order. Returns 0 on
 * success, anything else (e.g. a cudaError_t) on failure; the harness
 * reports the value with cudaGetErrorString's text when it is one.
 *
 * Must be callable any number of times, compute the whole result every
 * time, and write every element of every output: outputs are filled with a
 * poison pattern before each call and checked afterwards.
 */
KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream);

/*
 * Optional. Called once before the first kp_run with the same tensors
 * (allocate workspace here, check shapes); nonzero fails the evaluation.
 */
KP_EXPORT int kp_init(const kp_tensor *in, int nin, const kp_tensor *out, int nout);

/* Optional. Called once after the last kp_run (free workspace). */
KP_EXPORT void kp_fini(void);

#endif
