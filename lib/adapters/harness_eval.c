/*
 * The harness evaluator: the search's evaluator built from the evaluation engine (lib/eval: build,
 * check, time, anti-cheat), the profiler (lib/profile: ncu on the candidate's calls only) and the
 * diagnosis pipeline (lib/tools/pipeline.c: GPU model, Stage 1, the tools, the semantic feedback).
 * evaluate() gives a candidate's verdict, times and energy; profile() profiles and diagnoses a correct
 * one when the loop asks (on demand: docs/internals/search.md), through harness_profile.c. Profiling
 * problems never fail anything: the version keeps its verdict and timing, the feedback says less.
 */
#include "base/setup.h"

#include <math.h>
#include <pthread.h>
#include <unistd.h>

#include "kernelpro/analyze.h"
#include "kernelpro/energy.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/pipeline.h"
#include "kernelpro/search_backends.h"
#include "kernelpro/task_kind.h"
#include "kernelpro/toolchain.h"
#include "kernelpro/tuner.h"
#include "adapters/harness_int.h"
#include "adapters/refcache.h"

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
 * The warm worker for the kinds that take it (KernelBench tasks: task_kind.h), or eval.worker: launched with the evaluator, so that its start
 * (PyTorch's import, on the CPU) overlaps the reference's evaluation and the first builds and requests;
 * connected at first use. One that cannot be had: said once, and cold evaluations.
 */
static void worker_launch(struct harness *h)
{
	struct kp_error werr = KP_ERROR_INIT;
	if (h->o.eval.worker_off || (!kp_task_kind_info(h->o.task->kind)->warm_worker && !h->o.eval.worker))
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
	int rc, lock = -1, hit;

	kp_baseline_init(&b);
	hit = kp_refcache_load(h->refkey, h->profile_dir, out, &floor_s) == 0;
	if (!hit) { /* another run may be evaluating it: wait for its key's lock, then look again */
		lock = kp_refcache_lock(h->refkey);
		hit = kp_refcache_load(h->refkey, h->profile_dir, out, &floor_s) == 0;
	}
	if (hit) {
		kp_refcache_unlock(lock);
		kp_info("the reference's timing and profile come from the cache (same task, GPU and harness)");
		h->o.eval.floor_time_s = floor_s;
		if (!kp__harness_ensure_hw(h, err) && !out->hardware) {
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
	out->verdict_json = kp_json_text(kp_baseline_to_json(&b));
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
	rc = kp__harness_profile(h, "reference", path, &eo, isfinite(ej) ? &em : NULL, out, 1);
	if (!rc && h->o.energy && kp_task_kind_info(h->o.task->kind)->energy)
		out->energy_j = ej;
	out->wall_s = kp_now() - t0;
	out->gpu_s = out->wall_s; /* timing, energy and profiling: all of it on the GPU */
	if (!rc)
		kp_refcache_store(h->refkey, h->profile_dir, out, h->o.eval.floor_time_s);
out:
	kp_refcache_unlock(lock);
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
	kp__harness_hold_next(h); /* the next profile's start-up beside this evaluation */
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
	if (v.log || v.message) {
		struct kp_buf log = KP_BUF_INIT;
		if (v.message)
			kp_buf_addf(&log, "%s\n", v.message);
		if (v.log)
			kp_buf_adds(&log, v.log);
		kp_buf_rtrim(&log);
		out->log = kp_buf_detach(&log, NULL);
	}
	if (out->outcome == KP_OUTCOME_CORRECT) {
		struct kp_error why = KP_ERROR_INIT;
		if (kp_eval_numbers_check("the evaluation", out->time_ms, out->time_std_ms, out->ref_time_ms,
					  out->speedup, NAN, &why))
			kp_search_eval_implausible(out, &why); /* this candidate fails; the run goes on */
	}
	out->verdict_json = kp_json_text(kp_verdict_to_json(&v));
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
		rc = kp__harness_profile(h, tag, path.buf, &h->o.eval, em, out, 0);
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
		frc = kp_search_tuning_fill(r.space, &r.tune, req->children, out, &ferr);
	snprintf(out->gpu, sizeof(out->gpu), "%s", r.gpu);
	out->evaluated = r.evaluated;
	out->wall_s = r.wall_s;
	out->gpu_s = r.wall_s; /* the GPU slot is the tuning's from its first build to its last timing */
	if (rc && kp_search_tune_note_error(rc)) {
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
