/*
 * Tuning in one process (kp_tuner_run): lib/tune's strategies over variants that this file builds in
 * parallel, then checks and times one at a time with the evaluation's protocol, through the warm
 * worker for KernelBench tasks; results through the caller's cache or the file cache.
 */
#include "base/setup.h"

#include <math.h>
#include <pthread.h>
#include <unistd.h>

#include "eval/build.h"
#include "kernelpro/fs.h"
#include "kernelpro/hash.h"
#include "kernelpro/hw.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"
#include "kernelpro/task_kind.h"
#include "kernelpro/tuner.h"

#define JOBS_MAX 16

/* What this run evaluated, by point: how the cache wrapper knows a result is this run's. */
struct memo {
	char *point;
	struct kp_tune_measure m;
	enum kp_status verdict;
	char *message;
	double wall_s;
};

struct tuner {
	const struct kp_task *task;
	const struct kp_tuner_opts *o;
	const char *name;
	struct kp_toolchain tc;
	struct kp_eval_opts untuned; /* the candidate as given: the reference timed too */
	struct kp_eval_opts eval;    /* the variants */
	struct kp_eval_opts build;   /* the parallel builds: build-only, cold */
	int prebuild;
	size_t jobs;
	struct kp_eval_worker *w;
	int own_w;
	struct memo *memo;
	size_t nmemo, memo_alloc;
	const struct kp_tune_cache *inner; /* the caller's or the file cache; NULL: none */
	struct kp_tune_fcache *fc;
	struct kp_tune_cache fc_iface;
	size_t evaluated;
};

void kp_tuner_opts_init(struct kp_tuner_opts *o)
{
	memset(o, 0, sizeof(*o));
	kp_tune_opts_init(&o->tune);
	o->tune.batch = 0;
	o->derive = KP_TUNE_DERIVE_AUTO;
	o->start_worker = 1;
}

void kp_tuner_result_init(struct kp_tuner_result *r)
{
	memset(r, 0, sizeof(*r));
	kp_tune_result_init(&r->tune);
	kp_verdict_init(&r->untuned);
	r->ref_s = NAN;
}

void kp_tuner_result_release(struct kp_tuner_result *r)
{
	for (size_t i = 0; r->notes && i < r->tune.ntrials; i++)
		free(r->notes[i].message);
	free(r->notes);
	kp_tune_space_free(r->space);
	kp_tune_result_release(&r->tune);
	kp_verdict_release(&r->untuned);
	free(r->best_source);
	kp_tuner_result_init(r);
}

/* ---- reading the candidate ------------------------------------------------------------------------ */

static int lang_of(const struct kp_task *t, enum kp_tune_lang *lang, struct kp_error *err)
{
	const char *l = kp_task_kind_info(t->kind)->lang;
	if (!strcmp(l, "cuda"))
		*lang = KP_TUNE_CUDA;
	else if (!strcmp(l, "python"))
		*lang = KP_TUNE_PYTHON;
	else
		return kp_error_set(err, KP_EUNSUPPORTED,
		                    "tune: %s candidates (%s) have no knobs kernelpro reads",
		                    kp_task_kind_info(t->kind)->name, l);
	return 0;
}

static const char *base_name(const char *name)
{
	const char *b = name ? strrchr(name, '/') : NULL;
	return b ? b + 1 : name ? name : "candidate";
}

/* The knobs of src with the overrides applied; KP_EMISSING when there are none. */
static int read_space(const struct kp_task *task, const char *src, size_t len, const char *name,
                      const struct kp_tuner_opts *o, struct kp_tune_space **out, struct kp_error *err)
{
	enum kp_tune_lang lang = KP_TUNE_CUDA;
	int rc;

	*out = NULL;
	if ((rc = lang_of(task, &lang, err)) ||
	    (rc = kp_tune_parse(out, base_name(name), src, len, lang, o->derive, err)))
		return rc;
	if (kp_tune_nknobs(*out) == 0)
		rc = kp_error_set(
		    err, KP_EMISSING,
		    "'%s' declares no knob and kernelpro derives none from it: declare the values to "
		    "try with %s (docs/tune.md)",
		    base_name(name),
		    lang == KP_TUNE_PYTHON ? "a module-level KP_TUNE = {\"NAME\": [default, v2, ...]}"
		                           : "KP_TUNE(NAME, default, v2, ...) from kp_tune.h");
	for (const char *const *k = o->knobs; !rc && k && *k; k++)
		rc = kp_tune_set_values_text(*out, *k, err);
	if (rc) {
		kp_tune_space_free(*out);
		*out = NULL;
	}
	return rc;
}

/* Binds s to the constants of GPU `spec` and the task's shapes. */
static int bind_to(struct kp_tune_space *s, const struct kp_task *task, const struct kp_hw_spec *spec,
                   struct kp_error *err)
{
	struct kp_tune_env env;
	int rc;
	kp_tune_env_init(&env);
	kp_tune_env_add_hw(&env, spec);
	if ((rc = kp_tune_env_add_task(&env, task, err)))
		return rc;
	return kp_tune_bind(s, &env, err);
}

/* The GPU for the constraints: the key given, else the GPU named (the harness's), else the device. */
static int find_spec(const char *key, const char *named, int gpu, struct kp_hw *hw,
                     const struct kp_hw_spec **spec, struct kp_error *err)
{
	*spec = NULL;
	if (key) {
		if (!(*spec = kp_hw_spec_find(key)))
			return kp_error_set(
			    err, KP_EINVAL,
			    "no GPU '%s' in the hardware table: see 'kernelpro hw show --list'", key);
		return 0;
	}
	if (named && *named && (*spec = kp_hw_spec_find(named)))
		return 0;
	if (kp_hw_load(hw, NULL, gpu, NULL) == 0) {
		*spec = &hw->spec;
		return 0;
	}
	return kp_error_set(
	    err, KP_ENODEV,
	    "the constraints need the GPU's limits and kernelpro does not know the GPU '%s': pass its key "
	    "with --hw (see 'kernelpro hw show --list')",
	    named && *named ? named : "unknown");
}

int kp_tuner_space(const struct kp_task *task, const char *src, size_t len, const char *name,
                   const struct kp_tuner_opts *o, struct kp_tune_space **out, char *hw_key, size_t n,
                   struct kp_error *err)
{
	const struct kp_hw_spec *spec;
	struct kp_hw hw;
	int rc;

	if ((rc = read_space(task, src, len, name, o, out, err)))
		return rc;
	if (find_spec(o->hw, NULL, o->eval ? o->eval->gpu : 0, &hw, &spec, NULL))
		spec = kp_hw_spec_find("h200-sxm"); /* the constants' names are the same on every GPU */
	if (hw_key)
		snprintf(hw_key, n, "%s", spec->key);
	if ((rc = bind_to(*out, task, spec, err))) {
		kp_tune_space_free(*out);
		*out = NULL;
	}
	return rc;
}

/* ---- evaluating variants ---------------------------------------------------------------------------- */

static struct memo *memo_find(const struct tuner *T, const char *point)
{
	for (size_t i = 0; i < T->nmemo; i++)
		if (!strcmp(T->memo[i].point, point))
			return &T->memo[i];
	return NULL;
}

static int measure_of(const struct kp_verdict *v, struct kp_tune_measure *m, struct kp_error *err)
{
	m->seconds = 0;
	switch (v->status) {
	case KP_STATUS_CORRECT:
		m->status = KP_TUNE_OK;
		m->seconds = v->runtime.median_ms / 1e3;
		if (!(isfinite(m->seconds) && m->seconds > 0))
			m->status = KP_TUNE_RUN_FAILED, m->seconds = 0;
		return 0;
	case KP_STATUS_COMPILE_ERROR: m->status = KP_TUNE_BUILD_FAILED; return 0;
	case KP_STATUS_RUNTIME_ERROR:
	case KP_STATUS_TIMEOUT: m->status = KP_TUNE_RUN_FAILED; return 0;
	case KP_STATUS_WRONG_OUTPUT: m->status = KP_TUNE_WRONG; return 0;
	case KP_STATUS_CHEAT_SUSPECTED: m->status = KP_TUNE_REFUSED; return 0;
	case KP_STATUS_NONE:
	case KP_STATUS_COMPILED: break;
	}
	return kp_error_set(err, KP_EINVAL, "tune: an evaluation ended as '%s', not a verdict",
	                    kp_status_name(v->status));
}

/* One variant on its way through the evaluation. */
struct job {
	char *point;
	struct kp_buf src;
	struct kp_verdict v;
	struct kp_error err;
	int rc;
	int done; /* answered from the memo, or its build already decided it */
	double t0;
};

static int record(struct tuner *T, struct job *j, struct kp_tune_measure *out, struct kp_error *err)
{
	struct memo *m;
	int rc;
	if ((rc = measure_of(&j->v, out, err)))
		return rc;
	KP_ALLOC_GROW(T->memo, T->nmemo + 1, T->memo_alloc);
	m = &T->memo[T->nmemo++];
	m->point = kp_xstrdup(j->point);
	m->m = *out;
	m->verdict = j->v.status;
	m->message = j->v.message ? kp_xstrdup(j->v.message) : NULL;
	m->wall_s = kp_now() - j->t0;
	T->evaluated++;
	j->done = 1;
	if (T->o->progress)
		T->o->progress(T->o->progress_ctx, j->point, out->status, out->seconds, T->evaluated);
	return 0;
}

struct pool {
	struct tuner *T;
	struct job *jobs;
	size_t n, next;
	pthread_mutex_t lock;
};

static void *build_worker(void *ud)
{
	struct pool *p = ud;
	for (;;) {
		struct job *j = NULL;
		pthread_mutex_lock(&p->lock);
		while (p->next < p->n && !j) {
			j = &p->jobs[p->next++];
			if (j->done)
				j = NULL;
		}
		pthread_mutex_unlock(&p->lock);
		if (!j)
			return NULL;
		j->rc = kp_eval_source(p->T->task, j->src.buf, j->src.len, p->T->name, &p->T->build, &j->v,
		                       &j->err);
	}
}

/*
 * Builds the variants not done yet, several at once (each its own build-only evaluation: the same build
 * cache keys as the timed evaluation that follows, which then finds them built). A variant that does
 * not build, or is refused, is decided here.
 */
static int build_all(struct tuner *T, struct job *jobs, size_t n, struct kp_tune_measure *out,
                     struct kp_error *err)
{
	struct pool p = {.T = T, .jobs = jobs, .n = n};
	size_t todo = 0, nthreads, started = 0;
	pthread_t t[JOBS_MAX];
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		todo += !jobs[i].done;
	if (todo < 2)
		return 0; /* nothing to overlap: the evaluation builds it */
	nthreads = todo < T->jobs ? todo : T->jobs;
	pthread_mutex_init(&p.lock, NULL);
	while (started + 1 < nthreads && !pthread_create(&t[started], NULL, build_worker, &p))
		started++;
	build_worker(&p);
	for (size_t i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_destroy(&p.lock);

	for (size_t i = 0; i < n && !rc; i++) {
		struct job *j = &jobs[i];
		if (j->done)
			continue;
		if (j->rc) {
			rc = kp_error_set(err, j->rc, "%s", kp_error_msg(&j->err));
		} else if (j->v.status == KP_STATUS_COMPILE_ERROR ||
		           j->v.status == KP_STATUS_CHEAT_SUSPECTED) {
			rc = record(T, j, &out[i], err);
		} else {
			kp_verdict_release(&j->v);
			j->t0 = kp_now(); /* the build is not part of its evaluation's time from here */
		}
	}
	return rc;
}

/* Checks and times the variants not done yet, one after the other on the GPU. */
static int time_all(struct tuner *T, const struct kp_eval_opts *eo, struct job *jobs, size_t n,
                    struct kp_tune_measure *out, struct kp_error *err)
{
	struct kp_eval_job **q = kp_xcalloc(n ? n : 1, sizeof(*q));
	int rc = 0;

	/* With a worker, everything is queued first: kernelpro prepares the next while the GPU runs one. */
	for (size_t i = 0; i < n && !rc; i++) {
		if (jobs[i].done)
			continue;
		rc = kp_eval_submit(T->w, T->task, jobs[i].src.buf, jobs[i].src.len, T->name, eo, &q[i], err);
		if (rc || T->w)
			continue;
		/* cold: one harness at a time, so the work directories do not pile up */
		rc = kp_eval_job_finish(q[i], &jobs[i].v, err);
		q[i] = NULL;
		if (!rc)
			rc = record(T, &jobs[i], &out[i], err);
	}
	for (size_t i = 0; i < n; i++) {
		if (!q[i])
			continue;
		if (rc) { /* an error stops the tuning: the rest still has to be collected */
			kp_eval_job_finish(q[i], &jobs[i].v, NULL);
			continue;
		}
		if (!(rc = kp_eval_job_finish(q[i], &jobs[i].v, err)))
			rc = record(T, &jobs[i], &out[i], err);
	}
	free(q);
	return rc;
}

static void jobs_free(struct job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].point);
		kp_buf_release(&jobs[i].src);
		kp_verdict_release(&jobs[i].v);
	}
	free(jobs);
}

static int evaluate(void *ctx, const struct kp_tune_space *s, const struct kp_tune_point *pts, size_t n,
                    struct kp_tune_measure *out, struct kp_error *err)
{
	struct tuner *T = ctx;
	struct job *jobs = kp_xcalloc(n ? n : 1, sizeof(*jobs));
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		struct kp_buf b = KP_BUF_INIT;
		const struct memo *m;
		kp_tune_point_format(s, &pts[i], &b);
		jobs[i].point = kp_buf_detach(&b, NULL);
		jobs[i].src = (struct kp_buf)KP_BUF_INIT;
		jobs[i].err = (struct kp_error)KP_ERROR_INIT;
		jobs[i].t0 = kp_now();
		kp_verdict_init(&jobs[i].v);
		if ((m = memo_find(T, jobs[i].point))) {
			out[i] = m->m;
			jobs[i].done = 1;
			continue;
		}
		rc = kp_tune_variant(s, &pts[i], &jobs[i].src, err);
	}
	if (!rc && T->prebuild)
		rc = build_all(T, jobs, n, out, err);
	if (!rc)
		rc = time_all(T, &T->eval, jobs, n, out, err);
	jobs_free(jobs, n);
	return rc;
}

/* The cache as kp_tune_run sees it: a point this run evaluated is answered by `evaluate` from the memo
 * (a fresh result, not a cache hit); anything else goes to the real cache. */
static int wrap_get(void *ctx, const struct kp_tune_key *k, struct kp_tune_measure *m, struct kp_error *err)
{
	struct tuner *T = ctx;
	if (memo_find(T, k->point) || !T->inner || !T->inner->get)
		return 0;
	return T->inner->get(T->inner->ctx, k, m, err);
}

static int wrap_put(void *ctx, const struct kp_tune_key *k, const struct kp_tune_measure *m,
                    struct kp_error *err)
{
	struct tuner *T = ctx;
	if (!T->inner || !T->inner->put)
		return 0;
	return T->inner->put(T->inner->ctx, k, m, err);
}

/* ---- the run ---------------------------------------------------------------------------------------- */

/* What else a cached result depends on: the task, the protocol, the toolchain, this kernelpro. */
static void context_of(const struct tuner *T, char hex[65])
{
	struct kp_sha256 h;
	struct kp_buf b = KP_BUF_INIT;
	json_t *task = kp_task_to_json(T->task);
	const struct kp_eval_opts *e = &T->eval;

	kp_json_dump_buf(task, &b, 1);
	kp_buf_addf(&b, "\nkernelpro %s\nseed %ld trials %d/%d/%d/%d l2 %d cpu %d tol %.17g %.17g %d\n",
	            KP_VERSION, e->seed, e->correct_trials, e->warmup, e->timing_trials, e->discard_first,
	            e->l2_flush, e->cpu_inputs, e->atol, e->rtol, (int)e->tol_mode);
	for (const char *const *a = e->allow_checks; a && *a; a++)
		kp_buf_addf(&b, "allow %s\n", *a);
	kp_buf_addf(&b, "nvcc %s\narch %s\n", T->tc.version, T->tc.arch);
	for (size_t i = 0; i < T->tc.flags.n; i++)
		kp_buf_addf(&b, "flag %s\n", T->tc.flags.v[i]);
	kp_sha256_init(&h);
	kp_sha256_update_str(&h, "kernelpro-tune-context-v1");
	kp_sha256_update(&h, b.buf, b.len);
	kp_sha256_update(&h, T->task->source, strlen(T->task->source));
	kp_sha256_final(&h, hex);
	json_decref(task);
	kp_buf_release(&b);
}

static int open_cache(struct tuner *T, struct kp_error *err)
{
	struct kp_buf dir = KP_BUF_INIT;
	char ctx[65];
	int rc = 0;

	if (T->o->cache) {
		T->inner = T->o->cache;
		return 0;
	}
	if (T->o->no_cache)
		return 0;
	if (T->o->cache_dir)
		kp_buf_adds(&dir, T->o->cache_dir);
	else if (!(rc = kp_cache_dir(&dir, err)))
		kp_buf_adds(&dir, "/tune");
	context_of(T, ctx);
	if (!rc && !(rc = kp_tune_fcache_open(&T->fc, dir.buf, ctx, err))) {
		T->fc_iface = kp_tune_fcache_iface(T->fc);
		T->inner = &T->fc_iface;
	}
	kp_buf_release(&dir);
	return rc;
}

static size_t default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 2 ? 2 : n > JOBS_MAX ? JOBS_MAX : (size_t)n;
}

/* Native builds happen in kernelpro (nvcc, ~1 s, many at once); a KernelBench (or Triton) candidate
 * builds in its harness child, whose `import torch` alone costs more than a fast-path build (~4 s
 * against ~1 s on the H200 machine), so only load_inline candidates (~27 s a build) are worth
 * building ahead in parallel (a Triton kernel compiles at its first call, never ahead). */
static int worth_prebuilding(const struct kp_task *t, const char *src, size_t len)
{
	if (!kp_task_kind_info(t->kind)->python)
		return 1;
	return memmem(src, len, "load_inline", 11) != NULL || memmem(src, len, "cpp_extension", 13) != NULL;
}

static int setup(struct tuner *T, const struct kp_task *task, const char *src, size_t len, const char *name,
                 const struct kp_tuner_opts *o, struct kp_tuner_result *r, struct kp_error *err)
{
	struct kp_eval_opts defaults;
	const struct kp_eval_opts *e = o->eval;
	int rc;

	if (!e) {
		kp_eval_opts_init(&defaults);
		e = &defaults;
	}
	T->task = task;
	T->o = o;
	T->name = name ? name : "candidate";
	T->jobs = o->jobs ? (o->jobs > JOBS_MAX ? JOBS_MAX : o->jobs) : default_jobs();
	if ((rc = kp_toolchain_resolve(&T->tc, e, e->gpu, err)))
		return rc;
	T->eval = *e;
	/* Resolved once here rather than per evaluation (the arch asks the driver), shared by the threads. */
	T->eval.nvcc = T->tc.nvcc;
	T->eval.arch = T->tc.arch;
	T->eval.cache_dir = T->tc.cache;
	T->eval.work_dir = NULL; /* parallel builds each need their own */
	T->eval.build_only = 0;
	T->eval.time_candidate = 1;
	T->eval.time_compiled = 0;
	T->eval.loop_s = 0;
	T->eval.worker = 0; /* the worker is T->w */
	T->untuned = T->eval;
	T->untuned.time_reference = 1;
	T->eval.time_reference = 0;
	T->eval.sanitize = 0; /* a memcheck rerun per crashing variant would cost more than the tuning */
	T->build = T->eval;
	T->build.build_only = 1;
	T->prebuild = worth_prebuilding(task, src, len);

	if (o->worker) {
		T->w = o->worker;
	} else if (o->start_worker && kp_task_kind_info(task->kind)->python) {
		struct kp_error werr = KP_ERROR_INIT;
		if (kp_eval_worker_start(e->gpu, &T->eval, &T->w, &werr) == 0)
			T->own_w = 1;
		else
			snprintf(r->worker_note, sizeof(r->worker_note),
			         "%s; every variant starts its harness cold", kp_error_msg(&werr));
	}
	return open_cache(T, err);
}

static void teardown(struct tuner *T)
{
	for (size_t i = 0; i < T->nmemo; i++) {
		free(T->memo[i].point);
		free(T->memo[i].message);
	}
	free(T->memo);
	if (T->own_w)
		kp_eval_worker_stop(T->w, 0);
	kp_tune_fcache_free(T->fc);
	kp_toolchain_release(&T->tc);
}

/* The candidate as given: correct, or no tuning. Its verdict is r->untuned; its point enters the memo. */
static int check_untuned(struct tuner *T, const char *src, size_t len, struct kp_tuner_result *r,
                         struct kp_error *err)
{
	struct kp_tune_point def;
	struct kp_buf point = KP_BUF_INIT;
	struct job j = {.src = KP_BUF_INIT, .err = KP_ERROR_INIT};
	struct kp_tune_measure m;
	int rc;

	kp_tune_default_point(r->space, &def);
	kp_tune_point_format(r->space, &def, &point);
	j.point = point.buf;
	j.t0 = kp_now();
	kp_buf_add(&j.src, src, len);
	kp_verdict_init(&j.v);
	rc = time_all(T, &T->untuned, &j, 1, &m, err);
	/* kp_verdict has no copy: hand this one over whole. */
	r->untuned = j.v;
	kp_verdict_init(&j.v);
	if (rc)
		goto out;
	if (r->untuned.status != KP_STATUS_CORRECT) {
		rc = kp_error_set(
		    err, KP_EINVAL,
		    "'%s' is not correct as given (%s: %s): tuning starts from a correct candidate; see "
		    "'kernelpro eval' for the whole verdict",
		    base_name(T->name), kp_status_name(r->untuned.status),
		    r->untuned.message ? r->untuned.message : "no message");
		goto out;
	}
	r->ref_s = r->untuned.ref_runtime.median_ms / 1e3;
	if (!(isfinite(r->ref_s) && r->ref_s > 0))
		r->ref_s = NAN;
	snprintf(r->gpu, sizeof(r->gpu), "%s", r->untuned.gpu_name[0] ? r->untuned.gpu_name : "unknown");
out:
	kp_buf_release(&point);
	kp_buf_release(&j.src);
	return rc;
}

/* A space whose only (feasible) point is the untuned one has nothing to try. Unbound: by its size. */
static int something_to_try(const struct kp_tune_space *s, int bound, const char *name, struct kp_error *err)
{
	struct kp_tune_point def;
	uint64_t n = kp_tune_space_size(s);
	kp_tune_default_point(s, &def);
	if (bound && (kp_tune_count_feasible(s, &n, NULL) || !kp_tune_feasible(s, &def)))
		return 0;
	if (n > 1)
		return 0;
	return kp_error_set(
	    err, KP_EMISSING,
	    "'%s': the knobs' values and constraints leave only the untuned point; give some knob more "
	    "values (--knob NAME=v1,v2) or relax a constraint",
	    name);
}

static int failed_summary(const struct kp_tune_result *t, const char *name, struct kp_error *err)
{
	size_t count[KP_TUNE_REFUSED + 1] = {0};
	struct kp_buf b = KP_BUF_INIT;
	int rc;
	for (size_t i = 0; i < t->ntrials; i++)
		count[t->trials[i].m.status]++;
	for (int s = KP_TUNE_BUILD_FAILED; s <= KP_TUNE_REFUSED; s++)
		if (count[s])
			kp_buf_addf(&b, "%s%zu %s", b.len ? ", " : "", count[s],
			            kp_tune_status_name((enum kp_tune_status)s));
	rc = kp_error_set(
	    err, KP_EMISSING,
	    "none of the %zu variants of '%s' tried was correct (%s); the table shows each one's status",
	    t->ntrials, name, b.len ? b.buf : "none tried");
	kp_buf_release(&b);
	return rc;
}

/* Per trial: what its evaluation said (from the memo), or nothing for a cached result. */
static void fill_notes(const struct tuner *T, struct kp_tuner_result *r)
{
	r->notes = kp_xcalloc(r->tune.ntrials ? r->tune.ntrials : 1, sizeof(*r->notes));
	for (size_t i = 0; i < r->tune.ntrials; i++) {
		struct kp_buf p = KP_BUF_INIT;
		const struct memo *m;
		kp_tune_point_format(r->space, &r->tune.trials[i].point, &p);
		m = r->tune.trials[i].cached ? NULL : memo_find(T, p.buf);
		if (m) {
			r->notes[i].verdict = m->verdict;
			r->notes[i].message = m->message ? kp_xstrdup(m->message) : NULL;
			r->notes[i].wall_s = m->wall_s;
		}
		kp_buf_release(&p);
	}
}

int kp_tuner_run(const struct kp_task *task, const char *src, size_t len, const char *name,
                 const struct kp_tuner_opts *o, struct kp_tuner_result *r, struct kp_error *err)
{
	struct tuner T = {0};
	struct kp_tune_evaluator ev = {evaluate, &T};
	struct kp_tune_cache wrap = {wrap_get, wrap_put, &T};
	struct kp_tune_opts topts = o->tune;
	const struct kp_hw_spec *spec;
	struct kp_hw hw;
	double t0 = kp_now();
	int rc;

	kp_tuner_result_release(r);
	/* The space first: a candidate without knobs costs nothing, and a constraint naming a constant that
	 * does not exist fails before the GPU is asked (the constants' names are the same on every GPU). */
	if ((rc = kp_tuner_space(task, src, len, name, o, &r->space, NULL, 0, err)) ||
	    (rc = something_to_try(r->space, 0, base_name(name), err)))
		return rc;
	if ((rc = setup(&T, task, src, len, name, o, r, err)) || (rc = check_untuned(&T, src, len, r, err)))
		goto out;
	if ((rc = find_spec(o->hw, r->untuned.gpu_name, T.eval.gpu, &hw, &spec, err)) ||
	    (rc = bind_to(r->space, task, spec, err)) ||
	    (rc = something_to_try(r->space, 1, base_name(name), err)))
		goto out;

	topts.gpu = r->gpu;
	if (!topts.batch) /* the model learns between batches: small ones for it (docs/tune.md) */
		topts.batch = topts.strategy == KP_TUNE_EXHAUSTIVE || topts.strategy == KP_TUNE_RANDOM
		                  ? T.jobs
		                  : (topts.budget / 8 < 1        ? 1
		                     : topts.budget / 8 > T.jobs ? T.jobs
		                                                 : topts.budget / 8);
	rc = kp_tune_run(r->space, &topts, &ev, &wrap, &r->tune, err);
	fill_notes(&T, r);
	if (rc)
		goto out;
	if (r->tune.best < 0) {
		rc = failed_summary(&r->tune, base_name(name), err);
		goto out;
	}
	{
		struct kp_buf best = KP_BUF_INIT;
		if ((rc = kp_tune_variant(r->space, &r->tune.trials[r->tune.best].point, &best, err))) {
			kp_buf_release(&best);
			goto out;
		}
		r->best_source = kp_buf_detach(&best, &r->best_len);
	}
out:
	r->evaluated = T.evaluated;
	r->wall_s = kp_now() - t0;
	teardown(&T);
	return rc;
}
