/*
 * The harness evaluator: the search's evaluator built from the evaluation engine (lib/eval: build,
 * check, time, anti-cheat), the profiler (lib/profile: ncu on the candidate's calls only) and the
 * diagnosis pipeline (lib/tools/pipeline.c: GPU model, Stage 1, the tools, the semantic feedback).
 * evaluate() gives a candidate's verdict, times and energy; profile() profiles and diagnoses a correct
 * one when the loop asks (on demand: docs/internals/search.md). Profiling problems never fail
 * anything: the version keeps its verdict and timing, the feedback says less.
 */
#include "base/setup.h"

#include <math.h>
#include <pthread.h>
#include <unistd.h>

#include "kernelpro/analyze.h"
#include "kernelpro/child.h"
#include "kernelpro/energy.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/pipeline.h"
#include "kernelpro/search_backends.h"
#include "kernelpro/task_kind.h"
#include "kernelpro/toolchain.h"
#include "kernelpro/tuner.h"
#include "search/refcache.h"
#include "search/tune_int.h"

/* The NVTX range kp_eval_prepare() wraps the candidate's calls in (eval.h). */
#define CANDIDATE_RANGE "kp_candidate/"
/* ncu profiles each launch in the range with every replay pass its metrics need: one call of the
 * candidate is profiled, and at most this many of its launches (a candidate that launches thousands of
 * tiny kernels per call would otherwise cost thousands of replays). docs/internals/search.md. */
#define PROFILE_MAX_LAUNCHES 64
#define MAX_STAGERS 8        /* threads that check and build candidates ahead of their turn */
#define WORKER_STARTS 3      /* a run starts the warm worker at most this often */
#define ENERGY_KEPT          16     /* the latest candidates' NVML measurements kept for their profiles */

/* A correct candidate's NVML measurement, kept from its evaluation for the energy paragraph of its profile.
 */
struct kept_energy {
	long node; /* 0: empty */
	struct kp_energy_measurement m;
};

/* A candidate staged ahead of its evaluation (prepare), or being staged. */
struct staged {
	struct staged *next;
	long node;
	char *source;
	struct kp_buf path;
	int state; /* 0 queued, 1 staging, 2 done */
	struct kp_eval_job *job;
	int rc;
	struct kp_error err;
};

struct harness {
	struct kp_search_evaluator base;
	struct kp_harness_opts o;
	char *profile_dir;
	struct kp_hw hw;
	int have_hw;
	int profile_off;            /* profiling cannot work here (no ncu, no counter access) */
	int energy_off;             /* energy cannot be measured here (no NVML, no driver) */
	struct kp_strvec metrics;   /* the collection set: one ncu run classifies, feeds the tools and the energy proxy */
	struct kp_strvec all_checks;/* every static check id: switched off to profile a KernelBench reference */
	char refkey[65];            /* the reference's evaluation in the cache; "": not cached */
	/* The warm worker (KernelBench tasks), launched with the evaluator, driven by whichever thread
	 * evaluates (one at a time). */
	struct kp_eval_worker *worker;
	int worker_starts;
	/*
	 * The next profile's ncu, started ahead (kp_ncu_hold) with the command the last profile ran,
	 * while the GPU evaluates: its Python imports PyTorch meanwhile, and the profile that takes it
	 * starts at the candidate's own work (docs/internals/search.md, "Profiling on demand").
	 * GPU thread only, as evaluate() and profile() are.
	 */
	struct kp_ncu_held *held;
	struct kp_strvec held_argv, held_env; /* that command: the program and its environment; empty: none yet */
	/* Measurements of the latest correct candidates (a ring; one GPU job at a time uses it). */
	struct kept_energy energy[ENERGY_KEPT];
	unsigned energy_next;
	/* Staging: prepare() queues, the stagers run kp_eval_stage, evaluate() takes the result. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct staged *staged;
	pthread_t stagers[MAX_STAGERS];
	int nstagers, shutdown;
};

static enum kp_outcome outcome_of(enum kp_status s)
{
	switch (s) {
	case KP_STATUS_CORRECT:
		return KP_OUTCOME_CORRECT;
	case KP_STATUS_COMPILE_ERROR:
		return KP_OUTCOME_COMPILE_ERROR;
	case KP_STATUS_RUNTIME_ERROR:
		return KP_OUTCOME_RUNTIME_ERROR;
	case KP_STATUS_TIMEOUT:
		return KP_OUTCOME_TIMEOUT;
	case KP_STATUS_WRONG_OUTPUT:
		return KP_OUTCOME_WRONG_OUTPUT;
	case KP_STATUS_CHEAT_SUSPECTED:
		return KP_OUTCOME_CHEAT_SUSPECTED;
	default:
		return KP_OUTCOME_NONE;
	}
}

static char *json_text(json_t *v)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(v);
	return s;
}

/* The GPU model when no profile chose one (kp_hw_for_profile without a profiled GPU): --hw, else the device. */
static int ensure_hw(struct harness *h, struct kp_error *err)
{
	int rc;
	if (h->have_hw)
		return 0;
	rc = kp_hw_for_profile(&h->hw, h->o.hw_key, NULL, h->o.eval.gpu, err);
	if (!rc)
		h->have_hw = 1;
	return rc;
}

/*
 * The whole task through the pipeline (kp_pipeline_task: every launch's Stage 1, kernels ranked by
 * the time they could save, the tools on the top ones); fills `out` with the task's feedback and
 * the top kernel's findings and launch.
 */
static int diagnose(struct harness *h, const struct kp_profile_files *files,
		    const struct kp_energy_measurement *measured, struct kp_search_eval *out, json_t *pj, int reference,
		    struct kp_error *err)
{
	struct kp_pipeline p;
	struct kp_pipeline_opts po;
	struct kp_pipeline_task t;
	struct kp_buf text = KP_BUF_INIT;
	const struct kp_pipeline_result *top;
	json_t *fa;
	int rc;

	memset(&po, 0, sizeof(po));
	memset(&t, 0, sizeof(t));
	po.gpu_key = h->o.hw_key;
	po.gpu_index = h->o.eval.gpu;
	po.hw = h->have_hw ? &h->hw : NULL; /* the first profile's choice holds for the run */
	po.task.min_bytes = h->o.task->min_bytes;
	po.task.flops_hint = h->o.task->flops;
	po.toolset = h->o.toolset;
	po.stage2 = h->o.stage2;
	po.measured = measured;
	if ((rc = kp_pipeline_open(&p, files, &po, err)))
		goto out;
	if (!h->have_hw) {
		h->hw = p.hw;
		h->have_hw = 1;
	}
	if (!p.set.nkernels) {
		rc = kp_error_set(err, KP_EMISSING, "ncu profiled no kernel inside the candidate's calls");
		goto out;
	}
	if ((rc = kp_pipeline_task(&p, &t, err)))
		goto out;
	kp_pipeline_task_feedback_text(&t, &text);
	out->feedback = kp_buf_detach(&text, NULL);
	top = t.nresults ? &t.results[0] : NULL;
	fa = json_array();
	for (size_t i = 0; top && i < top->feedback.findings.n; i++)
		json_array_append_new(fa, kp_finding_json(&top->feedback.findings.v[i]));
	out->findings_json = json_text(fa);
	if (top)
		kp_json_set(pj, "launch", kp_diagnose_launch_json(top->kernel, &top->stage1));
	if (t.task.n > 1)
		kp_json_set(pj, "task", kp_task_stage1_to_json(&t.task, p.set.kernels));
	if (reference) {
		struct kp_buf b = KP_BUF_INIT;
		const struct kp_stage1 *s1 = top ? &top->stage1 : &t.stage1[0];
		double floor = t.task.n > 1 && !isnan(t.task.floor_s) ? t.task.floor_s : s1->floor_time_s;
		if (t.task.n > 1)
			kp_task_stage1_describe(&t.task, 8, &b);
		kp_stage1_describe(s1, &b);
		out->stage1 = kp_buf_detach(&b, NULL);
		h->o.eval.floor_time_s = floor; /* the anti-cheat roofline floor for candidates */
		kp_json_set(pj, "floor_time_s", kp_json_real(floor));
	}
out:
	kp_pipeline_task_release(&t);
	kp_pipeline_release(&p);
	kp_buf_release(&text);
	return rc;
}

/*
 * A Python candidate's Triton kernels (the evaluation compiled them into cmd->triton_cache): their
 * metadata into dir/triton.json and, when ncu gave no SASS, their cubins' SASS into
 * dir/triton_sass.txt, both for the diagnosis. A failure only leaves them out.
 */
static void triton_files(const struct kp_eval_cmd *cmd, const char *dir, struct kp_profile_files *files,
			 struct kp_buf *json, struct kp_buf *sass, json_t *pj)
{
	struct kp_error err = KP_ERROR_INIT;
	char *cuobjdump = files->sass ? NULL : kp_cuda_tool("cuobjdump");
	size_t n = 0;

	if (!cmd->triton_cache)
		goto out;
	if (kp_triton_collect(cmd->triton_cache, dir, cuobjdump, &n, &err)) {
		kp_json_set(pj, "triton_error", json_string(kp_error_msg(&err)));
		goto out;
	}
	kp_json_set(pj, "triton_kernels", json_integer((json_int_t)n));
	if (!n)
		goto out;
	kp_path_join(json, dir, "triton.json");
	files->triton = json->buf;
	kp_path_join(sass, dir, "triton_sass.txt");
	if (!files->sass && kp_path_exists(sass->buf))
		files->sass = sass->buf;
out:
	free(cuobjdump);
}

/* The ncu request for a prepared command (argv, env) into r, its files in `dir`: the same for a profile
 * and for the held run started ahead of one, so that the one matches the other. */
static void profile_request(struct harness *h, const struct kp_strvec *argv, const struct kp_strvec *env,
			    const char *dir, struct kp_ncu_run *r)
{
	memset(r, 0, sizeof(*r));
	r->argv = (const char *const *)argv->v;
	r->env = env->n ? (const char *const *)env->v : NULL;
	r->metrics = (const char *const *)h->metrics.v;
	r->nvtx_include = CANDIDATE_RANGE;
	r->launch_count = PROFILE_MAX_LAUNCHES;
	r->out_dir = dir;
	r->timeout_ms = (long)(h->o.ncu_timeout_s > 0 ? h->o.ncu_timeout_s : 600) * 1000;
	r->details = 1;
	r->source_sass = 1;
}

/*
 * Starts the next profile's ncu ahead, with the last profile's command, when none is waiting; a
 * failure only means the next profile starts cold. Called as an evaluation starts, so that the held
 * program's start-up overlaps the evaluation.
 */
static void hold_next(struct harness *h)
{
	struct kp_ncu_run r;
	struct kp_buf dir = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;

	if (h->held || !h->held_argv.n || h->profile_off || kp_child_canceled())
		return;
	kp_path_join(&dir, h->profile_dir, ".held");
	profile_request(h, &h->held_argv, &h->held_env, dir.buf, &r);
	if (kp_ncu_hold(&r, &h->held, &err))
		kp_info("the next profile starts cold: %s", kp_error_msg(&err));
	kp_buf_release(&dir);
}

/*
 * ncu over the prepared command: through the held run when it runs this very command, else a run of
 * its own; either way the command is remembered for the next held run. *held says which.
 */
static int profile_run(struct harness *h, const struct kp_strvec *argv, const struct kp_strvec *env,
		       struct kp_ncu_run *r, int *held, struct kp_error *err)
{
	*held = 0;
	if (h->held && kp_ncu_held_matches(h->held, r)) {
		struct kp_ncu_held *hd = h->held;
		h->held = NULL;
		*held = 1;
		return kp_ncu_held_finish(hd, r, err);
	}
	kp_ncu_held_free(h->held); /* started for another command (another python, GPU or toolset) */
	h->held = NULL;
	kp_strvec_release(&h->held_argv);
	kp_strvec_release(&h->held_env);
	kp_strvec_pushv(&h->held_argv, (const char *const *)argv->v);
	kp_strvec_pushv(&h->held_env, (const char *const *)env->v);
	return kp_ncu_run(r, err);
}

/*
 * Profiles one candidate file: ncu over its calls, then the diagnosis pipeline on its longest
 * kernel (`measured`: its NVML energy for the energy paragraph, or NULL). Returns 0 whatever
 * happened to the profile (a note goes into the profile JSON); a negative code only for an
 * evaluation-level error.
 */
static int profile(struct harness *h, const char *tag, const char *path, const struct kp_eval_opts *eo,
		   const struct kp_energy_measurement *measured, struct kp_search_eval *out, int reference)
{
	struct kp_eval_cmd cmd;
	struct kp_verdict v;
	struct kp_ncu_run r;
	struct kp_profile_files files;
	struct kp_buf dir = KP_BUF_INIT, tjson = KP_BUF_INIT, tsass = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *pj = json_object();
	double t0 = kp_now();
	int rc, held = 0;

	memset(&files, 0, sizeof(files));
	kp_verdict_init(&v);
	memset(&cmd, 0, sizeof(cmd));
	kp_path_join(&dir, h->profile_dir, tag);
	kp_json_set(pj, "dir", json_string(dir.buf));
	if (h->profile_off || !h->o.toolset) {
		kp_json_set(pj, "skipped", json_string(h->profile_off ? "profiling is unavailable here" : "no tools"));
		goto done;
	}
	rc = kp_eval_prepare(h->o.task, path, eo, 1, &cmd, &v, &err);
	if (rc || !cmd.argv.n) {
		if (!rc)
			kp_error_set(&err, KP_ECHILD, "the profiling run was not prepared: %s", v.message ? v.message : "?");
		goto note;
	}
	/* A Python harness imports PyTorch before it reads its input: what a held run does while it waits. */
	kp_strvec_push(&cmd.env, "KERNELPRO_PRELOAD=1");
	profile_request(h, &cmd.argv, &cmd.env, dir.buf, &r);
	r.stdin_data = cmd.input.buf;
	r.stdin_len = cmd.input.len;
	rc = profile_run(h, &cmd.argv, &cmd.env, &r, &held, &err);
	kp_json_set(pj, "ncu_s", kp_json_real(r.elapsed_s)); /* the profiled run, replays included */
	kp_json_set(pj, "held", json_boolean(held)); /* started ahead: ncu_s counts from its input */
	if (rc == KP_ENOTOOL || rc == KP_EPERM) {
		/* Nothing will change during this run: say it once, go on with timing only. */
		h->profile_off = 1;
		kp_warn("profiling switched off for this run, feedback will have timing only: %s", kp_error_msg(&err));
	}
	if (rc)
		goto note;
	files.ncu_csv = r.raw_csv;
	files.ncu_details = r.details_csv[0] ? r.details_csv : NULL;
	files.sass = r.sass_csv[0] ? r.sass_csv : NULL;
	triton_files(&cmd, dir.buf, &files, &tjson, &tsass, pj);
	if (diagnose(h, &files, measured, out, pj, reference, &err))
		goto note;
	goto done;
note:
	kp_info("%s: profile not used: %s", tag, kp_error_msg(&err));
	kp_json_set(pj, "error", json_string(kp_error_msg(&err)));
done:
	if (reference && !out->stage1 && !ensure_hw(h, &err))
		kp_json_set(pj, "stage1", json_null());
	if (reference && h->have_hw) {
		struct kp_buf b = KP_BUF_INIT;
		kp_hw_describe(&h->hw, &b);
		out->hardware = kp_buf_detach(&b, NULL);
	}
	/* The whole step: the prepared run's build, ncu, the page exports and the diagnosis. */
	kp_json_set(pj, "profile_s", kp_json_real(kp_now() - t0));
	out->profile_json = json_text(pj);
	if (cmd.argv.n || cmd.work_dir)
		kp_eval_cmd_release(&cmd);
	kp_verdict_release(&v);
	kp_buf_release(&dir);
	kp_buf_release(&tjson);
	kp_buf_release(&tsass);
	return 0;
}

/* Energy per launch of a built native candidate (its .so) into *m, or NAN with a note when it cannot be had. */
static double measure_energy(struct harness *h, const char *artifact, const char *label,
			     struct kp_energy_measurement *m)
{
	struct kp_energy_driver d;
	struct kp_error err = KP_ERROR_INIT;
	size_t n = 0;
	double e = NAN;

	if (!h->o.energy || !kp_task_kind_info(h->o.task->kind)->energy || !artifact || h->energy_off)
		return NAN;
	kp_energy_driver_init(&d);
	d.gpu = h->o.eval.gpu;
	d.seed = (unsigned long long)h->o.eval.seed;
	kp_strvec_pushf(&d.libs, "%s=%s", label, artifact);
	kp_energy_driver_add_task(&d, h->o.task);
	if (kp_energy_driver_run(&d, m, 1, &n, &err) || !n) {
		if (err.code == KP_ENOTOOL || err.code == KP_ENODEV || err.code == KP_EUNSUPPORTED) {
			h->energy_off = 1;
			kp_warn("energy switched off for this run: %s", kp_error_msg(&err));
		} else {
			kp_info("%s: no energy measurement: %s", label, n ? "" : kp_error_msg(&err));
		}
	} else {
		e = m->energy_j;
	}
	kp_energy_driver_release(&d);
	return e;
}

/* ---- staging and the worker ---------------------------------------------------------------------- */

static void staged_free(struct staged *st)
{
	if (st->job)
		kp_eval_job_discard(st->job);
	free(st->source);
	kp_buf_release(&st->path);
	free(st);
}

static void *stager(void *arg)
{
	struct harness *h = arg;
	pthread_mutex_lock(&h->mu);
	for (;;) {
		struct staged *st = h->staged;
		while (st && st->state != 0)
			st = st->next;
		if (!st) {
			if (h->shutdown)
				break;
			pthread_cond_wait(&h->cv, &h->mu);
			continue;
		}
		st->state = 1;
		pthread_mutex_unlock(&h->mu);
		st->rc = kp_eval_stage(h->o.task, st->source, strlen(st->source), st->path.buf, &h->o.eval, &st->job,
				       &st->err);
		pthread_mutex_lock(&h->mu);
		st->state = 2;
		pthread_cond_broadcast(&h->cv);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* The candidate file's name in the evaluation (also where profiling writes it). */
static void cand_path(struct harness *h, long node, struct kp_buf *path)
{
	kp_buf_addf(path, "%s/%ld/cand.%s", h->profile_dir, node, kp_task_kind_info(h->o.task->kind)->ext);
}

/* prepare(): static checks, work directory and builds of a saved candidate, on a stager thread. */
static void harness_prepare(struct kp_search_evaluator *base, long node, const char *source, const char *lang)
{
	struct harness *h = base->priv;
	struct staged *st = kp_xcalloc(1, sizeof(*st));
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	(void)lang;
	st->node = node;
	st->source = kp_xstrdup(source);
	st->path = (struct kp_buf)KP_BUF_INIT;
	cand_path(h, node, &st->path);
	pthread_mutex_lock(&h->mu);
	/* One thread per CPU, at most MAX_STAGERS; the loop's lookahead bounds what waits for them. */
	if (h->nstagers < MAX_STAGERS && h->nstagers < (ncpu > 0 ? ncpu : 1) &&
	    pthread_create(&h->stagers[h->nstagers], NULL, stager, h) == 0)
		h->nstagers++;
	st->next = h->staged;
	h->staged = st;
	if (!h->nstagers)
		st->state = 3; /* no thread to be had: evaluate() stages it itself */
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

/* The staged job for `node` (waiting while it is staged); 1 with *job (or the staging error in rc), 0 when
 * the node was never prepared. */
static int take_staged(struct harness *h, long node, struct kp_eval_job **job, int *rc, struct kp_error *err)
{
	struct staged **pp, *st = NULL;
	pthread_mutex_lock(&h->mu);
	for (pp = &h->staged; *pp; pp = &(*pp)->next)
		if ((*pp)->node == node) {
			st = *pp;
			break;
		}
	if (st) {
		while (st->state == 0 || st->state == 1)
			pthread_cond_wait(&h->cv, &h->mu);
		*pp = st->next;
	}
	pthread_mutex_unlock(&h->mu);
	if (!st || st->state == 3) {
		if (st)
			staged_free(st);
		return 0;
	}
	*rc = st->rc;
	if (st->rc)
		kp_error_set(err, st->rc, "%s", kp_error_msg(&st->err));
	*job = st->job;
	st->job = NULL;
	staged_free(st);
	return 1;
}

/*
 * The warm worker for KernelBench tasks (or eval.worker): launched with the evaluator, so that its start
 * (PyTorch's import, on the CPU) overlaps the reference's evaluation and the first builds and requests;
 * connected at first use. One that cannot be had: said once, and cold evaluations.
 */
static void worker_launch(struct harness *h)
{
	struct kp_error werr = KP_ERROR_INIT;
	if (h->o.task->kind != KP_TASK_KERNELBENCH && !h->o.eval.worker)
		return;
	if (kp_eval_worker_launch(h->o.eval.gpu, &h->o.eval, &h->worker, &werr))
		kp_warn("%s; this run evaluates without the warm worker (a cold start each time)", werr.msg);
}

/* The connected worker (a new one when it went away, WORKER_STARTS times in all), or NULL: cold. */
static struct kp_eval_worker *worker(struct harness *h)
{
	struct kp_error werr = KP_ERROR_INIT;
	if (!h->worker || kp_eval_worker_fd(h->worker) >= 0)
		return h->worker;
	if (h->worker_starts < WORKER_STARTS) {
		h->worker_starts++;
		if (kp_eval_worker_connect(h->worker, &werr) == 0)
			return h->worker;
		if (werr.code != KP_ECANCELED) /* Ctrl-C: the evaluation that follows is refused as canceled */
			kp_warn("%s; this run evaluates without the warm worker (a cold start each time)", werr.msg);
	}
	kp_eval_worker_stop(h->worker, 0);
	h->worker = NULL;
	return NULL;
}

static int harness_reference(struct kp_search_evaluator *base, struct kp_search_eval *out, struct kp_error *err)
{
	struct harness *h = base->priv;
	struct kp_baseline b;
	struct kp_eval_opts eo = h->o.eval;
	struct kp_buf shim = KP_BUF_INIT, src = KP_BUF_INIT;
	const char *path = h->o.task->reference;
	struct kp_energy_measurement em;
	double t0 = kp_now(), ej = NAN, floor_s = NAN;
	int rc;

	kp_baseline_init(&b);
	if (kp_refcache_load(h->refkey, h->profile_dir, out, &floor_s) == 0) {
		kp_info("the reference's timing and profile come from the cache (same task, GPU and harness)");
		h->o.eval.floor_time_s = floor_s;
		if (!ensure_hw(h, err) && !out->hardware) {
			struct kp_buf hb = KP_BUF_INIT;
			kp_hw_describe(&h->hw, &hb);
			out->hardware = kp_buf_detach(&hb, NULL);
		}
		kp_error_clear(err);
		out->wall_s = kp_now() - t0;
		out->gpu_s = 0;
		return 0;
	}
	rc = kp_eval_baseline(h->o.task, &h->o.eval, 0, &b, err);
	if (rc)
		goto out;
	out->outcome = KP_OUTCOME_CORRECT;
	out->time_ms = b.eager.median_ms;
	out->time_std_ms = b.eager.std_ms;
	out->ref_time_ms = b.eager.median_ms;
	out->speedup = 1.0;
	out->verdict_json = json_text(kp_baseline_to_json(&b));
	if (kp_task_kind_info(h->o.task->kind)->reference_as_candidate) {
		/* Profiled as a candidate that is the reference itself; the checks that would refuse that are off. */
		kp_path_join(&shim, h->profile_dir, "reference_as_candidate.");
		kp_buf_adds(&shim, kp_task_kind_info(h->o.task->kind)->ext);
		kp_buf_addf(&src, "%s%s", h->o.task->source, kp_task_kind_info(h->o.task->kind)->reference_as_candidate);
		if ((rc = kp_mkdir_p(h->profile_dir, 0755, err)) ||
		    (rc = kp_write_file_atomic(shim.buf, src.buf, src.len, err)))
			goto out;
		eo.allow_checks = (const char *const *)h->all_checks.v;
		path = shim.buf;
	}
	if (h->o.energy && kp_task_kind_info(h->o.task->kind)->energy) {
		/* Measured before profiling, so the reference's energy paragraph quotes NVML. */
		struct kp_verdict built;
		struct kp_eval_opts bo = h->o.eval;
		kp_verdict_init(&built);
		bo.build_only = 1;
		if (!kp_eval_file(h->o.task, h->o.task->reference, &bo, &built, err) && built.artifact)
			ej = measure_energy(h, built.artifact, "reference", &em);
		kp_error_clear(err);
		kp_verdict_release(&built);
	}
	rc = profile(h, "reference", path, &eo, isfinite(ej) ? &em : NULL, out, 1);
	if (!rc && h->o.energy && kp_task_kind_info(h->o.task->kind)->energy)
		out->energy_j = ej;
	out->wall_s = kp_now() - t0;
	out->gpu_s = out->wall_s; /* timing, energy and profiling: all of it on the GPU */
	if (!rc)
		kp_refcache_store(h->refkey, h->profile_dir, out, h->o.eval.floor_time_s);
out:
	kp_baseline_release(&b);
	kp_buf_release(&shim);
	kp_buf_release(&src);
	return rc;
}

static int harness_evaluate(struct kp_search_evaluator *base, long node, const char *source, const char *lang,
			    struct kp_search_eval *out, struct kp_error *err)
{
	struct harness *h = base->priv;
	struct kp_verdict v;
	struct kp_buf path = KP_BUF_INIT;
	struct kp_eval_job *job = NULL;
	char tag[32];
	double t0 = kp_now(), g0;
	int rc = 0;

	(void)lang;
	kp_verdict_init(&v);
	snprintf(tag, sizeof(tag), "%ld", node);
	cand_path(h, node, &path);
	if (!take_staged(h, node, &job, &rc, err))
		rc = kp_eval_stage(h->o.task, source, strlen(source), path.buf, &h->o.eval, &job, err);
	if (rc)
		goto out;
	hold_next(h); /* the next profile's start-up beside this evaluation */
	/* The GPU slot is busy from the harness run's start to the end of the energy measurement. */
	g0 = kp_now();
	kp_eval_job_start(worker(h), job);
	rc = kp_eval_job_finish(job, &v, err);
	out->gpu_s = kp_now() - g0;
	if (rc)
		goto out;
	out->outcome = outcome_of(v.status);
	if (out->outcome == KP_OUTCOME_NONE) {
		rc = kp_error_set(err, KP_EINVAL, "the evaluation of #%ld ended as '%s', not a verdict", node,
				  kp_status_name(v.status));
		goto out;
	}
	out->time_ms = v.runtime.median_ms;
	out->time_std_ms = v.runtime.std_ms;
	out->ref_time_ms = v.ref_runtime.median_ms;
	out->speedup = v.speedup;
	if (out->outcome == KP_OUTCOME_CORRECT &&
	    (rc = kp_eval_numbers_check("the evaluation", out->time_ms, out->time_std_ms, out->ref_time_ms,
					out->speedup, NAN, err)))
		goto out;
	if (v.log || v.message) {
		struct kp_buf log = KP_BUF_INIT;
		if (v.message)
			kp_buf_addf(&log, "%s\n", v.message);
		if (v.log)
			kp_buf_adds(&log, v.log);
		kp_buf_rtrim(&log);
		out->log = kp_buf_detach(&log, NULL);
	}
	out->verdict_json = json_text(kp_verdict_to_json(&v));
	if (out->outcome == KP_OUTCOME_CORRECT) {
		/* Kept for the profile, so that its energy paragraph quotes NVML (harness_profile). */
		struct kept_energy *k = &h->energy[h->energy_next++ % ENERGY_KEPT];
		out->energy_j = measure_energy(h, v.artifact, tag, &k->m);
		k->node = isfinite(out->energy_j) ? node : 0;
		out->gpu_s = kp_now() - g0;
	}
out:
	out->wall_s = kp_now() - t0;
	kp_verdict_release(&v);
	kp_buf_release(&path);
	return rc;
}

/*
 * profile(): ncu over one correct candidate's calls and the diagnosis (its file written again where
 * kp_eval_prepare reads it), with the NVML measurement its evaluation made when this evaluator still
 * holds it (else the energy paragraph rests on the proxy alone).
 */
static int harness_profile(struct kp_search_evaluator *base, long node, const char *source, const char *lang,
                           struct kp_search_eval *out, struct kp_error *err)
{
	struct harness *h = base->priv;
	struct kp_buf path = KP_BUF_INIT, dir = KP_BUF_INIT;
	const struct kp_energy_measurement *em = NULL;
	char tag[32];
	double t0 = kp_now();
	int rc;

	(void)lang;
	snprintf(tag, sizeof(tag), "%ld", node);
	for (size_t i = 0; i < ENERGY_KEPT; i++)
		if (h->energy[i].node == node)
			em = &h->energy[i].m;
	cand_path(h, node, &path);
	kp_path_join(&dir, h->profile_dir, tag);
	if (!(rc = kp_mkdir_p(dir.buf, 0755, err)) &&
	    !(rc = kp_write_file_atomic(path.buf, source, strlen(source), err)))
		rc = profile(h, tag, path.buf, &h->o.eval, em, out, 0);
	out->wall_s = out->gpu_s = kp_now() - t0; /* all of it on the GPU slot */
	kp_buf_release(&path);
	kp_buf_release(&dir);
	return rc;
}

/* The tuner's progress: one fresh evaluation (the untuned re-check included) for the loop's accounting. */
static void tune_progress(void *ctx, const char *point, enum kp_tune_status st, double seconds, size_t done)
{
	const struct kp_search_tune_req *req = ctx;
	(void)point, (void)st, (void)seconds, (void)done;
	if (req->evaluated)
		req->evaluated(req->ud);
}

/*
 * The tune action through lib/eval's tuner (kp_tuner_run): the version re-checked as given, then its
 * variants built in parallel and checked and timed one at a time with this evaluator's protocol and
 * anti-cheat floor, in its warm worker (KernelBench tasks); no profiling. The run database is the
 * result cache. What is about the version (no knob, not correct as given, no variant correct) is a note.
 */
static int harness_tune(struct kp_search_evaluator *base, const struct kp_search_tune_req *req,
                        struct kp_search_tuning *out, struct kp_error *err)
{
	struct harness *h = base->priv;
	struct kp_tuner_opts o;
	struct kp_tuner_result r;
	struct kp_error sub = KP_ERROR_INIT, ferr = KP_ERROR_INIT;
	char name[64];
	int rc, frc = 0;

	kp_tuner_opts_init(&o);
	o.tune = req->tune;
	o.eval = &h->o.eval;
	o.derive = req->derive;
	o.hw = h->o.hw_key;
	o.cache = req->cache;
	o.worker = worker(h);
	o.start_worker = 0; /* the run's worker, or cold as the run's evaluations are */
	o.progress = tune_progress;
	o.progress_ctx = (void *)req;
	snprintf(name, sizeof(name), "tune-%ld.%s", req->node_id, kp_task_kind_info(h->o.task->kind)->ext);
	kp_tuner_result_init(&r);
	rc = kp_tuner_run(h->o.task, req->source, strlen(req->source), name, &o, &r, &sub);
	if (r.space && r.tune.ntrials)
		frc = kp__search_tuning_fill(r.space, &r.tune, req->children, out, &ferr);
	snprintf(out->gpu, sizeof(out->gpu), "%s", r.gpu);
	out->evaluated = r.evaluated;
	out->wall_s = r.wall_s;
	out->gpu_s = r.wall_s; /* the GPU slot is the tuning's from its first build to its last timing */
	if (rc && kp__search_tune_note_error(rc)) {
		free(out->note);
		out->note = kp_xstrdup(kp_error_msg(&sub));
		rc = 0;
	}
	if (rc)
		kp_error_set(err, rc, "%s", kp_error_msg(&sub));
	else if (frc)
		rc = kp_error_set(err, frc, "%s", kp_error_msg(&ferr));
	kp_tuner_result_release(&r);
	return rc;
}

static void harness_free(struct kp_search_evaluator *base)
{
	struct harness *h = base->priv;
	pthread_mutex_lock(&h->mu);
	h->shutdown = 1;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	for (int i = 0; i < h->nstagers; i++)
		pthread_join(h->stagers[i], NULL);
	while (h->staged) {
		struct staged *st = h->staged;
		h->staged = st->next;
		staged_free(st);
	}
	kp_eval_worker_stop(h->worker, 0);
	kp_ncu_held_free(h->held);
	kp_strvec_release(&h->held_argv);
	kp_strvec_release(&h->held_env);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	kp_strvec_release(&h->metrics);
	kp_strvec_release(&h->all_checks);
	free(h->profile_dir);
	free(h);
}

int kp_harness_evaluator_new(struct kp_search_evaluator **out, const struct kp_harness_opts *o, struct kp_error *err)
{
	struct harness *h;
	size_t n;
	const struct kp_check_info *checks = kp_checks(&n);
	int rc;

	*out = NULL;
	if (!o->task || !o->profile_dir)
		return kp_error_set(err, KP_EINVAL, "harness evaluator: a task and a profile directory are required");
	if ((rc = kp_mkdir_p(o->profile_dir, 0755, err)))
		return rc;
	h = kp_xcalloc(1, sizeof(*h));
	h->o = *o;
	h->profile_dir = kp_xstrdup(o->profile_dir);
	h->o.profile_dir = h->profile_dir;
	for (size_t i = 0; i < n; i++)
		if (checks[i].stage == KP_CHECK_STATIC)
			kp_strvec_push(&h->all_checks, checks[i].id);
	h->base.name = "harness";
	h->base.reference = harness_reference;
	h->base.evaluate = harness_evaluate;
	h->base.free = harness_free;
	h->base.prepare = harness_prepare;
	h->base.concurrent = 1;
	h->base.tune = harness_tune;
	h->base.profile = harness_profile;
	h->base.priv = h;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	/* The collection set: Stage 1's, every tool's (the class is unknown before the run), the energy proxy's. */
	if (o->toolset && (rc = kp_pipeline_collection(o->toolset, NULL, o->stage2.energy, &h->metrics, NULL, err))) {
		harness_free(&h->base);
		return rc;
	}
	kp_refcache_key(&h->o, &h->metrics, h->refkey);
	h->o.task_sha256 = h->o.gpu_name = NULL; /* the caller's strings: only the key keeps them */
	worker_launch(h);
	*out = &h->base;
	return 0;
}
