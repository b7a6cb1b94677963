/* The two harness drivers: what kernelpro hands the PyTorch adapter (a JSON config) and the native
 * harness (spec lines), and the command lines that start them. */
#ifndef KP_EVAL_DRIVERS_H
#define KP_EVAL_DRIVERS_H

#include "eval/build.h"
#include "kernelpro/eval.h"
#include "kernelpro/task.h"

/* Everything one harness run needs to know. */
struct kp_eval_ctx {
	const struct kp_task *task;
	const struct kp_eval_opts *o;
	struct kp_toolchain tc;
	const char *mode;        /* "eval", "run" (prepared runs, sanitizer), "baseline" */
	long iters;              /* mode "run" */
	int with_compile;        /* mode "baseline": also torch.compile */
	const char *cand_path;   /* the candidate's copy in the work directory; NULL for baselines */
	const char *cand_sha;    /* its SHA-256 */
	const char *work_dir;
	double atol, rtol;       /* the tolerance in force (KernelBench tasks; native outputs may differ) */
};

/* The tolerance for output `i` under the options (explicit, v0.1 mode, task, dtype default). */
void kp_eval_tolerance(const struct kp_task *t, const struct kp_eval_opts *o, size_t i, double *atol, double *rtol);

/* Where that tolerance comes from: "option", "task", "kernelbench-v0.1" or "default". */
const char *kp_eval_tolerance_source(const struct kp_task *t, const struct kp_eval_opts *o, size_t i);

/* CUDA_VISIBLE_DEVICES=<device> for the child, mapping opts->gpu through the parent's own list,
 * NVIDIA_TF32_OVERRIDE=0 (TF32 off in cuBLAS/cuDNN for both sides) and TRITON_F32_DEFAULT=ieee
 * (Triton's tl.dot on fp32 operands in full fp32 unless a kernel asks otherwise). */
int kp_eval_gpu_env(int gpu, struct kp_strvec *env, struct kp_error *err);

/*
 * Fill in cmd (argv, env, input, timeout) for the task's driver. For native tasks this builds the
 * reference and the candidate first: a candidate that does not compile gives a compile_error
 * verdict in `v` and an empty cmd->argv (return 0); a reference that does not compile is an error.
 */
/*
 * The Triton cache directory of a PyTorch-adapter run (TRITON_CACHE_DIR, lib/eval/triton.c):
 * <cache>/triton/<16 hex digits of the candidate's SHA-256>, or of the task's source for a run
 * without a candidate. New string.
 */
char *kp_eval_triton_cache(const struct kp_toolchain *tc, const char *cand_sha, const struct kp_task *t);

int kp_torch_prepare(struct kp_eval_ctx *x, struct kp_eval_cmd *cmd, struct kp_verdict *v, struct kp_error *err);
int kp_native_prepare(struct kp_eval_ctx *x, struct kp_eval_cmd *cmd, struct kp_verdict *v, struct kp_error *err);

#endif
