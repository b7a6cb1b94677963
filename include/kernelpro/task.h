/* Tasks: what kernelpro optimizes. KernelBench .py files, Triton .py files and native CUDA task directories. */
#ifndef KERNELPRO_TASK_H
#define KERNELPRO_TASK_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"

/*
 * Three formats (docs/native-tasks.md and docs/triton.md have the whole contract):
 *
 *  - KernelBench: one unmodified .py file defining `class Model`,
 *    `get_inputs()` and `get_init_inputs()`. Candidates are Python sources
 *    defining `class ModelNew`. Shapes are only known once PyTorch runs, so
 *    `inputs`/`outputs` stay empty for this kind.
 *  - Triton: the same file layout, with the reference's work done by
 *    @triton.jit kernels that Model.forward launches (lib/task/triton.c).
 *    Candidates are Python sources defining `class ModelNew`, in Triton or
 *    CUDA. Optional FLOP and byte hints: module-level KERNELPRO_FLOPS and
 *    KERNELPRO_MIN_BYTES (integer products).
 *  - native: a directory with task.json (inputs with shape, dtype and fill;
 *    outputs; tolerance) and reference.cu exporting the C ABI of
 *    harness/include/kp_native.h. Candidates are .cu files with the same ABI.
 */
enum kp_task_kind {
	KP_TASK_KERNELBENCH = 1,
	KP_TASK_NATIVE = 2,
	KP_TASK_TRITON = 3,
};

/* Element types. The numbers are the ABI's KP_ABI_* values (harness/include/kp_native.h). */
enum kp_dtype {
	KP_DTYPE_F32 = 0,
	KP_DTYPE_F16 = 1,
	KP_DTYPE_BF16 = 2,
	KP_DTYPE_F64 = 3,
	KP_DTYPE_I32 = 4,
	KP_DTYPE_I64 = 5,
	KP_DTYPE_I8 = 6,
	KP_DTYPE_U8 = 7,
};
#define KP_DTYPE_COUNT 8

const char *kp_dtype_name(enum kp_dtype t); /* "f32", "f16", "bf16", "f64", "i32", "i64", "i8", "u8" */
/* Accepts the names above and the spellings "float32", "fp32", "float", "half", "bfloat16", ... */
int kp_dtype_parse(const char *s, enum kp_dtype *out);
size_t kp_dtype_size(enum kp_dtype t);
int kp_dtype_is_float(enum kp_dtype t);
/* The default atol = rtol for outputs of this type: 1e-4 for f32/f64, 1e-2 for f16/bf16, 0 for integers. */
double kp_dtype_default_tol(enum kp_dtype t);

/* How the harness fills an input (seeded, on the GPU; the same seed gives the same data). */
enum kp_fill_kind {
	KP_FILL_UNIFORM = 0, /* uniform in [a, b) */
	KP_FILL_NORMAL = 1,  /* mean a, standard deviation b */
	KP_FILL_RANDINT = 2, /* integers in [a, b) */
	KP_FILL_CONST = 3,   /* every element a */
	KP_FILL_ARANGE = 4,  /* element i = a + i * b */
};
const char *kp_fill_name(enum kp_fill_kind k); /* "uniform", "normal", "randint", "const", "arange" */

struct kp_fill {
	enum kp_fill_kind kind;
	double a, b;
};

#define KP_MAX_DIMS 8

struct kp_tensor_spec {
	char *name;
	enum kp_dtype dtype;
	int ndim;                     /* 0 .. KP_MAX_DIMS; 0 is a scalar (one element) */
	int64_t shape[KP_MAX_DIMS];
	struct kp_fill fill;          /* inputs only */
	double atol, rtol;            /* outputs only: NAN means the task's tolerance */
};

int64_t kp_tensor_spec_numel(const struct kp_tensor_spec *s);
/* numel * element size; 0 on overflow (the parser rejects such shapes). */
uint64_t kp_tensor_spec_bytes(const struct kp_tensor_spec *s);

struct kp_task {
	enum kp_task_kind kind;
	char *name;          /* task.json "name", else the file or directory name */
	char *path;          /* what was loaded: the .py file, or the task directory */
	char *dir;           /* the directory holding it (candidates' relative includes resolve here) */
	char *reference;     /* the reference source path: the .py itself, or <dir>/reference.cu */
	char *source;        /* the reference source text */
	char *description;   /* task.json "description", or the Model class docstring; may be NULL */
	enum kp_dtype precision; /* KernelBench: what models run at (default f32); native: the first output's type */
	double atol, rtol;   /* the task's tolerance; NAN: kp_dtype_default_tol(precision) */

	/* Native tasks only. */
	struct kp_tensor_spec *inputs;
	size_t ninputs;
	struct kp_tensor_spec *outputs;
	size_t noutputs;

	/* Hints for Stage 1 (task.json "flops", "min_bytes"; a Triton task's KERNELPRO_FLOPS and
	 * KERNELPRO_MIN_BYTES). NAN when unknown. For native tasks
	 * min_bytes defaults to the inputs' and outputs' total size. */
	double flops;
	double min_bytes;

	/* 1: no correctness trial with rescaled inputs (task.json "scaled_trial": false), for tasks whose
	 * inputs must stay in their range (probabilities, indices stored as floats). */
	int scaled_trial_off;
};

/* Lifecycle. */
void kp_task_init(struct kp_task *t);

/*
 * Loads a task from `path`: a KernelBench .py file, a native task directory,
 * or the task.json inside one. Checks the format (a .py must define Model,
 * get_inputs and get_init_inputs; a native task needs task.json and
 * reference.cu) and fails with KP_EPARSE or KP_ENOENT and a message naming
 * the file and what to fix.
 */
int kp_task_load(struct kp_task *t, const char *path, struct kp_error *err);

/*
 * Parses task.json text for a native task whose directory is `dir` (the
 * reference is not read). Used by kp_task_load and by the fuzz target.
 */
int kp_task_parse_native(struct kp_task *t, const char *text, size_t len, const char *dir,
			 struct kp_error *err);

/*
 * Reads a task's or a candidate's source (at most `cap` bytes) into `out`: a regular file only. A FIFO,
 * socket or device fails at once with KP_EINVAL instead of blocking (opened with O_NONBLOCK).
 */
int kp_task_read_file(const char *path, size_t cap, struct kp_buf *out, struct kp_error *err);

/* Frees everything the task holds and leaves it zeroed. Safe twice. */
void kp_task_release(struct kp_task *t);

/* The tolerance that applies to output `i` (or the task's when i is out of range). */
void kp_task_tolerance(const struct kp_task *t, size_t i, double *atol, double *rtol);

/*
 * The task in words for the programmer's prompts: its description, each tensor ("input x: f32
 * [8192, 4096]") and the tolerance. Deterministic. Appends to out.
 */
void kp_task_describe(const struct kp_task *t, struct kp_buf *out);

/* A description of the task as JSON (kind, name, paths, precision, tensors, hints); new reference. */
json_t *kp_task_to_json(const struct kp_task *t);

const char *kp_task_kind_name(enum kp_task_kind k); /* "kernelbench", "native", "triton" */

/*
 * The Python source of a task or candidate has Triton kernels: a @triton.jit (or triton.jit(...))
 * outside comments. Used to tell a Triton task from a KernelBench one and a Triton candidate from a
 * CUDA one (lib/task/triton.c).
 */
int kp_py_has_triton(const char *src, size_t len);

#endif
