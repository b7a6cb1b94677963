/* Harness drivers: the PyTorch adapter's JSON config, the native harness's spec lines (with the
 * reference and candidate builds), the GPU selection, and the tolerance in force. */
#include "base/setup.h"

#include <ctype.h>
#include <math.h>

#include "eval/drivers.h"
#include "eval/excerpt.h"
#include "eval/natspec.h"
#include "eval/preproc.h"
#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/json.h"
#include "kernelpro/toolchain.h"
#include "kernelpro/str.h"
#include "kernelpro/task_kind.h"

#define COMPILE_LOG_CAP 6000

void kp_eval_tolerance(const struct kp_task *t, const struct kp_eval_opts *o, size_t i, double *atol, double *rtol)
{
	kp_task_tolerance(t, i, atol, rtol);
	if (o->tol_mode == KP_TOL_KB_V01 && kp_dtype_is_float(t->precision)) {
		/* v0/v0.1 used 1e-2 for everything; an explicit task.json tolerance still wins. */
		int explicit_tol = !isnan(t->atol) || (kp_task_kind_info(t->kind)->spec_tensors && i < t->noutputs &&
		                                       !isnan(t->outputs[i].atol));
		if (!explicit_tol)
			*atol = *rtol = 1e-2;
	}
	if (!isnan(o->atol))
		*atol = o->atol;
	if (!isnan(o->rtol))
		*rtol = o->rtol;
}

const char *kp_eval_tolerance_source(const struct kp_task *t, const struct kp_eval_opts *o, size_t i)
{
	int task_tol = !isnan(t->atol) ||
	               (kp_task_kind_info(t->kind)->spec_tensors && i < t->noutputs && !isnan(t->outputs[i].atol));
	if (!isnan(o->atol) || !isnan(o->rtol))
		return "option";
	if (task_tol)
		return "task";
	if (o->tol_mode == KP_TOL_KB_V01 && kp_dtype_is_float(t->precision))
		return "kernelbench-v0.1";
	return "default";
}

/* The device the child sees as its GPU: CUDA_VISIBLE_DEVICES's entry `gpu` when that is set (an index
 * or a UUID), else the index itself; KP_EINVAL when the list is shorter. */
static int visible_device(int gpu, struct kp_buf *out, struct kp_error *err)
{
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	struct kp_strvec parts = KP_STRVEC_INIT;
	int rc = 0;

	if (gpu < 0)
		return kp_error_set(err, KP_EINVAL, "gpu index %d: must be 0 or more", gpu);
	if (!cvd || !*cvd) {
		kp_buf_addf(out, "%d", gpu);
		return 0;
	}
	kp_strvec_split(&parts, cvd, ',');
	if ((size_t)gpu >= parts.n)
		rc = kp_error_set(err, KP_EINVAL, "gpu %d: CUDA_VISIBLE_DEVICES='%s' lists only %zu device(s)", gpu, cvd,
		                  parts.n);
	else
		kp_buf_adds(out, parts.v[gpu]);
	kp_strvec_release(&parts);
	return rc;
}

/* The lock of the device behind index `gpu`, named as the child sees it (visible_device: the same
 * physical GPU under another index shares it), else by the index. */
static void gpu_lock_path(const char *cache, int gpu, struct kp_buf *out)
{
	struct kp_buf id = KP_BUF_INIT;
	struct kp_error ignore = KP_ERROR_INIT;

	kp_buf_addf(out, "%s/gpu-locks/", cache);
	if (visible_device(gpu, &id, &ignore))
		kp_buf_addf(out, "%d", gpu);
	else
		for (const char *p = id.buf; *p; p++) /* a UUID or an index: nothing but [A-Za-z0-9-] in the name */
			kp_buf_addch(out, (isalnum((unsigned char)*p) || *p == '-') ? *p : '_');
	kp_buf_adds(out, ".lock");
	kp_buf_release(&id);
}

int kp_eval_gpu_env(int gpu, struct kp_strvec *env, struct kp_error *err)
{
	struct kp_buf id = KP_BUF_INIT;
	int rc = visible_device(gpu, &id, err);

	if (!rc) {
		kp_strvec_pushf(env, "CUDA_VISIBLE_DEVICES=%s", id.buf);
		/* TF32 off in cuBLAS and cuDNN whatever either side asks for, and in Triton's tl.dot unless a
		 * kernel asks (which the precision check refuses in fp32 tasks): an fp32 task stays fp32. */
		kp_strvec_pushl(env, "NVIDIA_TF32_OVERRIDE=0", "TRITON_F32_DEFAULT=ieee", NULL);
	}
	kp_buf_release(&id);
	return rc;
}

static json_t *str_array(const char *const *v)
{
	json_t *a = json_array();
	for (; v && *v; v++)
		json_array_append_new(a, json_string(*v));
	return a;
}

/* --- PyTorch adapter --------------------------------------------------------------------------- */

/* Whether the candidate may build a CUTLASS/CuTe source: its text names "cute/" or "cutlass/" (an
 * #include of their headers must, wherever the CUDA text is put together), or it cannot be read, or
 * there is none (baselines). Only then is CUTLASS looked for: without .cutlass or CUTLASS_PATH,
 * kp_cutlass_cached starts a python3 to ask pip's nvidia-cutlass, tens of ms of every evaluation. */
static int may_use_cutlass(const char *cand_path)
{
	struct kp_buf text = KP_BUF_INIT;
	int named = 1;
	if (cand_path && kp_read_file(cand_path, 16u << 20, &text, NULL) == 0)
		named = memmem(text.buf, text.len, "cute/", 5) || memmem(text.buf, text.len, "cutlass/", 8);
	kp_buf_release(&text);
	return named;
}

/* Over 80 lines: the adapter's configuration written field by field (task, limits, build, checks,
 * environment): a list the adapter reads back, not logic. */
int kp_torch_prepare(struct kp_eval_ctx *x, struct kp_eval_cmd *cmd, struct kp_verdict *v, struct kp_error *err)
{
	const struct kp_eval_opts *o = x->o;
	const char *python = o->python ? o->python : getenv("KERNELPRO_PYTHON");
	char *script = kp_find_data("harness/kp_torch.py");
	json_t *cfg = json_object(), *limits, *build;
	struct kp_buf ext = KP_BUF_INIT;
	int rc = 0;

	(void)v;
	if (!script) {
		rc = kp_error_set(err, KP_ENOTOOL,
				  "harness/kp_torch.py not found: run kernelpro from its build or install tree, or set "
				  "KERNELPRO_HOME to the directory holding harness/");
		goto out;
	}
	kp_json_set(cfg, "mode", json_string(x->mode));
	kp_json_set(cfg, "task", json_string(x->task->path));
	kp_json_set(cfg, "candidate", x->cand_path ? json_string(x->cand_path) : NULL);
	kp_json_set(cfg, "seed", json_integer(o->seed));
	kp_json_set(cfg, "correct_trials", json_integer(o->correct_trials));
	kp_json_set(cfg, "warmup", json_integer(o->warmup));
	kp_json_set(cfg, "trials", json_integer(o->timing_trials));
	kp_json_set(cfg, "discard_first", json_integer(o->discard_first));
	kp_json_set(cfg, "time_candidate", json_boolean(o->time_candidate));
	kp_json_set(cfg, "time_reference", json_boolean(o->time_reference));
	kp_json_set(cfg, "l2_flush", json_boolean(o->l2_flush));
	kp_json_set(cfg, "build_only", json_boolean(o->build_only));
	kp_json_set(cfg, "precision", json_string(kp_dtype_name(x->task->precision)));
	kp_json_set(cfg, "atol", json_real(x->atol));
	kp_json_set(cfg, "rtol", json_real(x->rtol));
	kp_json_set(cfg, "loop_s", json_real(o->loop_s));
	kp_json_set(cfg, "iters", json_integer(x->iters));
	kp_json_set(cfg, "with_compile", json_boolean(x->with_compile || (!strcmp(x->mode, "eval") && o->time_compiled)));
	kp_json_set(cfg, "checks_off", str_array(o->allow_checks));
	kp_json_set(cfg, "cpu_inputs", json_boolean(o->cpu_inputs));
	if (o->gpu_lock) {
		struct kp_buf lock = KP_BUF_INIT;
		gpu_lock_path(x->tc.cache, o->gpu, &lock);
		kp_json_set(cfg, "gpu_lock", json_string(lock.buf));
		kp_buf_release(&lock);
	}
	limits = json_object();
	build = json_object();
	kp_json_set(limits, "build", json_real(o->build_timeout_s));
	kp_json_set(limits, "check", json_real(o->check_timeout_s));
	kp_json_set(limits, "timing", json_real(o->timing_timeout_s));
	kp_json_set(cfg, "limits", limits);
	kp_json_set(build, "nvcc", json_string(x->tc.nvcc));
	kp_json_set(build, "nvcc_version", json_string(x->tc.version));
	kp_json_set(build, "arch", json_string(x->tc.arch));
	kp_json_set(build, "cache", json_string(x->tc.cache));
	kp_json_set(build, "flags", str_array((const char *const *)x->tc.flags.v));
	{
		/* The fast path builds CUTLASS/CuTe sources with these headers (build.py, source_build). */
		const struct kp_cutlass *cl = may_use_cutlass(x->cand_path) ? kp_cutlass_cached(NULL) : NULL;
		if (cl) {
			json_t *cj = json_object(), *inc = json_array();
			json_array_append_new(inc, json_string(cl->include));
			if (cl->util_include)
				json_array_append_new(inc, json_string(cl->util_include));
			kp_json_set(cj, "include", inc);
			kp_json_set(cj, "version", json_string(cl->version));
			kp_json_set(build, "cutlass", cj);
		}
	}
	/* load_inline builds: one directory per candidate source, so parallel builds never share one. */
	if (x->cand_sha) {
		kp_buf_addf(&ext, "%s/torch_ext/%.16s", x->tc.cache, x->cand_sha);
		kp_json_set(build, "torch_ext_dir", json_string(ext.buf));
	}
	/* Triton's JIT cache: one per candidate source (the reference's for a baseline), shared by every
	 * process that runs it (the evaluation, the warm worker's children, the profiling run). */
	cmd->triton_cache = kp_eval_triton_cache(&x->tc, x->cand_sha, x->task);
	kp_json_set(build, "triton_cache", json_string(cmd->triton_cache));
	kp_json_set(cfg, "build", build);
	kp_json_dump_buf(cfg, &cmd->input, 1);

	kp_strvec_pushl(&cmd->argv, python && *python ? python : "python3", "-B", script, NULL);
	if ((rc = kp_eval_gpu_env(o->gpu, &cmd->env, err)))
		goto out;
	kp_strvec_pushl(&cmd->env, "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1", NULL);
	/* Startup, torch import and CUDA init come on top of the phase limits. */
	cmd->timeout_s = o->build_timeout_s + o->check_timeout_s + o->timing_timeout_s + 4 * o->loop_s + 60;
out:
	json_decref(cfg);
	kp_buf_release(&ext);
	free(script);
	return rc;
}

/* --- native harness ---------------------------------------------------------------------------- */

/* The spec lines for the harness: the libraries, the protocol's numbers, the checks off, the tensors. */
static int write_spec(struct kp_eval_ctx *x, const char *ref_lib, const char *cand_lib, struct kp_buf *in,
		      struct kp_error *err)
{
	const struct kp_eval_opts *o = x->o;
	const struct kp_task *t = x->task;
	struct kp_natspec *s = kp_xcalloc(1, sizeof(*s));
	int rc = 0;

	kp_natspec_init(s);
	if (strlen(x->mode) >= sizeof(s->mode) || strlen(ref_lib) >= sizeof(s->ref) ||
	    (cand_lib && strlen(cand_lib) >= sizeof(s->cand))) {
		rc = kp_error_set(err, KP_ETOOBIG, "a library path is longer than the native spec allows");
		goto out;
	}
	kp_strlcpy(s->mode, x->mode, sizeof(s->mode));
	kp_strlcpy(s->ref, ref_lib, sizeof(s->ref));
	if (cand_lib)
		kp_strlcpy(s->cand, cand_lib, sizeof(s->cand));
	s->seed = (unsigned long long)o->seed;
	s->correct_trials = o->correct_trials;
	s->warmup = o->warmup;
	s->trials = o->timing_trials;
	s->discard = o->discard_first;
	s->time_cand = o->time_candidate ? 1 : 0;
	s->time_ref = o->time_reference ? 1 : 0;
	s->l2_flush = o->l2_flush ? 1 : 0;
	s->scaled_trial = t->scaled_trial_off ? 0 : 1;
	s->limit_check = o->check_timeout_s;
	s->limit_timing = o->timing_timeout_s;
	s->loop_s = o->loop_s;
	s->iters = x->iters;
	for (const char *const *a = o->allow_checks; a && *a && s->noff < KP_NATSPEC_OFF; a++)
		if (!strpbrk(*a, "\n") && strlen(*a) < sizeof(s->off[0]))
			kp_strlcpy(s->off[s->noff++], *a, sizeof(s->off[0]));
	for (size_t i = 0; i < t->ninputs && !rc; i++) {
		const struct kp_tensor_spec *ts = &t->inputs[i];
		rc = kp_natspec_add(s, 1, ts->name, (int)ts->dtype, ts->ndim, ts->shape, (int)ts->fill.kind, ts->fill.a,
				    ts->fill.b, err);
	}
	for (size_t i = 0; i < t->noutputs && !rc; i++) {
		const struct kp_tensor_spec *ts = &t->outputs[i];
		double atol, rtol;
		kp_eval_tolerance(t, o, i, &atol, &rtol);
		rc = kp_natspec_add(s, 0, ts->name, (int)ts->dtype, ts->ndim, ts->shape, 0, atol, rtol, err);
	}
	if (!rc)
		kp_natspec_write(s, in);
out:
	free(s);
	return rc;
}

static int build_one(struct kp_eval_ctx *x, const char *src, size_t len, const char *name, const char *inc,
		     const char *header, struct kp_build *b, struct kp_error *err)
{
	const char *extras[1] = {header};
	return kp_build_so(&x->tc, src, len, name, inc, extras, 1, x->o->build_timeout_s, b, err);
}

int kp_native_prepare(struct kp_eval_ctx *x, struct kp_eval_cmd *cmd, struct kp_verdict *v, struct kp_error *err)
{
	const struct kp_eval_opts *o = x->o;
	const struct kp_task *t = x->task;
	char *harness = kp_find_libexec("kp-native-harness");
	char *inc = kp_find_data("harness/include");
	struct kp_buf header = KP_BUF_INIT, hpath = KP_BUF_INIT, cand = KP_BUF_INIT, *in = &cmd->input;
	struct kp_build rb = {0}, cb = {0};
	double t0 = kp_now();
	int rc = 0;

	if (!harness) {
		rc = kp_error_set(err, KP_ENOTOOL,
				  "kp-native-harness not found: build kernelpro with the CUDA toolkit present (make), or "
				  "set KERNELPRO_LIBEXEC");
		goto out;
	}
	if (!inc) {
		rc = kp_error_set(err, KP_ENOTOOL, "harness/include/kp_native.h not found: set KERNELPRO_HOME");
		goto out;
	}
	kp_path_join(&hpath, inc, "kp_native.h");
	if ((rc = kp_read_file(hpath.buf, 1 << 20, &header, err)))
		goto out;
	if ((rc = build_one(x, t->source, strlen(t->source), "reference", inc, header.buf, &rb, err)))
		goto out;
	if (!rb.ok) {
		struct kp_buf ex = KP_BUF_INIT;
		kp_excerpt(rb.log, strlen(rb.log), COMPILE_LOG_CAP, 2, &ex);
		rc = kp_error_set(err, KP_EPARSE, "the task's reference '%s' does not build:\n%s", t->reference, ex.buf);
		kp_buf_release(&ex);
		goto out;
	}
	if (strcmp(x->mode, "baseline")) {
		if ((rc = kp_read_file(x->cand_path, 1 << 20, &cand, err)))
			goto out;
		/* Includes and the checks on the preprocessed source (a refusal: cmd->argv stays empty). */
		if ((rc = kp_preproc_check(x, cand.buf, cand.len, inc, v, err)) ||
		    v->status == KP_STATUS_CHEAT_SUSPECTED)
			goto out;
		if ((rc = build_one(x, cand.buf, cand.len, x->cand_path, inc, header.buf, &cb, err)))
			goto out;
		v->build_s = kp_now() - t0;
		v->build_cached = (unsigned)cb.cached;
		if (!cb.ok) {
			struct kp_buf ex = KP_BUF_INIT, own = KP_BUF_INIT;
			kp_preproc_own_log(x, inc, cb.log, &own); /* no included file's lines reach a prompt */
			kp_excerpt(own.buf, own.len, COMPILE_LOG_CAP, 2, &ex);
			kp_buf_release(&own);
			v->status = KP_STATUS_COMPILE_ERROR;
			v->message = kp_xstrdup(cb.timed_out ? "nvcc timed out" : "nvcc failed");
			v->log = kp_buf_detach(&ex, NULL);
			v->phase = kp_xstrdup("build");
			goto out; /* a verdict, not an error: cmd->argv stays empty */
		}
		v->compiled = 1;
		v->artifact = kp_xstrdup(cb.lib);
		if (o->build_only) {
			v->status = KP_STATUS_COMPILED;
			v->message = kp_xstrdup(cb.cached ? "built (from the cache)" : "built");
			v->phase = kp_xstrdup("build");
			goto out;
		}
	}

	if ((rc = write_spec(x, rb.lib, cb.lib, in, err)))
		goto out;
	kp_strvec_push(&cmd->argv, harness);
	if ((rc = kp_eval_gpu_env(o->gpu, &cmd->env, err)))
		goto out;
	cmd->timeout_s = o->check_timeout_s + o->timing_timeout_s + 4 * o->loop_s + 30;
out:
	kp_build_release(&rb);
	kp_build_release(&cb);
	kp_buf_release(&header);
	kp_buf_release(&hpath);
	kp_buf_release(&cand);
	free(harness);
	free(inc);
	return rc;
}
