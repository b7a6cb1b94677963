/* Evaluation: static checks, build, one fresh harness child per evaluation, the verdict, and the
 * checks only kernelpro can make (the roofline floor, the excessive-speedup warning). */
#include "base/setup.h"

#include <math.h>
#include <unistd.h>

#include "eval/drivers.h"
#include "eval/excerpt.h"
#include "eval/evalrun.h"
#include "eval/harness.h"
#include "eval/trust.h"
#include "kernelpro/fs.h"
#include "kernelpro/hash.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"
#include "kernelpro/task_kind.h"

#define CAND_CAP (1u << 20)
#define OUT_CAP KP_EVAL_OUT_CAP
#define ERR_CAP KP_EVAL_ERR_CAP

void kp_eval_opts_init(struct kp_eval_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 42;
	o->correct_trials = 5;
	o->warmup = 3;
	o->timing_trials = 100;
	o->discard_first = 1;
	o->time_candidate = 1;
	o->time_reference = 1;
	o->l2_flush = 1;
	o->atol = o->rtol = NAN;
	o->tol_mode = KP_TOL_CURRENT;
	o->build_timeout_s = 300;
	o->check_timeout_s = 180;
	o->timing_timeout_s = 300;
	o->floor_time_s = NAN;
	o->floor_slack = 0.9;
	o->excessive_speedup = 10;
	o->sanitize = 1;
}

static int opts_valid(const struct kp_eval_opts *o, struct kp_error *err)
{
	if (o->correct_trials < 1 || o->correct_trials > 1000)
		return kp_error_set(err, KP_EINVAL, "correctness trials must be 1..1000, not %d", o->correct_trials);
	if (o->timing_trials < 1 || o->timing_trials > 100000 || o->warmup < 0 || o->discard_first < 0)
		return kp_error_set(err, KP_EINVAL, "timing trials must be 1..100000 (warm-ups and discards >= 0)");
	if (!(o->build_timeout_s > 0 && o->check_timeout_s > 0 && o->timing_timeout_s > 0))
		return kp_error_set(err, KP_EINVAL, "time limits must be positive");
	if ((!isnan(o->atol) && o->atol < 0) || (!isnan(o->rtol) && o->rtol < 0))
		return kp_error_set(err, KP_EINVAL, "tolerances must not be negative");
	if (o->loop_s < 0 || o->loop_s > 3600)
		return kp_error_set(err, KP_EINVAL, "loop seconds must be 0..3600");
	return 0;
}

int kp_eval_run_child(const struct kp_eval_cmd *cmd, struct kp_child *c, struct kp_error *err)
{
	int rc;

	kp_strvec_pushv(&c->args, (const char *const *)cmd->argv.v);
	kp_strvec_pushv(&c->env, (const char *const *)cmd->env.v);
	c->stdin_data = cmd->input.buf;
	c->stdin_len = cmd->input.len;
	c->timeout_ms = cmd->timeout_s > 0 ? (long)(cmd->timeout_s * 1000) : 0;
	c->out_cap = OUT_CAP;
	c->err_cap = ERR_CAP;
	if ((rc = kp_child_run(c, err)) == KP_ENOTOOL)
		kp_error_prefix(err, "cannot start the harness (for KernelBench tasks: python3 with torch, "
				     "or set KERNELPRO_PYTHON / --python)");
	return rc;
}

/* Runs a prepared harness command in a fresh child and reads the verdict from it. */
static int run_cmd(const struct kp_eval_cmd *cmd, struct kp_verdict *v, struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	int rc;

	if ((rc = kp_eval_run_child(cmd, &c, err)))
		goto out;
	v->run_s = c.elapsed_s;
	rc = kp_eval_cmd_parse(cmd, &c, v, err);
out:
	kp_child_release(&c);
	return rc;
}

int kp_eval_cmd_parse(const struct kp_eval_cmd *cmd, const struct kp_child *ran, struct kp_verdict *v,
		      struct kp_error *err)
{
	struct kp_harness_out h;
	int rc;
	(void)cmd;
	kp_harness_parse(ran->out.buf, ran->out.len, &h);
	rc = kp_harness_apply(&h, ran, v, err);
	if (!rc)
		kp_eval_trust(&h, ran, v);
	kp_harness_release(&h);
	return rc;
}

int kp_eval_cmd_run(const struct kp_eval_cmd *cmd, struct kp_verdict *v, struct kp_error *err)
{
	if (!cmd->argv.n)
		return kp_error_set(err, KP_EINVAL, "nothing to run: the candidate did not build (see the verdict)");
	return run_cmd(cmd, v, err);
}

void kp_eval_cmd_release(struct kp_eval_cmd *cmd)
{
	kp_strvec_release(&cmd->argv);
	kp_strvec_release(&cmd->env);
	kp_buf_release(&cmd->input);
	if (cmd->work_dir && cmd->remove_work_dir)
		kp_rm_rf(cmd->work_dir, NULL);
	free(cmd->work_dir);
	free(cmd->triton_cache);
	memset(cmd, 0, sizeof(*cmd));
}

static void cmd_init(struct kp_eval_cmd *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->argv = (struct kp_strvec)KP_STRVEC_INIT;
	cmd->env = (struct kp_strvec)KP_STRVEC_INIT;
	cmd->input = (struct kp_buf)KP_BUF_INIT;
}

/* The candidate's file name in the work directory: its base name, with the extension the task needs. */
static char *cand_file_name(const struct kp_task *t, const char *name)
{
	const char *base = name ? strrchr(name, '/') : NULL;
	const char *ext = kp_task_kind_info(t->kind)->python ? ".py" : ".cu";
	struct kp_buf b = KP_BUF_INIT;
	base = base ? base + 1 : name ? name : "candidate";
	for (const char *p = base; *p && b.len < 64; p++) {
		if (*p == '.')
			break;
		kp_buf_addch(&b, (char)((('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') ||
					*p == '_')
					       ? *p
					       : '_'));
	}
	/* Python imports it as a module; keep the name importable-looking. */
	if (!b.len || ('0' <= b.buf[0] && b.buf[0] <= '9'))
		kp_buf_adds(&b, "candidate");
	kp_buf_adds(&b, ext);
	return kp_buf_detach(&b, NULL);
}

static int check_candidate_kind(const struct kp_task *t, const char *name, struct kp_error *err)
{
	if (!name)
		return 0;
	if (kp_task_kind_info(t->kind)->python && kp_ends_with(name, ".cu"))
		return kp_error_set(err, KP_EINVAL,
				    "'%s': KernelBench tasks take a Python candidate defining ModelNew (a .py); native "
				    "tasks take .cu files",
				    name);
	if (!kp_task_kind_info(t->kind)->python && kp_ends_with(name, ".py"))
		return kp_error_set(err, KP_EINVAL,
				    "'%s': native tasks take a .cu file exporting kp_run (docs/native-tasks.md)", name);
	return 0;
}

/* Sets up a work directory holding the candidate and the context for its harness run. */
static int setup(const struct kp_task *task, const char *src, size_t len, const char *name, const struct kp_eval_opts *o,
		 struct kp_eval_ctx *x, struct kp_eval_cmd *cmd, struct kp_buf *cand_path, struct kp_error *err)
{
	struct kp_buf dir = KP_BUF_INIT;
	char *fname = NULL;
	int rc;

	if (o->work_dir) {
		if ((rc = kp_mkdir_p(o->work_dir, 0755, err)))
			goto out;
		kp_buf_adds(&dir, o->work_dir);
	} else if ((rc = kp_mkdtemp("kp-eval", &dir, err)))
		goto out;
	cmd->work_dir = kp_xstrdup(dir.buf);
	cmd->remove_work_dir = !o->work_dir && !o->keep_work;
	if (src) {
		fname = cand_file_name(task, name);
		kp_path_join(cand_path, dir.buf, fname);
		if ((rc = kp_write_file_atomic(cand_path->buf, src, len, err)))
			goto out;
		x->cand_path = cand_path->buf;
	}
	x->work_dir = cmd->work_dir;
	rc = kp_toolchain_resolve(&x->tc, o, o->gpu, err);
out:
	free(fname);
	kp_buf_release(&dir);
	return rc;
}

static int prepare(struct kp_eval_ctx *x, struct kp_eval_cmd *cmd, struct kp_verdict *v, struct kp_error *err)
{
	kp_eval_tolerance(x->task, x->o, 0, &x->atol, &x->rtol);
	v->atol = x->atol;
	v->rtol = x->rtol;
	kp_strlcpy(v->tol_source, kp_eval_tolerance_source(x->task, x->o, 0), sizeof(v->tol_source));
	kp_strlcpy(v->precision, kp_dtype_name(x->task->precision), sizeof(v->precision));
	if (kp_task_kind_info(x->task->kind)->python) {
		int rc = kp_torch_prepare(x, cmd, v, err);
		if (!rc)
			kp_eval_sandbox_env(&cmd->env);
		return rc;
	}
	return kp_native_prepare(x, cmd, v, err);
}

void kp_eval_sandbox_env(struct kp_strvec *env)
{
	char *lib = kp_find_libexec("libkp_sandbox.so");
	if (lib)
		kp_strvec_pushf(env, "KERNELPRO_SANDBOX_LIB=%s", lib);
	free(lib);
}

/* compute-sanitizer's memcheck on one run of a candidate that hit an illegal or misaligned address:
 * the kernel name and source line are what the LLM needs to fix it. */
static void sanitize(struct kp_eval_ctx *x, struct kp_verdict *v)
{
	struct kp_eval_cmd cmd;
	struct kp_verdict tmp;
	struct kp_child c = KP_CHILD_INIT;
	struct kp_buf lines = KP_BUF_INIT, ex = KP_BUF_INIT, path = KP_BUF_INIT;
	const char *mode = x->mode;
	char *slash, *san = NULL;
	const struct kp_eval_opts *saved_opts = x->o;
	struct kp_eval_opts o = *x->o;

	if (!v->message || (!strstr(v->message, "illegal memory access") && !strstr(v->message, "misaligned address") &&
			    !strstr(v->message, "IllegalAddress") && !strstr(v->message, "MisalignedAddress")))
		return;
	kp_buf_adds(&path, x->tc.nvcc);
	slash = strrchr(path.buf, '/');
	if (slash) {
		kp_buf_setlen(&path, (size_t)(slash - path.buf) + 1);
		kp_buf_adds(&path, "compute-sanitizer");
		san = access(path.buf, X_OK) == 0 ? kp_xstrdup(path.buf) : NULL;
	}
	if (!san)
		san = kp_which("compute-sanitizer");
	if (!san)
		goto out;
	cmd_init(&cmd);
	kp_verdict_init(&tmp);
	o.correct_trials = 1;
	o.allow_checks = NULL;
	x->mode = "run";
	x->iters = 1;
	x->o = &o;
	if (prepare(x, &cmd, &tmp, NULL) == 0 && cmd.argv.n) {
		kp_strvec_pushl(&c.args, san, "--tool", "memcheck", "--print-limit", "4", "--show-backtrace", "device", NULL);
		kp_strvec_pushv(&c.args, (const char *const *)cmd.argv.v);
		kp_strvec_pushv(&c.env, (const char *const *)cmd.env.v);
		c.stdin_data = cmd.input.buf;
		c.stdin_len = cmd.input.len;
		/* PyTorch under memcheck is slow to start; a rerun that does not finish soon is not worth
		 * holding the GPU for (the verdict stands without it). */
		c.timeout_ms = (long)((kp_task_kind_info(x->task->kind)->python ? 90 : o.check_timeout_s + 60) * 1000);
		c.out_cap = OUT_CAP;
		c.err_cap = ERR_CAP;
		if (kp_child_run(&c, NULL) == 0) {
			const struct kp_buf *bufs[2] = {&c.out, &c.err};
			for (int k = 0; k < 2; k++)
				for (const char *p = bufs[k]->buf; p && *p;) {
					const char *nl = strchr(p, '\n');
					size_t n = nl ? (size_t)(nl - p) : strlen(p);
					if (n > 9 && !strncmp(p, "=========", 9))
						kp_buf_add(&lines, p, n), kp_buf_addch(&lines, '\n');
					p = nl ? nl + 1 : NULL;
				}
		}
	}
	if (lines.len) {
		kp_excerpt(lines.buf, lines.len, 4000, 1, &ex);
		char *log = kp_xasprintf("%s%scompute-sanitizer memcheck on one run:\n%s", v->log ? v->log : "",
					 v->log ? "\n" : "", ex.buf);
		free(v->log);
		v->log = log;
	}
	kp_verdict_release(&tmp);
	kp_eval_cmd_release(&cmd);
	x->mode = mode;
	x->o = saved_opts;
out:
	free(san);
	kp_child_release(&c);
	kp_buf_release(&lines);
	kp_buf_release(&ex);
	kp_buf_release(&path);
}

/* A candidate that cannot be what the task needs is a compile error before anything runs: an empty
 * file (nvcc builds it into a library and --build-only would say "compiled"), or a native one that never
 * names kp_run. */
static int unbuildable(const struct kp_task *task, const char *src, size_t len, struct kp_verdict *v)
{
	const struct kp_task_kind_info *k = kp_task_kind_info(task->kind);
	const char *why = NULL;
	size_t i = 0;
	while (i < len && strchr(" \t\r\n\f\v", src[i]) && src[i])
		i++;
	if (i == len)
		why = "the candidate is empty";
	else if (k->entry_point && !memmem(src, len, k->entry_point, strlen(k->entry_point)))
		why = k->entry_missing;
	if (!why)
		return 0;
	v->status = KP_STATUS_COMPILE_ERROR;
	v->message = kp_xstrdup(why);
	v->phase = kp_xstrdup("build");
	return 1;
}

int kp_eval_begin(struct kp_eval_pending *p, const struct kp_task *task, const char *src, size_t len,
		  const char *name, const struct kp_eval_opts *opts, struct kp_verdict *v, struct kp_error *err)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->t0 = kp_now();
	p->o = opts;
	if (!p->o) {
		kp_eval_opts_init(&p->defaults);
		p->o = &p->defaults;
	}
	p->task = task;
	p->cand_path = (struct kp_buf)KP_BUF_INIT;
	kp_verdict_release(v);
	cmd_init(&p->cmd);
	if ((rc = opts_valid(p->o, err)) || (rc = check_candidate_kind(task, name, err)))
		return rc;
	if (len > CAND_CAP)
		return kp_error_set(err, KP_ETOOBIG, "candidate '%s' is larger than 1 MiB", name ? name : "?");
	v->gpu = p->o->gpu;
	kp_sha256_hex(src, len, v->source_sha256);

	if (unbuildable(task, src, len, v)) {
		p->done = 1;
		return 0;
	}
	kp_eval_static(task, src, len, p->o, v, err);
	if (v->status == KP_STATUS_CHEAT_SUSPECTED || v->status == KP_STATUS_COMPILE_ERROR) {
		p->done = 1;
		return 0;
	}
	p->x.task = task;
	p->x.o = p->o;
	p->x.mode = "eval";
	p->x.cand_sha = v->source_sha256;
	if ((rc = setup(task, src, len, name, p->o, &p->x, &p->cmd, &p->cand_path, err)) ||
	    (rc = prepare(&p->x, &p->cmd, v, err))) {
		v->status = KP_STATUS_NONE;
		return rc;
	}
	p->done = !p->cmd.argv.n; /* compile error or build-only: the verdict is set */
	return 0;
}

int kp_eval_end(struct kp_eval_pending *p, const struct kp_child *ran, struct kp_verdict *v, struct kp_error *err)
{
	const struct kp_eval_opts *o = p->o;
	int rc = 0;

	if (ran) {
		double b = v->build_s;
		v->run_s = ran->elapsed_s;
		if ((rc = kp_eval_cmd_parse(&p->cmd, ran, v, err))) {
			v->status = KP_STATUS_NONE;
			goto out;
		}
		if (!isnan(b) && !kp_task_kind_info(p->task->kind)->python)
			v->build_s = b;
		if (v->status == KP_STATUS_RUNTIME_ERROR && o->sanitize)
			sanitize(&p->x, v);
		kp_eval_speed_checks(p->task, o, v);
	}
	if (o->keep_work && p->cmd.work_dir)
		v->work_dir = kp_xstrdup(p->cmd.work_dir);
	v->correct = v->status == KP_STATUS_CORRECT;
	v->total_s = kp_now() - p->t0;
out:
	kp_eval_pending_release(p);
	return rc;
}

void kp_eval_pending_release(struct kp_eval_pending *p)
{
	kp_toolchain_release(&p->x.tc);
	kp_eval_cmd_release(&p->cmd);
	kp_buf_release(&p->cand_path);
}

int kp_eval_source(const struct kp_task *task, const char *src, size_t len, const char *name,
		   const struct kp_eval_opts *o, struct kp_verdict *v, struct kp_error *err)
{
	struct kp_eval_worker *w = NULL;
	struct kp_eval_job *job = NULL;
	int rc;

	if (o && o->worker) {
		struct kp_error werr = KP_ERROR_INIT;
		/* No worker to be had: a cold start, exactly as without one. */
		if (kp_eval_worker_start(o->gpu, o, &w, &werr))
			kp_warn("%s; evaluating without the warm worker", werr.msg);
	}
	rc = kp_eval_submit(w, task, src, len, name, o, &job, err);
	if (!rc)
		rc = kp_eval_job_finish(job, v, err);
	else
		kp_verdict_release(v); /* status none, as the evaluation could not run */
	kp_eval_worker_stop(w, 0);
	return rc;
}

int kp_eval_file(const struct kp_task *task, const char *path, const struct kp_eval_opts *o, struct kp_verdict *v,
		 struct kp_error *err)
{
	struct kp_buf src = KP_BUF_INIT;
	int rc;
	kp_verdict_release(v);
	if ((rc = check_candidate_kind(task, path, err)))
		return rc;
	/* (a read refused at the cap has already grown the buffer past it: released either way) */
	if (!(rc = kp_task_read_file(path, CAND_CAP, &src, err)))
		rc = kp_eval_source(task, src.buf, src.len, path, o, v, err);
	kp_buf_release(&src);
	return rc;
}

int kp_eval_prepare(const struct kp_task *task, const char *path, const struct kp_eval_opts *opts, long iters,
		    struct kp_eval_cmd *cmd, struct kp_verdict *v, struct kp_error *err)
{
	struct kp_eval_opts defaults;
	const struct kp_eval_opts *o = opts;
	struct kp_eval_ctx x = {0};
	struct kp_buf src = KP_BUF_INIT, cand_path = KP_BUF_INIT;
	int rc;

	if (!o) {
		kp_eval_opts_init(&defaults);
		o = &defaults;
	}
	cmd_init(cmd);
	kp_verdict_release(v);
	if ((rc = opts_valid(o, err)) || (rc = check_candidate_kind(task, path, err)) ||
	    (rc = kp_task_read_file(path, CAND_CAP, &src, err)))
		goto out;
	kp_sha256_hex(src.buf, src.len, v->source_sha256);
	x.task = task;
	x.o = o;
	x.mode = "run";
	x.iters = iters > 0 ? iters : 1;
	x.cand_sha = v->source_sha256;
	if ((rc = setup(task, src.buf, src.len, path, o, &x, cmd, &cand_path, err)) || (rc = prepare(&x, cmd, v, err)))
		goto out;
	cmd->timeout_s += (double)x.iters * 0.01;
out:
	kp_toolchain_release(&x.tc);
	kp_buf_release(&src);
	kp_buf_release(&cand_path);
	if (rc)
		kp_eval_cmd_release(cmd);
	return rc;
}

/* --- baselines ----------------------------------------------------------------------------------- */

int kp_eval_baseline(const struct kp_task *task, const struct kp_eval_opts *opts, int with_compile,
		     struct kp_baseline *b, struct kp_error *err)
{
	struct kp_eval_opts defaults;
	const struct kp_eval_opts *o = opts;
	struct kp_eval_ctx x = {0};
	struct kp_eval_cmd cmd;
	struct kp_verdict v;
	struct kp_child c = KP_CHILD_INIT;
	struct kp_harness_out h = {0};
	struct kp_buf none = KP_BUF_INIT;
	int rc;

	if (!o) {
		kp_eval_opts_init(&defaults);
		o = &defaults;
	}
	kp_baseline_release(b);
	cmd_init(&cmd);
	kp_verdict_init(&v);
	if ((rc = opts_valid(o, err)))
		goto out;
	x.task = task;
	x.o = o;
	x.mode = "baseline";
	x.with_compile = kp_task_kind_info(task->kind)->python && with_compile;
	if ((rc = setup(task, NULL, 0, NULL, o, &x, &cmd, &none, err)) || (rc = prepare(&x, &cmd, &v, err)))
		goto out;
	kp_strvec_pushv(&c.args, (const char *const *)cmd.argv.v);
	kp_strvec_pushv(&c.env, (const char *const *)cmd.env.v);
	c.stdin_data = cmd.input.buf;
	c.stdin_len = cmd.input.len;
	c.timeout_ms = (long)(cmd.timeout_s * 1000);
	c.out_cap = OUT_CAP;
	c.err_cap = ERR_CAP;
	if ((rc = kp_child_run(&c, err)))
		goto out;
	kp_harness_parse(c.out.buf, c.out.len, &h);
	if ((rc = kp_harness_apply(&h, &c, &v, err)))
		goto out;
	kp_eval_trust(&h, &c, &v); /* the reference's times feed every speedup: held to the same bounds */
	b->gpu = o->gpu;
	kp_strlcpy(b->gpu_name, v.gpu_name, sizeof(b->gpu_name));
	b->io_bytes = v.io_bytes;
	b->flops = kp_task_kind_info(task->kind)->spec_tensors && task->flops > 0 ? task->flops : v.flops;
	kp_strlcpy(b->precision, v.ref_precision[0] ? v.ref_precision : kp_dtype_name(task->precision),
		   sizeof(b->precision));
	b->tf32 = v.tf32_ref;
	if (v.status != KP_STATUS_CORRECT) {
		rc = kp_error_set(err, KP_ECHILD, "timing the reference failed: %s%s%s", v.message ? v.message : "?",
				  v.log ? "\n" : "", v.log ? v.log : "");
		goto out;
	}
	b->eager = v.ref_runtime;
	if (h.result) {
		const char *ce = kp_json_str(h.result, "compile_error", NULL);
		kp_timing_from_json(&b->compiled, json_object_get(h.result, "compiled_runtime"));
		if (ce)
			b->compile_error = kp_xstrdup(ce);
		if (kp_json_str(h.result, "compile_log", NULL))
			b->log = kp_xstrdup(kp_json_str(h.result, "compile_log", NULL));
	}
out:
	kp_harness_release(&h);
	kp_child_release(&c);
	kp_verdict_release(&v);
	kp_toolchain_release(&x.tc);
	kp_eval_cmd_release(&cmd);
	kp_buf_release(&none);
	return rc;
}
